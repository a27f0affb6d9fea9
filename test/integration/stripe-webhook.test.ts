/**
 * Stripe payments end to end, without Stripe: a local stand-in of the Stripe API (node:http on
 * 127.0.0.1, reached through the stripe package's host/port/protocol options) answers Checkout
 * Session creation, and webhook events are signed with the package's own test header. Each store runs
 * as two nodes: two connections to one SQLite file, or two pools on one PostgreSQL database, each
 * with its own ledger, order store, provider, service and Fastify app (fastify.inject).
 *
 * What must hold: the session is priced from our quote and names our order; a completed, paid
 * checkout grants its pack exactly once however often and wherever it is delivered, and after a
 * crash between paying the order and granting; a bad signature is 400 and grants nothing; an expired
 * or failed payment grants nothing; an event for an order not ours is acknowledged and grants nothing;
 * and no key or webhook secret reaches a log line or an error.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import pino from 'pino'
import Stripe from 'stripe'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { migratePostgres, openPostgres, type PgPool } from '../../src/adapters/postgres/database.ts'
import { createPgLedger } from '../../src/adapters/postgres/pg-ledger.ts'
import { createPgOrderStore } from '../../src/adapters/postgres/pg-order-store.ts'
import { openSqlite, type SqliteDb } from '../../src/adapters/sqlite/database.ts'
import { createSqliteLedger } from '../../src/adapters/sqlite/sqlite-ledger.ts'
import { createSqliteOrderStore } from '../../src/adapters/sqlite/sqlite-order-store.ts'
import { systemClock } from '../../src/adapters/system-clock.ts'
import { registerErrorHandling } from '../../src/http/error-handler.ts'
import type { Ledger } from '../../src/ports/ledger.ts'
import type { OrderStore } from '../../src/ports/order-store.ts'
import { createOrdersService, lotIdOf, type OrdersService } from '../../src/payments/orders.service.ts'
import { createStripeProvider } from '../../src/payments/stripe-provider.ts'
import { registerStripeWebhookRoute, STRIPE_WEBHOOK_PATH } from '../../src/payments/stripe-webhook.routes.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'

const SECRET_KEY = `sk_test_${randomBytes(12).toString('hex')}`
const WEBHOOK_SECRET = `whsec_${randomBytes(12).toString('hex')}`
const PUBLIC_URL = 'https://pronet.example'
const pgUp = await postgresAvailable()
const signer = new Stripe('sk_test_signer_only')

/** The Stripe API stand-in: records each request, answers Checkout Session creation, or fails on demand. */
interface StandIn {
  server: Server
  port: number
  requests: { method: string; path: string; headers: IncomingHttpHeaders; form: URLSearchParams }[]
  /** The next creations answer this status and body (Stripe's error shape) instead. */
  failNext: { status: number; body: unknown }[]
}

async function startStandIn(): Promise<StandIn> {
  const standIn: StandIn = { server: undefined as unknown as Server, port: 0, requests: [], failNext: [] }
  let sessions = 0
  standIn.server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString('utf8')))
    req.on('end', () => {
      const form = new URLSearchParams(body)
      standIn.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, form })
      const failure = standIn.failNext.shift()
      res.setHeader('content-type', 'application/json')
      res.setHeader('request-id', `req_${++sessions}`)
      if (failure) {
        res.statusCode = failure.status
        return res.end(JSON.stringify(failure.body))
      }
      if (req.method !== 'POST' || req.url !== '/v1/checkout/sessions') {
        res.statusCode = 404
        return res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } }))
      }
      const id = `cs_test_${randomBytes(8).toString('hex')}`
      res.end(
        JSON.stringify({
          id,
          object: 'checkout.session',
          mode: 'payment',
          status: 'open',
          payment_status: 'unpaid',
          client_reference_id: form.get('client_reference_id'),
          metadata: { orderId: form.get('metadata[orderId]') },
          amount_total: Number(form.get('line_items[0][price_data][unit_amount]')),
          currency: form.get('line_items[0][price_data][currency]'),
          url: `https://checkout.stripe.test/c/pay/${id}`,
        }),
      )
    })
  })
  await new Promise<void>((resolve) => standIn.server.listen(0, '127.0.0.1', resolve))
  standIn.port = (standIn.server.address() as { port: number }).port
  return standIn
}

/** Every line any node logged, to check that no secret is among them. */
const logged: string[] = []
const logger = pino({ level: 'debug' }, { write: (line: string) => void logged.push(line) })

/** One node: its own connection or pool, ledger, order store, provider, service and app. */
interface Node {
  ledger: Ledger
  orders: OrdersService
  app: FastifyInstance
}

