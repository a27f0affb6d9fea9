/**
 * The automatic wait of the PostgreSQL ledger's batches, across two nodes (two ledgers on one
 * database), on a machine with processor time to spare: a node's batches of an account do not wait
 * while it alone serves the account; once one
 * of its batches found the account changed by the other node, they wait (here 300 ms rather than the
 * 2 ms of a server, so that calls 30 ms apart show it), while its batches of an account only it
 * serves still go at once.
 */
import { randomBytes } from 'node:crypto'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migratePostgres, openPostgres, type PgPool } from '../../src/adapters/postgres/database.ts'
import { createPgLedger } from '../../src/adapters/postgres/pg-ledger.ts'
import type { Hold, Ledger, UsageLine } from '../../src/ports/ledger.ts'
import { createTestDatabase, insertAccount, ledgerCommits, postgresAvailable } from '../helpers/postgres.ts'

const up = await postgresAvailable()
const T0 = Date.UTC(2027, 4, 3, 9)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
let seq = 0
const line = (accountId: string): UsageLine => ({ accountId, at: T0, endpoint: '/api/v1/profile', status: 200, credits: 1, requestId: `req-${++seq}` })

describe.skipIf(!up)('PostgreSQL ledger: the automatic batch wait follows accounts other nodes serve', () => {
  let db: { url: string; drop(): Promise<void> }
  let pool: PgPool
  let a: Ledger
  let b: Ledger
  const registry = new Registry()

  beforeAll(async () => {
    db = await createTestDatabase('pronet_contended_wait')
    pool = openPostgres(db.url, { max: 6 })
    await migratePostgres(pool)
    const newLotId = () => `lot_${randomBytes(6).toString('hex')}`
    // A machine that is never busy, whatever this one is doing: only contention makes batches wait.
    let total = 0
    const autoWait = { waitMs: 300, times: () => ({ busy: 0, total: (total += 1_000) }) }
    a = createPgLedger(pool, { newLotId, now: () => T0, registry, batchWaitMs: 'auto', autoWait })
    b = createPgLedger(pool, { newLotId, now: () => T0, batchWaitMs: 'auto', autoWait })
  })
  afterAll(async () => {
    await a?.close()
    await b?.close()
    await pool?.end()
    await db?.drop()
  })

  async function held(ledger: Ledger, id: string): Promise<Hold> {
    const r = await ledger.hold(id, 1, T0)
    if (!r.ok) throw new Error('hold refused')
    return r.hold
  }

  /** Node a settles two holds of `id`, the second 30 ms after the first: the batches and requests that took. */
  async function twoSettles(id: string): Promise<{ batches: number; requests: number }> {
    const [h1, h2] = [await held(a, id), await held(a, id)]
    // Every batch before this pair has ended, and nothing waits.
    await sleep(500)
    const before = await ledgerCommits(registry)
    const first = a.settle(h1, line(id))
    await sleep(30)
    const second = a.settle(h2, line(id))
    expect(await first).toEqual({ ok: true, charged: 1 })
    expect(await second).toEqual({ ok: true, charged: 1 })
    const after = await ledgerCommits(registry)
    return { batches: after.batches - before.batches, requests: after.requests - before.requests }
  }

  it('served by one node: no wait; changed by the other node: its batches wait, and only its', async () => {
    const shared = await insertAccount(pool, T0)
    const alone = await insertAccount(pool, T0)
    expect(await twoSettles(shared)).toEqual({ batches: 2, requests: 2 })
    // Node a holds from what it last saw; node b bills the account meanwhile; a's settle finds it changed.
    const stale = await held(a, shared)
    const other = await held(b, shared)
    expect(await b.settle(other, line(shared))).toEqual({ ok: true, charged: 1 })
    expect(await a.settle(stale, line(shared))).toEqual({ ok: true, charged: 1 })
    expect(await twoSettles(shared)).toEqual({ batches: 1, requests: 2 })
    expect(await twoSettles(alone)).toEqual({ batches: 2, requests: 2 })
  })
})
