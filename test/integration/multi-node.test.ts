/**
 * Three server processes on one PostgreSQL and one Redis (the scale-out issue's acceptance test),
 * started together on an empty database:
 * - exactly one of them seeds the synthetic network and creates the demo account;
 * - 300 concurrent calls spread over the three against an account holding 11 credits bill exactly 11,
 *   refuse the rest with 402, leave 0, and the usage report agrees (zero tolerance);
 * - a 5-per-second account hammered through all three never has more than 5 units admitted in any
 *   rolling second: the admission instants are read from the shared limiter's own log in Redis (the
 *   server's truth, in Redis time), and their number equals the 200 responses the client received;
 * - a per-second limit changed on one node applies on the others within a message's flight;
 * - a key revoked on one node is refused by the other two within a second;
 * - a cursor issued by one node is accepted by another (one shared secret).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'
import { REDIS_URL, redisAvailable } from '../helpers/redis.ts'
import { startServer, type ServerProcess } from '../helpers/server-process.ts'

const ADMIN = 'multi-node-admin-token'
const available = (await postgresAvailable()) && (await redisAvailable())

describe.skipIf(!available)('three nodes on one PostgreSQL and one Redis', () => {
  let db: { url: string; drop(): Promise<void> }
  const dirs: string[] = []
  let nodes: ServerProcess[] = []
  let sql: pg.Client
  let redis: Redis
  let slug: string

  beforeAll(async () => {
    db = await createTestDatabase('pronet_multinode')
    sql = new pg.Client({ connectionString: db.url })
    await sql.connect()
    redis = new Redis(REDIS_URL)
    nodes = await Promise.all(
      [0, 1, 2].map(() => {
        const dir = mkdtempSync(join(tmpdir(), 'pronet-node-'))
        dirs.push(dir)
        return startServer({
          dataDir: dir,
          env: { DATABASE_URL: db.url, REDIS_URL, PRONET_SEED: '20', PRONET_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn' },
          timeoutMs: 120_000,
        })
      }),
    )
    slug = (await sql.query<{ slug: string }>('SELECT slug FROM profiles ORDER BY profile_id LIMIT 1')).rows[0]!.slug
  }, 180_000)

  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.kill()))
    await sql?.end()
    redis?.disconnect()
    await db?.drop()
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  }, 60_000)

  const admin = async (node: ServerProcess, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${node.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    })
    return { status: res.status, json: res.status === 204 ? undefined : await res.json() }
  }
  const account = async (body: Record<string, unknown>) => {
    const created = await admin(nodes[0]!, 'POST', '/admin/v1/accounts', body)
    expect(created.status).toBe(201)
    return { id: created.json.account.id as string, key: created.json.apiKey.key as string }
  }
  const get = (node: ServerProcess, path: string, key: string) => fetch(`${node.baseUrl}${path}`, { headers: { 'x-api-key': key } })

  it('one node seeded the empty database and created the one demo account; the others waited for it', async () => {
    const profiles = (await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM profiles')).rows[0]!.n
    expect(profiles).toBe(20)
    const accounts = (await sql.query<{ name: string }>('SELECT name FROM accounts')).rows
    expect(accounts).toEqual([{ name: 'demo' }])
    // The key is printed after the "listening" line the start waited for: on a loaded machine it can
    // still be on its way through the pipe.
    const printed = () => nodes.filter((n) => /demo/i.test(n.stdout()) && /pk_/.test(n.stdout()))
    for (let waited = 0; printed().length === 0 && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50))
    expect(printed()).toHaveLength(1)
    // The seed analysed what it loaded: the search's common terms have their statistics (BM25's
    // document frequencies) even where autovacuum is off.
    const stats = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stats WHERE tablename = 'posts' AND attname = 'search'`)
    expect(stats.rows[0]!.n).toBe(1)
  })

  it('300 concurrent calls over three nodes against 11 credits: exactly 11 billed, the rest 402, balance 0', async () => {
    const { id, key } = await account({ plan: 'custom', creditsLimit: 11, rpsLimit: 100_000 })
    const results = await Promise.all(
      Array.from({ length: 300 }, async (_, i) => {
        const res = await get(nodes[i % 3]!, `/api/v1/profile?profileUrlOrUrn=${slug}`, key)
        await res.arrayBuffer()
        return { status: res.status, charged: res.headers.get('x-credits-charged') }
      }),
    )
    const billed = results.filter((r) => r.status === 200)
    expect(billed).toHaveLength(11)
    expect(billed.every((r) => r.charged === '1')).toBe(true)
    expect(results.filter((r) => r.status === 402)).toHaveLength(289)
    expect(results.filter((r) => r.status === 402).every((r) => r.charged === '0')).toBe(true)

    const sub = await (await get(nodes[1]!, '/api/v1/subscription', key)).json()
    expect(sub).toMatchObject({ creditsRemaining: 0, subscriptionCreditsRemaining: 0, paygCreditsRemaining: 0, creditsUsed: 11 })
    const usage = await (await get(nodes[2]!, '/api/v1/usage', key)).json()
    expect(usage).toMatchObject({ requests: 300, billableRequests: 11, creditsUsed: 11, creditsRemaining: 0 })
    expect(usage.endpoints).toEqual([
      { endpoint: '/api/v1/profile', requests: 300, billableRequests: 11, creditsUsed: 11, statusCodes: { '200': 11, '402': 289 } },
    ])
    const ledger = (
      await sql.query<{ debits: number; requests: number }>(
        `SELECT -sum(delta)::int AS debits, count(DISTINCT request_id)::int AS requests FROM ledger_entries WHERE account_id = $1 AND kind = 'debit'`,
        [id],
      )
    ).rows[0]
    expect(ledger).toEqual({ debits: 11, requests: 11 })
  }, 60_000)

  it('a 5-per-second account hammered through all three nodes never has more than 5 units admitted in a second', async () => {
    const { id, key } = await account({ plan: 'custom', creditsLimit: 100_000, rpsLimit: 5 })
    const logKey = `pronet:rl:rps:${id}`
    const stamps = new Set<string>()
    let polling = true
    // Every unit stays in the log at least one second; reading it every 100 ms sees each one. Equal
    // stamps (units taken in the same microsecond) are told apart by their rank among equals: they
    // enter and leave the log together, so the rank is stable.
    const poller = (async () => {
      while (polling) {
        const seen = new Map<string, number>()
        for (const s of await redis.lrange(logKey, 0, -1)) {
          const rank = seen.get(s) ?? 0
          seen.set(s, rank + 1)
          stamps.add(`${s}#${rank}`)
        }
        await new Promise((r) => setTimeout(r, 100))
      }
    })()

    // The client hammers on its own clock, 12 callers each sending every 50 ms whatever the answers
    // (about 80 calls a second to each node), so its own rate is over the limit at every instant. A
    // caller that waits for each answer is not hammering while the service holds its calls: after a
    // second in which a loaded node answered nothing, such a client had sent no more than its limit,
    // and its refusals then are the service's doing, a free 503 (gateway.ts: LATE_ARRIVAL_MS).
    const until = Date.now() + 3_000
    const statuses: number[] = []
    const calls: Promise<void>[] = []
    await Promise.all(
      Array.from({ length: 12 }, async (_, w) => {
        while (Date.now() < until) {
          calls.push(
            (async () => {
              const res = await get(nodes[w % 3]!, `/api/v1/profile?profileUrlOrUrn=${slug}`, key)
              await res.arrayBuffer()
              statuses.push(res.status)
              if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
            })(),
          )
          await new Promise((r) => setTimeout(r, 50))
        }
      }),
    )
    await Promise.all(calls)
    await new Promise((r) => setTimeout(r, 300))
    polling = false
    await poller

    const admitted = statuses.filter((s) => s === 200).length
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([])
    expect(admitted).toBeGreaterThanOrEqual(5)
    const times = [...stamps].map((s) => Number(s.split('#')[0])).sort((a, b) => a - b)
    // A node that fell back to its local share admits without a stamp in the log; its log says so.
    const limiterLines = nodes.flatMap((n) => n.stdout().split('\n').filter((l) => l.includes('rate limiter')))
    expect(times, `rate limiter lines in the nodes' logs: ${limiterLines.join(' | ')}`).toHaveLength(admitted)
    for (let i = 0; i + 5 < times.length; i++) {
      expect(times[i + 5]! - times[i]!, `units ${i}..${i + 5} of ${times.length}`).toBeGreaterThanOrEqual(1000)
    }
  }, 60_000)

  it("a per-second limit changed on one node applies on the others at their next call, though they keep it cached", async () => {
    const { id, key } = await account({ plan: 'custom', creditsLimit: 1000, rpsLimit: 1000 })
    // Nodes 2 and 3 read the limit (and keep it for a second).
    for (const node of [nodes[1]!, nodes[2]!]) {
      const res = await get(node, `/api/v1/profile?profileUrlOrUrn=${slug}`, key)
      await res.arrayBuffer()
      expect(res.headers.get('x-ratelimit-limit')).toBe('1000')
    }
    const changed = await admin(nodes[0]!, 'PUT', `/admin/v1/accounts/${id}/subscription`, { rpsLimit: 7 })
    expect(changed.status).toBe(200)
    // The change reaches the others through Redis; at most a message's flight behind the answer.
    for (const node of [nodes[1]!, nodes[2]!]) {
      let limit: string | null = null
      for (let waited = 0; waited < 500 && limit !== '7'; waited += 20) {
        const res = await get(node, `/api/v1/profile?profileUrlOrUrn=${slug}`, key)
        await res.arrayBuffer()
        limit = res.headers.get('x-ratelimit-limit')
        if (limit !== '7') await new Promise((r) => setTimeout(r, 20))
      }
      expect(limit).toBe('7')
    }
  })

  it('a key revoked on one node is refused by the other two within a second', async () => {
    const { id } = await account({ plan: 'custom', creditsLimit: 1000, rpsLimit: 1000 })
    const created = await admin(nodes[0]!, 'POST', `/admin/v1/accounts/${id}/keys`)
    const key = created.json.key as string
    // Nodes 2 and 3 know the key (and cache it).
    for (const node of [nodes[1]!, nodes[2]!]) {
      const res = await get(node, `/api/v1/profile?profileUrlOrUrn=${slug}`, key)
      await res.arrayBuffer()
      expect(res.status).toBe(200)
    }
    expect((await admin(nodes[0]!, 'DELETE', `/admin/v1/accounts/${id}/keys/${created.json.id}`)).status).toBe(204)
    const revokedAt = Date.now()
    for (const node of [nodes[1]!, nodes[2]!]) {
      let status = 0
      while (Date.now() - revokedAt < 1_000) {
        const res = await get(node, `/api/v1/profile?profileUrlOrUrn=${slug}`, key)
        status = res.status
        if (status === 401) {
          expect((await res.json()).code).toBe('INVALID_API_KEY')
          break
        }
        await res.arrayBuffer()
        await new Promise((r) => setTimeout(r, 20))
      }
      expect(status).toBe(401)
    }
    expect(Date.now() - revokedAt).toBeLessThan(1_000)
  })

  it('a cursor issued by one node is accepted by another (the secret is shared through the database)', async () => {
    const { key } = await account({ plan: 'custom', creditsLimit: 1000, rpsLimit: 1000 })
    const page1 = await (await get(nodes[0]!, `/api/v1/posts?profileUrlOrUrn=${slug}&count=1`, key)).json()
    expect(typeof page1.paginationToken).toBe('string')
    const res = await get(nodes[2]!, `/api/v1/posts?profileUrlOrUrn=${slug}&count=1&paginationToken=${encodeURIComponent(page1.paginationToken)}`, key)
    expect(res.status).toBe(200)
  })
})