async function startNode(store: { ledger: Ledger; orders: OrderStore }, standIn: StandIn, over: { ledger?: Ledger } = {}): Promise<Node> {
  const provider = createStripeProvider({
    secretKey: SECRET_KEY,
    webhookSecret: WEBHOOK_SECRET,
    host: '127.0.0.1',
    port: standIn.port,
    protocol: 'http',
    maxNetworkRetries: 0,
  })
  const orders = createOrdersService({
    orders: store.orders,
    ledger: over.ledger ?? store.ledger,
    provider,
    clock: systemClock,
    randomBytes,
    publicUrl: PUBLIC_URL,
    logger,
  })
  const app = Fastify({ logger: false })
  // As the real app: JSON bodies parsed as text at the root; the webhook's own scope reads them raw.
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, JSON.parse(body as string)))
  registerErrorHandling(app, logger)
  registerStripeWebhookRoute(app, { orders })
  await app.ready()
  return { ledger: store.ledger, orders, app }
}

/** Two nodes on one store, and a way to make accounts in it. */
interface Cluster {
  stores: { ledger: Ledger; orders: OrderStore }[]
  addAccount(): Promise<string>
  close(): Promise<void>
}

async function sqliteCluster(): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'pronet-stripe-'))
  const path = join(dir, 'pronet.db')
  const dbs: SqliteDb[] = [openSqlite(path), openSqlite(path)]
  const stores = dbs.map((db) => ({ ledger: createSqliteLedger(db, { newLotId: () => `lot_${randomBytes(6).toString('hex')}` }), orders: createSqliteOrderStore(db) }))
  return {
    stores,
    async addAccount() {
      const id = `acc_${randomBytes(6).toString('hex')}`
      dbs[0]!.prepare(`INSERT INTO accounts (id, name, created_at, plan, status, credits_limit, rps_limit, anchor_at) VALUES (?, 't', ?, 'none', 'free', 0, 5, ?)`).run(id, Date.now() - 60_000, Date.now() - 60_000)
      return id
    },
    async close() {
      for (const s of stores) await s.ledger.close()
      for (const db of dbs) db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

async function postgresCluster(url: string): Promise<Cluster> {
  const pools: PgPool[] = [openPostgres(url, { max: 4 }), openPostgres(url, { max: 4 })]
  const stores = pools.map((pool) => ({ ledger: createPgLedger(pool, { newLotId: () => `lot_${randomBytes(6).toString('hex')}`, pruneEveryMs: 0 }), orders: createPgOrderStore(pool) }))
  return {
    stores,
    async addAccount() {
      const id = `acc_${randomBytes(6).toString('hex')}`
      const at = Date.now() - 60_000
      await pools[0]!.query(`INSERT INTO accounts (id, name, created_at, plan, status, credits_limit, rps_limit, anchor_at) VALUES ($1, 't', $2, 'none', 'free', 0, 5, $2)`, [id, at])
      return id
    },
    async close() {
      for (const s of stores) await s.ledger.close()
      for (const pool of pools) await pool.end()
    },
  }
}

let eventSeq = 0
/** A Checkout Session event as Stripe sends it, and its signed delivery. */
function sessionEvent(type: string, session: Record<string, unknown>): { payload: string; id: string } {
  const id = `evt_test_${++eventSeq}_${randomBytes(4).toString('hex')}`
  const payload = JSON.stringify(
    {
      id,
      object: 'event',
      type,
      api_version: Stripe.API_VERSION,
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      data: { object: { object: 'checkout.session', mode: 'payment', ...session } },
    },
    null,
    2,
  )
  return { payload, id }
}

const paidSession = (order: { id: string; providerRef: string | null; priceCents: number }, over: Record<string, unknown> = {}) => ({
  id: order.providerRef,
  client_reference_id: order.id,
  metadata: { orderId: order.id },
  status: 'complete',
  payment_status: 'paid',
  amount_total: order.priceCents,
  currency: 'usd',
  ...over,
})

function deliver(app: FastifyInstance, payload: string, signature: string | null = signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET })): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: STRIPE_WEBHOOK_PATH,
    headers: { 'content-type': 'application/json; charset=utf-8', ...(signature === null ? {} : { 'stripe-signature': signature }) },
    payload,
  })
}

const backends: { name: string; skip: boolean; make: () => Promise<{ cluster: Cluster; drop?: () => Promise<void> }> }[] = [
  { name: 'sqlite (two connections on one file)', skip: false, make: async () => ({ cluster: await sqliteCluster() }) },
  {
    name: 'postgres (two pools on one database)',
    skip: !pgUp,
    make: async () => {
      const db = await createTestDatabase('pronet_stripe')
      const pool = openPostgres(db.url, { max: 1 })
      await migratePostgres(pool)
      await pool.end()
      return { cluster: await postgresCluster(db.url), drop: db.drop }
    },
  },
]

