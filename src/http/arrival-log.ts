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
 * One key's arrivals in the window, oldest first, in rings of typed arrays. A busy key notes
 * thousands of arrivals a second; kept in ordinary arrays, grown by push and cut by slice, they were
 * reallocated several times a second at sizes (80 to 190 kB) that V8 places straight in the old
 * generation, for full collections to clear. A typed array's elements live outside the heap, and
 * the rings are reused: resized only when the key's rate doubles or falls to a quarter.
 */
class KeyArrivals {
  private at = new Float64Array(16)
  private units = new Float64Array(16)
  private head = 0
  private size = 0
  /** Units in the ring. */
  total = 0
  /** The latest arrival's instant. */
  last = -Infinity

  add(at: number, units: number): void {
    if (this.size === this.at.length) this.resize(this.at.length * 2)
    const i = (this.head + this.size) & (this.at.length - 1)
    this.at[i] = at
    this.units[i] = units
    this.size++
    this.total += units
    this.last = at
  }

  /** Forgets the arrivals at or before `cutoff`. */
  dropThrough(cutoff: number): void {
    const mask = this.at.length - 1
    while (this.size > 0 && (this.at[this.head] as number) <= cutoff) {
      this.total -= this.units[this.head] as number
      this.head = (this.head + 1) & mask
      this.size--
    }
    if (this.at.length > 64 && this.size * 4 < this.at.length) this.resize(this.at.length / 2)
  }

  /** Copies the ring, oldest first, into arrays of `length` (a power of two, at least its size). */
  private resize(length: number): void {
    const at = new Float64Array(length)
    const units = new Float64Array(length)
    const mask = this.at.length - 1
    for (let k = 0; k < this.size; k++) {
      const i = (this.head + k) & mask
      at[k] = this.at[i] as number
      units[k] = this.units[i] as number
    }
    this.at = at
    this.units = units
    this.head = 0
  }
}

/**
 * The units that reached this node with each API key in the rolling window. Counted by the key as
 * sent, not by account: the account is known only after the key lookup, which is the wait being
 * measured. For an account with several keys, or calling several nodes, this is a lower bound of
 * what it sent, never more.
 */
export function createArrivalLog(windowMs: number) {
  /** key → its arrivals; the Map is kept in order of last arrival. */
  const byKey = new Map<string, KeyArrivals>()
  /** The key of the latest arrival: already last in the Map's order. */
  let newest: string | undefined

  return {
    /** Records `units` reaching with `key` at `at`; returns the units in (at − window, at], these included. */
    note(key: string, at: number, units: number): number {
      let log = byKey.get(key)
      if (!log) {
        log = new KeyArrivals()
        byKey.set(key, log)
      } else if (key !== newest) {
        byKey.delete(key)
        byKey.set(key, log)
      }
      newest = key
      log.add(at, units)
      log.dropThrough(at - windowMs)
      // Keys whose last arrival left the window are forgotten (the Map's first entries are the stalest);
      // a key alone in the Map has just arrived.
      if (byKey.size > 1) {
        for (const [k, other] of byKey) {
          if (other.last > at - windowMs) break
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
