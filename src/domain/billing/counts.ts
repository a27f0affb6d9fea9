/**
 * Per-account counts that rise and fall with the calls in flight (credits held, jobs not yet durable,
 * batch units queued). A count that falls to 0 stays in its Map rather than being deleted: an
 * account's count falls to 0 after nearly every call, and each delete from a long-lived Map, with
 * the set after it, allocates a new table for it in the old generation. That garbage made a loaded
 * server run a full collection every few seconds, the pauses of its latency tail.
 */
export function addToCount(counts: Map<string, number>, key: string, delta: number): void {
  counts.set(key, Math.max(0, (counts.get(key) ?? 0) + delta))
}
