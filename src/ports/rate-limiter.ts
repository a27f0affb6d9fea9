/** Per-account rate budgets (D4): a sliding one-second window of units. */
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
  close(): Promise<void>
}
