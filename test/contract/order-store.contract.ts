/**
 * The OrderStore contract (src/ports/order-store.ts), run against every adapter: orders round-trip
 * with their history, lists are newest first, and a transition happens only from the statuses it
 * names, so of racing moves (two nodes confirming one payment, an approval against a rejection)
 * exactly one wins.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { OrderRecord, OrderStore } from '../../src/ports/order-store.ts'

export interface OrderStoreHandle {
  store: OrderStore
  /** A second store on the same data (another node, another connection to the file), when the backend has one. */
  another?: () => Promise<OrderStore>
  /** Creates an account row (orders reference accounts) and returns its id. */
  createAccount(): Promise<string>
  dispose(): Promise<void>
}

/** A fixed instant past 2^32 and 2^40 ms, so nothing 32-bit survives it. */
const T0 = Date.UTC(2026, 10, 1, 12, 30, 45, 678)
let n = 0

export function orderOf(accountId: string, over: Partial<OrderRecord> = {}): OrderRecord {
  n++
  return {
    id: `ord_${n}_${Math.random().toString(36).slice(2, 8)}`,
    accountId,
    userId: `usr_${n}`,
    credits: 50_000,
    priceCents: 7500,
    currency: 'usd',
    provider: 'manual',
    status: 'pending',
    providerRef: null,
    test: false,
    lotId: null,
    paidAt: null,
    createdAt: T0 + n,
    updatedAt: T0 + n,
    ...over,
  }
}

