/**
 * This node's holds: the calls it admitted whose settle has not come, one by one in memory, by
 * account. What the other nodes see of them is one row per account (node_holds: their sum and an
 * expiry), written by each batch that grants or settles holds of the account (pg-ledger-batching.ts).
 * Two transactions of this node may be on their way for one account (one commits while the next
 * waits for the account's lock), but they decide in turn: once a transaction has the lock, it waits
 * for the one that had it before to be applied to memory (turn()), so memory is what the database
 * says when it decides, and the row it writes is the sum of what memory holds once it is applied.
 *
 * The row's expiry is its holds' arrival instants plus the real time they have been running plus
 * the hold lifetime, so a call that runs long keeps its credits while the row of a node that died
 * lapses a lifetime after its last write. Every `renewMs` the accounts with holds (and those whose
 * row may say more than memory: a hold released outside a batch, a batch whose COMMIT went
 * unanswered) have their row written again through the batcher.
 */

/** A hold this node granted: its credits, its request's arrival instant, and Date.now() when it was granted. */
export interface HeldCall {
  credits: number
  at: number
  granted: number
}

export interface NodeHolds {
  /** This node's id in node_holds (a new one per process). */
  readonly nodeId: string
  /** The account's holds on this node, by hold id. */
  of(accountId: string): ReadonlyMap<string, HeldCall> | undefined
  add(accountId: string, holdId: string, held: HeldCall): void
  /** Forgets a hold; whether it was held here. */
  remove(accountId: string, holdId: string): boolean
  /** The account's row may say more than memory: have it written again soon. */
  stale(accountId: string): void
  /** The row's expiry for `holds` (after a batch's changes) at Date.now() `now`: their latest instant plus the lifetime. */
  expiry(holds: Iterable<HeldCall>, at: number, now: number): number
  /**
   * Called by a transaction once it holds the locks of `accountIds`: waits until every transaction of
   * this node that held one of them before has been applied to memory or has failed (their COMMIT
   * answers may still be on their way when the lock comes free). Resolves to the function that ends
   * this transaction's turn: call it once its changes are applied, or once it has failed.
   */
  turn(accountIds: readonly string[]): Promise<() => void>
  /** Stops the timer. */
  stop(): void
}

export interface NodeHoldsOptions {
  nodeId: string
  /** Lifetime of a hold past its last write, in ms of the requests' clock. */
  holdTtlMs: number
  /** Period of the renewal, real ms (0: never). */
  renewMs: number
  /** Writes the account's row again (a batch of its own if nothing else is on the way). */
  renew: (accountId: string) => void
}

/** A settle that never came (it cannot: the gateway settles every call) is let go after this long. */
const ABANDONED_MS = 3_600_000

export function createNodeHolds({ nodeId, holdTtlMs, renewMs, renew }: NodeHoldsOptions): NodeHolds {
  const byAccount = new Map<string, Map<string, HeldCall>>()
  const stale = new Set<string>()
  /** Per account: the end of the turn of the last transaction that took its lock. */
  const turns = new Map<string, Promise<void>>()
  let soon: NodeJS.Immediate | undefined

  const renewStale = (): void => {
    soon = undefined
    for (const accountId of stale) renew(accountId)
    stale.clear()
  }

  const timer =
    renewMs > 0
      ? setInterval(() => {
          const now = Date.now()
          for (const [accountId, holds] of byAccount) {
            for (const [id, h] of holds) if (now - h.granted > ABANDONED_MS) holds.delete(id)
            if (holds.size === 0) byAccount.delete(accountId)
            stale.add(accountId)
          }
          renewStale()
        }, renewMs)
      : undefined
  timer?.unref()

  return {
    nodeId,
    of: (accountId) => byAccount.get(accountId),
    add(accountId, holdId, held) {
      let holds = byAccount.get(accountId)
      if (!holds) byAccount.set(accountId, (holds = new Map()))
      holds.set(holdId, held)
    },
    remove(accountId, holdId) {
      const holds = byAccount.get(accountId)
      if (!holds?.delete(holdId)) return false
      if (holds.size === 0) byAccount.delete(accountId)
      return true
    },
    stale(accountId) {
      stale.add(accountId)
      soon ??= setImmediate(renewStale)
    },
    expiry(holds, at, now) {
      let until = at + holdTtlMs
      for (const h of holds) until = Math.max(until, h.at + (now - h.granted) + holdTtlMs)
      return until
    },
    async turn(accountIds) {
      let end!: () => void
      const done = new Promise<void>((resolve) => (end = resolve))
      const before: Promise<void>[] = []
      for (const id of accountIds) {
        const previous = turns.get(id)
        if (previous) before.push(previous)
        turns.set(id, done)
      }
      if (before.length > 0) await Promise.all(before)
      return () => {
        end()
        for (const id of accountIds) if (turns.get(id) === done) turns.delete(id)
      }
    },
    stop() {
      clearInterval(timer)
      if (soon) clearImmediate(soon)
      soon = undefined
    },
  }
}
