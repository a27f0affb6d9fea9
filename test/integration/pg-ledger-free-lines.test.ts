/**
 * The PostgreSQL ledger's usage-only lines (the calls that bill nothing: refusals, errors, free
 * endpoints) go to the database in batches, as billing settles do: many lines of many accounts in one
 * transaction, each counted once; and a batch the server refuses goes again line by line, so only
 * the line that cannot be written fails.
 */
import { randomBytes } from 'node:crypto'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migratePostgres, openPostgres, type PgPool } from '../../src/adapters/postgres/database.ts'
import { createPgLedger } from '../../src/adapters/postgres/pg-ledger.ts'
import type { Ledger, UsageLine } from '../../src/ports/ledger.ts'
import { createTestDatabase, insertAccount, ledgerCommits, postgresAvailable } from '../helpers/postgres.ts'

const up = await postgresAvailable()
const T0 = Date.UTC(2027, 4, 3, 9)
const DAY = '2027-05-03'

describe.skipIf(!up)('PostgreSQL ledger: usage-only lines in batches', () => {
  let db: { url: string; drop(): Promise<void> }
  let pool: PgPool
  let ledger: Ledger
  const registry = new Registry()
  let seq = 0

  const commits = () => ledgerCommits(registry)

  beforeAll(async () => {
    db = await createTestDatabase('pronet_free_lines')
    pool = openPostgres(db.url, { max: 4 })
    await migratePostgres(pool)
    ledger = createPgLedger(pool, { newLotId: () => `lot_${randomBytes(6).toString('hex')}`, now: () => T0, registry })
  })
  afterAll(async () => {
    await ledger?.close()
    await pool?.end()
    await db?.drop()
  })

  const account = () => insertAccount(pool, T0)

  const line = (accountId: string, status: number, requestId = `free-${++seq}`): UsageLine => ({ accountId, at: T0, endpoint: '/api/v1/profile', status, credits: 0, requestId })

  const usage = async (accountId: string) =>
    (
      await pool.query<{ status: number; requests: number; billable: number; credits: number }>(
        'SELECT status, requests::int, billable::int, credits::int FROM usage_daily WHERE account_id = $1 AND day = $2 ORDER BY status',
        [accountId, DAY],
      )
    ).rows

  const settledRows = async (accountId: string) =>
    (await pool.query<{ n: number; credits: number }>(`SELECT count(*)::int AS n, COALESCE(sum(credits), 0)::int AS credits FROM settled_requests WHERE account_id = $1`, [accountId])).rows[0]

  it('300 lines of three accounts settled at once go in a few transactions, each line counted once', async () => {
    const ids = [await account(), await account(), await account()]
    const statuses = [429, 402, 404]
    const lines = Array.from({ length: 300 }, (_, i) => line(ids[i % 3]!, statuses[Math.floor(i / 3) % 3]!))
    const before = await commits()
    const results = await Promise.all(lines.map((l) => ledger.settle(null, l)))
    expect(results).toEqual(lines.map(() => ({ ok: true, charged: 0 })))
    const after = await commits()
    expect(after.requests - before.requests).toBe(300)
    expect(after.batches - before.batches).toBeLessThanOrEqual(3)
    // Account k has lines 3j + k, j = 0…99, of status statuses[j % 3]: 34 of 429, 33 of 402 and of 404.
    for (const id of ids) {
      expect(await usage(id)).toEqual([
        { status: 402, requests: 33, billable: 0, credits: 0 },
        { status: 404, requests: 33, billable: 0, credits: 0 },
        { status: 429, requests: 34, billable: 0, credits: 0 },
      ])
      expect(await settledRows(id)).toEqual({ n: 100, credits: 0 })
    }
  })

  it('a line that cannot be written fails alone: the others of its batch are counted once', async () => {
    const id = await account()
    const first = line(id, 429)
    expect(await ledger.settle(null, first)).toEqual({ ok: true, charged: 0 })
    // The same request id again (a line recorded already) makes the whole batch's transaction fail.
    const others = [line(id, 429), line(id, 402), line(id, 402)]
    const settled = await Promise.allSettled([ledger.settle(null, line(id, 429, first.requestId)), ...others.map((l) => ledger.settle(null, l))])
    expect(settled[0]).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ code: '23505' }) })
    expect(settled.slice(1)).toEqual(others.map(() => ({ status: 'fulfilled', value: { ok: true, charged: 0 } })))
    expect(await usage(id)).toEqual([
      { status: 402, requests: 2, billable: 0, credits: 0 },
      { status: 429, requests: 2, billable: 0, credits: 0 },
    ])
    expect(await settledRows(id)).toEqual({ n: 4, credits: 0 })
  })
})
