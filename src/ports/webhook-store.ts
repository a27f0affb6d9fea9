/**
 * Account webhooks, the events recorded for them and their deliveries. An event is recorded once under
 * an id made from the fact it reports, with a delivery per endpoint that takes it, in one transaction:
 * any node may record the same fact again and nothing is sent twice. Deliveries are taken by one node
 * at a time (a lease) and retried until delivered or given up.
 */

export const WEBHOOK_EVENTS = [
  'credits.low',
  'credits.exhausted',
  'pack.expiring',
  'pack.expired',
  'subscription.renewed',
  'subscription.changed',
  'order.paid',
] as const

export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number]

/** What a test call sends (POST …/webhooks/:id/test), to that endpoint only. */
export const TEST_EVENT = 'webhook.test'

export interface WebhookRecord {
  id: string
  accountId: string
  url: string
  events: WebhookEventType[]
  /** Signs each delivery (Pronet-Signature); shown to the customer only when the endpoint is made. */
  secret: string
  enabled: boolean
  createdAt: number
}

export interface WebhookPatch {
  url?: string
  events?: WebhookEventType[]
  enabled?: boolean
}

export interface AlertSettings {
  /** credits.low is sent when the balance falls below this; null: never. */
  lowCredits: number | null
  /** Whether credits.low was sent since the balance was last at or above the threshold. */
  lowSent: boolean
  /** Whether credits.exhausted was sent since the balance was last above 0. */
  exhaustedSent: boolean
  /** Falls below the threshold counted so far: each fall's event id is made from it, alike on every node. */
  lowRound: number
  exhaustedRound: number
}

/** Where the balance alerts stand, as the event finder moves them. */
export type AlertState = Omit<AlertSettings, 'lowCredits'>

/** An event to record: its id names the fact, so recording it again adds nothing. */
export interface NewEvent {
  id: string
  accountId: string
  type: string
  createdAt: number
  /** The JSON body every delivery sends. */
  body: string
}

/** An event and the webhooks it goes to. */
export interface EventToRecord {
  event: NewEvent
  webhookIds: string[]
}

export type DeliveryState = 'pending' | 'delivered' | 'failed'

export interface Attempt {
  at: number
  /** The receiver's HTTP status; null when none came (refused, timed out, not allowed). */
  status: number | null
  error: string | null
  durationMs: number
}

export interface DeliveryRecord {
  id: string
  eventId: string
  webhookId: string
  eventType: string
  state: DeliveryState
  attempts: Attempt[]
  nextAt: number | null
  createdAt: number
}

/** A delivery taken to send now, with what sending it needs. */
export interface DueDelivery {
  id: string
  webhookId: string
  url: string
  secret: string
  body: string
  /** When its event was recorded: it is retried until a day after. */
  createdAt: number
  attempts: number
}

export interface WebhookStore {
  create(webhook: WebhookRecord): Promise<void>
  list(accountId: string): Promise<WebhookRecord[]>
  get(accountId: string, webhookId: string): Promise<WebhookRecord | undefined>
  /** False when the account has no such webhook. */
  update(accountId: string, webhookId: string, patch: WebhookPatch): Promise<boolean>
  /**
   * Takes the endpoint's turn for a test event at `now` unless one was taken within `intervalMs`
   * before (atomically, across nodes): null when taken, else when the last one was.
   */
  claimTest(webhookId: string, now: number, intervalMs: number): Promise<number | null>
  /** Deletes the endpoint and its deliveries; false when the account has no such webhook. */
  delete(accountId: string, webhookId: string): Promise<boolean>
  /** The accounts with at least one webhook (enabled or not: a disabled one's deliveries wait), each with its alert settings. */
  watchedAccounts(): Promise<{ accountId: string; webhooks: WebhookRecord[]; alerts: AlertSettings }[]>
  alerts(accountId: string): Promise<AlertSettings>
  setLowCredits(accountId: string, lowCredits: number | null): Promise<void>
  /** Records which balance alerts were sent (alongside the event when one is recorded). */
  setAlertState(accountId: string, state: AlertState, event?: EventToRecord): Promise<void>
  /** Which of these event ids are recorded already. */
  recorded(eventIds: readonly string[]): Promise<Set<string>>
  /** Records the event and a delivery to each webhook, due at once; false (nothing added) when it was recorded before. */
  record(event: NewEvent, webhookIds: readonly string[]): Promise<boolean>
  /** Takes up to `limit` deliveries due at `now` for `leaseMs`, so no other node sends them meanwhile. */
  takeDue(now: number, limit: number, leaseMs: number): Promise<DueDelivery[]>
  /** Takes this one delivery (a test's) for `leaseMs`, due or not, if it is pending and not taken. */
  takeOne(deliveryId: string, now: number, leaseMs: number): Promise<DueDelivery | undefined>
  /** Records an attempt, and the delivery's next state: delivered, failed, or pending again at `nextAt`. */
  finish(deliveryId: string, attempt: Attempt, next: { state: DeliveryState; nextAt: number }): Promise<void>
  /** The webhook's deliveries, newest first, each with its attempts. */
  deliveries(webhookId: string, limit: number): Promise<DeliveryRecord[]>
  /** Facts to report, for accounts `accountIds`, at or after `since`: subscription events, paid orders, pack lots. */
  facts(accountIds: readonly string[], since: number, packsUntil: number): Promise<Facts>
}

export interface Facts {
  subscriptionEvents: { id: number; accountId: string; at: number; change: Record<string, unknown> }[]
  paidOrders: { id: string; accountId: string; credits: number; priceCents: number; currency: string; test: boolean; paidAt: number }[]
  /** Pack lots expiring between `since` and `packsUntil`. */
  packs: { id: string; accountId: string; credits: number; remaining: number; startsAt: number; expiresAt: number }[]
}
