/**
 * In-process coalescing: callers asking for the same key while its work runs share that one run and
 * its outcome, so a burst for one record costs the upstream one call. Once the work settles, the key
 * is free again and a later call starts anew (a failure is shared, never remembered).
 */
export interface SingleFlight<K extends string, V> {
  /** Runs `work` for `key` unless a run for it is under way, whose outcome is then shared. */
  run(key: K, work: () => Promise<V>): Promise<V>
  /** Runs started, and calls that joined a run under way instead. */
  stats(): { started: number; coalesced: number }
}

export function createSingleFlight<K extends string = string, V = unknown>(): SingleFlight<K, V> {
  const inFlight = new Map<K, Promise<V>>()
  let started = 0
  let coalesced = 0
  return {
    run(key, work) {
      const running = inFlight.get(key)
      if (running !== undefined) {
        coalesced++
        return running
      }
      started++
      // Work that throws before its first await is a rejection like any other, shared the same way.
      const promise = Promise.resolve()
        .then(work)
        .finally(() => {
          if (inFlight.get(key) === promise) inFlight.delete(key)
        })
      inFlight.set(key, promise)
      return promise
    },
    stats: () => ({ started, coalesced }),
  }
}
