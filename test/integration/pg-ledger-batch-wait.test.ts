/**
 * A wait of the PostgreSQL ledger's batches that changes while the node runs (as the automatic one
 * does): with no wait, calls a few milliseconds apart go in batches of their own; with one, they go
 * together; and a batch held back by a wait that ends meanwhile goes with the next call, at once.
 * A wait may also depend on the accounts waiting: only batches with such an account wait.
 */
import { randomBytes } from 'node:crypto'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migratePostgres, openPostgres, type PgPool } from '../../src/adapters/postgres/database.ts'
import { createPgLedger } from '../../src/adapters/postgres/pg-ledger.ts'
import type { Ledger } from '../../src/ports/ledger.ts'
import { createTestDatabase, insertAccount, ledgerCommits, postgresAvailable } from '../helpers/postgres.ts'

const up = await postgresAvailable()
const T0 = Date.UTC(2027, 4, 3, 9)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe.skipIf(!up)('PostgreSQL ledger: a batch wait that changes at run time', () => {
  let db: { url: string; drop(): Promise<void> }
  let pool: PgPool
  let ledger: Ledger
  let waitMs = 0
  /** Accounts whose batches wait 300 ms whatever waitMs says (as the automatic wait does for contended ones). */
  const slow = new Set<string>()
  const registry = new Registry()
  const commits = () => ledgerCommits(registry)

  beforeAll(async () => {
    db = await createTestDatabase('pronet_batch_wait')
    pool = openPostgres(db.url, { max: 4 })
    await migratePostgres(pool)
    // Holds decided in the database (not from the node's view), so each one travels in a batch.
    ledger = createPgLedger(pool, { newLotId: () => `lot_${randomBytes(6).toString('hex')}`, now: () => T0, registry, localViews: false, batchWaitMs: (accounts) => ([...accounts].some((a) => slow.has(a)) ? 300 : waitMs) })
  })
  afterAll(async () => {
    await ledger?.close()
    await pool?.end()
    await db?.drop()
  })

  const account = () => insertAccount(pool, T0)

  /** Two holds of `id`, the second `gapMs` after the first: how many batches and requests they took. */
  async function twoHolds(id: string, gapMs: number): Promise<{ batches: number; requests: number }> {
    const before = await commits()
    const first = ledger.hold(id, 1, T0)
    await sleep(gapMs)
    const second = ledger.hold(id, 1, T0)
    expect((await first).ok).toBe(true)
    expect((await second).ok).toBe(true)
    const after = await commits()
    return { batches: after.batches - before.batches, requests: after.requests - before.requests }
  }

  it('no wait: calls 30 ms apart go in two batches; a 300 ms wait: in one', async () => {
    const id = await account()
    await ledger.hold(id, 1, T0)
    waitMs = 0
    expect(await twoHolds(id, 30)).toEqual({ batches: 2, requests: 2 })
    waitMs = 300
    // The batch that finds the wait begun goes at once; from the next one, batches wait.
    await ledger.hold(id, 1, T0)
    expect(await twoHolds(id, 30)).toEqual({ batches: 1, requests: 2 })
  })

  it('a batch waiting when the wait ends goes with the next call, without waiting out the rest', async () => {
    const id = await account()
    await ledger.hold(id, 1, T0)
    waitMs = 5_000
    await ledger.hold(id, 1, T0)
    const before = await commits()
    const started = Date.now()
    const first = ledger.hold(id, 1, T0)
    await sleep(30)
    waitMs = 0
    const second = ledger.hold(id, 1, T0)
    expect((await first).ok).toBe(true)
    expect((await second).ok).toBe(true)
    expect(Date.now() - started).toBeLessThan(2_000)
    const after = await commits()
    expect({ batches: after.batches - before.batches, requests: after.requests - before.requests }).toEqual({ batches: 1, requests: 2 })
  })

  it('a wait for some accounts only: their calls go together, even just after a batch with nothing waiting', async () => {
    waitMs = 0
    const shared = await account()
    const alone = await account()
    slow.add(shared)
    try {
      // The first batch of `shared` may go at once (the one before it had no wait); then each waits.
      // Each pair starts once every batch has ended (the rows of holds a hold leaves to write
      // included), with nothing waiting: the wait still holds for the pair's first call.
      await ledger.hold(shared, 1, T0)
      await sleep(500)
      expect(await twoHolds(shared, 30)).toEqual({ batches: 1, requests: 2 })
      await sleep(500)
      expect(await twoHolds(shared, 30)).toEqual({ batches: 1, requests: 2 })
      await ledger.hold(alone, 1, T0)
      expect(await twoHolds(alone, 30)).toEqual({ batches: 2, requests: 2 })
    } finally {
      slow.delete(shared)
    }
  })
})
