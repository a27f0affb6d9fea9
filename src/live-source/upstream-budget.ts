/**
 * The upstream's request budget: the operator's plan allows so many requests per rolling second, and
 * every node spends from the same budget through the shared rate limiter (Redis in a scale-out
 * deployment), so together they never exceed it.
 *
 * On one node, callers wait in arrival order and only the first of them asks the limiter; the rest
 * wait behind it. A caller whose wait would pass `maxWaitMs` is refused at once with a free 503 whose
 * Retry-After is no earlier than when it could have been served, rather than held until it times out.
 */
import { serviceUnavailable } from '../domain/errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { RateLimiter } from '../ports/rate-limiter.ts'

export const UPSTREAM_BUDGET_KEY = 'upstream:budget'

export interface UpstreamBudgetOptions {
  limiter: RateLimiter
  /** The upstream plan's requests per rolling second, for all nodes together. */
  rps: number
  clock: Clock
  sleep: (ms: number) => Promise<void>
  /** The longest a caller waits for its turn before it is refused. */
  maxWaitMs: number
  /** How much longer than a second this node keeps its own sends apart (default ARRIVAL_MARGIN_MS). */
  arrivalMarginMs?: number
}

export interface UpstreamBudget {
  /**
   * Resolves when a request costing `units` of the upstream's rate budget (1; 2 for the engagement
   * view) may be sent; throws a 503 SERVICE_UNAVAILABLE past maxWaitMs.
   */
  acquire(units?: number): Promise<void>
  /** Holds every caller on this node for `ms` (the upstream's own Retry-After on a 429). */
  pause(ms: number): void
  /** What this node sees of the budget now. */
  figures(): BudgetFigures
}

export interface BudgetFigures {
  /** The upstream plan's requests per second, for all nodes together. */
  rps: number
  /** Units this node sent in the last second. */
  sentLastSecond: number
  /** Calls on this node waiting for their turn. */
  waiting: number
  /** How long this node is still paused by the upstream's 429 (0 when not). */
  pausedForMs: number
}

interface Waiter {
  units: number
  deadline: number
  resolve: () => void
  reject: (e: unknown) => void
}

const SECOND_MS = 1000
/**
 * The upstream counts a request when it arrives, a little after we counted it when sent, and by a
 * delay that varies. A unit sent the instant an earlier one left our window could land inside the
 * upstream's; this node also keeps its own sends this much longer than a second apart.
 */
export const ARRIVAL_MARGIN_MS = 100

export function createUpstreamBudget(opts: UpstreamBudgetOptions): UpstreamBudget {
  const { limiter, rps, clock, sleep, maxWaitMs } = opts
  const margin = opts.arrivalMarginMs ?? ARRIVAL_MARGIN_MS
  if (!Number.isInteger(rps) || rps < 1) throw new Error('upstream budget: rps must be a whole number of at least 1')
  const queue: Waiter[] = []
  let pausedUntil = -Infinity
  let pumping = false
  /** While the first waiter sleeps: when it next asks the limiter, so a newcomer learns its wait at once. */
  let resumeAt: number | undefined
  /** This node's sends (instant, units) within the last second and its margin. */
  const sent: { at: number; units: number }[] = []

  /** How long until `units` more fit this node's own record of the last second and its margin. */
  function localWaitMs(at: number, units: number): number {
    while (sent.length > 0 && (sent[0] as { at: number }).at <= at - SECOND_MS - margin) sent.shift()
    let inWindow = sent.reduce((n, s) => n + s.units, 0)
    for (const s of sent) {
      if (inWindow + units <= rps) return 0
      inWindow -= s.units
      if (inWindow + units <= rps) return Math.max(1, s.at + SECOND_MS + margin - at)
    }
    return 0
  }

  /**
   * Refuses every waiter that cannot be served by its deadline. The waiter at place i needs i more
   * units after the first one frees, and the budget frees at most rps a second, so it is served no
   * sooner than `firstMs + floor(i / rps)` seconds from now: a lower bound, hence a truthful Retry-After.
   */
  function refuseHopeless(at: number, firstMs: number): void {
    for (let i = 0; i < queue.length; ) {
      const earliestMs = firstMs + Math.floor(i / rps) * SECOND_MS
      const waiter = queue[i] as Waiter
      if (at + earliestMs > waiter.deadline) {
        queue.splice(i, 1)
        waiter.reject(refusal(earliestMs, at < pausedUntil))
      } else i++
    }
  }

  async function pump(): Promise<void> {
    if (pumping) return
    pumping = true
    try {
      while (queue.length > 0) {
        const at = clock.now()
        let waitMs: number
        const first = queue[0] as Waiter
        const local = localWaitMs(at, first.units)
        if (at < pausedUntil) {
          waitMs = pausedUntil - at
        } else if (local > 0) {
          waitMs = local
        } else {
          let decision
          try {
            decision = await limiter.take(UPSTREAM_BUDGET_KEY, rps, first.units, at)
          } catch (e) {
            queue.shift()?.reject(e)
            continue
          }
          if (decision.ok) {
            sent.push({ at: clock.now(), units: first.units })
            queue.shift()?.resolve()
            continue
          }
          waitMs = Math.max(1, decision.retryAfterMs)
        }
        refuseHopeless(at, waitMs)
        if (queue.length === 0) break
        resumeAt = at + waitMs
        await sleep(waitMs)
        resumeAt = undefined
      }
    } finally {
      pumping = false
    }
  }

  return {
    acquire(units = 1) {
      if (units > rps) return Promise.reject(refusal(Infinity, false))
      return new Promise<void>((resolve, reject) => {
        const at = clock.now()
        queue.push({ units, deadline: at + Math.max(0, maxWaitMs), resolve, reject })
        if (resumeAt !== undefined) refuseHopeless(at, Math.max(0, resumeAt - at))
        void pump()
      })
    },
    figures() {
      const at = clock.now()
      return {
        rps,
        sentLastSecond: sent.filter((x) => x.at > at - SECOND_MS).reduce((n, x) => n + x.units, 0),
        waiting: queue.length,
        pausedForMs: Math.max(0, pausedUntil - at),
      }
    },
    pause(ms) {
      if (!(ms > 0)) return
      const at = clock.now()
      pausedUntil = Math.max(pausedUntil, at + ms)
      if (resumeAt !== undefined) resumeAt = Math.max(resumeAt, pausedUntil)
      refuseHopeless(at, pausedUntil - at)
    },
  }
}

function refusal(waitMs: number, paused: boolean): Error {
  const seconds = Number.isFinite(waitMs) ? Math.max(1, Math.ceil(waitMs / SECOND_MS)) : 60
  return serviceUnavailable(
    paused ? 'The upstream data source asked us to slow down.' : "The upstream data source's request budget is spent for now.",
    seconds,
  )
}
