/**
 * What this node saw arrive, by the instant each call reached it (monotonic ms), before any store
 * was asked. The gateway uses it to tell a full per-second window that is the client's doing (it
 * sent more than its limit within a second: 429) from one that is the service's (calls held up by a
 * store reached the window together: 503). See gateway.ts, dataRoute.
 *
 * Both records forget what is older than their window, so they hold only the keys and accounts of
 * the last second or so, however many distinct (or invalid) keys are sent.
 */

/**
 * The units that reached this node with each API key in the rolling window. Counted by the key as
 * sent, not by account: the account is known only after the key lookup, which is the wait being
 * measured. For an account with several keys, or calling several nodes, this is a lower bound of
 * what it sent, never more.
 */
export function createArrivalLog(windowMs: number) {
  /** key → its arrivals [instant, units], oldest first; the Map is kept in order of last arrival. */
  const byKey = new Map<string, { at: number[]; units: number[]; head: number; total: number }>()
  /** The key of the latest arrival: already last in the Map's order. */
  let newest: string | undefined

  return {
    /** Records `units` reaching with `key` at `at`; returns the units in (at − window, at], these included. */
    note(key: string, at: number, units: number): number {
      let log = byKey.get(key)
      if (!log) {
        log = { at: [], units: [], head: 0, total: 0 }
        byKey.set(key, log)
      } else if (key !== newest) {
        byKey.delete(key)
        byKey.set(key, log)
      }
      newest = key
      log.at.push(at)
      log.units.push(units)
      log.total += units
      while (log.head < log.at.length && (log.at[log.head] as number) <= at - windowMs) {
        log.total -= log.units[log.head] as number
        log.head++
      }
      if (log.head > 64 && log.head * 2 > log.at.length) {
        log.at = log.at.slice(log.head)
        log.units = log.units.slice(log.head)
        log.head = 0
      }
      // Keys whose last arrival left the window are forgotten (the Map's first entries are the stalest);
      // a key alone in the Map has just arrived.
      if (byKey.size > 1) {
        for (const [k, other] of byKey) {
          if ((other.at[other.at.length - 1] as number) > at - windowMs) break
          byKey.delete(k)
        }
      }
      return log.total
    },
    /** How many keys it holds (for tests: it stays bounded). */
    size: () => byKey.size,
  }
}

/** Per-account deadlines (monotonic ms): "a call of this account was held up; until then its refusals are ours". */
export function createDeadlines() {
  /** account → until, kept in order of setting (so, with one duration, of deadline). */
  const until = new Map<string, number>()
  return {
    extend(key: string, to: number): void {
      until.delete(key)
      until.set(key, to)
    },
    active(key: string, now: number): boolean {
      for (const [k, t] of until) {
        if (t > now) break
        until.delete(k)
      }
      return (until.get(key) ?? -Infinity) > now
    },
    size: () => until.size,
  }
}
