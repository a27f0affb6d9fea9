/** What every answer says beside its body, read from its headers. */

export interface RateLimit {
  /** The plan's calls per second (X-RateLimit-Limit). */
  limit: number
  /** Units left in the rolling one-second window (X-RateLimit-Remaining); absent on usage and subscription. */
  remaining: number | undefined
  /** Unix seconds when a unit is next free (X-RateLimit-Reset); absent on usage and subscription. */
  reset: number | undefined
  /** Units this call took (X-RateLimit-Cost). */
  cost: number | undefined
}

export interface Meta {
  /** The HTTP status of the answer. */
  status: number
  /** Credits this call billed (X-Credits-Charged); 0 when the header is absent or on a replayed answer. */
  creditsCharged: number
  /** The call's id to quote when asking about it (X-Request-Id). */
  requestId: string | undefined
  /** The rate-limit figures, or undefined when the answer carries none. */
  rateLimit: RateLimit | undefined
  /** Where a live-data service got the answer: cache, upstream or stale (X-Data-Source). */
  dataSource?: string
  /** Seconds since a live-data answer was fetched (Age). */
  age?: number
  /** True when the answer is the kept first answer to this Idempotency-Key (Idempotent-Replayed). */
  replayed: boolean
  /** The Idempotency-Key sent on every attempt of this call, on billed calls. */
  idempotencyKey?: string
  /** HTTP requests this call took, retries included. */
  attempts: number
}

export interface Result<T> {
  data: T
  meta: Meta
}

const int = (value: string | null): number | undefined => {
  if (value === null || value.trim() === '') return undefined
  const n = Number(value)
  return Number.isFinite(n) ? n : undefined
}

export function readMeta(res: { status: number; headers: Headers }, call: { attempts: number; idempotencyKey?: string | undefined }): Meta {
  const h = res.headers
  const limit = int(h.get('x-ratelimit-limit'))
  const meta: Meta = {
    status: res.status,
    creditsCharged: int(h.get('x-credits-charged')) ?? 0,
    requestId: h.get('x-request-id') ?? undefined,
    rateLimit:
      limit === undefined
        ? undefined
        : { limit, remaining: int(h.get('x-ratelimit-remaining')), reset: int(h.get('x-ratelimit-reset')), cost: int(h.get('x-ratelimit-cost')) },
    replayed: h.get('idempotent-replayed') === 'true',
    attempts: call.attempts,
  }
  const source = h.get('x-data-source')
  if (source !== null) meta.dataSource = source
  const age = int(h.get('age'))
  if (age !== undefined) meta.age = age
  if (call.idempotencyKey !== undefined) meta.idempotencyKey = call.idempotencyKey
  return meta
}

/**
 * Milliseconds a Retry-After header asks to wait: whole seconds, or an HTTP date; undefined when
 * absent or unreadable.
 */
export function retryAfterMs(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined
  const v = value.trim()
  if (/^\d+$/.test(v)) return Number(v) * 1000
  const at = Date.parse(v)
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs)
}
