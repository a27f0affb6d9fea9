/**
 * A key's monthly credit limit across nodes: three server processes on one PostgreSQL and one Redis,
 * their ledger batches forced large (PRONET_LEDGER_BATCH_MS), take 600 concurrent calls made with a
 * key limited to 37 credits while its account holds thousands. Exactly 37 are billed and 563 refused
 * with 402 naming the key's limit, free; the key's spend this month, its debits and the usage rows all
 * say 37; no reservation outlives the calls. A change of the limit on one node holds on the others at once.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'
import { redisAvailable } from '../helpers/redis.ts'
import { startNodeCluster, type NodeCluster } from '../helpers/node-cluster.ts'
import type { ServerProcess } from '../helpers/server-process.ts'

const ADMIN = 'key-caps-nodes-admin-token'
const CALLS = 600
const LIMIT = 37
const available = (await postgresAvailable()) && (await redisAvailable())

describe.skipIf(!available)("a key's monthly limit over three nodes", () => {
  let db: { url: string; drop(): Promise<void> }
  let cluster: NodeCluster | undefined
  let nodes: ServerProcess[] = []
  let sql: pg.Client
  let slug: string
  const admin: NodeCluster['admin'] = (...args) => (cluster as NodeCluster).admin(...args)

  beforeAll(async () => {
    db = await createTestDatabase('pronet_key_caps')
    sql = new pg.Client({ connectionString: db.url })
    await sql.connect()
    // Holds and settles held back 50 ms, so that they travel in large batches.
    cluster = await startNodeCluster({ databaseUrl: db.url, count: 3, adminToken: ADMIN, env: { PRONET_LEDGER_BATCH_MS: '50', PRONET_LEDGER_BATCH_MAX: '10000' } })
    nodes = cluster.nodes
    slug = (await sql.query<{ slug: string }>('SELECT slug FROM profiles ORDER BY profile_id LIMIT 1')).rows[0]!.slug
  }, 180_000)

  afterAll(async () => {
    await cluster?.stop()
    await sql?.end()
    await db?.drop()
  }, 60_000)

  it(`${CALLS} concurrent calls against a limit of ${LIMIT}: exactly ${LIMIT} billed, the rest 402, spend equal to the ledger`, async () => {
    const created = await admin(nodes[0]!, 'POST', '/admin/v1/accounts', { name: 'key caps', plan: 'custom', creditsLimit: 10_000, rpsLimit: 100_000 })
    expect(created.status).toBe(201)
    const { account } = (await created.json()) as { account: { id: string } }
    const made = await admin(nodes[1]!, 'POST', `/admin/v1/accounts/${account.id}/keys`, { name: 'capped', monthlyCreditLimit: LIMIT })
    expect(made.status).toBe(201)
    const key = (await made.json()) as { id: string; key: string }

    const results = await Promise.all(
      Array.from({ length: CALLS }, async (_, i) => {
        const res = await fetch(`${nodes[i % 3]!.baseUrl}/api/v1/profile?profileUrlOrUrn=${slug}`, { headers: { 'x-api-key': key.key } })
        const body = (await res.json()) as { code?: string; details?: Record<string, unknown> }
        return { status: res.status, charged: res.headers.get('x-credits-charged'), requestId: res.headers.get('x-request-id'), body }
      }),
    )
    const billed = results.filter((r) => r.status === 200)
    const refused = results.filter((r) => r.status === 402)
    expect(billed).toHaveLength(LIMIT)
    expect(billed.every((r) => r.charged === '1')).toBe(true)
    expect(refused).toHaveLength(CALLS - LIMIT)
    expect(refused.every((r) => r.charged === '0' && r.body.code === 'QUOTA_EXHAUSTED' && r.body.details?.keyCreditLimit === LIMIT)).toBe(true)

    const debits = (
      await sql.query<{ request_id: string; delta: number }>(`SELECT request_id, delta FROM ledger_entries WHERE account_id = $1 AND kind = 'debit'`, [account.id])
    ).rows
    expect(debits.every((d) => d.delta === -1)).toBe(true)
    expect(debits.map((d) => d.request_id).sort()).toEqual(billed.map((r) => r.requestId).sort())
    const usage = (
      await sql.query<{ status: number; requests: number; credits: number }>(
        'SELECT status, requests::int, credits::int FROM usage_daily WHERE account_id = $1 ORDER BY status',
        [account.id],
      )
    ).rows
    expect(usage).toEqual([
      { status: 200, requests: LIMIT, credits: LIMIT },
      { status: 402, requests: CALLS - LIMIT, credits: 0 },
    ])
    const shown = (await (await admin(nodes[2]!, 'GET', `/admin/v1/accounts/${account.id}`)).json()) as { keys: { id: string; creditsThisMonth: number }[] }
    expect(shown.keys.find((k) => k.id === key.id)?.creditsThisMonth).toBe(LIMIT)
    const sub = await (await fetch(`${nodes[0]!.baseUrl}/api/v1/subscription`, { headers: { 'x-api-key': key.key } })).json()
    expect(sub).toMatchObject({ creditsRemaining: 10_000 - LIMIT })
    // Every call has answered: no reservation is left on the key.
    const left = (await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM key_holds WHERE key_id = $1', [key.id])).rows[0]!.n
    expect(left).toBe(0)

    // Raised on one node, the limit holds on every node at once: two more calls each on different nodes, then 402.
    const raised = await admin(nodes[2]!, 'PATCH', `/admin/v1/accounts/${account.id}/keys/${key.id}`, { monthlyCreditLimit: LIMIT + 2 })
    expect(raised.status).toBe(200)
    const after = []
    for (const node of [nodes[0]!, nodes[1]!, nodes[2]!]) {
      const res = await fetch(`${node.baseUrl}/api/v1/profile?profileUrlOrUrn=${slug}`, { headers: { 'x-api-key': key.key } })
      await res.arrayBuffer()
      after.push(res.status)
    }
    expect(after).toEqual([200, 200, 402])
  }, 120_000)
})
