/**
 * Each account's share of this node's search time (the cap on simultaneous searches, as time): a
 * bucket of milliseconds that fills at rpsLimit × SEARCH_MS_PER_RPS a second, up to
 * SEARCH_BANK_SECONDS of that, and that every search empties by the time it took. A search starts
 * only while the bucket holds some; otherwise 429 RATE_LIMITED with the wait until it does.
 *
 * Why: searches run one after another on the node's one thread (SQLite is synchronous), so the cap on
 * simultaneous searches never binds anything, and one key sending expensive queries within its rate
 * would hold every other caller: a query of many stop-words can take a large part of a second, so a
 * free plan's 5 a second could fill the whole thread. Ordinary searches at full rate use a small part
 * of the bucket's fill. Per node and in memory, like the thread it shares.
 */

/** Milliseconds of search time a second per unit of rpsLimit (a free plan's 5: 200 ms, a fifth of a thread). */
export const SEARCH_MS_PER_RPS = 40
/** Seconds of fill the bucket holds, for bursts. */
export const SEARCH_BANK_SECONDS = 4
/** Buckets kept at most; a full bucket needs no entry, so only accounts that searched lately have one. */
const MAX_TRACKED = 100_000

export interface SearchTimeBudget {
  /** Milliseconds until the account may start a search: 0 when it may now. */
  waitMs(accountId: string, rps: number): number
  /** A search of the account took `ms`. */
  spend(accountId: string, rps: number, ms: number): void
}

/** `now` is a monotonic clock in milliseconds (the time searches take, not the billing clock). */
export function createSearchTimeBudget(now: () => number): SearchTimeBudget {
  // Level in ms and when it was last brought up to date; absent means full.
  const buckets = new Map<string, { level: number; at: number }>()
  const level = (accountId: string, rps: number, t: number): number => {
    const b = buckets.get(accountId)
    const capacity = rps * SEARCH_MS_PER_RPS * SEARCH_BANK_SECONDS
    if (!b) return capacity
    return Math.min(capacity, b.level + ((t - b.at) / 1000) * rps * SEARCH_MS_PER_RPS)
  }
  return {
    waitMs(accountId, rps) {
      const t = now()
      const l = level(accountId, rps, t)
      if (l > 0) return 0
      return Math.max(1, Math.ceil((-l / (rps * SEARCH_MS_PER_RPS)) * 1000))
    },
    spend(accountId, rps, ms) {
      const t = now()
      const l = level(accountId, rps, t) - ms
      buckets.delete(accountId)
      if (l >= rps * SEARCH_MS_PER_RPS * SEARCH_BANK_SECONDS) return
      if (buckets.size >= MAX_TRACKED) {
        // The oldest entries first (Map order is insertion order; each spend re-inserts its account).
        for (const key of buckets.keys()) {
          buckets.delete(key)
          if (buckets.size < MAX_TRACKED / 2) break
        }
      }
      buckets.set(accountId, { level: l, at: t })
    },
  }
}
