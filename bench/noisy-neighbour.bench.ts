/**
 * One tenant's cheap calls beside other tenants' searches. A victim account reads GET /profile at a
 * steady 20 a second, alone, then beside search-heavy neighbours (rps 100 accounts, each keeping 60
 * ordinary searches in flight, waiting out every 429's Retry-After, from a process of their own), on
 * the server as `npm start` runs it. Each case is run with searches on the worker pool (the default) and walked on the event loop
 * (PRONET_SEARCH_WORKERS=0), in one run. Goal: the victim's p99 beside five neighbours within twice
 * its p99 alone plus 10 ms.
 *
 *   npm run bench:neighbours            (BENCH_SIZE=small for a quick run; default medium)
 *   BENCH_DATA_DIR=<dir>: seed there once and reuse; BENCH_WORKERS=auto,0: the cases of PRONET_SEARCH_WORKERS
 */
import { fork, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadConfig } from '../src/config/config.ts'
import { createContainer } from '../src/container.ts'
import { seedSynthetic } from '../src/seed.ts'
import { membersWithPosts, picker, quantile, startScriptNodeFlags, startServerProcess } from './bench-helpers.ts'

const SIZE = (process.env.BENCH_SIZE ?? 'medium') as 'small' | 'medium'
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15)
const VICTIM_RPS = 20
const IN_FLIGHT = 60
const ADMIN = 'noisy-neighbour-bench'
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'main.js')
const ANCHOR = Date.UTC(2026, 10, 1)
/** Ordinary searches: common and medium words, by relevance and by date. */
const QUERIES = [
  { query: 'team' },
  { query: 'product', sortBy: 'date' },
  { query: 'growth OR leadership' },
  { query: 'data' },
  { query: 'customers', sortBy: 'date' },
  { query: 'learning' },
  { query: '"our team"' },
  { query: 'hiring' },
]

interface Server {
  child: ChildProcess
  base: string
}

async function startServer(dataDir: string, env: Record<string, string>): Promise<Server> {
  const { child, port } = await startServerProcess(
    MAIN,
    { PORT: '0', HOST: '127.0.0.1', PRONET_DATA_DIR: dataDir, PRONET_SEED: 'none', PRONET_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', ...env },
    startScriptNodeFlags(ROOT),
  )
  return { child, base: `http://127.0.0.1:${port}` }
}

async function stop(s: Server): Promise<void> {
  const exited = new Promise((r) => s.child.once('exit', r))
  s.child.kill('SIGTERM')
  await exited
}

async function account(s: Server, name: string, rpsLimit: number): Promise<string> {
  const res = await fetch(`${s.base}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, plan: 'custom', creditsLimit: 1_000_000_000, rpsLimit }),
  })
  return ((await res.json()) as { apiKey: { key: string } }).apiKey.key
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

interface Outcome {
  victim: number[]
  victimErrors: number
  searches: number
  refused: number
  retryAfters: number[]
}

/**
 * The neighbours' searches, from a process of their own (`--neighbours`): their client work would
 * otherwise delay this process's event loop, and with it the victim's timings. Runs until told to
 * stop, then reports its counts.
 */
async function neighbours(): Promise<void> {
  const base = process.env.BENCH_BASE as string
  const keys = (process.env.BENCH_KEYS as string).split(',')
  let on = true
  const counts = { searches: 0, refused: 0, retryAfters: [] as number[] }
  process.on('message', () => {
    on = false
  })
  const pick = picker(7)
  await Promise.all(
    keys.flatMap((key) =>
      Array.from({ length: IN_FLIGHT }, async () => {
        while (on) {
          const res = await fetch(`${base}/api/v1/search/posts`, {
            method: 'POST',
            headers: { 'x-api-key': key, 'content-type': 'application/json' },
            body: JSON.stringify({ ...pick(QUERIES), maxResults: 50 }),
          })
          await res.arrayBuffer()
          if (res.status === 200) counts.searches++
          else if (res.status === 429) {
            counts.refused++
            const wait = Number(res.headers.get('retry-after'))
            counts.retryAfters.push(wait)
            // Waits as told, but stops with the others.
            for (let t = 0; t < wait * 10 && on; t++) await sleep(100)
          } else throw new Error(`a neighbour's search got ${res.status}: ${await res.text()}`)
        }
      }),
    ),
  )
  process.send?.(counts, () => process.exit(0))
}

