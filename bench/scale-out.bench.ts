/**
 * One node on PostgreSQL + Redis against one node on the embedded SQLite store, measured in one run
 * (the scale-out issue's figure): the same synthetic network in both stores, the same metered call
 * (GET /api/v1/profile rotating over members, a custom plan that never meets 402 or 429), wrk with
 * one thread and 50 connections, the two servers measured alternately BENCH_ROUNDS times; medians.
 * Every call is metered in full on both: rate budget (memory | Redis), hold and settle with the usage
 * line committed before the response (SQLite group commit | PostgreSQL transactions).
 *
 * Needs wrk, PostgreSQL (PRONET_BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres,
 * where a database of its own is created and dropped) and Redis (PRONET_BENCH_REDIS_URL).
 *
 *   npm run bench:scale-out
 *   BENCH_SECONDS=8 BENCH_ROUNDS=3 BENCH_PROFILES=300 npm run bench:scale-out
 */
import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { loadConfig } from '../src/config/config.ts'
import { createContainer } from '../src/container.ts'
import { seedSynthetic } from '../src/seed.ts'
import { runWrk, startServerProcess, wrkFigures } from './bench-helpers.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const PROFILES = Number(process.env.BENCH_PROFILES ?? 300)
const CONNECTIONS = 50
const ADMIN_URL = process.env.PRONET_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const REDIS_URL = process.env.PRONET_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'
const ADMIN = 'scale-out-bench'
const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'main.js')

interface Node {
  name: string
  child: ChildProcess
  port: number
  key: string
  accountId: string
}

async function startNode(name: string, env: Record<string, string>): Promise<Node> {
  const { child, port } = await startServerProcess(MAIN, { PORT: '0', HOST: '127.0.0.1', PRONET_SEED: 'none', PRONET_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', ...env }).catch(
    (e: Error) => {
      throw new Error(`${name}: ${e.message}`)
    },
  )
  const res = await fetch(`http://127.0.0.1:${port}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', plan: 'custom', creditsLimit: 1_000_000_000, rpsLimit: 100_000 }),
  })
  const created = (await res.json()) as { account: { id: string }; apiKey: { key: string } }
  return { name, child, port, key: created.apiKey.key, accountId: created.account.id }
}

function wrk(port: number, paths: string[], key: string): number {
  const out = runWrk({ url: `http://127.0.0.1:${port}`, paths, headers: { 'x-api-key': key }, seconds: SECONDS, connections: CONNECTIONS })
  const { rps, non2xx } = wrkFigures(out)
  if (non2xx > 0) throw new Error(`${non2xx} responses were not 200:\n${out}`)
  return rps
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

async function main(): Promise<void> {
  const dbName = `pronet_bench_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: ADMIN_URL })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${dbName}`)
  const url = new URL(ADMIN_URL)
  url.pathname = `/${dbName}`
  const databaseUrl = url.toString()
  const dataDir = mkdtempSync(join(tmpdir(), 'pronet-scale-out-'))
  const nodes: Node[] = []
  try {
    // The same network (seed 1, same anchor) in both stores.
    const anchorMs = Date.UTC(2026, 10, 1)
    for (const env of [{ PRONET_DATA_DIR: dataDir }, { DATABASE_URL: databaseUrl, PRONET_DATA_DIR: dataDir }]) {
      const c = await createContainer(loadConfig({ ...env, PRONET_SEED: String(PROFILES), LOG_LEVEL: 'silent' }))
      const t0 = performance.now()
      await seedSynthetic(c, PROFILES, () => {}, { progress: false, anchorMs })
      process.stderr.write(`seeded ${PROFILES} profiles into ${'DATABASE_URL' in env ? 'PostgreSQL' : 'SQLite'} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`)
      await c.close()
    }
    const sql = new pg.Client({ connectionString: databaseUrl })
    await sql.connect()
    const slugs = (await sql.query<{ slug: string }>('SELECT slug FROM profiles ORDER BY profile_id LIMIT 200')).rows.map((r) => r.slug)
    await sql.end()
    const paths = slugs.map((s) => `/api/v1/profile?profileUrlOrUrn=${encodeURIComponent(s)}`)

    nodes.push(await startNode('sqlite', { PRONET_DATA_DIR: dataDir }))
    nodes.push(await startNode('postgres+redis', { DATABASE_URL: databaseUrl, REDIS_URL, PRONET_DATA_DIR: mkdtempSync(join(tmpdir(), 'pronet-scale-out-pg-')) }))
    for (const n of nodes) wrk(n.port, paths.slice(0, 20), n.key) // warm-up: caches, JIT, pools
    const rps = new Map<string, number[]>(nodes.map((n) => [n.name, []]))
    for (let r = 0; r < ROUNDS; r++) {
      for (const n of r % 2 === 0 ? nodes : [...nodes].reverse()) rps.get(n.name)!.push(wrk(n.port, paths, n.key))
    }
    console.log(`pronet scale-out benchmark: one node, GET /api/v1/profile metered, ${PROFILES}-profile network, wrk -t1 -c${CONNECTIONS}, ${SECONDS} s × ${ROUNDS} rounds`)
    const base = median(rps.get('sqlite')!)
    for (const [name, xs] of rps) {
      console.log(`  ${name.padEnd(16)} ${xs.map((x) => Math.round(x).toLocaleString('en-US').padStart(8)).join(' ')}   median ${Math.round(median(xs)).toLocaleString('en-US').padStart(8)} req/s   ÷ sqlite ${(median(xs) / base).toFixed(2)}`)
    }
  } finally {
    for (const n of nodes) n.child.kill('SIGTERM')
    await new Promise((r) => setTimeout(r, 500))
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)
    await admin.end()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
