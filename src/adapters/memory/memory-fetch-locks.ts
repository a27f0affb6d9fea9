/**
 * Fetch locks within one process (the embedded store, or a node without Redis): entries in maps that
 * lapse by the injected clock. Lapsed entries are dropped when read, and swept as the maps grow, so
 * keys that are never asked about again do not pile up.
 */
import { lifetimeMs, type FetchLocks } from '../../ports/fetch-locks.ts'

export interface MemoryFetchLocksOptions {
  /** Unix ms now (default Date.now). */
  now?: () => number
}

interface Entry<V> {
  value: V
  until: number
}

/** Entries lapsing by the clock: a key reads undefined from its `until` on. */
class LapsingMap<V> {
  private readonly entries = new Map<string, Entry<V>>()
  /** The size at which the next insert sweeps: twice what was left after the last sweep, so sweeping costs each insert a constant share. */
  private sweepAt = 1024

  constructor(private readonly now: () => number) {}

  get(key: string): Entry<V> | undefined {
    const e = this.entries.get(key)
    if (e === undefined) return undefined
    if (e.until > this.now()) return e
    this.entries.delete(key)
    return undefined
  }

  set(key: string, value: V, ms: number): Entry<V> {
    const entry = { value, until: this.now() + ms }
    this.entries.set(key, entry)
    if (this.entries.size >= this.sweepAt) {
      const now = this.now()
      for (const [k, e] of this.entries) if (e.until <= now) this.entries.delete(k)
      this.sweepAt = Math.max(1024, 2 * this.entries.size)
    }
    return entry
  }

  /** Deletes `key` if its entry is still `entry` (a later one set after it lapsed is kept). */
  deleteIf(key: string, entry: Entry<V>): void {
    if (this.entries.get(key) === entry) this.entries.delete(key)
  }

  clear(): void {
    this.entries.clear()
  }
}

export function createMemoryFetchLocks(opts: MemoryFetchLocksOptions = {}): FetchLocks {
  const now = opts.now ?? Date.now
  // A lock's entry object is its holder's token: its release deletes only that entry.
  const locks = new LapsingMap<true>(now)
  const failures = new LapsingMap<string>(now)
  return {
    async tryTake(key, ttlMs) {
      lifetimeMs(ttlMs)
      if (locks.get(key) !== undefined) return undefined
      const mine = locks.set(key, true, ttlMs)
      let released = false
      return async () => {
        if (released) return
        released = true
        locks.deleteIf(key, mine)
      }
    },
    async held(key) {
      return locks.get(key) !== undefined
    },
    async noteFailure(key, code, ms) {
      failures.set(key, code, lifetimeMs(ms))
    },
    async failure(key) {
      return failures.get(key)?.value
    },
    async close() {
      locks.clear()
      failures.clear()
    },
  }
}
