/**
 * A PostgreSQL node deciding from the state its last batch left. While an account keeps far more than
 * it is asked for, a hold is granted from that state with no transaction; near empty, or once that
 * state is old, renewal due or changed, the database decides. Settles decided from it go in one round
 * trip with a guard that, under the lock, finds the account as it was or rolls back so the batch
 * reads under the lock. Whatever a node granted on its own, a settle only debits what the lots still
 * hold under the account's lock: credits are billed exactly once, never past zero, and a call whose
 * credits another node spent meanwhile is refused, free.
 */
import { randomBytes } from 'node:crypto'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migratePostgres, openPostgres, type PgPool } from '../../src/adapters/postgres/database.ts'
import { LOCAL_FLOOR_CREDITS } from '../../src/adapters/postgres/pg-ledger-local-holds.ts'
import { createPgLedger } from '../../src/adapters/postgres/pg-ledger.ts'
import type { HoldResult, Ledger, UsageLine } from '../../src/ports/ledger.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'

const up = await postgresAvailable()
const T0 = Date.UTC(2027, 4, 3, 9)
const newLotId = () => `lot_${randomBytes(6).toString('hex')}`
const line = (accountId: string, at: number, credits: number): UsageLine => ({
  accountId,
  at,
  endpoint: '/api/v1/profile',
  status: 200,
  credits,
  requestId: `req_${randomBytes(8).toString('hex')}`,
})

/** 'memory' when the hold was answered before any I/O could have been (the batcher starts on the next turn), else 'database'. */
async function decidedBy(p: Promise<HoldResult>): Promise<{ by: 'memory' | 'database'; result: HoldResult }> {
  const by = await Promise.race([p.then(() => 'memory' as const), new Promise<'database'>((r) => setImmediate(() => r('database')))])
  return { by, result: await p }
}

