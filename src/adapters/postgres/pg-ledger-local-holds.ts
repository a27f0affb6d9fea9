/**
 * Holds a node grants without a transaction, while the account has credits to spare. Each batch that
 * commits leaves this node the account's state after it and the other nodes' rows of holds. For a
 * short while after, a hold that leaves the account far above empty (what this node has granted on
 * its own since counted eight times over) is decided from them in memory: the same rule a batch
 * applies, on a view at most a second old. Only settles debit, and a settle checks the lots under the
 * account's lock: should other nodes have spent the credits meanwhile, the call is refused there (a
 * free 402), never billed past zero. Near empty, every hold goes to the database as before.
 */
import { balanceAt, billingInstant, renewalDue, type BillingState } from '../../domain/billing/billing-rules.ts'
import type { HoldResult } from '../../ports/ledger.ts'
import type { NodeHolds } from './pg-ledger-node-holds.ts'

/** Credits an account keeps, at the least, after a hold granted on the node's own. */
export const LOCAL_FLOOR_CREDITS = 1_000
/** How long (real ms, and ms of the requests' clock) a view serves after its batch. */
export const LOCAL_VIEW_MS = 1_000

/** Another node's row of holds, as the batch read it. */
export interface OtherHolds {
  credits: number
  expiresAt: number
}

export interface LocalHolds {
  /** A batch committed: the account's state after it, the other nodes' rows, its latest instant. */
  seen(accountId: string, state: BillingState, others: readonly OtherHolds[], at: number): void
  /** The view of the account no longer holds (a change outside the batches, a lost connection). */
  forget(accountId: string): void
  /** A hold granted in memory, or undefined: the database decides. */
  grant(accountId: string, credits: number, at: number): HoldResult | undefined
}

interface View {
  state: BillingState
  others: readonly OtherHolds[]
  at: number
  seenAt: number
  /** Credits this node granted on its own since the view. */
  since: number
}

export function createLocalHolds(opts: { holds: NodeHolds; newHoldId: () => string; now: () => number; realNow?: () => number }): LocalHolds {
  const views = new Map<string, View>()
  const realNow = opts.realNow ?? Date.now
  return {
    seen(accountId, state, others, at) {
      views.set(accountId, { state, others, at, seenAt: realNow(), since: 0 })
    },
    forget(accountId) {
      views.delete(accountId)
    },
    grant(accountId, credits, at) {
      const view = views.get(accountId)
      if (!view) return undefined
      const real = realNow()
      if (real - view.seenAt > LOCAL_VIEW_MS || Math.abs(at - view.at) > LOCAL_VIEW_MS) {
        views.delete(accountId)
        return undefined
      }
      const { state } = view
      if (renewalDue(state, at)) return undefined
      let held = 0
      for (const other of view.others) if (other.expiresAt > at) held += other.credits
      const mine = opts.holds.of(accountId)
      if (mine) for (const h of mine.values()) held += h.credits
      const spare = balanceAt(state, at).total - held - credits
      if (spare < LOCAL_FLOOR_CREDITS + 8 * (view.since + credits)) return undefined
      view.since += credits
      const id = opts.newHoldId()
      opts.holds.add(accountId, id, { credits, at: Math.max(at, opts.now()), granted: real })
      return { ok: true, hold: { id, accountId, credits, at: billingInstant(state, at) } }
    },
  }
}
