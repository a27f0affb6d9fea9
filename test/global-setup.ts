/**
 * vitest's global setup: compiles the app once for the suites that run it as a process of its own
 * (test/helpers/built.ts), and hands them its directory.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { TestProject } from 'vitest/node'
import type {} from './helpers/built.ts'

const ROOT = join(import.meta.dirname, '..')
const CACHE = join(ROOT, 'node_modules', '.cache', 'pronet-test-build')

/** What is compiled beside src/: test helpers that run as processes of their own. */
const TEST_PROGRAMS = ['test/helpers/redis-close-child.ts']

export default async function setup(project: TestProject): Promise<void> {
  project.provide('pronetBuild', await buildForTests())
}

function sources(): string[] {
  const src = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => join('src', f))
  return [...src.sort(), ...TEST_PROGRAMS]
}

/** Compiles the app into the cache, unless a build of the same sources is there; returns its directory. */
async function buildForTests(): Promise<string> {
  const files = sources()
  // The checkout's place too: the build links back to its migrations and assets.
  const hash = createHash('sha256').update(`${ROOT}\0`)
  for (const f of ['tsconfig.json', 'tsconfig.build.json', 'package.json', ...files]) hash.update(`${f}\0`).update(readFileSync(join(ROOT, f))).update('\0')
  const dir = join(CACHE, hash.digest('hex').slice(0, 16))
  if (existsSync(join(dir, 'package.json'))) {
    const now = new Date()
    utimesSync(dir, now, now)
    return dir
  }
  const { default: ts } = await import('typescript')
  const parsed = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.build.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'))
    },
  })
  if (!parsed) throw new Error('tsconfig.build.json could not be read')
  const compilerOptions = {
    ...parsed.options,
    // The package is "type": "module": NodeNext emits ES modules here, which a file compiled on its own
    // cannot know without the package around it.
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    sourceMap: false,
    declaration: false,
    declarationMap: false,
  }
  const tmp = `${dir}.tmp-${process.pid}`
  rmSync(tmp, { recursive: true, force: true })
  for (const f of files) {
    const out = ts.transpileModule(readFileSync(join(ROOT, f), 'utf8'), { compilerOptions, fileName: join(ROOT, f), reportDiagnostics: false })
    const target = join(tmp, f.replace(/\.ts$/, '.js'))
    mkdirSync(dirname(target), { recursive: true })
    writeFileSync(target, out.outputText)
  }
  // Node stops looking for the package's "type" at node_modules: say it here. What the app reads from
  // beside its code (migrations, the console's assets) is found as from dist/.
  writeFileSync(join(tmp, 'package.json'), `${JSON.stringify({ type: 'module', private: true })}\n`)
  symlinkSync(join(ROOT, 'migrations'), join(tmp, 'migrations'))
  symlinkSync(join(ROOT, 'src', 'console', 'assets'), join(tmp, 'src', 'console', 'assets'))
  try {
    renameSync(tmp, dir)
  } catch {
    // Built meanwhile by another run: that one is the same.
    rmSync(tmp, { recursive: true, force: true })
  }
  // Builds of older sources that no run has used for a day go.
  for (const old of readdirSync(CACHE)) {
    const path = join(CACHE, old)
    if (path !== dir && Date.now() - statSync(path).mtimeMs > 86_400_000) rmSync(path, { recursive: true, force: true })
  }
  return dir
}

