/**
 * The PostgreSQL ledger's batches across nodes: three server processes on one PostgreSQL and one
 * Redis, each holding its holds and settles back for 50 ms so that they travel in large batches
 * (PRONET_LEDGER_BATCH_MS), take 600 concurrent calls against an account holding 37 credits. Exactly
 * 37 are billed and 563 refused with 402, free; the balance ends at 0; the usage report and the
 * usage rows agree with the ledger, request by request; no node holds anything once all have answered.
 * The nodes' metrics show that the batches were large indeed.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'
import { redisAvailable } from '../helpers/redis.ts'
import { startNodeCluster, type NodeCluster } from '../helpers/node-cluster.ts'
import type { ServerProcess } from '../helpers/server-process.ts'

const ADMIN = 'ledger-batches-admin-token'
const CALLS = 600
const CREDITS = 37
const available = (await postgresAvailable()) && (await redisAvailable())

/** Requests carried by the batches of a node, from its pronet_ledger_commit_jobs histogram: count, sum, and how many carried over 32. */
async function batches(node: ServerProcess): Promise<{ count: number; sum: number; over32: number }> {
  const text = await (await fetch(`${node.baseUrl}/admin/v1/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text()
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? Number.NaN)
  const count = value(/^pronet_ledger_commit_jobs_count (\d+)/m)
  return { count, sum: value(/^pronet_ledger_commit_jobs_sum (\d+)/m), over32: count - value(/^pronet_ledger_commit_jobs_bucket\{le="32"\} (\d+)/m) }
}

describe.skipIf(!available)('three nodes whose ledger batches are forced large', () => {
  let db: { url: string; drop(): Promise<void> }
  let cluster: NodeCluster | undefined
  let nodes: ServerProcess[] = []
  let sql: pg.Client
  let slug: string

  beforeAll(async () => {
    db = await createTestDatabase('pronet_batches')
    sql = new pg.Client({ connectionString: db.url })
    await sql.connect()
    cluster = await startNodeCluster({ databaseUrl: db.url, count: 3, adminToken: ADMIN, env: { PRONET_LEDGER_BATCH_MS: '50', PRONET_LEDGER_BATCH_MAX: '10000' } })
    nodes = cluster.nodes
    slug = (await sql.query<{ slug: string }>('SELECT slug FROM profiles ORDER BY profile_id LIMIT 1')).rows[0]!.slug
  }, 180_000)

  afterAll(async () => {
    await cluster?.stop()
    await sql?.end()
    await db?.drop()
  }, 60_000)

  it(`${CALLS} concurrent calls over three nodes against ${CREDITS} credits: exactly ${CREDITS} billed, the rest 402, balance 0, usage equal to the ledger`, async () => {
    const created = await fetch(`${nodes[0]!.baseUrl}/admin/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'batches', plan: 'custom', creditsLimit: CREDITS, rpsLimit: 100_000 }),
    })
    expect(created.status).toBe(201)
    const { account, apiKey } = (await created.json()) as { account: { id: string }; apiKey: { key: string } }
    const before = await Promise.all(nodes.map(batches))

    const results = await Promise.all(
      Array.from({ length: CALLS }, async (_, i) => {
        const res = await fetch(`${nodes[i % 3]!.baseUrl}/api/v1/profile?profileUrlOrUrn=${slug}`, { headers: { 'x-api-key': apiKey.key } })
        await res.arrayBuffer()
        return { status: res.status, charged: res.headers.get('x-credits-charged'), requestId: res.headers.get('x-request-id') }
      }),
    )
    const billed = results.filter((r) => r.status === 200)
    const refused = results.filter((r) => r.status === 402)
    expect(billed).toHaveLength(CREDITS)
    expect(billed.every((r) => r.charged === '1')).toBe(true)
    expect(refused).toHaveLength(CALLS - CREDITS)
    expect(refused.every((r) => r.charged === '0')).toBe(true)

    // The ledger: one debit of 1 for each billed response, and nothing else.
    const debits = (
      await sql.query<{ request_id: string; delta: number }>(`SELECT request_id, delta FROM ledger_entries WHERE account_id = $1 AND kind = 'debit'`, [account.id])
    ).rows
    expect(debits.every((d) => d.delta === -1)).toBe(true)
    expect(debits.map((d) => d.request_id).sort()).toEqual(billed.map((r) => r.requestId).sort())
    const remaining = (await sql.query<{ n: number }>('SELECT SUM(remaining)::int AS n FROM credit_lots WHERE account_id = $1', [account.id])).rows[0]!.n
    expect(remaining).toBe(0)

    // Usage, as stored and as reported, equals the ledger.
    const usage = (
      await sql.query<{ status: number; requests: number; billable: number; credits: number }>(
        'SELECT status, requests::int, billable::int, credits::int FROM usage_daily WHERE account_id = $1 ORDER BY status',
        [account.id],
      )
    ).rows
    expect(usage).toEqual([
      { status: 200, requests: CREDITS, billable: CREDITS, credits: CREDITS },
      { status: 402, requests: CALLS - CREDITS, billable: 0, credits: 0 },
    ])
    const report = await (await fetch(`${nodes[2]!.baseUrl}/api/v1/usage`, { headers: { 'x-api-key': apiKey.key } })).json()
    expect(report).toMatchObject({ requests: CALLS, billableRequests: CREDITS, creditsUsed: CREDITS, creditsRemaining: 0 })
    const sub = await (await fetch(`${nodes[1]!.baseUrl}/api/v1/subscription`, { headers: { 'x-api-key': apiKey.key } })).json()
    expect(sub).toMatchObject({ creditsRemaining: 0, creditsUsed: CREDITS })

    // Every call has answered: no node holds credits on the account any more.
    const held = (await sql.query<{ n: number }>('SELECT COALESCE(SUM(credits), 0)::int AS n FROM node_holds WHERE account_id = $1', [account.id])).rows[0]!.n
    expect(held).toBe(0)

    // The batches were large: together they carried every hold and settle, some of them over 32 at once.
    const after = await Promise.all(nodes.map(batches))
    const carried = after.reduce((a, b, i) => a + b.sum - before[i]!.sum, 0)
    const large = after.reduce((a, b, i) => a + b.over32 - before[i]!.over32, 0)
    expect(carried).toBeGreaterThanOrEqual(CALLS + CREDITS)
    expect(large).toBeGreaterThan(0)
  }, 120_000)
})