async function run(s: Server, slugs: string[], keys: string[], victimKey: string): Promise<Outcome> {
  const outcome: Outcome = { victim: [], victimErrors: 0, searches: 0, refused: 0, retryAfters: [] }
  const child =
    keys.length > 0 ? fork(fileURLToPath(import.meta.url), ['--neighbours'], { env: { ...process.env, BENCH_BASE: s.base, BENCH_KEYS: keys.join(',') } }) : undefined
  const reported = child ? new Promise<Pick<Outcome, 'searches' | 'refused' | 'retryAfters'>>((resolve) => child.once('message', resolve as (m: unknown) => void)) : undefined
  // Let the neighbours fill their queues before the victim is measured.
  if (child) await sleep(1_500)
  const calls: Promise<void>[] = []
  const start = performance.now()
  for (let i = 0; i < SECONDS * VICTIM_RPS; i++) {
    const due = start + (i * 1000) / VICTIM_RPS
    const wait = due - performance.now()
    if (wait > 0) await sleep(wait)
    calls.push(
      (async () => {
        const t0 = performance.now()
        const res = await fetch(`${s.base}/api/v1/profile?profileUrlOrUrn=${slugs[i % slugs.length]}`, { headers: { 'x-api-key': victimKey } })
        await res.arrayBuffer()
        if (res.status !== 200) outcome.victimErrors++
        outcome.victim.push(performance.now() - t0)
      })(),
    )
  }
  await Promise.all(calls)
  if (child && reported) {
    child.send('stop')
    Object.assign(outcome, await reported)
  }
  return outcome
}

const ms = (x: number) => `${x.toFixed(1)} ms`

async function main(): Promise<void> {
  // BENCH_DATA_DIR keeps the seeded store for the next run (seeding the medium network takes minutes).
  const kept = process.env.BENCH_DATA_DIR
  const dataDir = kept ?? mkdtempSync(join(tmpdir(), 'pronet-bench-neighbours-'))
  try {
    if (!kept || !existsSync(join(dataDir, 'pronet.db'))) {
      const t0 = performance.now()
      const c = await createContainer(loadConfig({ PRONET_DATA_DIR: dataDir, PRONET_SEED: 'none', LOG_LEVEL: 'silent' }), { searchWorkers: 0 })
      await seedSynthetic(c, SIZE, () => {}, { progress: false, anchorMs: ANCHOR })
      await c.close()
      process.stdout.write(`seeded the ${SIZE} network in ${((performance.now() - t0) / 1000).toFixed(0)} s\n`)
    }
    const slugs = membersWithPosts(SIZE, ANCHOR, 200)
    for (const workers of (process.env.BENCH_WORKERS ?? 'auto,0').split(',')) {
      const s = await startServer(dataDir, { PRONET_SEARCH_WORKERS: workers })
      try {
        const victim = await account(s, 'victim', VICTIM_RPS + 10)
        const neighbours = await Promise.all([1, 2, 3, 4, 5].map((i) => account(s, `neighbour-${i}`, 100)))
        const label = workers === 'auto' ? 'search workers (default)' : 'searches on the event loop'
        process.stdout.write(`\n${label}\n`)
        const alone = await run(s, slugs, [], victim)
        const p99Alone = quantile(alone.victim, 0.99)
        process.stdout.write(`  victim alone:          p50 ${ms(quantile(alone.victim, 0.5))}  p99 ${ms(p99Alone)}\n`)
        for (const n of [2, 5]) {
          const o = await run(s, slugs, neighbours.slice(0, n), victim)
          const p99 = quantile(o.victim, 0.99)
          const goal = n === 5 ? `  (goal p99 ≤ ${ms(2 * p99Alone + 10)}: ${p99 <= 2 * p99Alone + 10 ? 'met' : 'missed'})` : ''
          process.stdout.write(
            `  victim, ${n} neighbours:  p50 ${ms(quantile(o.victim, 0.5))}  p99 ${ms(p99)}${goal}; victim errors ${o.victimErrors}; ` +
              `neighbours: ${o.searches} searches, ${o.refused} × 429 (Retry-After ${o.retryAfters.length ? `${Math.min(...o.retryAfters)}–${Math.max(...o.retryAfters)} s` : 'none'})\n`,
          )
        }
      } finally {
        await stop(s)
      }
    }
  } finally {
    if (!kept) rmSync(dataDir, { recursive: true, force: true })
  }
}

if (process.argv.includes('--neighbours')) await neighbours()
else await main()
