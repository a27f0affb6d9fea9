// @one-backend: the call is admitted from the node's view of its account, which only PostgreSQL nodes keep.
/**
 * A call admitted from the node's view of its account whose credits another node spent before it
 * settled: the customer gets the spec's 402 QUOTA_EXHAUSTED, billed nothing (X-Credits-Charged: 0),
 * and the call is counted in usage as a 402. The balance ends at zero, never below.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openPostgres, type PgPool } from '../../src/adapters/postgres/database.ts'
import { LOCAL_FLOOR_CREDITS } from '../../src/adapters/postgres/pg-ledger-local-holds.ts'
import { createPgLedger } from '../../src/adapters/postgres/pg-ledger.ts'
import type { Ledger } from '../../src/ports/ledger.ts'
import { fixtureRecords } from '../helpers/ingest-fixtures.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'
import { redisAvailable, REDIS_URL } from '../helpers/redis.ts'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'

const up = (await postgresAvailable()) && (await redisAvailable())
const PROFILE = '/api/v1/profile?profileUrlOrUrn=member-1'

describe.skipIf(!up)('PostgreSQL: a call whose credits another node spent while it ran', () => {
  let db: { url: string; drop(): Promise<void> }
  let t: TestApp
  let pool: PgPool
  let other: Ledger

  beforeAll(async () => {
    db = await createTestDatabase('pronet_settle_refused')
    t = await makeTestApp({ nowMs: Date.UTC(2027, 1, 3, 9), records: fixtureRecords(), env: { DATABASE_URL: db.url, REDIS_URL } })
    // Another node: a ledger of its own on the same database.
    pool = openPostgres(db.url, { max: 2 })
    other = createPgLedger(pool, { newLotId: () => `lot_${randomBytes(6).toString('hex')}` })
  })
  afterAll(async () => {
    await other?.close()
    await pool?.end()
    await t?.close()
    await db?.drop()
  })

  it('is answered 402 QUOTA_EXHAUSTED, billed nothing, counted in usage; the balance ends at 0', async () => {
    const credits = LOCAL_FLOOR_CREDITS + 20
    const { account, apiKey } = await t.c.accounts.create({ name: 'spent elsewhere', plan: 'custom', creditsLimit: credits, rpsLimit: 100 })
    const first = await t.get(PROFILE, apiKey.key)
    expect(first.statusCode).toBe(200)
    expect(first.headers['x-credits-charged']).toBe('1')

    // The other node spends everything left, under the account's lock; this node's view predates it.
    const at = t.clock.now()
    const all = await other.hold(account.id, credits - 1, at)
    if (!all.ok) throw new Error('the other node was refused')
    const spent = { accountId: account.id, at, endpoint: '/api/v1/profile', status: 200, credits: credits - 1, requestId: `other-${randomBytes(4).toString('hex')}` }
    expect(await other.settle(all.hold, spent)).toEqual({ ok: true, charged: credits - 1 })

    const inMemory = async () => ((await t.c.metrics.getSingleMetric('pronet_ledger_holds_in_memory_total')?.get())?.values[0]?.value ?? 0)
    const before = await inMemory()
    const late = await t.get(PROFILE, apiKey.key)
    // Admitted from the view (no transaction), refused when it settled.
    expect((await inMemory()) - before).toBe(1)
    expect(late.statusCode).toBe(402)
    expect(late.headers['x-credits-charged']).toBe('0')
    const body = late.json()
    expect(body).toMatchObject({ code: 'QUOTA_EXHAUSTED', details: { creditsRemaining: 0 } })
    expect(typeof body.error).toBe('string')

    t.clock.advance(1000)
    const usage = (await t.get('/api/v1/usage', apiKey.key)).json()
    expect(usage.endpoints).toEqual([
      { endpoint: '/api/v1/profile', requests: 3, billableRequests: 2, creditsUsed: credits, statusCodes: { '200': 2, '402': 1 } },
    ])
    expect(usage.creditsRemaining).toBe(0)
    const debits = (await t.c.ledger.entries(account.id)).filter((e) => e.kind === 'debit')
    expect(debits.reduce((sum, e) => sum - e.delta, 0)).toBe(credits)
    expect(debits.map((e) => e.requestId)).not.toContain(late.headers['x-request-id'])
  })
})
