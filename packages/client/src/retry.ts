/** When and how long to wait before sending a call again. */

export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  maxRetries?: number
  /** The first backoff step, in milliseconds (default 500). */
  baseDelayMs?: number
  /** The backoff's cap, in milliseconds (default 20 000). */
  maxDelayMs?: number
  /**
   * The longest Retry-After the client waits out (default 60 000 ms); an answer asking for longer is
   * thrown at once, as waiting that long is the caller's decision.
   */
  maxRetryAfterMs?: number
}

/**
 * Statuses worth sending again: the rate limit, and failures of the service or its data source,
 * which are never billed. 400, 401, 402, 403 and 404 would answer the same again.
 */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504])

export interface RetryPolicy {
  maxRetries: number
  baseDelayMs: number
  maxDelayMs: number
  maxRetryAfterMs: number
}

export function retryPolicy(o: RetryOptions = {}): RetryPolicy {
  return {
    maxRetries: Math.max(0, Math.floor(o.maxRetries ?? 3)),
    baseDelayMs: o.baseDelayMs ?? 500,
    maxDelayMs: o.maxDelayMs ?? 20_000,
    maxRetryAfterMs: o.maxRetryAfterMs ?? 60_000,
  }
}

/**
 * The wait before retry number `retry` (0 for the first): capped exponential backoff with equal
 * jitter, half of the step fixed and half random, so that clients refused together do not come back
 * together yet each still waits a while.
 */
export function backoffMs(policy: RetryPolicy, retry: number, random: () => number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry)
  return Math.round(step / 2 + (step / 2) * random())
}

/** A sleep that ends early, rejecting, when its signal aborts. */
export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
