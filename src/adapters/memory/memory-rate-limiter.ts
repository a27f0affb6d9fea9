/**
 * The embedded rate limiter: an exact sliding log per key. Each unit taken is one timestamp in a ring
 * buffer; the window is (now − 1000 ms, now], so no one-second window ever holds more than `limit`
 * units (no double burst at a second boundary, unlike fixed buckets or GCRA bursts).
 */
import type { RateDecision, RateLimiter } from '../../ports/rate-limiter.ts'

const WINDOW_MS = 1000

class SlidingLog {
  private ring: Float64Array
  private head = 0
  private size = 0

  constructor(capacity: number) {
    this.ring = new Float64Array(Math.max(4, Math.min(capacity, 64)))
  }

  /** The i-th oldest unit in the window. */
  private at(i: number): number {
    return this.ring[(this.head + i) % this.ring.length] as number
  }

  private grow(min: number): void {
    let length = this.ring.length
    while (length < min) length *= 2
    const next = new Float64Array(length)
    for (let i = 0; i < this.size; i++) next[i] = this.at(i)
    this.ring = next
    this.head = 0
  }

  take(limit: number, cost: number, at: number): RateDecision {
    let now = at
    if (this.size > 0) {
      const newest = this.at(this.size - 1)
      // A unit stamped a second or more after `at`: the clock was set back (the test clock); forget them.
      if (newest - at >= WINDOW_MS) this.size = 0
      // Stamped less than a second after `at`: calls reach the limiter out of order (each is stamped on
      // arrival, then awaits its account). This one counts from the newest stamp, so the log stays in
      // order and no second admits more than the limit. (Forgetting the log here, as for a clock set
      // back, would let a burst of concurrent calls through at several times the limit.)
      else if (newest > at) now = newest
    }
    // The oldest `gone` units have left the window (now − 1000 ms, now]. They are dropped only when a
    // unit is taken, at the newest stamp, which no later call goes below: a refused call stamped later
    // than a call still on its way must not drop units that call has to count.
    let gone = 0
    while (gone < this.size && this.at(gone) <= now - WINDOW_MS) gone++
    const held = this.size - gone
    // A lowered limit keeps every unit in the log: a limit raised again within the second must
    // still count them. The log never holds more than the largest limit of the last second.
    if (held + cost <= limit) {
      this.head = (this.head + gone) % this.ring.length
      this.size = held
      if (this.size + cost > this.ring.length) this.grow(this.size + cost)
      for (let i = 0; i < cost; i++) {
        this.ring[(this.head + this.size) % this.ring.length] = now
        this.size++
      }
      const remaining = limit - this.size
      // X-RateLimit-Reset is when a unit is next free: now while some are left, else when the oldest leaves.
      return { ok: true, limit, remaining, resetAt: remaining > 0 ? at : this.at(0) + WINDOW_MS, retryAfterMs: 0 }
    }
    // `cost` units are free once the (held + cost − limit) oldest units have left the window; the wait
    // counts from the caller's instant, so a take at at + retryAfterMs is admitted.
    const freeAt = cost > limit ? Infinity : this.at(gone + held + cost - limit - 1) + WINDOW_MS
    return {
      ok: false,
      limit,
      remaining: Math.max(0, limit - held),
      resetAt: held >= limit ? this.at(gone + held - limit) + WINDOW_MS : at,
      retryAfterMs: freeAt - at,
    }
  }
}

export function createMemoryRateLimiter(): RateLimiter {
  const logs = new Map<string, SlidingLog>()
  // Leases lapse after their ttl here too: a request that never ends (a stuck handler) must not hold
  // a search slot for ever. Wall time, as Redis's leases use Redis's own clock.
  const leases = new Map<string, Map<number, number>>()
  let nextLease = 0
  return {
    async lease(key, limit, ttlMs) {
      const now = performance.now()
      const held = leases.get(key) ?? new Map<number, number>()
      for (const [id, until] of held) if (until <= now) held.delete(id)
      if (held.size >= limit) return undefined
      const id = nextLease++
      held.set(id, now + ttlMs)
      leases.set(key, held)
      return async () => {
        held.delete(id)
        if (held.size === 0 && leases.get(key) === held) leases.delete(key)
      }
    },
    async take(key, limit, cost, at) {
      let log = logs.get(key)
      if (!log) {
        log = new SlidingLog(limit)
        logs.set(key, log)
      }
      return log.take(limit, cost, at)
    },
    async close() {
      logs.clear()
      leases.clear()
    },
  }
}
