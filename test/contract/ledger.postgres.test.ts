/**
 * The Ledger contract on PostgreSQL (one fresh database for this file, a new pool per test; reopen()
 * ends the pool and opens another), then what only a shared database has to prove: several nodes
 * (separate pools) racing on one account stay exact, a hold whose node died stops counting at its
 * expiry and never bills, and a renewal raced by several nodes is granted once.
 */
import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { migratePostgres, openPostgres, type PgPool } from '../../src/adapters/postgres/database.ts'
import { HOLD_TTL_MS, createPgLedger } from '../../src/adapters/postgres/pg-ledger.ts'
import type { AccountRecord } from '../../src/ports/account-store.ts'
import { KEY_LEASE_MS, type HoldResult, type Ledger, type UsageLine } from '../../src/ports/ledger.ts'
import { KEY_RENEW_MS } from '../../src/adapters/postgres/pg-ledger-keys.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'
import { runLedgerContract } from './ledger.contract.ts'

const up = await postgresAvailable()
const newLotId = () => `lot_${randomBytes(6).toString('hex')}`

let db: { url: string; drop(): Promise<void> } | undefined
const url = () => (db as { url: string }).url

/** Waits until no node's row holds credits on the account (each node writes its row in its next batch). */
async function heldSettles(pool: PgPool, id: string): Promise<void> {
  const held = async () =>
    Number((await pool.query<{ n: number }>('SELECT COALESCE(SUM(credits), 0)::int AS n FROM node_holds WHERE account_id = $1', [id])).rows[0]?.n)
  for (const end = Date.now() + 5_000; (await held()) !== 0; ) {
    if (Date.now() > end) throw new Error(`credits still held on ${id}: ${await held()}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

async function addAccount(pool: PgPool, a: Partial<AccountRecord> & { createdAt: number }): Promise<string> {
  const id = `acc_${randomBytes(6).toString('hex')}`
  const r: AccountRecord = { id, name: 't', suspendedAt: null, plan: 'free', status: 'free', creditsLimit: 1000, rpsLimit: 5, ...a }
  await pool.query(
    `INSERT INTO accounts (id, name, created_at, suspended_at, plan, status, credits_limit, rps_limit, anchor_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $3)`,
    [r.id, r.name, r.createdAt, r.suspendedAt, r.plan, r.status, r.creditsLimit, r.rpsLimit],
  )
  await pool.query('INSERT INTO api_keys (id, account_id, hash, prefix, created_at) VALUES ($1, $2, $3, $4, $5)', [
    `key_${id}`,
    id,
    randomBytes(16).toString('hex'),
    'pk_',
    r.createdAt,
  ])
  return id
}

describe.skipIf(!up)('PostgreSQL ledger', () => {
  beforeAll(async () => {
    db = await createTestDatabase('pronet_ledger')
    const pool = openPostgres(url(), { max: 1 })
    await migratePostgres(pool)
    await pool.end()
  })
  afterAll(async () => db?.drop())

  runLedgerContract('postgres', async () => {
    let pool = openPostgres(url(), { max: 10 })
    let ledger = createPgLedger(pool, { newLotId })
    return {
      get ledger() {
        return ledger
      },
      createAccount: (a) => addAccount(pool, a),
      async reopen() {
        await ledger.close()
        await pool.end()
        pool = openPostgres(url(), { max: 10 })
        ledger = createPgLedger(pool, { newLotId })
        return ledger
      },
      async dispose() {
        await ledger.close()
        await pool.end()
      },
    }
  })

  describe('ledger entries and the lots they name', () => {
    const T0 = Date.UTC(2027, 2, 10, 12)
    let pool: PgPool
    beforeAll(() => {
      pool = openPostgres(url(), { max: 2 })
    })
    afterAll(async () => pool.end())

    /** An account with one pack lot of 100 credits and its grant entry. */
    async function accountWithLot(): Promise<{ id: string; lot: string }> {
      const id = await addAccount(pool, { createdAt: T0 })
      const lot = newLotId()
      await pool.query(
        `INSERT INTO credit_lots (id, account_id, kind, credits, remaining, starts_at, expires_at, price_cents, seq)
         VALUES ($1, $2, 'pack', 100, 100, $3, $4, 0, 1)`,
        [lot, id, T0, T0 + 86_400_000],
      )
      await pool.query(`INSERT INTO ledger_entries (account_id, lot_id, at, kind, delta) VALUES ($1, $2, $3, 'grant', 100)`, [id, lot, T0])
      return { id, lot }
    }
    const entries = async (id: string) =>
      (await pool.query<{ kind: string; delta: number }>('SELECT kind, delta FROM ledger_entries WHERE account_id = $1 ORDER BY id', [id])).rows
    const remaining = async (lot: string) => (await pool.query<{ remaining: number }>('SELECT remaining FROM credit_lots WHERE id = $1', [lot])).rows[0]?.remaining
    const refusal = { code: '23503', message: expect.stringMatching(/lot_nowhere|ledger names its lots/) as unknown }

    it('an insert naming a lot that does not exist is refused whole, with the lot named', async () => {
      const { id, lot } = await accountWithLot()
      await expect(
        pool.query(
          `INSERT INTO ledger_entries (account_id, lot_id, at, kind, delta, request_id, endpoint)
           VALUES ($1, $2, $3, 'debit', -1, 'r-ok', '/api/v1/profile'), ($1, 'lot_nowhere', $3, 'debit', -1, 'r-bad', '/api/v1/profile')`,
          [id, lot, T0],
        ),
      ).rejects.toMatchObject(refusal)
      expect(await entries(id)).toEqual([{ kind: 'grant', delta: 100 }])
    })

    it("a batch's debits go through the batch function, and one naming no lot undoes the batch", async () => {
      const { id, lot } = await accountWithLot()
      const debit = (lots: string[]) =>
        pool.query('SELECT pronet_debit_many($1::text[], $2::text[], $3::int[], $4::bigint[], $5::text[], $6::text[])', [
          lots.map(() => id),
          lots,
          lots.map(() => 1),
          lots.map(() => T0 + 1),
          lots.map(() => `req-${randomBytes(4).toString('hex')}`),
          lots.map(() => '/api/v1/profile'),
        ])
      await debit([lot, lot, lot])
      expect(await remaining(lot)).toBe(97)
      await expect(debit([lot, 'lot_nowhere', lot])).rejects.toMatchObject(refusal)
      expect(await remaining(lot)).toBe(97)
      expect(await entries(id)).toEqual([{ kind: 'grant', delta: 100 }, ...Array(3).fill({ kind: 'debit', delta: -1 })])
    })

    it('a lot is never deleted nor renamed; its balance still changes', async () => {
      const { id, lot } = await accountWithLot()
      await expect(pool.query('DELETE FROM credit_lots WHERE id = $1', [lot])).rejects.toMatchObject(refusal)
      await expect(pool.query(`UPDATE credit_lots SET id = 'lot_renamed' WHERE id = $1`, [lot])).rejects.toMatchObject(refusal)
      await pool.query('UPDATE credit_lots SET remaining = 90 WHERE id = $1', [lot])
      expect(await remaining(lot)).toBe(90)
      expect((await pool.query('SELECT 1 FROM credit_lots WHERE account_id = $1', [id])).rowCount).toBe(1)
    })
  })

  describe('several nodes on one database', () => {
    const T0 = Date.UTC(2027, 2, 10, 12)
    const NODES = 3
    let pools: PgPool[] = []
    let nodes: Ledger[] = []
    let seq = 0
    const line = (accountId: string, at: number, credits: number, status = 200): UsageLine => ({
      accountId,
      at,
      endpoint: '/api/v1/profile',
      status,
      credits,
      requestId: `node-req-${++seq}`,
    })

    beforeAll(() => {
      pools = Array.from({ length: NODES }, (_, i) => openPostgres(url(), { max: 8, applicationName: `pronet-node-${i}` }))
      // No renewal here: these tests move the requests' clock past expiries in a few real milliseconds
      // (renewal has a test of its own below).
      nodes = pools.map((pool) => createPgLedger(pool, { newLotId, holdRenewMs: 0 }))
    })
    afterAll(async () => {
      for (const ledger of nodes) await ledger.close()
      for (const pool of pools) await pool.end()
    })

    /** Per lot SUM(delta) = remaining (read from the rows, not through the ledger), and no lot below 0. */
    async function rowsBalance(accountId: string): Promise<void> {
      const r = await (pools[0] as PgPool).query<{ id: string; remaining: number; sum: string | null }>(
        `SELECT l.id, l.remaining, (SELECT sum(e.delta) FROM ledger_entries e WHERE e.lot_id = l.id) AS sum
         FROM credit_lots l WHERE l.account_id = $1`,
        [accountId],
      )
      expect(r.rows.length).toBeGreaterThan(0)
      for (const row of r.rows) {
        expect(row.remaining).toBeGreaterThanOrEqual(0)
        expect(Number(row.sum), `lot ${row.id}`).toBe(row.remaining)
      }
    }

    it('300 simultaneous hold+settle pairs over three nodes against 11 credits bill exactly 11', async () => {
      const id = await addAccount(pools[0] as PgPool, { plan: 'custom', status: 'active', creditsLimit: 11, createdAt: T0 })
      const outcomes = await Promise.all(
        Array.from({ length: 300 }, async (_, i) => {
          const node = nodes[i % NODES] as Ledger
          const at = T0 + 1000 + (i % 7)
          const held = await node.hold(id, 1, at)
          if (!held.ok) {
            // As the gateway does: a refused call is one free 402 line.
            await node.settle(null, line(id, at, 0, 402))
            return 'refused'
          }
          const settled = await node.settle(held.hold, line(id, at, 1))
          expect(settled).toEqual({ ok: true, charged: 1 })
          return 'billed'
        }),
      )
      expect(outcomes.filter((o) => o === 'billed')).toHaveLength(11)
      expect(outcomes.filter((o) => o === 'refused')).toHaveLength(289)
      for (const node of nodes) {
        const state = await node.state(id, T0 + 2000)
        expect(state!.lots).toHaveLength(1)
        expect(state!.lots[0]).toMatchObject({ kind: 'plan', credits: 11, remaining: 0 })
      }
      const entries = await (nodes[1] as Ledger).entries(id)
      expect(entries.filter((e) => e.kind === 'grant')).toHaveLength(1)
      const debits = entries.filter((e) => e.kind === 'debit')
      expect(debits).toHaveLength(11)
      expect(debits.every((d) => d.delta === -1)).toBe(true)
      expect(new Set(debits.map((d) => d.requestId)).size).toBe(11)
      await rowsBalance(id)
      expect(await (nodes[2] as Ledger).usage(id, '2027-03-10', '2027-03-10')).toEqual([
        { day: '2027-03-10', endpoint: '/api/v1/profile', status: 200, requests: 11, billable: 11, credits: 11 },
        { day: '2027-03-10', endpoint: '/api/v1/profile', status: 402, requests: 289, billable: 0, credits: 0 },
      ])
      const holds = await (pools[0] as PgPool).query('SELECT COALESCE(SUM(credits), 0)::int AS n FROM node_holds WHERE account_id = $1', [id])
      expect(holds.rows[0]).toEqual({ n: 0 })
    })

    it('mixed prices and a pack over three nodes: drawdown order holds and nothing is lost', async () => {
      const id = await addAccount(pools[0] as PgPool, { plan: 'custom', status: 'active', creditsLimit: 7, createdAt: T0 })
      await (nodes[0] as Ledger).state(id, T0)
      const pack = await (nodes[1] as Ledger).addPack(id, { credits: 50_000, purchasedAt: T0, priceCents: 7500 })
      // 2-credit calls charge 2 or (a 404) 1 of their hold; 1-credit calls charge 0 or 1.
      const charges = await Promise.all(
        Array.from({ length: 240 }, async (_, i) => {
          const node = nodes[i % NODES] as Ledger
          const price = i % 2 === 0 ? 2 : 1
          const charge = i % 5 === 0 ? price - 1 : price
          const held = await node.hold(id, price, T0 + 1)
          if (!held.ok) throw new Error('refused with 50,007 credits')
          const settled = await node.settle(held.hold, line(id, T0 + 1, charge, charge === price ? 200 : 404))
          return settled.ok ? settled.charged : Number.NaN
        }),
      )
      const total = charges.reduce((s, c) => s + c, 0)
      const state = await (nodes[2] as Ledger).state(id, T0 + 1)
      expect(state!.lots.find((l) => l.kind === 'plan')!.remaining).toBe(0)
      expect(state!.lots.find((l) => l.id === pack.id)!.remaining).toBe(50_007 - total)
      const entries = await (nodes[0] as Ledger).entries(id)
      const debits = entries.filter((e) => e.kind === 'debit')
      expect(-debits.reduce((s, e) => s + e.delta, 0)).toBe(total)
      const planId = state!.lots.find((l) => l.kind === 'plan')!.id
      expect(Math.max(...debits.filter((e) => e.lotId === planId).map((e) => e.id))).toBeLessThan(
        Math.min(...debits.filter((e) => e.lotId === pack.id).map((e) => e.id)),
      )
      await rowsBalance(id)
      const usage = await (nodes[1] as Ledger).usage(id, '2027-03-10', '2027-03-10')
      expect(usage.reduce((s, u) => s + u.requests, 0)).toBe(240)
      expect(usage.reduce((s, u) => s + u.credits, 0)).toBe(total)
      expect(usage.reduce((s, u) => s + u.billable, 0)).toBe(charges.filter((c) => c > 0).length)
    })

    it('a hold whose node died counts until its expiry, then stops, is deleted and never bills', async () => {
      const id = await addAccount(pools[0] as PgPool, { plan: 'custom', status: 'active', creditsLimit: 5, createdAt: T0 })
      // A node of its own that takes a hold and then disappears without settling.
      const doomedPool = openPostgres(url(), { max: 2 })
      const doomed = createPgLedger(doomedPool, { newLotId })
      const orphan = await doomed.hold(id, 4, T0)
      expect(orphan.ok).toBe(true)
      // It dies: its connections go first, so nothing it does on its way out reaches the database.
      await doomedPool.end()
      await doomed.close()

      const survivor = nodes[1] as Ledger
      // Until its expiry the orphan still reserves its 4 credits (its request might still be running).
      expect(await survivor.hold(id, 2, T0 + HOLD_TTL_MS - 1)).toMatchObject({ ok: false, balance: { total: 5 } })
      const small = await survivor.hold(id, 1, T0 + HOLD_TTL_MS - 1)
      if (!small.ok) throw new Error('refused')
      await survivor.settle(small.hold, line(id, T0 + HOLD_TTL_MS - 1, 1))
      // From its expiry on it is ignored, and the hold that notices deletes its row: the survivor's
      // own row (its 4 credits now) is all that is left.
      const big = await survivor.hold(id, 4, T0 + HOLD_TTL_MS)
      if (!big.ok) throw new Error('the expired hold still counts')
      const left = await (pools[0] as PgPool).query<{ credits: string }>('SELECT credits FROM node_holds WHERE account_id = $1', [id])
      expect(left.rows).toEqual([{ credits: '4' }])
      await survivor.settle(big.hold, line(id, T0 + HOLD_TTL_MS, 4))
      const debits = (await survivor.entries(id)).filter((e) => e.kind === 'debit')
      expect(debits.map((d) => d.delta)).toEqual([-1, -4])
      expect((await survivor.state(id, T0 + HOLD_TTL_MS))!.lots[0]!.remaining).toBe(0)
      await rowsBalance(id)
    })

    it("a dead node's Idempotency-Key claim lapses only after its holds, so the retry of its cut-off call finds the credits", async () => {
      const id = await addAccount(pools[0] as PgPool, { plan: 'custom', status: 'active', creditsLimit: 5, createdAt: T0 })
      const use = (at: number) => ({ accountId: id, key: 'cut-off', fingerprint: 'fp', at })
      const doomedPool = openPostgres(url(), { max: 2 })
      // Renewing nothing: a live node would have renewed its claim by the time it takes this hold.
      const doomed = createPgLedger(doomedPool, { newLotId, holdRenewMs: 0, keyRenewMs: 0 })
      expect((await doomed.claimKey(use(T0))).state).toBe('claimed')
      // The call takes its hold, the whole balance, as late as it can before its claim's next renewal; then its node dies.
      const heldAt = T0 + KEY_RENEW_MS - 1
      expect((await doomed.hold(id, 5, heldAt)).ok).toBe(true)
      await doomedPool.end()
      await doomed.close()

      const survivor = nodes[1] as Ledger
      // The client's retry waits while the claim stands.
      expect(await survivor.claimKey(use(T0 + KEY_LEASE_MS - 1))).toEqual({ state: 'running' })
      // Once the claim has lapsed the retry takes the key, and the credits its first try held are free.
      const retry = await survivor.claimKey(use(T0 + KEY_LEASE_MS + 1))
      if (retry.state !== 'claimed') throw new Error(`the key is still ${retry.state}`)
      const held = await survivor.hold(id, 5, T0 + KEY_LEASE_MS + 1)
      if (!held.ok) throw new Error(`the retry was refused with ${held.held} credits held`)
      const answer = { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: Buffer.from('{}') }
      expect(await survivor.settle(held.hold, line(id, T0 + KEY_LEASE_MS + 1, 5), { claim: retry.claim, answer })).toEqual({ ok: true, charged: 5 })
      expect((await survivor.entries(id)).filter((e) => e.kind === 'debit').map((d) => d.delta)).toEqual([-5])
      await rowsBalance(id)
    })

    it("a live node renews its unsettled holds, so a long call keeps its credits; a dead node's lapse a ttl after its last renewal", async () => {
      const id = await addAccount(pools[0] as PgPool, { plan: 'custom', status: 'active', creditsLimit: 5, createdAt: T0 })
      const ttl = 1_000
      const livePool = openPostgres(url(), { max: 2 })
      const live = createPgLedger(livePool, { newLotId, holdTtlMs: ttl, holdRenewMs: 50 })
      const long = await live.hold(id, 4, T0)
      if (!long.ok) throw new Error('refused')
      // The live node's row is the only one holding credits (the survivor's, once it has one, holds none).
      const expiry = async () =>
        Number((await (pools[0] as PgPool).query<{ e: string }>('SELECT expires_at AS e FROM node_holds WHERE account_id = $1 AND credits = 4', [id])).rows[0]?.e)
      expect(await expiry()).toBe(T0 + ttl)
      // Renewed while its call runs: the expiry follows real time (arrival + elapsed + ttl). Waited for
      // rather than slept on: on a loaded machine the renewals that move it can come late.
      await vi.waitFor(async () => expect(await expiry()).toBeGreaterThanOrEqual(T0 + ttl + 250), { timeout: 10_000, interval: 50 })
      // Another node at the original expiry still sees the 4 credits held.
      const survivor = nodes[1] as Ledger
      expect(await survivor.hold(id, 2, T0 + ttl)).toMatchObject({ ok: false, held: 4 })
      // The node dies (its timers stop with it, here by close): no more renewals; a ttl after the last
      // one the hold no longer counts. A settled hold is no longer renewed either.
      await livePool.end()
      await live.close()
      const last = await expiry()
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(await expiry()).toBe(last)
      const after = await survivor.hold(id, 5, last)
      expect(after.ok).toBe(true)
      if (after.ok) await survivor.settle(after.hold, line(id, last, 0, 404))
      await rowsBalance(id)
    })

    it('a settle whose hold expired meanwhile still bills while the lots cover it, and is refused once they do not', async () => {
      const id = await addAccount(pools[0] as PgPool, { plan: 'custom', status: 'active', creditsLimit: 3, createdAt: T0 })
      const slow = await (nodes[0] as Ledger).hold(id, 2, T0)
      if (!slow.ok) throw new Error('refused')
      // Another node, after the slow hold's expiry, takes the whole balance and deletes the slow hold.
      const fast = await (nodes[1] as Ledger).hold(id, 3, T0 + HOLD_TTL_MS)
      if (!fast.ok) throw new Error('refused')
      expect(await (nodes[1] as Ledger).settle(fast.hold, line(id, T0 + HOLD_TTL_MS, 2))).toEqual({ ok: true, charged: 2 })
      // 1 credit left: the slow request (2) is refused and writes nothing; the caller records its line.
      expect(await (nodes[0] as Ledger).settle(slow.hold, line(id, T0, 2))).toEqual({ ok: false, reason: 'insufficient' })
      const second = await (nodes[0] as Ledger).hold(id, 1, T0 + 1)
      if (!second.ok) throw new Error('refused')
      expect(await (nodes[0] as Ledger).settle(second.hold, line(id, T0 + 1, 1))).toEqual({ ok: true, charged: 1 })
      expect((await (nodes[2] as Ledger).entries(id)).filter((e) => e.kind === 'debit').map((e) => e.delta)).toEqual([-2, -1])
      expect(await (nodes[2] as Ledger).usage(id, '2027-03-10', '2027-03-15')).toEqual([
        { day: '2027-03-10', endpoint: '/api/v1/profile', status: 200, requests: 2, billable: 2, credits: 3 },
      ])
      await rowsBalance(id)
    })

    it('an operator change between hold and settle: the settle is refused and releases its hold', async () => {
      const id = await addAccount(pools[0] as PgPool, { plan: 'custom', status: 'active', creditsLimit: 4, createdAt: T0 })
      const held = await (nodes[0] as Ledger).hold(id, 4, T0)
      if (!held.ok) throw new Error('refused')
      await (nodes[1] as Ledger).changeSubscription(id, { creditsLimit: 1 }, T0)
      expect(await (nodes[0] as Ledger).settle(held.hold, line(id, T0, 4))).toEqual({ ok: false, reason: 'insufficient' })
      // The hold is gone: the 1 credit left can be held at once.
      expect((await (nodes[0] as Ledger).hold(id, 1, T0)).ok).toBe(true)
      expect((await (nodes[0] as Ledger).entries(id)).some((e) => e.kind === 'debit')).toBe(false)
      await rowsBalance(id)
    })

    it('during a rolling upgrade the holds of nodes of the earlier release (a row per call) count until they lapse', async () => {
      const id = await addAccount(pools[0] as PgPool, { plan: 'custom', status: 'active', creditsLimit: 5, createdAt: T0 })
      await (pools[0] as PgPool).query('INSERT INTO credit_holds (id, account_id, credits, at, expires_at) VALUES ($1, $2, 4, $3, $4)', [
        `hold_old_${id}`,
        id,
        T0,
        T0 + HOLD_TTL_MS,
      ])
      const node = nodes[0] as Ledger
      expect(await node.hold(id, 2, T0 + 1)).toMatchObject({ ok: false, held: 4 })
      const after = await node.hold(id, 5, T0 + HOLD_TTL_MS)
      if (!after.ok) throw new Error('the lapsed row still counts')
      expect((await (pools[0] as PgPool).query('SELECT count(*)::int AS n FROM credit_holds WHERE account_id = $1', [id])).rows[0]).toEqual({ n: 0 })
      await node.settle(after.hold, line(id, T0 + HOLD_TTL_MS, 0, 500))
      await heldSettles(pools[0] as PgPool, id)
    })

    it('the requests of many accounts travel in one batch; one that cannot be written fails alone, the others stand', async () => {
      const node = nodes[0] as Ledger
      const ids = await Promise.all(Array.from({ length: 12 }, () => addAccount(pools[0] as PgPool, { plan: 'custom', status: 'active', creditsLimit: 5, createdAt: T0 })))
      for (const id of ids) await node.state(id, T0)
      // Asked in one turn of the event loop: one batch, every account's lock in one transaction.
      const holds = await Promise.all(ids.map((id) => node.hold(id, 2, T0)))
      expect(holds.every((h) => h.ok)).toBe(true)
      // Two settles of two accounts share a request id: the batch is refused as a whole, runs again
      // account by account, and only the second of them fails.
      const lines = ids.map((id, i) => ({ ...line(id, T0, 2), ...(i === 3 || i === 7 ? { requestId: `shared-${ids[3]}` } : {}) }))
      const settled = await Promise.allSettled(ids.map((id, i) => node.settle((holds[i] as Extract<HoldResult, { ok: true }>).hold, lines[i] as UsageLine)))
      const failed = settled.flatMap((r, i) => (r.status === 'rejected' ? [i] : []))
      expect(failed).toHaveLength(1)
      expect([3, 7]).toContain(failed[0])
      for (const [i, r] of settled.entries()) if (i !== failed[0]) expect(r).toEqual({ status: 'fulfilled', value: { ok: true, charged: 2 } })
      for (const [i, id] of ids.entries()) {
        const debits = (await node.entries(id)).filter((e) => e.kind === 'debit')
        expect(debits.map((d) => d.delta)).toEqual(i === failed[0] ? [] : [-2])
        await rowsBalance(id)
      }
      // The failed settle's hold is released too: nothing stays held on any of them.
      for (const id of ids) await heldSettles(pools[0] as PgPool, id)
    })

    it('requests combined into one transaction: settles go first, and one that cannot be written fails alone', async () => {
      const node = nodes[0] as Ledger
      const id = await addAccount(pools[0] as PgPool, { plan: 'custom', status: 'active', creditsLimit: 3, createdAt: T0 })
      const first = await node.hold(id, 1, T0)
      if (!first.ok) throw new Error('refused')
      const second = await node.hold(id, 1, T0)
      if (!second.ok) throw new Error('refused')
      // The first call starts a transaction; the next ones wait for it and travel together.
      const [, settledFirst, late, duplicate, settledSecond] = await Promise.allSettled([
        node.hold(id, 0, T0),
        node.settle(first.hold, { ...line(id, T0, 1), requestId: 'dup-1' }),
        node.hold(id, 2, T0),
        node.settle(second.hold, { ...line(id, T0, 1), requestId: 'dup-1' }),
        node.state(id, T0),
      ])
      expect(settledFirst).toEqual({ status: 'fulfilled', value: { ok: true, charged: 1 } })
      // The second settle bills request dup-1 on the same lot again: refused by the unique index, alone.
      expect(duplicate.status).toBe('rejected')
      expect(settledSecond.status).toBe('fulfilled')
      // 3 credits, 1 billed, the second hold still live (its settle failed): 1 left, so 2 is refused.
      expect(late).toMatchObject({ status: 'fulfilled', value: { ok: false, balance: { total: 2 } } })
      expect((await node.entries(id)).filter((e) => e.kind === 'debit')).toHaveLength(1)
      expect(await node.usage(id, '2027-03-10', '2027-03-10')).toEqual([
        { day: '2027-03-10', endpoint: '/api/v1/profile', status: 200, requests: 1, billable: 1, credits: 1 },
      ])

      // A settle and a hold in one transaction: the settle's debit is seen by the hold.
      const id2 = await addAccount(pools[0] as PgPool, { plan: 'custom', status: 'active', creditsLimit: 1, createdAt: T0 })
      const only = await node.hold(id2, 1, T0)
      if (!only.ok) throw new Error('refused')
      const [, settled, after] = await Promise.all([node.hold(id2, 0, T0), node.settle(only.hold, line(id2, T0, 1)), node.hold(id2, 1, T0)])
      expect(settled).toEqual({ ok: true, charged: 1 })
      expect(after).toMatchObject({ ok: false, balance: { total: 0 } })
      await rowsBalance(id)
      await rowsBalance(id2)
    })

    it('property: random concurrent traffic, packs, operator changes and renewals over three nodes stay exact', async () => {
      const DAY = 86_400_000
      const call = fc.record({
        node: fc.integer({ min: 0, max: NODES - 1 }),
        price: fc.integer({ min: 1, max: 3 }),
        /** Charged 0 (an error), price - 1 (a 404 of a 2-credit call) or the price. */
        outcome: fc.constantFrom('free', 'less', 'full'),
        day: fc.integer({ min: 0, max: 70 }),
      })
      const operator = fc.oneof(
        fc.record({ k: fc.constant('pack' as const), node: fc.integer({ min: 0, max: NODES - 1 }), day: fc.integer({ min: 0, max: 70 }) }),
        fc.record({ k: fc.constant('limit' as const), node: fc.integer({ min: 0, max: NODES - 1 }), limit: fc.integer({ min: 0, max: 12 }) }),
      )
      const round = fc.record({ calls: fc.array(call, { minLength: 1, maxLength: 40 }), operators: fc.array(operator, { maxLength: 2 }) })
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: 12 }), fc.array(round, { minLength: 1, maxLength: 4 }), async (limit, rounds) => {
          const id = await addAccount(pools[0] as PgPool, { plan: 'custom', status: 'active', creditsLimit: limit, createdAt: T0 })
          let charged = 0
          let lines = 0
          // Rounds start at increasing instants, so operator changes and renewals fall between calls.
          for (const [r, { calls, operators }] of rounds.entries()) {
            const base = T0 + r * 20 * DAY
            const results = await Promise.all([
              ...calls.map(async (c) => {
                const node = nodes[c.node] as Ledger
                const at = base + c.day * 3_600_000
                const held = await node.hold(id, c.price, at)
                if (!held.ok) {
                  await node.settle(null, line(id, at, 0, 402))
                  return 1
                }
                const credits = c.outcome === 'free' ? 0 : c.outcome === 'less' ? c.price - 1 : c.price
                const settled = await node.settle(held.hold, line(id, at, credits, credits === c.price ? 200 : credits === 0 ? 500 : 404))
                if (settled.ok) {
                  charged += settled.charged
                  return 1
                }
                await node.settle(null, line(id, at, 0, 402))
                return 1
              }),
              ...operators.map(async (o) => {
                const node = nodes[o.node] as Ledger
                if (o.k === 'pack') await node.addPack(id, { credits: 50, purchasedAt: base + o.day * 3_600_000, priceCents: 1 })
                else await node.changeSubscription(id, { creditsLimit: o.limit }, base + 1)
                return 0
              }),
            ])
            lines += results.reduce((s: number, n) => s + n, 0)
          }
          const entries = await (nodes[0] as Ledger).entries(id)
          expect(entries.filter((e) => e.kind === 'debit').reduce((s, e) => s - e.delta, 0)).toBe(charged)
          const usage = await (nodes[1] as Ledger).usage(id, '2027-01-01', '2027-12-31')
          expect(usage.reduce((s, u) => s + u.requests, 0)).toBe(lines)
          expect(usage.reduce((s, u) => s + u.credits, 0)).toBe(charged)
          const state = await (nodes[2] as Ledger).state(id, T0)
          const planStarts = state!.lots.filter((l) => l.kind === 'plan').map((l) => l.startsAt)
          expect(new Set(planStarts).size).toBe(planStarts.length)
          // Free settles release their holds in memory at once, and in the nodes' rows with the next batch.
          await heldSettles(pools[0] as PgPool, id)
          await rowsBalance(id)
        }),
        { numRuns: 12 },
      )
    })

    it('a renewal raced by every node grants exactly one lot per period', async () => {
      const id = await addAccount(pools[0] as PgPool, { plan: 'custom', status: 'active', creditsLimit: 20, createdAt: T0 })
      const periods = [T0, Date.UTC(2027, 3, 10, 12) + 5, Date.UTC(2027, 4, 10, 12), Date.UTC(2027, 6, 1)]
      for (const at of periods) {
        // Reads, holds and pack purchases, from every node at once, each first bringing the period up.
        await Promise.all(
          Array.from({ length: 30 }, async (_, i) => {
            const node = nodes[i % NODES] as Ledger
            if (i % 3 === 0) return node.state(id, at)
            if (i % 3 === 1) {
              const held = await node.hold(id, 1, at)
              if (held.ok) await node.settle(held.hold, line(id, at, 1))
              return held
            }
            return i === 2 ? node.addPack(id, { credits: 50_000, purchasedAt: at, priceCents: 7500 }) : node.state(id, at + i)
          }),
        )
      }
      const state = await (nodes[0] as Ledger).state(id, Date.UTC(2027, 6, 1))
      const planLots = state!.lots.filter((l) => l.kind === 'plan')
      expect(planLots.map((l) => l.startsAt)).toEqual([T0, Date.UTC(2027, 3, 10, 12), Date.UTC(2027, 4, 10, 12), Date.UTC(2027, 5, 10, 12)])
      expect(new Set(state!.lots.map((l) => l.seq)).size).toBe(state!.lots.length)
      const grants = (await (nodes[1] as Ledger).entries(id)).filter((e) => e.kind === 'grant')
      expect(grants).toHaveLength(4 + 4)
      expect(state!.subscription).toMatchObject({ periodStart: Date.UTC(2027, 5, 10, 12), renewalAt: Date.UTC(2027, 6, 10, 12) })
      await rowsBalance(id)
    })
  })
})
