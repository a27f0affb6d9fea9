/**
 * Every shell sample of the documentation runs against a live server, so the docs cannot drift from
 * the product. The convention the samples follow (docs/contributing.md says it too):
 *
 * - Blocks fenced ```sh in README.md and in docs/**\/*.md (but docs/console/, which the browser test
 *   writes) are run. What cannot run here is fenced ```console (npm start, a second node,
 *   PostgreSQL, Stripe, a command with a placeholder) or ```text (output, file contents); every fence
 *   carries a language, so a shell block cannot slip out of the test unlabelled.
 * - A file's sh blocks run in order as one `bash -euo pipefail` script, so a later block sees what an
 *   earlier one set. The files run side by side against one server, each as an account of its own.
 * - Each script runs in a fresh directory holding `data/demo-key.txt` (its account's key: a custom plan
 *   roomy enough that no sample needs pacing), `docs/` and `node_modules/` (this repository's, so that
 *   a script imports '@pronet/client' and '@pronet/mcp', built as `npm ci` builds them), with `API`,
 *   `KEY`, `ADMIN` and `BASE` already set, and `PRONET_DATA_DIR` and `PRONET_ADMIN_TOKEN` as the
 *   server has them. `http://127.0.0.1:3000` in a sample is the server's address. `npx pronet …` (or
 *   `pronet …`) runs the CLI, compiled from the current sources (test/helpers/built.ts), on the
 *   server's own store.
 * - A curl whose command ends in `# → NNN` must answer status NNN; any other curl must answer 2xx; any
 *   other command must succeed.
 * - The README's tour (its two sh blocks) has its own test, readme-tour.test.ts, which runs it paced
 *   for the demo's free plan; here only its comment step is run, to see that it shows comments.
 *
 * The server is the real app on the default synthetic network (seed 1, size small, anchored now),
 * built by the first start as `npm start` does, on an embedded store in a file that the CLI's
 * processes open too.
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { collectDefaultMetrics } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config/config.ts'
import { createContainer, type Container } from '../../src/container.ts'
import { seedSynthetic } from '../../src/seed.ts'
import { prepareStore } from '../../src/startup.ts'
import { callProblems, documentationFiles, fencedBlocks, loggedCalls, ROOT, sampleScript } from '../helpers/doc-samples.ts'
import { ensurePackagesBuilt } from '../helpers/package-builds.ts'
import { cliMain } from '../helpers/server-process.ts'
import type { FastifyInstance } from 'fastify'

const ADMIN = 'samples-admin-token-0123456789'
/** The fences a block may carry: sh runs, the others are read only. */
const LANGUAGES = new Set(['sh', 'console', 'text', 'json', 'ts'])
const TOUR = '## A five-minute tour'

let root: string
let dataDir: string
let c: Container
let app: FastifyInstance
let baseUrl: string
let scripts = 0

beforeAll(async () => {
  // Built while the network is seeded; a failure is thrown once the server is up.
  const packagesBuilt = ensurePackagesBuilt()
  packagesBuilt.catch(() => {})
  // A file on tmpfs where there is one: the store is synced at every commit, and seeding commits often.
  root = tmpDir()
  dataDir = join(root, 'data')
  const config = loadConfig({ PRONET_DATA_DIR: dataDir, PRONET_SEED: 'small', PRONET_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'silent' })
  c = await createContainer(config, { commitInWorker: false })
  collectDefaultMetrics({ register: c.metrics, prefix: 'pronet_' })
  await prepareStore(c, seedSynthetic, () => {})
  app = await buildApp(c)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  await packagesBuilt
}, 240_000)

afterAll(async () => {
  await app?.close()
  await c?.close()
  // SAMPLES_KEEP=1 keeps the working directories, with what each file's samples printed (output.txt).
  if (root && process.env.SAMPLES_KEEP !== '1') rmSync(root, { recursive: true, force: true })
  else if (root) console.log(`samples: the working directories are kept in ${root}`)
})

/** A fresh directory on tmpfs where there is one that can be written, else in the system's temp dir. */
function tmpDir(): string {
  try {
    return mkdtempSync(join('/dev/shm', 'pronet-samples-'))
  } catch {
    return mkdtempSync(join(tmpdir(), 'pronet-samples-'))
  }
}

interface Run {
  code: number
  stdout: string
  stderr: string
}

