/**
 * The workspace packages as their users get them: packages/client/dist and packages/mcp/dist, which
 * `npm ci` builds (the root's prepare script runs build:packages). A checkout whose package sources
 * changed since (or that was never built) is built again here with that same script, by one test
 * process at a time, so suites that load the packages never run against an old build.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'

const ROOT = join(import.meta.dirname, '..', '..')
const PACKAGES = ['packages/client', 'packages/mcp']
const LOCK = join(ROOT, 'node_modules', '.cache', 'pronet-package-build.lock')
/** A lock older than this was left by a run that died while building. */
const STALE_LOCK_MS = 120_000

export const clientDist = join(ROOT, 'packages', 'client', 'dist')
export const mcpMain = join(ROOT, 'packages', 'mcp', 'dist', 'main.js')

const mtimes = (dir: string, keep: (f: string) => boolean): number[] => {
  try {
    return readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter(keep)
      .map((f) => statSync(join(dir, f)).mtimeMs)
  } catch {
    return []
  }
}

/** Whether a package's dist/ is missing or older than any of its sources or build settings. */
function stale(pkg: string): boolean {
  const built = mtimes(join(ROOT, pkg, 'dist'), (f) => f.endsWith('.js'))
  if (built.length === 0) return true
  const sources = [
    ...mtimes(join(ROOT, pkg, 'src'), (f) => f.endsWith('.ts')),
    ...['package.json', 'tsconfig.json'].map((f) => statSync(join(ROOT, pkg, f)).mtimeMs),
  ]
  return Math.max(...sources) > Math.min(...built)
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Builds the packages unless their dist/ is up to date; waits for another process already at it. */
export async function ensurePackagesBuilt(): Promise<void> {
  for (;;) {
    if (!PACKAGES.some(stale)) return
    mkdirSync(join(LOCK, '..'), { recursive: true })
    try {
      mkdirSync(LOCK)
    } catch {
      const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now())
      if (age > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true })
      else await sleep(250)
      continue
    }
    try {
      if (PACKAGES.some(stale)) {
        await promisify(execFile)('npm', ['run', 'build:packages'], { cwd: ROOT, timeout: STALE_LOCK_MS }).catch((e: { stdout?: string; stderr?: string }) => {
          throw new Error(`npm run build:packages failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`)
        })
      }
    } finally {
      rmSync(LOCK, { recursive: true, force: true })
    }
    return
  }
}
