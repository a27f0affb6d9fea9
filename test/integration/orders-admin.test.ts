/**
 * The operator's orders: the admin API's routes (auth, happy and error paths, answers matching their
 * schemas) and the CLI's `orders` commands printing the same JSON, on an in-memory store with the
 * real ledger and manual payments.
 */
import { randomBytes } from 'node:crypto'
import { Command, CommanderError } from 'commander'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openSqlite, type SqliteDb } from '../../src/adapters/sqlite/database.ts'
import { createSqliteLedger } from '../../src/adapters/sqlite/sqlite-ledger.ts'
import { createSqliteOrderStore } from '../../src/adapters/sqlite/sqlite-order-store.ts'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { registerOrderCommands } from '../../src/cli/orders.command.ts'
import { registerErrorHandling } from '../../src/http/error-handler.ts'
import { ADMIN_API_ACTOR, registerOrderAdminRoutes } from '../../src/http/routes/orders.admin.routes.ts'
import type { Ledger } from '../../src/ports/ledger.ts'
import { createManualProvider } from '../../src/payments/manual-provider.ts'
import { OrderSchema, orderView } from '../../src/payments/order-view.ts'
import { createOrdersService, lotIdOf, type OrdersService } from '../../src/payments/orders.service.ts'
import { createTestProvider } from '../../src/payments/test-provider.ts'
import { expectError, expectSchema } from '../helpers/test-app.ts'

const TOKEN = 'orders-admin-token'
const T0 = Date.UTC(2027, 1, 3, 10)
const quiet = { info() {}, warn() {}, error() {} }

let db: SqliteDb
let ledger: Ledger
let service: OrdersService
let app: FastifyInstance
let accountId: string

const make = (provider = createManualProvider()) =>
  createOrdersService({ orders: createSqliteOrderStore(db), ledger, provider, clock: createManualClock(T0), randomBytes, publicUrl: 'http://x.test', logger: quiet })

beforeEach(async () => {
  db = openSqlite(':memory:')
  ledger = createSqliteLedger(db, { newLotId: () => `lot_${randomBytes(6).toString('hex')}` })
  accountId = 'acc_orders'
  db.prepare(`INSERT INTO accounts (id, name, created_at, plan, status, credits_limit, rps_limit, anchor_at) VALUES (?, 't', ?, 'none', 'free', 0, 5, ?)`).run(accountId, T0 - 1, T0 - 1)
  service = make()
  // As buildApp: unknown fields are refused, never silently dropped.
  app = Fastify({ logger: false, ajv: { customOptions: { removeAdditional: false } } })
  registerErrorHandling(app, { error() {}, warn() {}, debug() {}, info() {} } as never)
  registerOrderAdminRoutes(app, { token: TOKEN, orders: service })
  await app.ready()
})
afterEach(async () => {
  await app.close()
  await ledger.close()
  db.close()
})

const auth = { authorization: `Bearer ${TOKEN}` }
const grants = async () => (await ledger.entries(accountId)).filter((e) => e.kind === 'grant')