/** Runs a script with `bash -euo pipefail`, from a file (so that bash keeps its lines' numbers as the preamble reads them). */
function bash(script: string, cwd: string, env: Record<string, string>): Promise<Run> {
  const file = join(cwd, `script-${++scripts}.sh`)
  writeFileSync(file, script)
  return new Promise((resolve) => {
    execFile('bash', ['-euo', 'pipefail', file], { cwd, env: { ...process.env, ...env }, timeout: 150_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    )
  })
}

/** A working directory of its own for one file's samples, with an account whose key is in data/demo-key.txt. */
async function workspace(name: string): Promise<{ cwd: string; env: Record<string, string> }> {
  const cwd = join(root, `work-${name.replace(/[^a-z0-9]+/gi, '-')}`)
  mkdirSync(join(cwd, 'data'), { recursive: true })
  symlinkSync(join(ROOT, 'docs'), join(cwd, 'docs'))
  symlinkSync(join(ROOT, 'node_modules'), join(cwd, 'node_modules'))
  const { apiKey } = await c.accounts.create({ name: `samples ${name}`, plan: 'custom', creditsLimit: 1_000_000, rpsLimit: 1_000 })
  writeFileSync(join(cwd, 'data', 'demo-key.txt'), `${apiKey.key}\n`, { mode: 0o600 })
  return {
    cwd,
    env: {
      API: `${baseUrl}/api/v1`,
      BASE: baseUrl,
      KEY: apiKey.key,
      ADMIN,
      PRONET_ADMIN_TOKEN: ADMIN,
      PRONET_DATA_DIR: dataDir,
      PRONET_SEED: 'none',
      LOG_LEVEL: 'warn',
      SAMPLES_CLI: cliMain(),
      SAMPLES_LOG: join(cwd, 'calls.log'),
    },
  }
}

/** The README's tour: the first two sh blocks after its heading. */
function isTourBlock(file: string): (block: { firstLine: number }) => boolean {
  if (file !== 'README.md') return () => false
  const readme = readFileSync(join(ROOT, file), 'utf8')
  const tourLine = readme.slice(0, readme.indexOf(TOUR)).split('\n').length
  const tour = fencedBlocks(readme).filter((b) => b.lang === 'sh' && b.firstLine > tourLine).slice(0, 2)
  return (block) => tour.some((b) => b.firstLine === block.firstLine)
}

describe('documentation', () => {
  const files = documentationFiles()

  it('README.md is at most 12,000 characters and links every document', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(12_000)
    for (const file of files.filter((f) => f !== 'README.md')) expect(readme, `README.md links ${file}`).toContain(`](${file})`)
    expect(readme).toContain('](docs/examples/records.ndjson)')
  })

  it('speaks in words, not in the labels of internal documents, and fences every block with a language', () => {
    for (const file of files) {
      const text = readFileSync(join(ROOT, file), 'utf8')
      const label = /\b(?:D\d{1,2}|spec(?:ification)? \d+(?:\.\d+)?|decision D?\d+)\b|\(\d\.\d{1,2}\)/.exec(text)
      expect(label?.[0], `${file}: an internal label`).toBeUndefined()
      for (const block of fencedBlocks(text)) expect(LANGUAGES.has(block.lang), `${file}:${block.firstLine - 1} fenced as "${block.lang}"`).toBe(true)
    }
  })

  describe.concurrent('shell samples', () => {
    for (const file of files) {
      const skip = isTourBlock(file)
      it(`${file}: every sh block runs, and every call answers as stated`, async () => {
        const samples = sampleScript(file, baseUrl, skip)
        if (samples.blocks === 0) return
        const { cwd, env } = await workspace(file)
        const run = await bash(samples.script, cwd, env)
        writeFileSync(join(cwd, 'output.txt'), `${run.stdout}\n--- stderr ---\n${run.stderr}`)
        const calls = loggedCalls(existsSync(env.SAMPLES_LOG as string) ? readFileSync(env.SAMPLES_LOG as string, 'utf8') : '', samples.origin)
        const failedAt = /exit status \d+ at script line (\d+)/.exec(run.stderr)
        const where = failedAt ? ` at ${file}:${samples.origin[Number(failedAt[1]) - 1] ?? '?'}` : ''
        expect(run.code, `the samples of ${file} failed${where}\n--- stderr ---\n${run.stderr.slice(-4000)}\n--- stdout ---\n${run.stdout.slice(-2000)}`).toBe(0)
        expect(callProblems(file, calls, samples.expectations)).toEqual([])
      }, 180_000)
    }

    it("the README tour's comment step shows a post that has comments", async () => {
      const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
      const tour = fencedBlocks(readme.slice(readme.indexOf(TOUR)))
        .filter((b) => b.lang === 'sh')
        .slice(0, 2)
        .flatMap((b) => b.lines)
      const postLine = tour.find((l) => l.startsWith('POST='))
      const commentsLine = tour.find((l) => l.includes('/post/comments'))
      expect(postLine && commentsLine, 'the tour picks a post and lists its comments').toBeTruthy()
      const { cwd, env } = await workspace('readme-tour')
      const run = await bash(`${postLine}\n${(commentsLine as string).replace(/\s+#\s*→.*$/, '')}\n`, cwd, env)
      expect(run.code, run.stderr).toBe(0)
      expect(JSON.parse(run.stdout).comments.length).toBeGreaterThan(0)
    }, 60_000)

    it('docs/examples/records.ndjson loads as is into an empty store', async () => {
      const example = join(ROOT, 'docs', 'examples', 'records.ndjson')
      const lines = readFileSync(example, 'utf8').split('\n').filter((l) => l.trim() !== '')
      const empty = mkdtempSync(join(root, 'empty-'))
      const run = await bash(`node "${cliMain()}" ingest "${example}" --json`, empty, {
        PRONET_DATA_DIR: join(empty, 'data'),
        PRONET_SEED: 'none',
        LOG_LEVEL: 'warn',
      })
      expect(run.code, run.stderr).toBe(0)
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: lines.length, failed: 0 })
    }, 60_000)
  })
})
