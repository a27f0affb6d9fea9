/** Per-account rate budgets: a sliding one-second window of units, so no double burst at a second boundary. */
export interface RateDecision {
  ok: boolean
  limit: number
  /** Units left in the window after this decision. */
  remaining: number
  /** Unix ms when a unit is next free: now while some are left. */
  resetAt: number
  /** On refusal: ms until `cost` units will be free, if nobody else takes them first. */
  retryAfterMs: number
}

export interface RateLimiter {
  /** Takes `cost` units of `key`'s budget of `limit` units per rolling second at `at`, or refuses. */
  take(key: string, limit: number, cost: number, at: number): Promise<RateDecision>
  /**
   * Takes one of `limit` simultaneous leases of `key` (the cap on concurrent searches); undefined
   * when all are taken. A lease is given back by calling the returned function, or lapses after
   * `ttlMs` (a node that died mid-request does not hold it forever).
   */
  lease(key: string, limit: number, ttlMs: number): Promise<(() => Promise<void>) | undefined>
  close(): Promise<void>
}
