/**
 * Ready response bodies of hot reads, kept as Buffers so a hit is sent without touching the store,
 * re-rendering or re-encoding. Correctness rests on the store's version: every lookup compares it, and
 * any change (a write here, or a commit by another process such as `pronet ingest`) drops everything.
 * Bounded by bytes, least recently used first out.
 */
export interface ResponseCache {
  /** The cached value for `key`, or the computed one (cached when `compute` returns). */
  through<T extends { body: Buffer }>(key: string, compute: () => Promise<T>): Promise<T>
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

  return {
    async through(key, compute) {
      if (deps.maxBytes <= 0) return compute()
      const version = deps.version()
      if (version !== seenVersion) {
        clear()
        seenVersion = version
      }
      const hit = entries.get(key)
      if (hit !== undefined) {
        hits++
        // Re-insert to mark it most recently used (Map keeps insertion order).
        entries.delete(key)
        entries.set(key, hit)
        return hit as Awaited<ReturnType<typeof compute>>
      }
      misses++
      const value = await compute()
      // A write that landed while computing must not leave a stale body behind.
      if (deps.version() !== seenVersion || value.body.length > deps.maxBytes / 4) return value
      entries.set(key, value)
      bytes += value.body.length
      for (const [k, v] of entries) {
        if (bytes <= deps.maxBytes) break
        entries.delete(k)
        bytes -= v.body.length
      }
      return value
    },
    stats: () => ({ entries: entries.size, bytes, hits, misses }),
  }
}