describe('admin API: orders', () => {
  it('every route needs the admin token', async () => {
    const { order } = await service.placeOrder({ accountId, userId: 'usr_1', credits: 50_000 })
    for (const [method, url] of [
      ['GET', '/admin/v1/orders'],
      ['POST', `/admin/v1/orders/${order.id}/approve`],
      ['POST', `/admin/v1/orders/${order.id}/reject`],
    ] as const) {
      for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: TOKEN }]) {
        expectError(await app.inject({ method, url, headers }), 401, 'UNAUTHENTICATED')
      }
    }
    expect((await service.listAll())[0]).toMatchObject({ status: 'pending' })
    expect(await grants()).toEqual([])
  })

  it('lists orders newest first, by status and within a limit; a bad status or limit is 400 naming it', async () => {
    const first = (await service.placeOrder({ accountId, userId: 'usr_1', credits: 50_000 })).order
    const second = (await service.placeOrder({ accountId, userId: 'usr_1', credits: 100_000 })).order
    await service.reject(first.id, 'operator')
    const all = await app.inject({ url: '/admin/v1/orders', headers: auth })
    expect(all.statusCode).toBe(200)
    expect(all.json().orders.map((o: { id: string }) => o.id)).toEqual([second.id, first.id])
    for (const o of all.json().orders) expectSchema(OrderSchema, o)
    expect(all.json().orders[0]).toEqual(orderView(second))
    expect((await app.inject({ url: '/admin/v1/orders?status=rejected', headers: auth })).json().orders.map((o: { id: string }) => o.id)).toEqual([first.id])
    expect((await app.inject({ url: '/admin/v1/orders?limit=1', headers: auth })).json().orders).toHaveLength(1)
    expect((await app.inject({ url: '/admin/v1/orders?status=paid', headers: auth })).json()).toEqual({ orders: [] })
    for (const [query, parameter] of [
      ['status=bogus', 'status'],
      ['status=paid&status=pending', 'status'],
      ['limit=0', 'limit'],
      ['limit=1e1', 'limit'],
      ['other=1', 'other'],
    ]) {
      expect(expectError(await app.inject({ url: `/admin/v1/orders?${query}`, headers: auth }), 400, 'INVALID_PARAMETER').details).toMatchObject({ parameter })
    }
  })

  it('approve grants the pack once, with or without a body; unknown orders are 404', async () => {
    const { order } = await service.placeOrder({ accountId, userId: 'usr_1', credits: 50_000 })
    const approved = await app.inject({ method: 'POST', url: `/admin/v1/orders/${order.id}/approve`, headers: auth })
    expect(approved.statusCode, approved.body).toBe(200)
    expectSchema(OrderSchema, approved.json())
    expect(approved.json()).toMatchObject({ id: order.id, status: 'paid', price: 75, lotId: lotIdOf(order.id), paidAt: new Date(T0).toISOString() })
    for (const payload of ['', '{}']) {
      const again = await app.inject({ method: 'POST', url: `/admin/v1/orders/${order.id}/approve`, headers: { ...auth, 'content-type': 'application/json' }, payload })
      expect(again.json()).toEqual(approved.json())
    }
    expect(await grants()).toEqual([expect.objectContaining({ lotId: lotIdOf(order.id), delta: 50_000 })])
    expect((await service.show(order.id)).history.map((h) => h.actor)).toEqual(['user:usr_1', ADMIN_API_ACTOR])
    expectError(await app.inject({ method: 'POST', url: `/admin/v1/orders/${order.id}/approve`, headers: auth, payload: { force: true } }), 400, 'INVALID_PARAMETER')
    for (const id of ['ord_missing', 'x%01y', '%00']) {
      expectError(await app.inject({ method: 'POST', url: `/admin/v1/orders/${id}/approve`, headers: auth }), 404, 'NOT_FOUND')
    }
  })

  it('reject records the note and grants nothing; a paid order, a test order or a bad note is 400', async () => {
    const { order } = await service.placeOrder({ accountId, userId: 'usr_1', credits: 50_000 })
    const rejected = await app.inject({ method: 'POST', url: `/admin/v1/orders/${order.id}/reject`, headers: auth, payload: { note: 'no transfer' } })
    expect(rejected.statusCode, rejected.body).toBe(200)
    expectSchema(OrderSchema, rejected.json())
    expect(rejected.json()).toMatchObject({ status: 'rejected', lotId: null })
    expect((await service.show(order.id)).history.at(-1)).toMatchObject({ status: 'rejected', actor: ADMIN_API_ACTOR, note: 'no transfer' })
    expect((await app.inject({ method: 'POST', url: `/admin/v1/orders/${order.id}/reject`, headers: auth, payload: { note: null } })).statusCode).toBe(200)
    expect(expectError(await app.inject({ method: 'POST', url: `/admin/v1/orders/${order.id}/approve`, headers: auth }), 400, 'INVALID_PARAMETER').details).toMatchObject({ status: 'rejected' })

    const paid = (await service.placeOrder({ accountId, userId: 'usr_1', credits: 50_000 })).order
    await service.approve(paid.id, 'operator')
    expectError(await app.inject({ method: 'POST', url: `/admin/v1/orders/${paid.id}/reject`, headers: auth }), 400, 'INVALID_PARAMETER')
    const test = (await make(createTestProvider()).placeOrder({ accountId, userId: 'usr_1', credits: 50_000 })).order
    expectError(await app.inject({ method: 'POST', url: `/admin/v1/orders/${test.id}/reject`, headers: auth }), 400, 'INVALID_PARAMETER')
    const pending = (await service.placeOrder({ accountId, userId: 'usr_1', credits: 50_000 })).order
    for (const payload of [{ note: '' }, { note: 'x'.repeat(1001) }, { note: 5 }, { reason: 'x' }]) {
      expectError(await app.inject({ method: 'POST', url: `/admin/v1/orders/${pending.id}/reject`, headers: auth, payload }), 400, 'INVALID_PARAMETER')
    }
    expect((await service.show(pending.id)).status).toBe('pending')
    expect(await grants()).toHaveLength(2)
  })
})

describe('CLI: pronet orders', () => {
  async function run(...args: string[]): Promise<string[]> {
    const out: string[] = []
    const program = new Command('pronet').exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} })
    registerOrderCommands(program, {
      withOrders: async (fn) => void (await fn(service)),
      print: (json, value, human) => out.push(json ? JSON.stringify(value) : human),
    })
    await program.parseAsync(['node', 'pronet', ...args])
    return out
  }

  it('lists, approves and rejects, printing with --json what the admin API answers', async () => {
    const a = (await service.placeOrder({ accountId, userId: 'usr_1', credits: 50_000 })).order
    const b = (await service.placeOrder({ accountId, userId: 'usr_1', credits: 200_000 })).order
    expect(JSON.parse((await run('orders', 'list', '--json'))[0]!)).toEqual((await app.inject({ url: '/admin/v1/orders', headers: auth })).json())
    expect((await run('orders', 'list', '--status', 'pending'))[0]).toContain(a.id)
    const c = (await service.placeOrder({ accountId, userId: 'usr_1', credits: 50_000 })).order
    const approved = JSON.parse((await run('orders', 'approve', a.id, '--json'))[0]!)
    expect(approved).toMatchObject({ id: a.id, status: 'paid' })
    expect((await run('orders', 'approve', a.id))[0]).toBe(`order ${a.id} was paid already: its 50,000 credits are granted to ${accountId} once, nothing more now`)
    expect((await run('orders', 'approve', c.id))[0]).toBe(`order ${c.id} paid: 50,000 credits granted to ${accountId}`)
    expect(JSON.parse((await run('orders', 'reject', b.id, '--note', 'duplicate', '--json'))[0]!)).toMatchObject({ id: b.id, status: 'rejected' })
    expect((await service.show(b.id)).history.at(-1)).toMatchObject({ actor: 'operator (CLI)', note: 'duplicate' })
    expect(await run('orders', 'list', '--status', 'paid', '--limit', '5')).toHaveLength(1)
    expect(await grants()).toHaveLength(2)
    await expect(run('orders', 'list', '--status', 'bogus')).rejects.toBeInstanceOf(CommanderError)
    await expect(run('orders', 'reject', b.id, '--note', '--json')).rejects.toThrow(/a value is missing/)
    await expect(run('orders', 'approve', 'ord_missing')).rejects.toMatchObject({ code: 'NOT_FOUND' })
  })
})
