/**
 * How a pack order is paid (PRONET_PAYMENTS). A provider starts the payment of an order and,
 * when it confirms payments by webhook (Stripe), reads a delivery into what it says about one order.
 * It never grants anything itself: the orders service does, once per order.
 */
import type { OrderRecord, PaymentProviderName } from '../ports/order-store.ts'

export interface CheckoutUrls {
  /** Where the customer lands after paying, and after giving up. */
  successUrl: string
  cancelUrl: string
  /** Prefills the payment page. */
  customerEmail?: string
}

/** What the customer does next: go and pay, nothing (paid already), or wait for the operator. */
export type CheckoutStart =
  | { kind: 'redirect'; url: string; /** The provider's name for this payment (a Checkout Session id). */ reference: string }
  | { kind: 'paid' }
  | { kind: 'pending' }

/** What a verified webhook delivery says about an order. */
export type PaymentNotice =
  | { kind: 'paid' | 'failed' | 'canceled'; eventId: string; type: string; orderId: string; reference: string; amountCents: number | null; currency: string | null }
  /** Verified, but nothing to do: another event type, or a completed checkout whose payment has not cleared yet. */
  | { kind: 'ignored'; eventId: string; type: string; orderId: string | null }

/** A webhook delivery whose signature does not verify (or is missing): nothing in it is to be believed. */
export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'WebhookSignatureError'
  }
}

/**
 * The provider could not start a payment (unreachable, refused the request). Its message and details
 * are safe to log: they never carry a key, a secret or the provider's own error text.
 */
export class PaymentProviderError extends Error {
  constructor(
    message: string,
    readonly details: Record<string, string | number | undefined> = {},
  ) {
    super(message)
    this.name = 'PaymentProviderError'
  }
}

export interface PaymentProvider {
  readonly name: PaymentProviderName
  /** Orders it takes are test orders: paid with no money. */
  readonly test: boolean
  /** Starts paying `order` (already stored, pending). Rejects when the provider cannot be reached. */
  startCheckout(order: OrderRecord, urls: CheckoutUrls): Promise<CheckoutStart>
  /**
   * Reads a webhook delivery from its exact bytes and signature header: throws WebhookSignatureError
   * when the signature does not verify. Absent for providers without webhooks.
   */
  readWebhook?(rawBody: Buffer, signature: string | undefined): PaymentNotice
}