describe.skipIf(!up)('PostgreSQL ledger: deciding from the state the last batch left', () => {
  let db: { url: string; drop(): Promise<void> }
  let pools: PgPool[] = []
  let nodes: Ledger[] = []
  let clock = T0

  /** Node 0's metrics. */
  const registry = new Registry()
  const counted = async (name: string, outcome?: string) => {
    const values = (await registry.getSingleMetric(name)?.get())?.values ?? []
    return values.filter((v) => outcome === undefined || v.labels.outcome === outcome).reduce((sum, v) => sum + v.value, 0)
  }
  /** What each pool's clients sent, in order. */
  const sent: string[][] = [[], [], []]

  beforeAll(async () => {
    db = await createTestDatabase('pronet_local_views')
    pools = [0, 1, 2].map(() => openPostgres(db.url, { max: 4 }))
    await migratePostgres(pools[0] as PgPool)
    const logged = new WeakSet<object>()
    pools.forEach((pool, i) =>
      pool.on('acquire', (client) => {
        if (logged.has(client)) return
        logged.add(client)
        const query = client.query.bind(client) as (...args: unknown[]) => unknown
        ;(client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
          if (typeof args[0] === 'string') sent[i]?.push(args[0])
          return query(...args)
        }
      }),
    )
    nodes = pools.map((pool, i) => createPgLedger(pool, { newLotId, now: () => clock, ...(i === 0 ? { registry } : {}) }))
  })
  afterAll(async () => {
    for (const n of nodes) await n.close()
    for (const p of pools) await p.end()
    await db?.drop()
  })

  async function account(creditsLimit: number, plan: 'custom' | 'free' = 'custom'): Promise<string> {
    const id = `acc_${randomBytes(6).toString('hex')}`
    await (pools[0] as PgPool).query(
      `INSERT INTO accounts (id, name, created_at, suspended_at, plan, status, credits_limit, rps_limit, anchor_at)
       VALUES ($1, 't', $2, NULL, $3, $4, $5, 10, $2)`,
      [id, T0, plan, plan === 'free' ? 'free' : 'active', creditsLimit],
    )
    return id
  }
  const sql = <T extends Record<string, unknown>>(text: string, params: unknown[]) => (pools[0] as PgPool).query<T>(text, params).then((r) => r.rows)
  const remaining = async (id: string) => Number((await sql<{ n: string }>('SELECT COALESCE(SUM(remaining), 0) AS n FROM credit_lots WHERE account_id = $1', [id]))[0]?.n)
  const debits = async (id: string) => (await sql<{ request_id: string }>("SELECT request_id FROM ledger_entries WHERE account_id = $1 AND kind = 'debit'", [id])).map((r) => r.request_id)
  const rowHeld = async (id: string) => Number((await sql<{ n: string }>('SELECT COALESCE(SUM(credits), 0) AS n FROM node_holds WHERE account_id = $1', [id]))[0]?.n)
  /** Each node writes its row in its next batch: waits (5 s at most) for every row of the account to hold nothing. */
  async function noneHeld(id: string): Promise<void> {
    for (const end = Date.now() + 5_000; (await rowHeld(id)) !== 0; ) {
      if (Date.now() > end) throw new Error(`credits still held on ${id}: ${await rowHeld(id)}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  /** One hold and settle on `node`, so its batch leaves the node the account's state. */
  async function pair(node: Ledger, id: string, at: number, credits = 1): Promise<void> {
    const h = await node.hold(id, credits, at)
    if (!h.ok) throw new Error('priming hold refused')
    expect(await node.settle(h.hold, line(id, at, credits))).toEqual({ ok: true, charged: credits })
  }

  it('after a batch, holds that leave plenty are granted in memory; their settles bill each once and release the row', async () => {
    clock = T0 + 1_000
    const id = await account(100_000)
    const a = nodes[0] as Ledger
    const first = await decidedBy(a.hold(id, 1, clock))
    // Nothing seen of the account yet: the database decides.
    expect(first.by).toBe('database')
    if (!first.result.ok) throw new Error('refused')
    await a.settle(first.result.hold, line(id, clock, 1))
    const inMemoryBefore = await counted('pronet_ledger_holds_in_memory_total')
    const held = await Promise.all(Array.from({ length: 20 }, () => decidedBy(a.hold(id, 3, clock + 5))))
    expect(held.map((h) => h.by)).toEqual(Array(20).fill('memory'))
    expect((await counted('pronet_ledger_holds_in_memory_total')) - inMemoryBefore).toBe(20)
    // The other nodes learn of them with this node's next batch; the database has not been asked.
    expect(await rowHeld(id)).toBe(0)
    const lines = held.map(() => line(id, clock + 5, 3))
    const settled = await Promise.all(held.map((h, i) => (h.result.ok ? a.settle(h.result.hold, lines[i] as UsageLine) : Promise.reject(new Error('refused')))))
    expect(settled).toEqual(Array(20).fill({ ok: true, charged: 3 }))
    expect(await remaining(id)).toBe(100_000 - 1 - 60)
    const billed = await debits(id)
    expect(billed).toHaveLength(21)
    for (const l of lines) expect(billed.filter((r) => r === l.requestId)).toHaveLength(1)
    await noneHeld(id)
  })

  it('near empty, after a second, across a renewal or a change, the database decides', async () => {
    const a = nodes[0] as Ledger
    // Near empty: what a hold would leave is under the floor.
    clock = T0 + 2_000
    const small = await account(LOCAL_FLOOR_CREDITS + 5)
    await pair(a, small, clock)
    expect((await decidedBy(a.hold(small, 1, clock))).by).toBe('database')

    // Plenty, but the view is more than a second old in the requests' clock.
    const big = await account(50_000)
    await pair(a, big, clock)
    expect((await decidedBy(a.hold(big, 1, clock + 10))).by).toBe('memory')
    clock += 1_500
    expect((await decidedBy(a.hold(big, 1, clock))).by).toBe('database')

    // A change through this node (a pack) drops the view: the next hold sees the database.
    expect((await decidedBy(a.hold(big, 1, clock + 1))).by).toBe('memory')
    await a.addPack(big, { credits: 100, purchasedAt: clock + 2, priceCents: 100 })
    expect((await decidedBy(a.hold(big, 1, clock + 3))).by).toBe('database')

    // The period ends within the view's second: the renewal is the database's to grant.
    const renewing = await account(50_000)
    const periodEnd = (await a.state(renewing, T0 + 1))?.subscription.renewalAt
    if (typeof periodEnd !== 'number') throw new Error('no renewal date')
    clock = periodEnd - 400
    await pair(a, renewing, clock)
    expect((await decidedBy(a.hold(renewing, 1, periodEnd - 300))).by).toBe('memory')
    const across = await decidedBy(a.hold(renewing, 1, periodEnd + 100))
    expect(across.by).toBe('database')
    // Granted against the new period's allowance.
    expect(across.result.ok && across.result.hold.at).toBeGreaterThanOrEqual(periodEnd)
  })

  it('a hold granted in memory whose credits another node spent is refused at its settle, free; nothing is billed past zero', async () => {
    clock = T0 + 3_000
    const limit = LOCAL_FLOOR_CREDITS + 20
    const id = await account(limit)
    const [a, b] = nodes as [Ledger, Ledger]
    await pair(a, id, clock)
    // B holds everything left through the database: A's row showed nothing held.
    const all = await b.hold(id, limit - 1, clock + 1)
    expect(all.ok).toBe(true)
    // A's view predates B's hold: A grants in memory.
    const mine = await decidedBy(a.hold(id, 1, clock + 2))
    expect(mine.by).toBe('memory')
    if (!all.ok || !mine.result.ok) throw new Error('refused')
    const spent = line(id, clock + 1, limit - 1)
    expect(await b.settle(all.hold, spent)).toEqual({ ok: true, charged: limit - 1 })
    const late = line(id, clock + 2, 1)
    expect(await a.settle(mine.result.hold, late)).toEqual({ ok: false, reason: 'insufficient' })
    expect(await remaining(id)).toBe(0)
    const billed = await debits(id)
    expect(billed).toHaveLength(2)
    expect(billed).toContain(spent.requestId)
    expect(billed).not.toContain(late.requestId)
    await noneHeld(id)
  })

  it('three nodes draining an account from plenty to zero bill exactly its credits, each call once', async () => {
    clock = T0 + 4_000
    const credits = LOCAL_FLOOR_CREDITS + 1_500
    const id = await account(credits)
    // Every node has seen the account (so each starts granting in memory), then 4,000 calls race.
    for (const n of nodes) await pair(n, id, clock)
    const calls = 4_000
    const outcomes = await Promise.all(
      Array.from({ length: calls }, async (_, i) => {
        const node = nodes[i % nodes.length] as Ledger
        const at = clock + 10 + (i % 50)
        const h = await node.hold(id, 1, at)
        if (!h.ok) return { billed: undefined, refused: 'hold' as const }
        const l = line(id, at, 1)
        const s = await node.settle(h.hold, l)
        return s.ok ? { billed: l.requestId, refused: undefined } : { billed: undefined, refused: 'settle' as const }
      }),
    )
    const billed = outcomes.flatMap((o) => (o.billed ? [o.billed] : []))
    expect(billed).toHaveLength(credits - nodes.length)
    expect(outcomes.filter((o) => o.refused)).toHaveLength(calls - (credits - nodes.length))
    expect(await remaining(id)).toBe(0)
    const rows = await debits(id)
    expect(rows).toHaveLength(credits)
    expect(new Set(rows).size).toBe(credits)
    for (const r of billed) expect(rows).toContain(r)
    await noneHeld(id)
  })
  it('settles decided from the view go with their locks, guard, writes and COMMIT in one round trip', async () => {
    clock = T0 + 5_000
    const id = await account(3)
    const a = nodes[0] as Ledger
    const h1 = await a.hold(id, 1, clock)
    const h2 = await a.hold(id, 1, clock)
    if (!h1.ok || !h2.ok) throw new Error('refused')
    const first = line(id, clock, 1)
    expect(await a.settle(h1.hold, first)).toEqual({ ok: true, charged: 1 })
    sent[0]?.splice(0)
    const committedBefore = await counted('pronet_ledger_view_batches_total', 'committed')
    const second = line(id, clock, 1)
    expect(await a.settle(h2.hold, second)).toEqual({ ok: true, charged: 1 })
    const settling = (sent[0] ?? []).filter((q) => q.includes(second.requestId))
    expect(settling).toHaveLength(1)
    expect(settling[0]).toMatch(/^BEGIN;/)
    expect(settling[0]).toContain('pronet_expect_state(')
    expect(settling[0]).toMatch(/COMMIT$/)
    expect(sent[0]?.some((q) => q === 'ROLLBACK')).toBe(false)
    expect((await counted('pronet_ledger_view_batches_total', 'committed')) - committedBefore).toBe(1)
    expect(await remaining(id)).toBe(1)
    expect((await debits(id)).sort()).toEqual([first.requestId, second.requestId].sort())
    await noneHeld(id)
  })

  it('batches decided from the view do not make it younger: a second after the last read under the lock, a batch reads again', async () => {
    clock = T0 + 7_000
    const id = await account(100_000)
    const a = nodes[0] as Ledger
    await pair(a, id, clock)
    const readAt = Date.now()
    // Settles decided from the view, one round trip each, for more than a second of real time.
    let guarded = 0
    while (Date.now() - readAt < 700) {
      const h = await a.hold(id, 1, clock)
      if (!h.ok) throw new Error('refused')
      sent[0]?.splice(0)
      const l = line(id, clock, 1)
      expect(await a.settle(h.hold, l)).toEqual({ ok: true, charged: 1 })
      if ((sent[0] ?? []).some((q) => q.includes(l.requestId) && q.includes('pronet_expect_state('))) guarded++
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(guarded).toBeGreaterThan(3)
    const h = await a.hold(id, 1, clock)
    if (!h.ok) throw new Error('refused')
    await new Promise((r) => setTimeout(r, Math.max(0, readAt + 1_100 - Date.now())))
    sent[0]?.splice(0)
    const l = line(id, clock, 1)
    expect(await a.settle(h.hold, l)).toEqual({ ok: true, charged: 1 })
    // The view was a second old: the settle was decided under the lock, from the state read there.
    const mine = (sent[0] ?? []).filter((q) => q.includes(l.requestId))
    expect(mine.some((q) => q.includes('pronet_expect_state('))).toBe(false)
    expect((sent[0] ?? []).some((q) => q.includes('pronet_load_states('))).toBe(true)
    await noneHeld(id)
  })

  it('a view another node has changed fails its guard: nothing is written, the batch reads under the lock, each call is billed once', async () => {
    clock = T0 + 6_000
    const id = await account(LOCAL_FLOOR_CREDITS + 40)
    const [a, b] = nodes as [Ledger, Ledger]
    await pair(a, id, clock)
    const mine = await a.hold(id, 2, clock + 1)
    if (!mine.ok) throw new Error('refused')
    // Node B bills the account: its lots are no longer what A's view says.
    await pair(b, id, clock + 1, 5)
    sent[0]?.splice(0)
    const changedBefore = await counted('pronet_ledger_view_batches_total', 'changed')
    const l = line(id, clock + 1, 2)
    expect(await a.settle(mine.hold, l)).toEqual({ ok: true, charged: 2 })
    const log = sent[0] ?? []
    const tries = log.map((q, i) => ({ q, i })).filter(({ q }) => q.includes(l.requestId))
    // The guarded try, rolled back; then the writes after a read under the lock.
    expect(tries).toHaveLength(2)
    expect(tries[0]?.q).toContain('pronet_expect_state(')
    expect(log[(tries[0]?.i ?? 0) + 1]).toBe('ROLLBACK')
    expect(tries[1]?.q).not.toContain('pronet_expect_state(')
    expect((await counted('pronet_ledger_view_batches_total', 'changed')) - changedBefore).toBe(1)
    expect(await remaining(id)).toBe(LOCAL_FLOOR_CREDITS + 40 - 1 - 5 - 2)
    const billed = await debits(id)
    expect(billed).toHaveLength(3)
    expect(billed.filter((r) => r === l.requestId)).toHaveLength(1)
    await noneHeld(id)
  })
})
