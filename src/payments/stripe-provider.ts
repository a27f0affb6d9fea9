/**
 * PRONET_PAYMENTS=stripe: an order is paid on a Stripe Checkout page (payment mode, one line priced
 * from our own quote), and confirmed by Stripe's signed webhook (POST /console/stripe/webhook).
 * Neither key ever reaches a log line or an error: Stripe's own error texts can quote part of the
 * secret key, so only their type, code and status are passed on.
 */
import Stripe from 'stripe'
import type { OrderRecord } from '../ports/order-store.ts'
import { PaymentProviderError, WebhookSignatureError, type CheckoutUrls, type PaymentNotice, type PaymentProvider } from './payment-provider.ts'

export interface StripeProviderOptions {
  secretKey: string
  webhookSecret: string
  /** Where the Stripe API is (default api.stripe.com over https): tests point it at a local stand-in. */
  host?: string
  port?: number
  protocol?: 'http' | 'https'
  /** Per request to Stripe (default 20 s): a customer waits on it before being sent to pay. */
  timeoutMs?: number
  /** Retries of a request that failed on the network (default 2); creation is idempotent per order. */
  maxNetworkRetries?: number
  /** How old a delivery's signature may be, in seconds (default Stripe's 300). */
  toleranceSeconds?: number
}

/** Checkout Session events and what each says about the order (completed: only once paid, below). */
const SESSION_EVENTS: Readonly<Record<string, 'paid' | 'failed' | 'canceled'>> = {
  'checkout.session.completed': 'paid',
  'checkout.session.async_payment_succeeded': 'paid',
  'checkout.session.async_payment_failed': 'failed',
  'checkout.session.expired': 'canceled',
}

/** The product line of a pack: "50,000 credits". */
export const packProductName = (credits: number): string => `${credits.toLocaleString('en-US')} credits`

/** What of a Stripe error may be logged: its kind, code and HTTP status, never its message. */
function safeFailure(e: unknown): Record<string, string | number | undefined> {
  const err = e as { type?: unknown; code?: unknown; statusCode?: unknown; requestId?: unknown }
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined)
  return {
    type: text(err.type) ?? (e instanceof Error ? e.name : typeof e),
    code: text(err.code),
    statusCode: typeof err.statusCode === 'number' ? err.statusCode : undefined,
    stripeRequestId: text(err.requestId),
  }
}

export function createStripeProvider(opts: StripeProviderOptions): PaymentProvider {
  const stripe = new Stripe(opts.secretKey, {
    maxNetworkRetries: opts.maxNetworkRetries ?? 2,
    timeout: opts.timeoutMs ?? 20_000,
    telemetry: false,
    appInfo: { name: 'pronet' },
    ...(opts.host === undefined ? {} : { host: opts.host }),
    ...(opts.port === undefined ? {} : { port: opts.port }),
    ...(opts.protocol === undefined ? {} : { protocol: opts.protocol }),
  })

  return {
    name: 'stripe',
    test: false,

    async startCheckout(order: OrderRecord, urls: CheckoutUrls) {
      let session: Stripe.Checkout.Session
      try {
        session = await stripe.checkout.sessions.create(
          {
            mode: 'payment',
            line_items: [
              {
                quantity: 1,
                price_data: {
                  currency: order.currency,
                  unit_amount: order.priceCents,
                  product_data: { name: packProductName(order.credits), description: 'Credit pack; its credits expire 12 months after purchase.' },
                },
              },
            ],
            client_reference_id: order.id,
            metadata: { orderId: order.id, accountId: order.accountId },
            payment_intent_data: { metadata: { orderId: order.id } },
            success_url: urls.successUrl,
            cancel_url: urls.cancelUrl,
            ...(urls.customerEmail === undefined ? {} : { customer_email: urls.customerEmail }),
          },
          // A retry after a lost answer returns the same session rather than a second one.
          { idempotencyKey: `pronet-checkout-${order.id}` },
        )
      } catch (e) {
        throw new PaymentProviderError('Stripe did not create the Checkout Session', safeFailure(e))
      }
      if (!session.url) throw new PaymentProviderError('Stripe created a Checkout Session without a payment page', { session: session.id })
      return { kind: 'redirect', url: session.url, reference: session.id }
    },

    readWebhook(rawBody: Buffer, signature: string | undefined): PaymentNotice {
      if (signature === undefined || signature === '') throw new WebhookSignatureError('The Stripe-Signature header is missing.')
      let event: Stripe.Event
      try {
        event = stripe.webhooks.constructEvent(rawBody, signature, opts.webhookSecret, opts.toleranceSeconds)
      } catch {
        throw new WebhookSignatureError('The Stripe-Signature does not verify for this body (wrong secret, altered or stale delivery).')
      }
      const kind = SESSION_EVENTS[event.type]
      if (kind === undefined) return { kind: 'ignored', eventId: event.id, type: event.type, orderId: null }
      const session = event.data.object as Stripe.Checkout.Session
      const orderId = session.client_reference_id ?? session.metadata?.orderId ?? null
      // A completed checkout paid by a method that clears later (a bank debit) is not paid yet:
      // async_payment_succeeded or _failed follows.
      if (orderId === null || (event.type === 'checkout.session.completed' && session.payment_status !== 'paid')) {
        return { kind: 'ignored', eventId: event.id, type: event.type, orderId }
      }
      return {
        kind,
        eventId: event.id,
        type: event.type,
        orderId,
        reference: session.id,
        amountCents: session.amount_total ?? null,
        currency: session.currency ?? null,
      }
    },
  }
}
