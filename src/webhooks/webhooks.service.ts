/**
 * An account's webhooks as the admin API, the console and the CLI manage them: endpoints, the
 * credits.low threshold, the deliveries and their attempts, a test delivery; and the background work
 * of every node: finding new events and sending what is due.
 */
import { iso } from '../domain/billing/calendar.ts'
import { ApiError, invalidParameter } from '../domain/errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { Ledger } from '../ports/ledger.ts'
import { TEST_EVENT, type DeliveryRecord, type WebhookPatch, type WebhookRecord, type WebhookStore } from '../ports/webhook-store.ts'
import { createDelivery } from './webhook-delivery.ts'
import type { WebhookPost } from './webhook-post.ts'
import { createEventFinder, eventBody, eventId } from './webhook-events.ts'
import { checkWebhookEvents, checkWebhookUrl, MAX_WEBHOOKS } from './webhook-settings.ts'

/** The highest credits.low threshold. */
export const MAX_LOW_CREDITS = 1_000_000_000
/** Deliveries listed at most. */
export const DELIVERY_LIST_LIMIT = 100
/**
 * An endpoint takes one test event this long after the last: a test is a request the service sends
 * on a customer's word, so it may not be made to send a stream of them to any host. The turn is
 * taken in the store, so every node refuses the second alike.
 */
export const TEST_INTERVAL_MS = 10_000

export interface WebhooksDeps {
  store: WebhookStore
  ledger: Ledger
  clock: Clock
  randomBytes: (n: number) => Buffer
  /** Throws NOT_FOUND for an account that does not exist. */
  accountExists: (accountId: string) => Promise<unknown>
  allowPrivate: boolean
  post?: (url: string, post: WebhookPost) => Promise<number>
  resolve?: (host: string) => Promise<string[]>
  /** Where a balance check that failed is reported (the log). */
  onError?: (err: unknown) => void
}

export const webhookView = (w: WebhookRecord) => ({ id: w.id, url: w.url, events: w.events, enabled: w.enabled, createdAt: iso(w.createdAt) })

export const deliveryView = (d: DeliveryRecord) => ({
  id: d.id,
  eventId: d.eventId,
  event: d.eventType,
  state: d.state,
  createdAt: iso(d.createdAt),
  nextAttemptAt: d.nextAt === null ? null : iso(d.nextAt),
  attempts: d.attempts.map((a) => ({ at: iso(a.at), status: a.status, error: a.error, durationMs: a.durationMs })),
})

export type WebhooksService = ReturnType<typeof createWebhooksService>

