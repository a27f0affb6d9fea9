/**
 * Ready response bodies of hot reads, kept as Buffers so a hit is sent without touching the store,
 * re-rendering or re-encoding. Correctness rests on the store's version: every lookup compares it, and
 * any change (a write here, or a commit by another process such as `pronet ingest`) drops everything.
 * Bounded by bytes, each entry counted with its key and the objects that hold it (entryCost).
 * Eviction is second chance (CLOCK): a hit only marks its entry, and the oldest
 * entries go first unless marked since they were last passed over, when they move to the young end
 * instead. Re-inserting a key on every hit to keep exact LRU order would churn the Map on every read,
 * and its rehashes would be most of what a search page of cached items allocates.
 */
export interface ResponseCache {
  /** The cached value for `key`, or the computed one (cached when `compute` returns). */
  through<T extends { body: Buffer }>(key: string, compute: () => Promise<T>): Promise<T>
  /**
   * The bodies of `ids` under `prefix`, in the order of `ids`: cached ones from memory, the rest from
   * `fill` (which leaves out what it cannot find: undefined at its place, and nothing is cached).
   */
  many(prefix: string, ids: readonly string[], fill: (missing: string[]) => Promise<Map<string, Buffer>>): Promise<(Buffer | undefined)[]>
  stats(): { entries: number; bytes: number; hits: number; misses: number }
}

interface Entry {
  value: { body: Buffer }
  /** Read since eviction last passed over it. */
  used: boolean
  /** What it counts against the budget (entryCost when it went in). */
  cost: number
}

/**
 * Bytes an entry takes beside its body and key: the Map's slot, the entry and value objects, the
 * Buffer's own object, a few hundred bytes on Node 20. Counting bodies alone, a budget filled with
 * small answers (an empty feed page is a few dozen bytes) would hold many times its size in heap.
 */
export const ENTRY_OVERHEAD = 256

/** An entry's share of the budget: its body, its key (two bytes a character: V8 may store it so) and ENTRY_OVERHEAD. */
export const entryCost = (key: string, body: Buffer): number => body.length + 2 * key.length + ENTRY_OVERHEAD

export function createResponseCache(deps: {
  maxBytes: number
  version: () => string
  /** An entry's share of maxBytes; entryCost unless given (tests of the eviction order count bodies alone). */
  cost?: (key: string, body: Buffer) => number
}): ResponseCache {
  const costOf = deps.cost ?? entryCost
  const entries = new Map<string, Entry>()
  let bytes = 0
  let seenVersion = ''
  let hits = 0
  let misses = 0

  function clear(): void {
    entries.clear()
    bytes = 0
  }

  /** Drops everything when the store's version moved on; true when the cache is on. */
  function current(): boolean {
    if (deps.maxBytes <= 0) return false
    const version = deps.version()
    if (version !== seenVersion) {
      clear()
      seenVersion = version
    }
    return true
  }

  function put(key: string, value: { body: Buffer }): void {
    const cost = costOf(key, value.body)
    if (cost > deps.maxBytes / 4) return
    const old = entries.get(key)
    if (old) {
      bytes -= old.cost
      // Out first, so the new body goes in at the young end.
      entries.delete(key)
    }
    entries.set(key, { value, used: false, cost })
    bytes += cost
    while (bytes > deps.maxBytes) {
      // The oldest entry: out, unless read since it was last passed over (then young again, unmarked).
      // Every pass unmarks what it moves, so this ends within one round of the entries.
      const [k, e] = entries.entries().next().value as [string, Entry]
      entries.delete(k)
      if (e.used) {
        e.used = false
        entries.set(k, e)
      } else bytes -= e.cost
    }
  }

  return {
    async through(key, compute) {
      if (!current()) return compute()
      const cached = entries.get(key)
      if (cached !== undefined) {
        hits++
        cached.used = true
        return cached.value as Awaited<ReturnType<typeof compute>>
      }
      misses++
      const version = seenVersion
      const value = await compute()
      // A write that landed while computing must not leave a stale body behind, even when another
      // lookup has already moved the cache on to the new version.
      if (deps.version() === version) put(key, value)
      return value
    },

    async many(prefix, ids, fill) {
      const out = new Array<Buffer | undefined>(ids.length)
      let missing: string[] | undefined
      if (current()) {
        for (let i = 0; i < ids.length; i++) {
          const cached = entries.get(prefix + (ids[i] as string))
          if (cached !== undefined) {
            hits++
            cached.used = true
            out[i] = cached.value.body
          } else (missing ??= []).push(ids[i] as string)
        }
        if (missing === undefined) return out
        misses += missing.length
      } else missing = [...ids]
      const version = seenVersion
      const found = await fill(missing)
      const keep = deps.maxBytes > 0 && deps.version() === version
      for (let i = 0; i < ids.length; i++) {
        if (out[i] !== undefined) continue
        const body = found.get(ids[i] as string)
        out[i] = body
        if (body !== undefined && keep) put(prefix + (ids[i] as string), { body })
      }
      return out
    },
    stats: () => ({ entries: entries.size, bytes, hits, misses }),
  }
}
