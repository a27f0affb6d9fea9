/**
 * Sends due deliveries: a signed POST of the event's JSON, a 2xx within the timeout is delivered;
 * anything else is tried again after a growing wait, for a day from the event, then given up. Every
 * attempt is recorded (the console and the admin API show them). At least once: a node that dies
 * between the receiver's answer and the record sends it again after its lease, and the receiver
 * deduplicates by the event's id.
 */
import type { Clock } from '../ports/clock.ts'
import type { Attempt, DueDelivery, WebhookStore } from '../ports/webhook-store.ts'
import { signatureOf } from './webhook-signature.ts'
import { destinationProblem, resolveAll } from './webhook-settings.ts'
import { guardedLookup, postWebhook, RefusedDestinationError, type WebhookPost } from './webhook-post.ts'

/** Waits before the 2nd, 3rd, … attempt; the last repeats until the day is over. */
export const RETRY_WAITS_MS = [30_000, 120_000, 600_000, 1_800_000, 3_600_000, 2 * 3_600_000, 4 * 3_600_000]
/** A delivery is given up once its next attempt would start more than this after its event. */
export const RETRY_FOR_MS = 24 * 3_600_000
/** A receiver has this long to answer. */
export const DELIVERY_TIMEOUT_MS = 10_000
/** A delivery taken by a node is left to it this long (longer than an attempt can take). */
export const LEASE_MS = 60_000
/** Deliveries taken at once, and sent together. */
const BATCH = 20

export interface DeliveryDeps {
  store: WebhookStore
  clock: Clock
  /** Whether addresses on private networks may be reached (development). */
  allowPrivate: boolean
  /** Sends one POST, resolving to the receiver's status (postWebhook in production). */
  post?: (url: string, post: WebhookPost) => Promise<number>
  /** Name lookup for the connection, which checks what it finds (DNS in production). */
  resolve?: (host: string) => Promise<string[]>
  timeoutMs?: number
}

/** When a delivery that has now failed `attempts` times is tried next, or null when it is given up. */
export function nextAttemptAt(createdAt: number, attempts: number, now: number): number | null {
  const wait = RETRY_WAITS_MS[Math.min(attempts - 1, RETRY_WAITS_MS.length - 1)] as number
  const at = now + wait
  return at - createdAt > RETRY_FOR_MS ? null : at
}

export function createDelivery(deps: DeliveryDeps) {
  const send = deps.post ?? postWebhook
  const timeoutMs = deps.timeoutMs ?? DELIVERY_TIMEOUT_MS
  // A name is resolved once an attempt, by the connection, which reaches only an address that passed.
  const lookup = deps.allowPrivate ? undefined : guardedLookup(deps.resolve ?? resolveAll)

  async function attempt(d: DueDelivery): Promise<Attempt> {
    const at = deps.clock.now()
    const started = performance.now()
    const done = (status: number | null, error: string | null): Attempt => ({ at, status, error, durationMs: Math.round(performance.now() - started) })
    const refused = destinationProblem(d.url, deps.allowPrivate)
    if (refused) return done(null, `Not sent: ${refused}.`)
    try {
      // A redirect could lead anywhere, a private address among them: it is not followed, and counts as a failure.
      const status = await send(d.url, {
        headers: {
          'content-type': 'application/json',
          'user-agent': 'pronet-webhooks/1.0',
          'pronet-signature': signatureOf(d.secret, Math.floor(at / 1000), d.body),
        },
        body: d.body,
        timeoutMs,
        ...(lookup ? { lookup } : {}),
      })
      return status >= 200 && status < 300 ? done(status, null) : done(status, `The receiver answered ${status}.`)
    } catch (e) {
      if (e instanceof RefusedDestinationError) return done(null, `Not sent: ${e.message}.`)
      const name = (e as { name?: string }).name
      if (name === 'TimeoutError' || name === 'AbortError') return done(null, `No answer within ${timeoutMs / 1000} s.`)
      const code = (e as { code?: unknown }).code
      return done(null, `Could not connect${typeof code === 'string' ? ` (${code})` : ''}.`)
    }
  }

  async function deliver(d: DueDelivery): Promise<void> {
    const result = await attempt(d)
    const ok = result.status !== null && result.status >= 200 && result.status < 300
    const next = ok ? null : nextAttemptAt(d.createdAt, d.attempts + 1, result.at)
    await deps.store.finish(d.id, result, ok ? { state: 'delivered', nextAt: result.at } : next === null ? { state: 'failed', nextAt: result.at } : { state: 'pending', nextAt: next })
  }

  return {
    /** Sends one delivery now (a test's), if it is pending and no node has it. */
    async deliverOne(deliveryId: string): Promise<void> {
      const taken = await deps.store.takeOne(deliveryId, deps.clock.now(), LEASE_MS)
      if (taken) await deliver(taken)
    },

    /** Sends what is due now; resolves to how many deliveries were attempted. */
    async deliverDue(): Promise<number> {
      const due = await deps.store.takeDue(deps.clock.now(), BATCH, LEASE_MS)
      await Promise.all(due.map((d) => deliver(d)))
      return due.length
    },
  }
}
