/**
 * The scale-out failure policy under load (acceptance test of the scale-out issue). Two server
 * processes share a Redis of the test's own (started, killed and restarted here) and one PostgreSQL
 * reached through a proxy that can cut it away. While clients keep calling:
 * 1. Redis is killed and restarted: every node keeps serving from its share of the budget, says so
 *    once in its log and in its metrics (pronet_rate_limiter_fallback 1), and goes back to Redis by
 *    itself;
 * 2. PostgreSQL goes away at the worst moment, right after a COMMIT reached it and before its answer
 *    came back, and refuses connections for 3 s: calls are answered 503 SERVICE_UNAVAILABLE with
 *    Retry-After and nothing billed, and the service recovers without a restart.
 * Afterwards, with zero tolerance: every response the clients received as billed has exactly its debit
 * on the ledger, no other request is billed (debits of requests answered otherwise are compensated),
 * the balance equals the allowance less what the clients were charged, and the usage report agrees.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/config.ts'
import { createContainer } from '../../src/container.ts'
import { seedSynthetic } from '../../src/seed.ts'
import { startPgProxy, type PgProxy } from '../helpers/pg-proxy.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'
import { redisServerBinaryAvailable, startRedisServer, type TestRedisServer } from '../helpers/redis-server.ts'
import { startServer, type ServerProcess } from '../helpers/server-process.ts'

const ADMIN = 'fault-test-admin-token'
const LIMIT = 10_000_000
const available = (await postgresAvailable()) && redisServerBinaryAvailable()

interface Seen {
  phase: string
  status: number
  charged: string | null
  requestId: string | null
  retryAfter: string | null
  code: string | undefined
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe.skipIf(!available)('failure policy: Redis and then PostgreSQL go away under load', () => {
  let db: { url: string; drop(): Promise<void> }
  let proxy: PgProxy
  let redis: TestRedisServer
  let sql: pg.Client
  const dirs: string[] = []
  let nodes: ServerProcess[] = []

  beforeAll(async () => {
    db = await createTestDatabase('pronet_fault')
    sql = new pg.Client({ connectionString: db.url })
    await sql.connect()
    // The network is built beforehand, straight into the database (through the proxy, the many small
    // writes of seeding take over a minute).
    const c = await createContainer(loadConfig({ DATABASE_URL: db.url, PRONET_SEED: '20', LOG_LEVEL: 'silent', PRONET_DATA_DIR: tmpdir() }))
    await seedSynthetic(c, 20, () => {}, { progress: false })
    await c.close()
    proxy = await startPgProxy({ host: '127.0.0.1', port: Number(new URL(db.url).port || 5432) })
    redis = await startRedisServer()
    nodes = await Promise.all(
      [0, 1].map(() => {
        const dir = mkdtempSync(join(tmpdir(), 'pronet-fault-'))
        dirs.push(dir)
        return startServer({
          dataDir: dir,
          env: { DATABASE_URL: proxy.url(db.url), REDIS_URL: redis.url, PRONET_SEED: 'none', PRONET_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' },
          timeoutMs: 120_000,
        })
      }),
    )
  }, 180_000)

  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.kill()))
    await proxy?.close()
    await redis?.stop()
    await sql?.end()
    await db?.drop()
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  }, 60_000)

  const metric = async (node: ServerProcess, name: string): Promise<number | undefined> => {
    const res = await fetch(`${node.baseUrl}/admin/v1/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })
    const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(await res.text())
    return m ? Number(m[1]) : undefined
  }
  const until = async (what: string, check: () => Promise<boolean>, ms: number) => {
    const deadline = Date.now() + ms
    while (Date.now() < deadline) {
      if (await check()) return
      await sleep(100)
    }
    throw new Error(`timed out waiting for ${what}`)
  }

  it('serves through both outages, with 503 + Retry-After while PostgreSQL is away, and bills exactly what the clients saw billed', async () => {
    const created = await fetch(`${nodes[0]!.baseUrl}/admin/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'custom', creditsLimit: LIMIT, rpsLimit: 100_000 }),
    })
    expect(created.status).toBe(201)
    const { account, apiKey } = (await created.json()) as { account: { id: string }; apiKey: { key: string } }
    const slug = (await sql.query<{ slug: string }>('SELECT slug FROM profiles ORDER BY profile_id LIMIT 1')).rows[0]!.slug

    let phase = 'before'
    let running = true
    const seen: Seen[] = []
    const call = async (node: ServerProcess): Promise<number> => {
      try {
        const res = await fetch(`${node.baseUrl}/api/v1/profile?profileUrlOrUrn=${slug}`, {
          headers: { 'x-api-key': apiKey.key },
          signal: AbortSignal.timeout(60_000),
        })
        const body = (await res.json()) as { code?: string }
        seen.push({
          phase,
          status: res.status,
          charged: res.headers.get('x-credits-charged'),
          requestId: res.headers.get('x-request-id'),
          retryAfter: res.headers.get('retry-after'),
          code: body.code,
        })
        return res.status
      } catch (e) {
        throw new Error(`a call got no answer: ${e instanceof Error ? e.message : String(e)}`)
      }
    }
    const clients = Array.from({ length: 12 }, async (_, w) => {
      while (running) if ((await call(nodes[w % 2]!)) === 503) await sleep(50)
    })
    // Calls that arrive while PostgreSQL is away, whatever the clients above are waiting for: a
    // client's call whose settle is being retried holds that client until the database is back.
    const arrivals: Promise<number>[] = []
    const arrive = async () => {
      while (phase === 'postgres-down') {
        for (const n of nodes) arrivals.push(call(n))
        await sleep(100)
      }
    }

    let failed = true
    try {
      await sleep(1_500)
      // 1. Redis dies and comes back.
      phase = 'redis-down'
      await redis.stop()
      await until('both nodes to fall back to their share', async () => (await Promise.all(nodes.map((n) => metric(n, 'pronet_rate_limiter_fallback')))).every((v) => v === 1), 10_000)
      await sleep(1_000)
      await redis.start()
      phase = 'redis-back'
      await until('both nodes to use Redis again', async () => (await Promise.all(nodes.map((n) => metric(n, 'pronet_rate_limiter_fallback')))).every((v) => v === 0), 15_000)
      await sleep(1_000)

      // 2. PostgreSQL goes away right after a COMMIT reached it, and refuses connections for 3 s.
      phase = 'postgres-down'
      await proxy.arm({ match: (q) => /COMMIT/i.test(q), effect: 'apply', outageMs: 3_000 })
      const arriving = arrive()
      await until('a 503 while PostgreSQL is away', async () => seen.some((s) => s.phase === 'postgres-down' && s.status === 503), 10_000)
      await sleep(3_500)
      phase = 'postgres-back'
      await arriving
      await until('calls to succeed again', async () => seen.filter((s) => s.phase === 'postgres-back' && s.status === 200).length >= 20, 30_000)
      failed = false
    } finally {
      running = false
      phase = 'done'
      // Every call is answered before the checks below, or before the nodes stop when a step failed
      // (whose error is then the one reported).
      const ended = await Promise.allSettled([...clients, ...arrivals])
      const lost = ended.find((r) => r.status === 'rejected')
      if (lost && !failed) throw lost.reason
    }

    // The policy, as the clients saw it.
    const unexpected = seen.filter((s) => s.status !== 200 && s.status !== 503)
    expect(unexpected, JSON.stringify(unexpected.slice(0, 5))).toEqual([])
    expect(seen.filter((s) => s.phase === 'redis-down' && s.status === 200).length).toBeGreaterThan(0)
    const refused = seen.filter((s) => s.status === 503)
    expect(refused.length).toBeGreaterThan(0)
    for (const s of refused) {
      expect(s.code).toBe('SERVICE_UNAVAILABLE')
      expect(Number(s.retryAfter)).toBeGreaterThanOrEqual(1)
      expect(s.charged).toBe('0')
    }
    for (const n of nodes) {
      expect(n.stderr() + n.stdout()).toMatch(/fall(ing|s)? back|fallback/i)
      expect(n.alive).toBe(true)
    }

    // Let the ledger settle anything it held in doubt, then compare it with what the clients saw.
    await sleep(3_000)
    const billedIds = seen.filter((s) => s.status === 200 && s.charged === '1').map((s) => s.requestId as string)
    expect(new Set(billedIds).size).toBe(billedIds.length)
    expect(seen.filter((s) => s.status === 200).every((s) => s.charged === '1')).toBe(true)
    const net = new Map(
      (
        await sql.query<{ request_id: string; net: number }>(
          `SELECT request_id, sum(delta)::int AS net FROM ledger_entries
           WHERE account_id = $1 AND request_id IS NOT NULL GROUP BY request_id`,
          [account.id],
        )
      ).rows.map((r) => [r.request_id, r.net]),
    )
    for (const id of billedIds) expect(net.get(id), `billed request ${id}`).toBe(-1)
    const billedSet = new Set(billedIds)
    const strays = [...net].filter(([id, n]) => n !== 0 && !billedSet.has(id))
    expect(strays, 'requests billed although the client was not told so').toEqual([])

    const lots = (await sql.query<{ remaining: number }>('SELECT sum(remaining)::int AS remaining FROM credit_lots WHERE account_id = $1', [account.id])).rows[0]!
    expect(lots.remaining).toBe(LIMIT - billedIds.length)
    const usage = (
      await sql.query<{ billable: number; credits: number }>(
        'SELECT sum(billable)::int AS billable, sum(credits)::int AS credits FROM usage_daily WHERE account_id = $1',
        [account.id],
      )
    ).rows[0]!
    expect(usage).toEqual({ billable: billedIds.length, credits: billedIds.length })
  }, 180_000)
})