export function runOrderStoreContract(name: string, make: () => Promise<OrderStoreHandle>): void {
  describe(`OrderStore contract: ${name}`, () => {
    let h: OrderStoreHandle
    let store: OrderStore
    beforeEach(async () => {
      h = await make()
      store = h.store
    })
    afterEach(async () => h.dispose())

    it('creates an order with its first history line and reads it back as written', async () => {
      const acc = await h.createAccount()
      const order = orderOf(acc, { provider: 'stripe', test: true, priceCents: 2_700_000_000_00, credits: 50_000_000 })
      await store.create(order, 'user:usr_1', 'placed in the console')
      expect(await store.get(order.id)).toEqual(order)
      expect(await store.history(order.id)).toEqual([{ status: 'pending', at: order.createdAt, actor: 'user:usr_1', note: 'placed in the console' }])
      expect(await store.get('ord_missing')).toBeUndefined()
      expect(await store.history('ord_missing')).toEqual([])
      const anonymous = orderOf(acc, { userId: null })
      await store.create(anonymous, 'operator')
      expect(await store.get(anonymous.id)).toMatchObject({ userId: null })
      expect(await store.history(anonymous.id)).toEqual([{ status: 'pending', at: anonymous.createdAt, actor: 'operator', note: null }])
    })

    it('an order needs an existing account, and an order id is used once', async () => {
      await expect(store.create(orderOf('acc_nobody'), 'x')).rejects.toThrow()
      const acc = await h.createAccount()
      const order = orderOf(acc)
      await store.create(order, 'x')
      await expect(store.create({ ...order, credits: 100_000 }, 'x')).rejects.toThrow()
      expect(await store.get(order.id)).toMatchObject({ credits: 50_000 })
    })

    it('records the provider reference', async () => {
      const acc = await h.createAccount()
      const order = orderOf(acc, { provider: 'stripe' })
      await store.create(order, 'x')
      expect(await store.setProviderRef(order.id, 'cs_test_123', order.createdAt + 5)).toBe(true)
      expect(await store.get(order.id)).toMatchObject({ providerRef: 'cs_test_123', updatedAt: order.createdAt + 5, status: 'pending' })
      expect(await store.setProviderRef('ord_missing', 'cs_x', T0)).toBe(false)
    })

    it('moves only from the statuses named, recording paid with its lot and instant, and each move in the history', async () => {
      const acc = await h.createAccount()
      const order = orderOf(acc)
      await store.create(order, 'user:u')
      const at = order.createdAt + 1_000
      expect(await store.transition(order.id, { from: ['failed'], to: 'paid', at, actor: 'x', lotId: 'lot_a' })).toBe(false)
      expect(await store.get(order.id)).toEqual(order)
      expect(await store.transition(order.id, { from: ['pending'], to: 'paid', at, actor: 'operator', note: 'wire received', lotId: `lot_${order.id}` })).toBe(true)
      expect(await store.get(order.id)).toEqual({ ...order, status: 'paid', lotId: `lot_${order.id}`, paidAt: at, updatedAt: at })
      // A paid order is not paid again (its instant and lot stay those of the first move).
      expect(await store.transition(order.id, { from: ['pending'], to: 'paid', at: at + 1, actor: 'again', lotId: `lot_${order.id}` })).toBe(false)
      expect(await store.get(order.id)).toMatchObject({ paidAt: at })
      expect(await store.history(order.id)).toEqual([
        { status: 'pending', at: order.createdAt, actor: 'user:u', note: null },
        { status: 'paid', at, actor: 'operator', note: 'wire received' },
      ])
      expect(await store.transition('ord_missing', { from: ['pending'], to: 'rejected', at, actor: 'x' })).toBe(false)

      const other = orderOf(acc)
      await store.create(other, 'user:u')
      expect(await store.transition(other.id, { from: ['pending'], to: 'rejected', at, actor: 'operator', note: 'no payment' })).toBe(true)
      expect(await store.get(other.id)).toMatchObject({ status: 'rejected', lotId: null, paidAt: null })
      // Paid names its lot: a paid move without one is refused by the store.
      const third = orderOf(acc)
      await store.create(third, 'user:u')
      await expect(store.transition(third.id, { from: ['pending'], to: 'paid', at, actor: 'x' })).rejects.toThrow()
      expect(await store.get(third.id)).toMatchObject({ status: 'pending' })
      expect(await store.history(third.id)).toHaveLength(1)
    })

    it('two orders never name the same lot', async () => {
      const acc = await h.createAccount()
      const [a, b] = [orderOf(acc), orderOf(acc)]
      await store.create(a, 'x')
      await store.create(b, 'x')
      expect(await store.transition(a.id, { from: ['pending'], to: 'paid', at: T0, actor: 'x', lotId: 'lot_shared' })).toBe(true)
      await expect(store.transition(b.id, { from: ['pending'], to: 'paid', at: T0, actor: 'x', lotId: 'lot_shared' })).rejects.toThrow()
      expect(await store.get(b.id)).toMatchObject({ status: 'pending' })
    })

    it('of racing moves exactly one wins, on one store and across two', async () => {
      const acc = await h.createAccount()
      const order = orderOf(acc)
      await store.create(order, 'x')
      const stores = [store, ...(h.another ? [await h.another()] : [])]
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (stores[i % stores.length] as OrderStore).transition(order.id, {
            from: ['pending'],
            to: i % 2 === 0 ? 'paid' : 'rejected',
            at: T0 + i,
            actor: `racer ${i}`,
            ...(i % 2 === 0 ? { lotId: `lot_${order.id}` } : {}),
          }),
        ),
      )
      expect(results.filter(Boolean)).toHaveLength(1)
      const history = await store.history(order.id)
      expect(history).toHaveLength(2)
      expect((await store.get(order.id))?.status).toBe(history[1]?.status)
    })

    it("lists an account's orders and everyone's, newest first, by status, within the limit", async () => {
      const [acc1, acc2] = [await h.createAccount(), await h.createAccount()]
      const orders = [orderOf(acc1), orderOf(acc2), orderOf(acc1), orderOf(acc1, { createdAt: T0 + 10_000, updatedAt: T0 + 10_000 })]
      // Two in the same millisecond keep their creation order.
      const twin = orderOf(acc1, { createdAt: T0 + 10_000, updatedAt: T0 + 10_000 })
      for (const o of [...orders, twin]) await store.create(o, 'x')
      await store.transition(orders[2]!.id, { from: ['pending'], to: 'canceled', at: T0 + 20_000, actor: 'stripe' })
      const ids = (list: OrderRecord[]) => list.map((o) => o.id)
      expect(ids(await store.listByAccount(acc1, 100))).toEqual([twin.id, orders[3]!.id, orders[2]!.id, orders[0]!.id])
      expect(ids(await store.listByAccount(acc1, 2))).toEqual([twin.id, orders[3]!.id])
      expect(ids(await store.listByAccount(acc2, 100))).toEqual([orders[1]!.id])
      expect(await store.listByAccount('acc_nobody', 100)).toEqual([])
      const everyone = ids(await store.list({ limit: 100 }))
      expect(everyone.filter((id) => [...orders, twin].some((o) => o.id === id))).toEqual([twin.id, orders[3]!.id, orders[2]!.id, orders[1]!.id, orders[0]!.id])
      expect(ids(await store.list({ status: 'canceled', limit: 100 }))).toEqual([orders[2]!.id])
      expect((await store.list({ status: 'pending', limit: 2 })).map((o) => o.status)).toEqual(['pending', 'pending'])
    })
  })
}
