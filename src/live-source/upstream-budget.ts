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
}

export interface UpstreamBudget {
  /** Resolves when one request to the upstream may be sent; throws a 503 SERVICE_UNAVAILABLE past maxWaitMs. */
  acquire(): Promise<void>
  /** Holds every caller on this node for `ms` (the upstream's own Retry-After on a 429). */
  pause(ms: number): void
}

interface Waiter {
  deadline: number
  resolve: () => void
  reject: (e: unknown) => void
}

const SECOND_MS = 1000

export function createUpstreamBudget(opts: UpstreamBudgetOptions): UpstreamBudget {
  const { limiter, rps, clock, sleep, maxWaitMs } = opts
  if (!Number.isInteger(rps) || rps < 1) throw new Error('upstream budget: rps must be a whole number of at least 1')
  const queue: Waiter[] = []
  let pausedUntil = -Infinity
  let pumping = false
  /** While the first waiter sleeps: when it next asks the limiter, so a newcomer learns its wait at once. */
  let resumeAt: number | undefined

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
        if (at < pausedUntil) {
          waitMs = pausedUntil - at
        } else {
          let decision
          try {
            decision = await limiter.take(UPSTREAM_BUDGET_KEY, rps, 1, at)
          } catch (e) {
            queue.shift()?.reject(e)
            continue
          }
          if (decision.ok) {
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
    acquire() {
      return new Promise<void>((resolve, reject) => {
        const at = clock.now()
        queue.push({ deadline: at + Math.max(0, maxWaitMs), resolve, reject })
        if (resumeAt !== undefined) refuseHopeless(at, Math.max(0, resumeAt - at))
        void pump()
      })
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
