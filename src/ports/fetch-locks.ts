/**
 * Who fetches a record from the upstream now: across several nodes only one does at a time, and the
 * others wait for its answer in the LiveAnswerStore. A lock lapses after its ttl, so a node that died
 * mid-fetch holds no one up for longer than that. A release never rejects, and never frees a lock
 * someone else took after ours lapsed; one it cannot give back (the shared store unreachable) lapses.
 * The other methods reject when the shared store is unreachable: the caller decides whether to fetch
 * on its own then.
 */
export interface FetchLocks {
  /** Takes the lock on `key` for at most ttlMs; resolves to a release function, or undefined when another holder has it. */
  tryTake(key: string, ttlMs: number): Promise<(() => Promise<void>) | undefined>
  /** Whether someone holds the lock on `key` now. */
  held(key: string): Promise<boolean>
  /** Says, for `ms`, that the last fetch of `key` failed with this error code (waiters share the failure instead of each retrying). */
  noteFailure(key: string, code: string, ms: number): Promise<void>
  /** The code noted by noteFailure while it lasts, else undefined. */
  failure(key: string): Promise<string | undefined>
  close(): Promise<void>
}

/**
 * `ms` as a lock's or a failure's lifetime, refused when it is not a positive finite number: Redis
 * refuses a zero or negative expiry, and a memory entry that never lapsed would hold its key for good.
 */
export function lifetimeMs(ms: number): number {
  if (!Number.isFinite(ms) || ms <= 0) throw new RangeError(`a lifetime must be a positive number of ms, not ${ms}`)
  return ms
}
