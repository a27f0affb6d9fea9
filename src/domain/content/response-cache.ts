/**
 * Ready response bodies of hot reads, kept as Buffers so a hit is sent without touching the store,
 * re-rendering or re-encoding. Correctness rests on the store's version: every lookup compares it, and
 * any change (a write here, or a commit by another process such as `pronet ingest`) drops everything.
 * Bounded by bytes, least recently used first out.
 */
export interface ResponseCache {
  /** The cached value for `key`, or the computed one (cached when `compute` returns). */
  through<T extends { body: Buffer }>(key: string, compute: () => Promise<T>): Promise<T>
  /**
   * The bodies of `ids` under `prefix`: cached ones from memory, the rest from `fill` (which leaves
   * out what it cannot find; those are not cached).
   */
  many(prefix: string, ids: readonly string[], fill: (missing: string[]) => Promise<Map<string, Buffer>>): Promise<Map<string, Buffer>>
  stats(): { entries: number; bytes: number; hits: number; misses: number }
}

export function createResponseCache(deps: { maxBytes: number; version: () => string }): ResponseCache {
  const entries = new Map<string, { body: Buffer }>()
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

  function hit<T>(key: string, value: T): T {
    hits++
    // Re-insert to mark it most recently used (Map keeps insertion order).
    entries.delete(key)
    entries.set(key, value as { body: Buffer })
    return value
  }

  function put(key: string, value: { body: Buffer }): void {
    if (value.body.length > deps.maxBytes / 4) return
    const old = entries.get(key)
    if (old) {
      bytes -= old.body.length
      // Out first, so the new body goes in as the most recently used.
      entries.delete(key)
    }
    entries.set(key, value)
    bytes += value.body.length
    for (const [k, v] of entries) {
      if (bytes <= deps.maxBytes) break
      entries.delete(k)
      bytes -= v.body.length
    }
  }

  return {
    async through(key, compute) {
      if (!current()) return compute()
      const cached = entries.get(key)
      if (cached !== undefined) return hit(key, cached as Awaited<ReturnType<typeof compute>>)
      misses++
      const version = seenVersion
      const value = await compute()
      // A write that landed while computing must not leave a stale body behind, even when another
      // lookup has already moved the cache on to the new version.
      if (deps.version() === version) put(key, value)
      return value
    },

    async many(prefix, ids, fill) {
      if (!current()) return fill([...ids])
      const out = new Map<string, Buffer>()
      const missing: string[] = []
      for (const id of ids) {
        const cached = entries.get(prefix + id)
        if (cached !== undefined) out.set(id, hit(prefix + id, cached).body)
        else missing.push(id)
      }
      if (missing.length === 0) return out
      misses += missing.length
      const version = seenVersion
      const found = await fill(missing)
      const unchanged = deps.version() === version
      for (const [id, body] of found) {
        out.set(id, body)
        if (unchanged) put(prefix + id, { body })
      }
      return out
    },
    stats: () => ({ entries: entries.size, bytes, hits, misses }),
  }
}
