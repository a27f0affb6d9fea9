/**
 * Pack orders: a customer quotes and orders a pack, the payment provider takes the money,
 * and the order's confirmation (Stripe's webhook, the operator's approval, or at once for test
 * payments) grants the pack, exactly once per order.
 *
 * Exactly once, in two steps that each hold on their own:
 *  1. The order moves to `paid` in one conditional write (the store's transition): of racing
 *     confirmations (a redelivered event, two nodes receiving it at once, an approval against a
 *     rejection) exactly one moves it, and the move records the payment instant and the lot id
 *     `lot_<order id>` the pack is to be granted under.
 *  2. Whoever finds the order paid, the mover and every later confirmation alike, asks the ledger for
 *     that lot (Ledger.addPack with the lot id): the ledger adds it if it is missing and otherwise
 *     adds nothing. So a crash between the two steps is healed by the next delivery (Stripe retries
 *     until it is answered 2xx, which comes only after step 2) or the operator's repeated approval,
 *     and the pack always counts from the payment instant, whichever attempt inserts it.
 * A failed or abandoned (expired) payment moves the order to failed or canceled and grants nothing.
 */
import type { Clock } from '../ports/clock.ts'
import type { Ledger } from '../ports/ledger.ts'
import type { OrderEvent, OrderRecord, OrderStatus, OrderStore } from '../ports/order-store.ts'
import type { Lot } from '../domain/billing/billing-rules.ts'
import { ApiError, serviceUnavailable } from '../domain/errors.ts'
import { PACK_MAX, PACK_MIN, packPriceCents, quotePack, type PriceTier } from '../domain/billing/pack-pricing.ts'
import { PaymentProviderError, WebhookSignatureError, type PaymentProvider } from './payment-provider.ts'

