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
   * `ttlMs` (a node that died mid-request does not hold it forever). The release is on its way when
   * the function returns (sent to Redis before any later command of this node): a lease this node
   * asks for after it finds the lease given back without waiting for the returned promise.
   */
  lease(key: string, limit: number, ttlMs: number): Promise<(() => Promise<void>) | undefined>
  /**
   * take(), then lease() when the take is admitted, in one step where the store can (one round trip
   * to Redis): a search's units and one of its account's simultaneous searches. An adapter without it
   * is used through takeThenLease.
   */
  takeAndLease?(key: string, limit: number, cost: number, at: number, lease: LeaseRequest): Promise<TakenWithLease>
  close(): Promise<void>
}

export interface LeaseRequest {
  key: string
  limit: number
  ttlMs: number
}

/** A take's decision, and the lease taken with it: undefined when the take was refused or every lease was in use. */
export interface TakenWithLease {
  decision: RateDecision
  release: (() => Promise<void>) | undefined
}

/** takeAndLease on any limiter: in one step when it has it, else one after the other. */
export async function takeThenLease(limiter: RateLimiter, key: string, limit: number, cost: number, at: number, lease: LeaseRequest): Promise<TakenWithLease> {
  if (limiter.takeAndLease) return limiter.takeAndLease(key, limit, cost, at, lease)
  const decision = await limiter.take(key, limit, cost, at)
  return { decision, release: decision.ok ? await limiter.lease(lease.key, lease.limit, lease.ttlMs) : undefined }
}
