/**
 * An account's per-second limit, which every call needs before anything else, kept on the node so
 * that a call on PostgreSQL does not read the account for it. The limit changes only through an
 * operator's change of the subscription (which tells every node through the bus) or at a renewal; an
 * entry is trusted until the account's renewal instant and at most `ttlMs`, so a node that missed a
 * message is wrong for that long at most, as the key cache is.
 */
import type { InvalidationBus } from '../../ports/invalidation-bus.ts'
import { effectiveRps, type BillingState } from './billing-rules.ts'

/** How long a cached limit is trusted without news of a change. */
export const RPS_CACHE_MS = 1_000
/** Entries kept at most; past it the cache starts afresh (a burst of distinct accounts costs reads, not memory). */
const MAX_ENTRIES = 100_000

export interface RpsCacheDeps {
  /** The account's billing state at `at` (throws when there is no such account). */
  read: (accountId: string, at: number) => Promise<BillingState>
  /** Monotonic milliseconds. */
  monotonic: () => number
  /** 0 turns the cache off: every call reads. */
  ttlMs: number
  bus?: InvalidationBus | undefined
}

export interface RpsCache {
  rps(accountId: string, at: number): Promise<number>
  /** Drops what is known of the account here, and tells the other nodes. */
  changed(accountId: string): Promise<void>
}

export function createRpsCache(deps: RpsCacheDeps): RpsCache {
  const entries = new Map<string, { rps: number; renewalAt: number | null; expires: number }>()
  // Bumped on every drop, so a read that began before a change is not cached after it.
  let generation = 0
  const drop = (accountId?: string) => {
    generation++
    if (accountId === undefined) entries.clear()
    else entries.delete(accountId)
  }
  deps.bus?.subscribe((m) => {
    if (m.kind === 'subscription-changed') drop(m.accountId)
    else if (m.kind === 'resync') drop()
  })

  return {
    async rps(accountId, at) {
      if (deps.ttlMs <= 0) return effectiveRps((await deps.read(accountId, at)).subscription)
      const hit = entries.get(accountId)
      if (hit && hit.expires > deps.monotonic() && (hit.renewalAt === null || at < hit.renewalAt)) return hit.rps
      const seenGeneration = generation
      const state = await deps.read(accountId, at)
      const rps = effectiveRps(state.subscription)
      if (generation === seenGeneration) {
        if (entries.size >= MAX_ENTRIES) entries.clear()
        entries.set(accountId, { rps, renewalAt: state.subscription.renewalAt, expires: deps.monotonic() + deps.ttlMs })
      }
      return rps
    },

    async changed(accountId) {
      drop(accountId)
      await deps.bus?.publish({ kind: 'subscription-changed', accountId })
    },
  }
}