/** The three methods of a pino logger the service uses. */
export interface OrdersLogger {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

export interface OrdersDeps {
  orders: OrderStore
  ledger: Ledger
  provider: PaymentProvider
  clock: Clock
  randomBytes: (size: number) => Buffer
  packTiers?: readonly PriceTier[]
  /** PRONET_PUBLIC_URL, without a trailing slash: checkout sends customers back under its console. */
  publicUrl: string
  logger: OrdersLogger
  /** Where checkout returns the customer; default the console's billing page, naming the order. */
  checkoutUrls?: (orderId: string) => { successUrl: string; cancelUrl: string }
}

export interface PackQuote {
  credits: number
  /** In currency units with two decimals, as the admin API's quote. */
  price: number
  priceCents: number
  currency: 'usd'
}

/** What the customer does after ordering: go and pay, nothing (paid), or wait for the operator. */
export type NextStep = { kind: 'redirect'; url: string } | { kind: 'paid' } | { kind: 'pending' }

export interface PlacedOrder {
  order: OrderRecord
  next: NextStep
}

export interface OrderWithHistory extends OrderRecord {
  history: OrderEvent[]
}

/**
 * What a webhook delivery did: `granted` (this delivery paid the order), `already-paid` (a repeat:
 * nothing more granted), `failed` / `canceled` (the order moved, nothing granted), `ignored` (nothing
 * to do), `unknown-order` (names no order of this service), `not-applied` (left for the operator: a
 * payment that does not match its order, or for an order in no state to take it). All answer 200.
 */
export type WebhookOutcome = 'granted' | 'already-paid' | 'failed' | 'canceled' | 'ignored' | 'unknown-order' | 'not-applied'

export interface WebhookResult {
  received: true
  eventId: string
  type: string
  orderId: string | null
  outcome: WebhookOutcome
}

/** Orders a list shows at most. */
export const ORDER_LIST_LIMIT = 500
/** The longest note an operator may leave on a rejection. */
export const MAX_ORDER_NOTE = 1000
/** What every order id looks like; anything else names no order and is not looked up. */
const ORDER_ID_RE = /^ord_[A-Za-z0-9_-]{1,64}$/

/** The lot a paid order's pack is granted under: one per order, so the ledger grants it once. */
export const lotIdOf = (orderId: string): string => `lot_${orderId}`

/** Every pack size on sale, smallest first: steps of 50,000 up to 1,000,000, then 250,000. */
export function packSizes(): number[] {
  const sizes: number[] = []
  for (let c = PACK_MIN; c <= 1_000_000; c += 50_000) sizes.push(c)
  for (let c = 1_250_000; c <= PACK_MAX; c += 250_000) sizes.push(c)
  return sizes
}

const money = (cents: number): string => (cents / 100).toFixed(2)

const notFound = (orderId: string): ApiError => new ApiError('NOT_FOUND', `No order ${JSON.stringify(orderId)}.`)

export type OrdersService = ReturnType<typeof createOrdersService>

export function createOrdersService(deps: OrdersDeps) {
  const { orders, ledger, provider, clock, logger } = deps
  const urls =
    deps.checkoutUrls ??
    ((orderId: string) => ({
      successUrl: `${deps.publicUrl}/console/billing?order=${encodeURIComponent(orderId)}`,
      cancelUrl: `${deps.publicUrl}/console/billing?order=${encodeURIComponent(orderId)}&checkout=canceled`,
    }))

  function quote(credits: number): PackQuote {
    const { price } = quotePack(credits, deps.packTiers)
    return { credits, price, priceCents: packPriceCents(credits, deps.packTiers), currency: 'usd' }
  }

  async function find(orderId: string): Promise<OrderRecord | undefined> {
    return ORDER_ID_RE.test(orderId) ? orders.get(orderId) : undefined
  }

  async function mustFind(orderId: string): Promise<OrderRecord> {
    const order = await find(orderId)
    if (!order) throw notFound(orderId)
    return order
  }

  /** Step 2: the pack of a paid order, granted under its lot id at its payment instant (nothing added if it exists). */
  function grant(order: OrderRecord): Promise<Lot> {
    if (order.status !== 'paid' || order.lotId === null || order.paidAt === null) throw new Error(`order ${order.id} is not paid`)
    return ledger.addPack(order.accountId, { credits: order.credits, purchasedAt: order.paidAt, priceCents: order.priceCents }, order.lotId)
  }

  /**
   * Step 1 then step 2: moves the order from one of `from` to paid (unless a racing confirmation did),
   * then makes sure its pack exists. `moved` says whether this call was the one that paid it.
   */
  async function pay(orderId: string, from: readonly OrderStatus[], actor: string, note?: string): Promise<{ order: OrderRecord; moved: boolean }> {
    const moved = await orders.transition(orderId, { from, to: 'paid', at: clock.now(), actor, lotId: lotIdOf(orderId), ...(note === undefined ? {} : { note }) })
    const order = await mustFind(orderId)
    if (order.status === 'paid') {
      const lot = await grant(order)
      if (moved) logger.info({ orderId, accountId: order.accountId, credits: order.credits, lotId: lot.id, actor }, 'order paid: pack granted')
    }
    return { order, moved }
  }

  function manualOnly(order: OrderRecord, action: string): void {
    if (order.provider !== 'manual') {
      throw new ApiError('INVALID_PARAMETER', `Order ${order.id} is paid through ${order.provider}: its payment settles it; only manual orders are ${action} by the operator.`, {
        parameter: 'id',
        provider: order.provider,
      })
    }
  }

  const wrongStatus = (order: OrderRecord, action: string): ApiError =>
    new ApiError('INVALID_PARAMETER', `Order ${order.id} is ${order.status}; only a pending order can be ${action}.`, { parameter: 'id', status: order.status })

  return {
    /** The price of a pack of `credits`; 400 INVALID_PARAMETER naming `credits` for a size not on sale. */
    quote,

    /** Every pack size on sale with its price, smallest first (the console's choices). */
    quotes(): PackQuote[] {
      return packSizes().map(quote)
    },

    /**
     * Places an order for a pack at today's quote and starts its payment: a page to pay on (Stripe),
     * paid at once (test), or pending until the operator approves it (manual). 404 for an unknown
     * account; 503 when the provider cannot be reached (the order is then marked failed).
     */
    async placeOrder(input: { accountId: string; userId?: string | null; credits: number; email?: string }): Promise<PlacedOrder> {
      const { priceCents } = quote(input.credits)
      const at = clock.now()
      if (!(await ledger.state(input.accountId, at))) throw new ApiError('NOT_FOUND', `No account ${JSON.stringify(input.accountId)}.`)
      const order: OrderRecord = {
        id: `ord_${deps.randomBytes(12).toString('base64url')}`,
        accountId: input.accountId,
        userId: input.userId ?? null,
        credits: input.credits,
        priceCents,
        currency: 'usd',
        provider: provider.name,
        status: 'pending',
        providerRef: null,
        test: provider.test,
        lotId: null,
        paidAt: null,
        createdAt: at,
        updatedAt: at,
      }
      const actor = order.userId === null ? 'customer' : `user:${order.userId}`
      await orders.create(order, actor, `${order.credits.toLocaleString('en-US')} credits for ${money(priceCents)} ${order.currency.toUpperCase()}`)
      let start
      try {
        start = await provider.startCheckout(order, { ...urls(order.id), ...(input.email === undefined ? {} : { customerEmail: input.email }) })
      } catch (e) {
        // Only what is safe to log: a provider's failure says its kind and status, never its text.
        const cause = e instanceof PaymentProviderError ? { cause: e.message, ...e.details } : { cause: e instanceof Error ? e.name : typeof e }
        logger.error({ orderId: order.id, provider: provider.name, ...cause }, 'the payment of an order could not be started; the order is marked failed')
        await orders.transition(order.id, { from: ['pending'], to: 'failed', at: clock.now(), actor: provider.name, note: 'the payment could not be started' })
        throw serviceUnavailable('The payment provider could not be reached; the order was not placed.', 5)
      }
      if (start.kind === 'redirect') {
        await orders.setProviderRef(order.id, start.reference, clock.now())
        return { order: await mustFind(order.id), next: { kind: 'redirect', url: start.url } }
      }
      if (start.kind === 'paid') {
        const { order: paid } = await pay(order.id, ['pending'], `${provider.name} payments`, 'paid at once, with no money')
        return { order: paid, next: { kind: 'paid' } }
      }
      return { order, next: { kind: 'pending' } }
    },

    /** The account's orders, newest first. */
    list(accountId: string, limit = 100): Promise<OrderRecord[]> {
      return orders.listByAccount(accountId, Math.min(Math.max(1, limit), ORDER_LIST_LIMIT))
    },

    /** One of the account's orders with its history; another account's order is not found. */
    async get(accountId: string, orderId: string): Promise<OrderWithHistory> {
      const order = await find(orderId)
      if (!order || order.accountId !== accountId) throw notFound(orderId)
      return { ...order, history: await orders.history(orderId) }
    },

    /** Any order with its history (the operator). */
    async show(orderId: string): Promise<OrderWithHistory> {
      return { ...(await mustFind(orderId)), history: await orders.history(orderId) }
    },

    /** Every account's orders, newest first, optionally in one status (the operator's list). */
    listAll(filter: { status?: OrderStatus; limit?: number } = {}): Promise<OrderRecord[]> {
      const limit = Math.min(Math.max(1, filter.limit ?? 100), ORDER_LIST_LIMIT)
      return orders.list({ limit, ...(filter.status === undefined ? {} : { status: filter.status }) })
    },

    /**
     * The operator confirms a manual order's payment: it becomes paid and its pack is granted.
     * Approving a paid order again grants nothing more (and completes a grant a crash interrupted);
     * `paidBefore` says which it was, for the operator's message.
     */
    async approve(orderId: string, actor: string): Promise<OrderRecord & { paidBefore: boolean }> {
      const order = await mustFind(orderId)
      manualOnly(order, 'approved')
      if (order.status === 'paid') {
        await grant(order)
        return { ...order, paidBefore: true }
      }
      if (order.status !== 'pending') throw wrongStatus(order, 'approved')
      const { order: after } = await pay(orderId, ['pending'], actor)
      if (after.status !== 'paid') throw wrongStatus(after, 'approved')
      return { ...after, paidBefore: false }
    },

    /** The operator refuses a manual order: it becomes rejected and grants nothing. Rejecting again changes nothing. */
    async reject(orderId: string, actor: string, note?: string): Promise<OrderRecord> {
      if (note !== undefined && (note.trim() === '' || note.length > MAX_ORDER_NOTE)) {
        throw new ApiError('INVALID_PARAMETER', `Invalid parameter 'note': 1 to ${MAX_ORDER_NOTE} characters.`, { parameter: 'note' })
      }
      // A note may run over several lines, but no text holds a NUL (PostgreSQL refuses to store one).
      if (note?.includes('\u0000')) throw new ApiError('INVALID_PARAMETER', "Invalid parameter 'note': must not hold a NUL character.", { parameter: 'note' })
      const order = await mustFind(orderId)
      manualOnly(order, 'rejected')
      if (order.status === 'rejected') return order
      if (order.status !== 'pending') throw wrongStatus(order, 'rejected')
      await orders.transition(orderId, { from: ['pending'], to: 'rejected', at: clock.now(), actor, ...(note === undefined ? {} : { note }) })
      const after = await mustFind(orderId)
      if (after.status !== 'rejected') throw wrongStatus(after, 'rejected')
      return after
    },

    /**
     * One Stripe webhook delivery, from its exact bytes: 400 INVALID_PARAMETER for a signature that
     * does not verify (nothing read, nothing granted); otherwise a result to answer 200 with. A
     * store failure rejects, so the delivery is answered 5xx and Stripe sends it again.
     */
    async handleStripeWebhook(rawBody: Buffer, signature: string | undefined): Promise<WebhookResult> {
      if (!provider.readWebhook) throw new ApiError('NOT_FOUND', 'Stripe payments are not enabled on this service.')
      let notice
      try {
        notice = provider.readWebhook(rawBody, signature)
      } catch (e) {
        if (e instanceof WebhookSignatureError) throw new ApiError('INVALID_PARAMETER', e.message, { parameter: 'Stripe-Signature' })
        throw e
      }
      const result = (outcome: WebhookOutcome, orderId = notice.orderId): WebhookResult => ({ received: true, eventId: notice.eventId, type: notice.type, orderId, outcome })
      if (notice.kind === 'ignored') return result('ignored')
      const about = { eventId: notice.eventId, type: notice.type, orderId: notice.orderId, session: notice.reference }
      const order = await find(notice.orderId)
      if (!order || order.provider !== 'stripe') {
        logger.warn(about, 'a Stripe event names no Stripe order of this service; acknowledged, nothing granted')
        return result('unknown-order')
      }
      if (notice.kind !== 'paid') {
        const moved = await orders.transition(order.id, { from: ['pending'], to: notice.kind, at: clock.now(), actor: `stripe:${notice.eventId}`, note: notice.type })
        return result(moved ? notice.kind : 'ignored')
      }
      if (notice.amountCents !== null && (notice.amountCents !== order.priceCents || notice.currency !== order.currency)) {
        logger.error(
          { ...about, paidCents: notice.amountCents, paidCurrency: notice.currency, priceCents: order.priceCents },
          "a Stripe payment does not match its order's price; nothing granted: settle it by hand",
        )
        return result('not-applied')
      }
      // Money was taken: an order this service had given up on (failed, expired) is paid all the same.
      const { order: after, moved } = await pay(order.id, ['pending', 'failed', 'canceled'], `stripe:${notice.eventId}`, notice.type)
      if (after.status !== 'paid') {
        logger.error({ ...about, status: after.status }, 'a Stripe payment arrived for an order in no state to take it; nothing granted: settle it by hand')
        return result('not-applied')
      }
      if (moved && order.status !== 'pending') logger.warn({ ...about, was: order.status }, 'a Stripe payment paid an order marked ' + order.status)
      return result(moved ? 'granted' : 'already-paid')
    },
  }
}
