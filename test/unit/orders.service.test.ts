/**
 * The orders service on an in-memory store with the real ledger and a manual clock: quotes for every
 * pack size, refused sizes, the test provider paying at once, manual orders waiting for the operator
 * (approved once however often approved, rejected with nothing granted), the history of every move,
 * and a grant a crash interrupted completed by the next approval.
 */
import { randomBytes } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openSqlite, type SqliteDb } from '../../src/adapters/sqlite/database.ts'
import { createSqliteLedger } from '../../src/adapters/sqlite/sqlite-ledger.ts'
import { createSqliteOrderStore } from '../../src/adapters/sqlite/sqlite-order-store.ts'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { addMonths } from '../../src/domain/billing/calendar.ts'
import { ApiError } from '../../src/domain/errors.ts'
import type { Ledger } from '../../src/ports/ledger.ts'
import { createManualProvider } from '../../src/payments/manual-provider.ts'
import { createOrdersService, lotIdOf, packSizes, type OrdersService } from '../../src/payments/orders.service.ts'
import type { PaymentProvider } from '../../src/payments/payment-provider.ts'
import { createTestProvider } from '../../src/payments/test-provider.ts'

const T0 = Date.UTC(2027, 4, 10, 9)
const quiet = { info() {}, warn() {}, error() {} }

/** The published price table, worked out here on its own: marginal cents per 1,000 credits by tier. */
function tablePrice(credits: number): number {
  const tiers: [number, number][] = [
    [100_000, 1.5],
    [500_000, 1.2],
    [1_000_000, 1.0],
    [5_000_000, 0.8],
    [20_000_000, 0.6],
    [Infinity, 0.45],
  ]
  let cents = 0
  let from = 0
  for (const [upTo, per1000] of tiers) {
    const inTier = Math.max(0, Math.min(credits, upTo) - from)
    cents += (inTier / 1000) * Math.round(per1000 * 100)
    from = upTo
  }
  return Math.round(cents) / 100
}

async function refusal(p: Promise<unknown> | (() => unknown)): Promise<ApiError> {
  try {
    await (typeof p === 'function' ? p() : p)
  } catch (e) {
    if (e instanceof ApiError) return e
    throw e
  }
  throw new Error('not refused')
}