export function createWebhooksService(deps: WebhooksDeps) {
  const { store, clock } = deps
  const token = (n: number) => deps.randomBytes(n).toString('base64url')
  const finder = createEventFinder({ store, ledger: deps.ledger })
  const delivery = createDelivery({
    store,
    clock,
    allowPrivate: deps.allowPrivate,
    ...(deps.post ? { post: deps.post } : {}),
    ...(deps.resolve ? { resolve: deps.resolve } : {}),
  })

  /**
   * Balance checks after billed calls, one at a time per account: a call billed while one runs has
   * it run again once it ends, so a balance that dips below a threshold and recovers between two
   * looks for events is still seen, and a busy account costs one check at a time.
   */
  const checking = new Map<string, { again: boolean }>()
  function checkBalanceSoon(accountId: string): void {
    const running = checking.get(accountId)
    if (running) {
      running.again = true
      return
    }
    const entry = { again: false }
    checking.set(accountId, entry)
    const run = (): void => {
      entry.again = false
      finder
        .checkBalance(accountId, clock.now())
        .catch((err: unknown) => deps.onError?.(err))
        .finally(() => {
          if (entry.again) setImmediate(run)
          else checking.delete(accountId)
        })
    }
    setImmediate(run)
  }

  async function mustGet(accountId: string, webhookId: string): Promise<WebhookRecord> {
    await deps.accountExists(accountId)
    // No id holds a control character (PostgreSQL would refuse a NUL in text with an error, not a miss).
    const found = /\p{Cc}/u.test(webhookId) ? undefined : await store.get(accountId, webhookId)
    if (!found) throw new ApiError('NOT_FOUND', `No webhook '${webhookId}' on account '${accountId}'.`)
    return found
  }

  return {
    /** A new endpoint; its secret is shown only in this answer. */
    async create(accountId: string, input: { url: unknown; events: unknown }) {
      await deps.accountExists(accountId)
      const url = checkWebhookUrl(input.url, deps.allowPrivate)
      const events = checkWebhookEvents(input.events)
      if ((await store.list(accountId)).length >= MAX_WEBHOOKS) {
        throw invalidParameter('url', `an account has at most ${MAX_WEBHOOKS} webhook endpoints; delete one first.`)
      }
      const webhook: WebhookRecord = { id: `wh_${token(9)}`, accountId, url, events, secret: `whsec_${token(24)}`, enabled: true, createdAt: clock.now() }
      await store.create(webhook)
      return { ...webhookView(webhook), secret: webhook.secret }
    },

    async list(accountId: string) {
      await deps.accountExists(accountId)
      return (await store.list(accountId)).map(webhookView)
    },

    async get(accountId: string, webhookId: string) {
      return webhookView(await mustGet(accountId, webhookId))
    },

    async update(accountId: string, webhookId: string, patch: { url?: unknown; events?: unknown; enabled?: unknown }) {
      await mustGet(accountId, webhookId)
      const checked: WebhookPatch = {}
      if (patch.url !== undefined) checked.url = checkWebhookUrl(patch.url, deps.allowPrivate)
      if (patch.events !== undefined) checked.events = checkWebhookEvents(patch.events)
      if (patch.enabled !== undefined) {
        if (typeof patch.enabled !== 'boolean') throw invalidParameter('enabled', 'must be true or false.')
        checked.enabled = patch.enabled
      }
      await store.update(accountId, webhookId, checked)
      return webhookView(await mustGet(accountId, webhookId))
    },

    async remove(accountId: string, webhookId: string): Promise<void> {
      await mustGet(accountId, webhookId)
      await store.delete(accountId, webhookId)
    },

    async deliveries(accountId: string, webhookId: string, limit = DELIVERY_LIST_LIMIT) {
      await mustGet(accountId, webhookId)
      return (await store.deliveries(webhookId, Math.min(limit, DELIVERY_LIST_LIMIT))).map(deliveryView)
    },

    /** Sends a webhook.test event to this endpoint now (enabled or not), and answers its delivery after the first attempt. */
    async test(accountId: string, webhookId: string) {
      const webhook = await mustGet(accountId, webhookId)
      const at = clock.now()
      const last = await store.claimTest(webhook.id, at, TEST_INTERVAL_MS)
      if (last !== null) {
        const wait = Math.max(1, Math.ceil((last + TEST_INTERVAL_MS - at) / 1000))
        throw new ApiError('RATE_LIMITED', `A test event was sent to this endpoint moments ago; send another in ${wait} s.`, undefined, { 'retry-after': String(wait) })
      }
      const id = eventId(`${TEST_EVENT}:${webhookId}:${token(9)}`)
      const body = eventBody(id, TEST_EVENT, at, accountId, { webhookId, message: 'A test delivery: your endpoint is reached and can check the signature.' })
      await store.record({ id, accountId, type: TEST_EVENT, createdAt: at, body }, [webhook.id])
      await delivery.deliverOne(`${id}.${webhook.id}`)
      const sent = (await store.deliveries(webhookId, DELIVERY_LIST_LIMIT)).find((d) => d.eventId === id)
      if (!sent) throw new ApiError('INTERNAL_ERROR', 'The test delivery could not be read back.')
      return deliveryView(sent)
    },

    async alerts(accountId: string): Promise<{ lowCredits: number | null }> {
      await deps.accountExists(accountId)
      return { lowCredits: (await store.alerts(accountId)).lowCredits }
    },

    /** Sets the balance below which credits.low is sent (null: never); a new threshold is watched from now. */
    async setAlerts(accountId: string, input: { lowCredits: unknown }): Promise<{ lowCredits: number | null }> {
      await deps.accountExists(accountId)
      const low = input.lowCredits
      if (low !== null && (typeof low !== 'number' || !Number.isSafeInteger(low) || low < 0 || low > MAX_LOW_CREDITS)) {
        throw invalidParameter('lowCredits', `must be a whole number of credits from 0 to ${MAX_LOW_CREDITS.toLocaleString('en-US')}, or null for no alert.`)
      }
      await store.setLowCredits(accountId, low)
      return { lowCredits: low }
    },

    /**
     * Told of every call that billed credits (the gateway, after its settle): the account's balance
     * alerts are checked at once if its endpoints take them. Returns at once.
     */
    billed(accountId: string): void {
      if (finder.watchesBalance(accountId)) checkBalanceSoon(accountId)
    },

    /** Resolves once the balance checks under way have ended (tests, and a node closing). */
    async settled(): Promise<void> {
      while (checking.size > 0) await new Promise((r) => setImmediate(r))
    },

    /** Looks for new events (every node, every few seconds). */
    findEvents: () => finder.find(clock.now()),
    /** Sends what is due (every node, every second). */
    deliverDue: () => delivery.deliverDue(),
  }
}
