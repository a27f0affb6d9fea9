/**
 * Pack orders and their status history. An order is a customer's purchase of one credit pack;
 * its pack is granted by the ledger under the lot id the order records once paid, so the store says
 * what was decided and the ledger what was granted.
 */
export type OrderStatus = 'pending' | 'paid' | 'failed' | 'canceled' | 'rejected'
export type PaymentProviderName = 'stripe' | 'manual' | 'test'

export const ORDER_STATUSES: readonly OrderStatus[] = ['pending', 'paid', 'failed', 'canceled', 'rejected']

export interface OrderRecord {
  id: string
  accountId: string
  /** The console user who placed it; null when placed otherwise (the operator, a script). */
  userId: string | null
  credits: number
  /** The quote when the order was placed, in integer cents of `currency`. */
  priceCents: number
  currency: 'usd'
  provider: PaymentProviderName
  status: OrderStatus
  /** The provider's name for the payment (a Stripe Checkout Session id), once it has one. */
  providerRef: string | null
  /** Paid with no money (PRONET_PAYMENTS=test). */
  test: boolean
  /** Set with `paid`: the lot its pack is granted under, and the payment instant the pack counts from. */
  lotId: string | null
  paidAt: number | null
  createdAt: number
  updatedAt: number
}

/** One line of an order's history: the status it entered, when, and who or what moved it. */
export interface OrderEvent {
  status: OrderStatus
  at: number
  actor: string
  note: string | null
}

export interface OrderTransition {
  /** The statuses the order may be in for the move to happen. */
  from: readonly OrderStatus[]
  to: OrderStatus
  at: number
  actor: string
  note?: string
  /** With `to: 'paid'`: the lot the pack is granted under. */
  lotId?: string
}

export interface OrderStore {
  /** Inserts a new order and the first line of its history in one transaction. */
  create(order: OrderRecord, actor: string, note?: string): Promise<void>
  get(id: string): Promise<OrderRecord | undefined>
  /** Records the provider's reference; false when the order does not exist. */
  setProviderRef(id: string, providerRef: string, at: number): Promise<boolean>
  /** The account's orders, newest first. */
  listByAccount(accountId: string, limit: number): Promise<OrderRecord[]>
  /** Every account's orders, newest first, optionally in one status (the operator's list). */
  list(filter: { status?: OrderStatus; limit: number }): Promise<OrderRecord[]>
  /**
   * Moves the order to `to` and appends the history line in one transaction, only while it is in
   * one of `from` (with `to: 'paid'` also recording paidAt = at and the lot id): false, changing
   * nothing, when it is not. Of two racing moves exactly one succeeds.
   */
  transition(id: string, move: OrderTransition): Promise<boolean>
  /** The order's history, oldest first. */
  history(id: string): Promise<OrderEvent[]>
  close(): Promise<void>
}