describe('orders service', () => {
  let db: SqliteDb
  let ledger: Ledger
  let clock: ReturnType<typeof createManualClock>
  let accountId: string
  let otherAccount: string

  const make = (provider: PaymentProvider, over: { ledger?: Ledger } = {}): OrdersService =>
    createOrdersService({
      orders: createSqliteOrderStore(db),
      ledger: over.ledger ?? ledger,
      provider,
      clock,
      randomBytes,
      publicUrl: 'http://console.test',
      logger: quiet,
    })

  async function addAccount(): Promise<string> {
    const id = `acc_${randomBytes(6).toString('hex')}`
    db.prepare(
      `INSERT INTO accounts (id, name, created_at, plan, status, credits_limit, rps_limit, anchor_at) VALUES (?, 't', ?, 'none', 'free', 0, 5, ?)`,
    ).run(id, T0 - 1000, T0 - 1000)
    return id
  }

  const packs = async (id: string) => (await ledger.state(id, clock.now()))!.lots.filter((l) => l.kind === 'pack')
  const grants = async (id: string) => (await ledger.entries(id)).filter((e) => e.kind === 'grant')

  beforeEach(async () => {
    db = openSqlite(':memory:')
    ledger = createSqliteLedger(db, { newLotId: () => `lot_${randomBytes(6).toString('hex')}` })
    clock = createManualClock(T0)
    accountId = await addAccount()
    otherAccount = await addAccount()
  })
  afterEach(async () => {
    await ledger.close()
    db.close()
  })

  describe('quotes', () => {
    it("prices every size on sale as the published table: 50,000 for 75.00, 200,000 for 270.00", () => {
      const orders = make(createManualProvider())
      expect(orders.quote(50_000)).toEqual({ credits: 50_000, price: 75, priceCents: 7500, currency: 'usd' })
      expect(orders.quote(200_000)).toEqual({ credits: 200_000, price: 270, priceCents: 27_000, currency: 'usd' })
      expect(orders.quote(1_000_000).price).toBe(1130)
      expect(orders.quote(1_250_000).price).toBe(1330)
      expect(orders.quote(50_000_000).price).toBe(26_830)
      const all = orders.quotes()
      expect(all).toHaveLength(20 + 196)
      expect(all.map((q) => q.credits)).toEqual(packSizes())
      for (const q of all) {
        expect(q.price, `${q.credits} credits`).toBe(tablePrice(q.credits))
        expect(q.priceCents).toBe(Math.round(q.price * 100))
      }
      // Marginal: a larger pack never costs less in total, nor more per credit.
      for (let i = 1; i < all.length; i++) {
        const [a, b] = [all[i - 1]!, all[i]!]
        expect(b.price).toBeGreaterThan(a.price)
        expect(b.price / b.credits).toBeLessThanOrEqual(a.price / a.credits)
      }
    })

    it("refuses sizes not on sale with INVALID_PARAMETER naming 'credits', and places no order for them", async () => {
      const orders = make(createTestProvider())
      for (const credits of [0, -50_000, 49_999, 50_001, 75_000, 1_100_000, 1_000_000 + 50_000, 50_250_000, 100_000_000, 1.5, Number.NaN]) {
        const e = await refusal(() => orders.quote(credits))
        expect(e, String(credits)).toMatchObject({ code: 'INVALID_PARAMETER', status: 400, details: { parameter: 'credits' } })
        expect(e.message).toContain("'credits'")
        expect(await refusal(orders.placeOrder({ accountId, userId: 'usr_1', credits }))).toMatchObject({ code: 'INVALID_PARAMETER' })
      }
      expect(await orders.list(accountId)).toEqual([])
      expect(await grants(accountId)).toEqual([])
    })
  })

  it('test payments: paid at once, marked test, one pack of its credits at the order price from the payment instant', async () => {
    const orders = make(createTestProvider())
    const placed = await orders.placeOrder({ accountId, userId: 'usr_1', credits: 200_000, email: 'a@example.com' })
    expect(placed.next).toEqual({ kind: 'paid' })
    expect(placed.order).toMatchObject({ accountId, userId: 'usr_1', credits: 200_000, priceCents: 27_000, provider: 'test', status: 'paid', test: true, paidAt: T0, lotId: lotIdOf(placed.order.id) })
    expect(placed.order.id).toMatch(/^ord_[A-Za-z0-9_-]{16}$/)
    expect(await packs(accountId)).toEqual([
      expect.objectContaining({ id: lotIdOf(placed.order.id), credits: 200_000, remaining: 200_000, priceCents: 27_000, startsAt: T0, expiresAt: addMonths(T0, 12) }),
    ])
    const shown = await orders.get(accountId, placed.order.id)
    expect(shown.history.map((h) => [h.status, h.actor])).toEqual([
      ['pending', 'user:usr_1'],
      ['paid', 'test payments'],
    ])
    expect(await grants(accountId)).toHaveLength(1)
  })

  describe('manual payments', () => {
    it('an order waits for the operator; approval grants one pack from the approval instant; approving again grants nothing more', async () => {
      const orders = make(createManualProvider())
      const placed = await orders.placeOrder({ accountId, userId: null, credits: 50_000 })
      expect(placed.next).toEqual({ kind: 'pending' })
      expect(placed.order).toMatchObject({ status: 'pending', provider: 'manual', test: false, lotId: null, paidAt: null, userId: null })
      expect(await packs(accountId)).toEqual([])
      expect((await orders.listAll({ status: 'pending' })).map((o) => o.id)).toEqual([placed.order.id])

      clock.advance(3_600_000)
      const approved = await orders.approve(placed.order.id, 'operator (admin API)')
      expect(approved).toMatchObject({ status: 'paid', paidAt: T0 + 3_600_000, lotId: lotIdOf(placed.order.id) })
      clock.advance(60_000)
      expect(await orders.approve(placed.order.id, 'operator (CLI)')).toMatchObject({ status: 'paid', paidAt: T0 + 3_600_000 })
      await Promise.all(Array.from({ length: 5 }, () => orders.approve(placed.order.id, 'operator')))
      expect(await packs(accountId)).toEqual([expect.objectContaining({ credits: 50_000, priceCents: 7500, startsAt: T0 + 3_600_000 })])
      expect(await grants(accountId)).toHaveLength(1)
      expect((await orders.get(accountId, placed.order.id)).history).toEqual([
        { status: 'pending', at: T0, actor: 'customer', note: '50,000 credits for 75.00 USD' },
        { status: 'paid', at: T0 + 3_600_000, actor: 'operator (admin API)', note: null },
      ])
      expect(await orders.listAll({ status: 'pending' })).toEqual([])
    })

    it('concurrent approvals of one order grant once', async () => {
      const orders = make(createManualProvider())
      const { order } = await orders.placeOrder({ accountId, userId: 'usr_1', credits: 1_250_000 })
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => orders.approve(order.id, `operator ${i}`)))
      expect(new Set(results.map((o) => o.status))).toEqual(new Set(['paid']))
      expect(await grants(accountId)).toHaveLength(1)
      expect((await orders.get(accountId, order.id)).history.filter((h) => h.status === 'paid')).toHaveLength(1)
    })

    it('rejection grants nothing; a rejected order cannot be approved, nor a paid one rejected', async () => {
      const orders = make(createManualProvider())
      const { order } = await orders.placeOrder({ accountId, userId: 'usr_1', credits: 100_000 })
      clock.advance(1000)
      expect(await orders.reject(order.id, 'operator', 'no transfer received')).toMatchObject({ status: 'rejected', lotId: null })
      expect(await orders.reject(order.id, 'operator')).toMatchObject({ status: 'rejected' })
      expect(await refusal(orders.approve(order.id, 'operator'))).toMatchObject({ code: 'INVALID_PARAMETER', details: { parameter: 'id', status: 'rejected' } })
      expect(await packs(accountId)).toEqual([])
      expect((await orders.get(accountId, order.id)).history.map((h) => [h.status, h.note])).toEqual([
        ['pending', '100,000 credits for 150.00 USD'],
        ['rejected', 'no transfer received'],
      ])

      const paid = (await orders.placeOrder({ accountId, userId: 'usr_1', credits: 100_000 })).order
      await orders.approve(paid.id, 'operator')
      expect(await refusal(orders.reject(paid.id, 'operator'))).toMatchObject({ code: 'INVALID_PARAMETER', details: { status: 'paid' } })
      expect(await grants(accountId)).toHaveLength(1)
    })

    it('an approval racing a rejection: one of them wins, and a pack exists exactly when the order is paid', async () => {
      const orders = make(createManualProvider())
      for (let i = 0; i < 6; i++) {
        const { order } = await orders.placeOrder({ accountId, userId: 'usr_1', credits: 50_000 })
        const settled = await Promise.allSettled([orders.approve(order.id, 'a'), orders.reject(order.id, 'b'), orders.approve(order.id, 'c')])
        expect(settled.some((s) => s.status === 'fulfilled')).toBe(true)
        const final = await orders.get(accountId, order.id)
        expect(['paid', 'rejected']).toContain(final.status)
        expect((await packs(accountId)).some((l) => l.id === lotIdOf(order.id))).toBe(final.status === 'paid')
      }
    })

    it('a grant interrupted after the order was paid (a crash) is completed by the next approval, once', async () => {
      let failNext = true
      const flaky: Ledger = {
        ...ledger,
        addPack: async (...args) => {
          if (failNext) {
            failNext = false
            throw new Error('process stopped')
          }
          return ledger.addPack(...args)
        },
      }
      const orders = make(createManualProvider(), { ledger: flaky })
      const { order } = await orders.placeOrder({ accountId, userId: 'usr_1', credits: 50_000 })
      clock.advance(5_000)
      await expect(orders.approve(order.id, 'operator')).rejects.toThrow('process stopped')
      expect((await orders.get(accountId, order.id)).status).toBe('paid')
      expect(await packs(accountId)).toEqual([])
      clock.advance(60_000)
      await orders.approve(order.id, 'operator')
      await orders.approve(order.id, 'operator')
      // Counted from the payment instant, not from the retry.
      expect(await packs(accountId)).toEqual([expect.objectContaining({ id: lotIdOf(order.id), startsAt: T0 + 5_000 })])
      expect(await grants(accountId)).toHaveLength(1)
    })

    it('only manual orders are approved or rejected by the operator', async () => {
      const { order } = await make(createTestProvider()).placeOrder({ accountId, userId: 'usr_1', credits: 50_000 })
      const orders = make(createManualProvider())
      expect(await refusal(orders.approve(order.id, 'operator'))).toMatchObject({ code: 'INVALID_PARAMETER', details: { provider: 'test' } })
      expect(await refusal(orders.reject(order.id, 'operator'))).toMatchObject({ code: 'INVALID_PARAMETER' })
      expect(await grants(accountId)).toHaveLength(1)
    })
  })

  it("an account sees its own orders only, newest first; unknown ids and accounts are not found", async () => {
    const orders = make(createManualProvider())
    const first = (await orders.placeOrder({ accountId, userId: 'usr_1', credits: 50_000 })).order
    clock.advance(1)
    const second = (await orders.placeOrder({ accountId, userId: 'usr_2', credits: 100_000 })).order
    const theirs = (await orders.placeOrder({ accountId: otherAccount, userId: 'usr_3', credits: 50_000 })).order
    expect((await orders.list(accountId)).map((o) => o.id)).toEqual([second.id, first.id])
    expect(await refusal(orders.get(accountId, theirs.id))).toMatchObject({ code: 'NOT_FOUND', status: 404 })
    expect((await orders.get(otherAccount, theirs.id)).id).toBe(theirs.id)
    for (const id of ['ord_missing', 'nonsense', 'ord_\u0000x', '']) {
      expect(await refusal(orders.get(accountId, id))).toMatchObject({ code: 'NOT_FOUND' })
      expect(await refusal(orders.approve(id, 'operator'))).toMatchObject({ code: 'NOT_FOUND' })
    }
    expect((await orders.listAll()).map((o) => o.id)).toEqual([theirs.id, second.id, first.id])
    expect(await refusal(orders.placeOrder({ accountId: 'acc_nobody', userId: null, credits: 50_000 }))).toMatchObject({ code: 'NOT_FOUND' })
    expect(await orders.listAll({ limit: 10 })).toHaveLength(3)
  })

  it('a provider that cannot start the payment: 503, the order marked failed, nothing granted', async () => {
    const down: PaymentProvider = { name: 'stripe', test: false, startCheckout: async () => Promise.reject(new Error('connect ECONNREFUSED')) }
    const orders = make(down)
    expect(await refusal(orders.placeOrder({ accountId, userId: 'usr_1', credits: 50_000 }))).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 })
    const [order] = await orders.list(accountId)
    expect(order).toMatchObject({ status: 'failed', provider: 'stripe' })
    expect((await orders.get(accountId, order!.id)).history.map((h) => h.status)).toEqual(['pending', 'failed'])
    expect(await grants(accountId)).toEqual([])
  })
})