let standIn: StandIn
beforeAll(async () => {
  standIn = await startStandIn()
})
afterAll(async () => {
  await new Promise<void>((resolve) => standIn.server.close(() => resolve()))
  const all = logged.join('\n')
  expect(all).not.toContain(SECRET_KEY)
  expect(all).not.toContain(WEBHOOK_SECRET)
})

for (const backend of backends) {
  describe.skipIf(backend.skip)(`Stripe payments on ${backend.name}`, () => {
    let cluster: Cluster
    let drop: (() => Promise<void>) | undefined
    let nodes: Node[]
    let accountId: string

    beforeAll(async () => {
      ;({ cluster, drop } = await backend.make())
    })
    afterAll(async () => {
      await cluster?.close()
      await drop?.()
    })
    beforeEach(async () => {
      nodes = await Promise.all(cluster.stores.map((s) => startNode(s, standIn)))
      accountId = await cluster.addAccount()
    })
    afterEach(async () => {
      for (const n of nodes) await n.app.close()
    })

    const grantsOf = async (id: string) => (await nodes[0]!.ledger.entries(id)).filter((e) => e.kind === 'grant')
    const place = (credits = 50_000) => nodes[0]!.orders.placeOrder({ accountId, userId: 'usr_1', credits, email: 'buyer@example.com' })

    it('opens a Checkout Session priced from our quote, and a completed, paid checkout grants its pack once; redeliveries grant nothing more', async () => {
      const before = standIn.requests.length
      const placed = await place(200_000)
      expect(placed.next).toEqual({ kind: 'redirect', url: expect.stringMatching(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/) })
      expect(placed.order).toMatchObject({ status: 'pending', provider: 'stripe', test: false, priceCents: 27_000, providerRef: expect.stringMatching(/^cs_test_/) })
      expect(placed.next.kind === 'redirect' && placed.next.url.endsWith(placed.order.providerRef!)).toBe(true)

      const sent = standIn.requests.slice(before)
      expect(sent).toHaveLength(1)
      const [request] = sent
      expect(request).toMatchObject({ method: 'POST', path: '/v1/checkout/sessions' })
      expect(request!.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/)
      expect(request!.headers['idempotency-key']).toBe(`pronet-checkout-${placed.order.id}`)
      expect(Object.fromEntries(request!.form)).toMatchObject({
        mode: 'payment',
        'line_items[0][quantity]': '1',
        'line_items[0][price_data][currency]': 'usd',
        'line_items[0][price_data][unit_amount]': '27000',
        'line_items[0][price_data][product_data][name]': '200,000 credits',
        client_reference_id: placed.order.id,
        'metadata[orderId]': placed.order.id,
        customer_email: 'buyer@example.com',
        success_url: `${PUBLIC_URL}/console/billing?order=${placed.order.id}`,
        cancel_url: `${PUBLIC_URL}/console/billing?order=${placed.order.id}&checkout=canceled`,
      })
      expect(await grantsOf(accountId)).toEqual([])

      const event = sessionEvent('checkout.session.completed', paidSession(placed.order))
      const first = await deliver(nodes[0]!.app, event.payload)
      expect(first.statusCode, first.body).toBe(200)
      expect(first.json()).toEqual({ received: true, outcome: 'granted' })
      const again = await Promise.all([deliver(nodes[0]!.app, event.payload), deliver(nodes[1]!.app, event.payload)])
      expect(again.map((r) => r.json())).toEqual([
        { received: true, outcome: 'already-paid' },
        { received: true, outcome: 'already-paid' },
      ])

      const state = await nodes[1]!.ledger.state(accountId, Date.now())
      expect(state!.lots).toEqual([expect.objectContaining({ id: lotIdOf(placed.order.id), kind: 'pack', credits: 200_000, remaining: 200_000, priceCents: 27_000 })])
      expect(await grantsOf(accountId)).toHaveLength(1)
      const shown = await nodes[1]!.orders.get(accountId, placed.order.id)
      expect(shown).toMatchObject({ status: 'paid', lotId: lotIdOf(placed.order.id) })
      expect(shown.history.map((h) => [h.status, h.actor])).toEqual([
        ['pending', 'user:usr_1'],
        ['paid', `stripe:${event.id}`],
      ])
    })

    it('deliveries of one event arriving at both nodes at once grant once', async () => {
      for (let round = 0; round < 4; round++) {
        const placed = await place()
        const event = sessionEvent('checkout.session.completed', paidSession(placed.order))
        const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => deliver(nodes[i % 2]!.app, event.payload)))
        expect(answers.map((r) => r.statusCode)).toEqual(Array(6).fill(200))
        expect(answers.filter((r) => r.json().outcome === 'granted')).toHaveLength(1)
        expect(answers.filter((r) => r.json().outcome === 'already-paid')).toHaveLength(5)
        expect((await grantsOf(accountId)).filter((g) => g.lotId === lotIdOf(placed.order.id))).toHaveLength(1)
      }
      const packs = (await nodes[0]!.ledger.state(accountId, Date.now()))!.lots.filter((l) => l.kind === 'pack')
      expect(packs).toHaveLength(4)
      expect(packs.reduce((s, l) => s + l.remaining, 0)).toBe(200_000)
    })

    it('the success event and its async twin racing on both nodes also grant once', async () => {
      const placed = await place(1_250_000)
      const completed = sessionEvent('checkout.session.completed', paidSession(placed.order))
      const succeeded = sessionEvent('checkout.session.async_payment_succeeded', paidSession(placed.order))
      const answers = await Promise.all([
        deliver(nodes[0]!.app, completed.payload),
        deliver(nodes[1]!.app, succeeded.payload),
        deliver(nodes[1]!.app, completed.payload),
        deliver(nodes[0]!.app, succeeded.payload),
      ])
      expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200])
      expect(answers.filter((r) => r.json().outcome === 'granted')).toHaveLength(1)
      expect(await grantsOf(accountId)).toEqual([expect.objectContaining({ lotId: lotIdOf(placed.order.id), delta: 1_250_000 })])
    })

    it('a crash after the order was paid and before its pack was granted is healed by the redelivery, once', async () => {
      let failNext = true
      const store = cluster.stores[0]!
      const flaky: Ledger = {
        ...store.ledger,
        addPack: async (...args) => {
          if (failNext) {
            failNext = false
            throw new Error('the node stopped here')
          }
          return store.ledger.addPack(...args)
        },
      }
      const crashing = await startNode(store, standIn, { ledger: flaky })
      try {
        const placed = await place()
        const event = sessionEvent('checkout.session.completed', paidSession(placed.order))
        const lost = await deliver(crashing.app, event.payload)
        expect(lost.statusCode).toBe(500)
        expect((await nodes[0]!.orders.get(accountId, placed.order.id)).status).toBe('paid')
        expect(await grantsOf(accountId)).toEqual([])
        // Stripe sends it again (to any node) until it is answered 2xx.
        const redelivered = await deliver(nodes[1]!.app, event.payload)
        expect(redelivered.json()).toEqual({ received: true, outcome: 'already-paid' })
        expect(await deliver(crashing.app, event.payload)).toMatchObject({ statusCode: 200 })
        expect(await grantsOf(accountId)).toEqual([expect.objectContaining({ lotId: lotIdOf(placed.order.id), delta: 50_000 })])
      } finally {
        await crashing.app.close()
      }
    })

    it('a signature that does not verify is 400 INVALID_PARAMETER and grants nothing', async () => {
      const placed = await place()
      const event = sessionEvent('checkout.session.completed', paidSession(placed.order))
      const forged = signer.webhooks.generateTestHeaderString({ payload: event.payload, secret: 'whsec_someone_else' })
      const signed = signer.webhooks.generateTestHeaderString({ payload: event.payload, secret: WEBHOOK_SECRET })
      const stale = signer.webhooks.generateTestHeaderString({ payload: event.payload, secret: WEBHOOK_SECRET, timestamp: Math.floor(Date.now() / 1000) - 3600 })
      const tampered = event.payload.replace('"amount_total": 7500', '"amount_total": 1')
      expect(tampered).not.toBe(event.payload)
      for (const [payload, signature] of [
        [event.payload, forged],
        [event.payload, null],
        [event.payload, ''],
        [event.payload, 'garbage'],
        [event.payload, stale],
        [tampered, signed],
        [`${event.payload} `, signed],
      ] as const) {
        const res = await deliver(nodes[1]!.app, payload, signature)
        expect(res.statusCode, res.body).toBe(400)
        expect(res.json()).toMatchObject({ code: 'INVALID_PARAMETER', details: { parameter: 'Stripe-Signature' } })
        expect(res.body).not.toContain(WEBHOOK_SECRET)
      }
      expect((await nodes[0]!.orders.get(accountId, placed.order.id)).status).toBe('pending')
      expect(await grantsOf(accountId)).toEqual([])
    })

    it('an expired checkout marks the order canceled and a failed payment marks it failed: nothing granted', async () => {
      const abandoned = await place()
      const expired = sessionEvent('checkout.session.expired', paidSession(abandoned.order, { status: 'expired', payment_status: 'unpaid' }))
      expect((await deliver(nodes[0]!.app, expired.payload)).json()).toEqual({ received: true, outcome: 'canceled' })
      expect((await deliver(nodes[1]!.app, expired.payload)).json()).toEqual({ received: true, outcome: 'ignored' })
      const shown = await nodes[1]!.orders.get(accountId, abandoned.order.id)
      expect(shown.status).toBe('canceled')
      expect(shown.history.map((h) => [h.status, h.note])).toEqual([
        ['pending', '50,000 credits for 75.00 USD'],
        ['canceled', 'checkout.session.expired'],
      ])

      const declined = await place()
      // Paid by a method that clears later: completed says unpaid (wait), then the payment fails.
      const completedUnpaid = sessionEvent('checkout.session.completed', paidSession(declined.order, { payment_status: 'unpaid' }))
      expect((await deliver(nodes[0]!.app, completedUnpaid.payload)).json()).toEqual({ received: true, outcome: 'ignored' })
      expect((await nodes[0]!.orders.get(accountId, declined.order.id)).status).toBe('pending')
      const failed = sessionEvent('checkout.session.async_payment_failed', paidSession(declined.order, { payment_status: 'unpaid' }))
      expect((await deliver(nodes[1]!.app, failed.payload)).json()).toEqual({ received: true, outcome: 'failed' })
      expect((await nodes[0]!.orders.get(accountId, declined.order.id)).status).toBe('failed')
      expect(await grantsOf(accountId)).toEqual([])

      // The same, paid later by the async method: granted once.
      const slow = await place()
      const unpaid = sessionEvent('checkout.session.completed', paidSession(slow.order, { payment_status: 'unpaid' }))
      const cleared = sessionEvent('checkout.session.async_payment_succeeded', paidSession(slow.order))
      expect((await deliver(nodes[0]!.app, unpaid.payload)).json().outcome).toBe('ignored')
      expect((await deliver(nodes[1]!.app, cleared.payload)).json().outcome).toBe('granted')
      expect(await grantsOf(accountId)).toEqual([expect.objectContaining({ lotId: lotIdOf(slow.order.id) })])
    })

    it('an event for an order not ours, or of another kind, is acknowledged and grants nothing', async () => {
      const placed = await place()
      const cases = [
        sessionEvent('checkout.session.completed', paidSession({ ...placed.order, id: 'ord_notours123' })),
        sessionEvent('checkout.session.completed', paidSession(placed.order, { client_reference_id: null, metadata: {} })),
        sessionEvent('checkout.session.completed', paidSession(placed.order, { client_reference_id: 'not an order id\u0000' })),
        sessionEvent('customer.created', { id: 'cus_1', object: 'customer' }),
      ]
      const outcomes = []
      for (const event of cases) {
        const res = await deliver(nodes[0]!.app, event.payload)
        expect(res.statusCode, res.body).toBe(200)
        outcomes.push(res.json().outcome)
      }
      expect(outcomes).toEqual(['unknown-order', 'ignored', 'unknown-order', 'ignored'])
      // A paid amount that is not the order's price is left to the operator.
      const wrong = sessionEvent('checkout.session.completed', paidSession(placed.order, { amount_total: 1 }))
      expect((await deliver(nodes[1]!.app, wrong.payload)).json()).toEqual({ received: true, outcome: 'not-applied' })
      expect((await nodes[0]!.orders.get(accountId, placed.order.id)).status).toBe('pending')
      expect(await grantsOf(accountId)).toEqual([])
    })

    it('Stripe refusing or unreachable: 503, the order marked failed, and no key in the log or the error', async () => {
      standIn.failNext.push({ status: 401, body: { error: { type: 'invalid_request_error', message: `Invalid API Key provided: ${SECRET_KEY}` } } })
      const e = await place().then(
        () => undefined,
        (err: unknown) => err as Error & { code?: string },
      )
      expect(e).toMatchObject({ code: 'SERVICE_UNAVAILABLE' })
      expect(e!.message).not.toContain(SECRET_KEY)
      const [order] = await nodes[0]!.orders.list(accountId)
      expect(order).toMatchObject({ status: 'failed', providerRef: null })
      expect(logged.some((l) => l.includes(order!.id) && l.includes('StripeAuthenticationError'))).toBe(true)
      expect(logged.join('\n')).not.toContain(SECRET_KEY)
    })
  })
}
