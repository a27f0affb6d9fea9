/**
 * Holds a node grants without a transaction, while the account has credits to spare. Each batch that
 * commits leaves this node the account's state after it and the other nodes' rows of holds. For a
 * short while after, a hold that leaves the account far above empty (what this node has granted on
 * its own since counted eight times over) is decided from them in memory: the same rule a batch
 * applies, on a view at most a second old. Only settles debit, and a settle checks the lots under the
 * account's lock: should other nodes have spent the credits meanwhile, the call is refused there (a
 * free 402), never billed past zero. Near empty, every hold goes to the database as before.
 */
import { Counter, type Registry } from 'prom-client'
import { balanceAt, billingInstant, renewalDue, type BillingState } from '../../domain/billing/billing-rules.ts'
import { metric } from '../metrics.ts'
import type { HoldResult } from '../../ports/ledger.ts'
import type { NodeHolds } from './pg-ledger-node-holds.ts'

/** Credits an account keeps, at the least, after a hold granted on the node's own. */
export const LOCAL_FLOOR_CREDITS = 1_000
/** How long (real ms, and ms of the requests' clock) a view serves after its batch. */
export const LOCAL_VIEW_MS = 1_000

/** Another node's row of holds, as the batch read it. */
export interface OtherHolds {
  node?: string
  credits: number
  expiresAt: number
}

/** What this node last saw of an account: its state after the batch, and the other nodes' rows. */
export interface LocalView {
  state: BillingState
  others: readonly OtherHolds[]
}

export interface LocalHolds {
  /** A batch committed: the account's state after it, the other nodes' rows, its latest instant. */
  seen(accountId: string, state: BillingState, others: readonly OtherHolds[], at: number): void
  /**
   * A batch decided from the view committed: its state moves on, while the other nodes' rows and the
   * view's age stay those of the last read (the guard checked the lots, not their holds).
   */
  advanced(accountId: string, state: BillingState, at: number): void
  /** The view of the account no longer holds (a change outside the batches, a lost connection). */
  forget(accountId: string): void
  /** The view settles can be decided from (pg-ledger-guarded.ts), unless it is old or lately failed its guard. */
  forSettles(accountId: string): LocalView | undefined
  /** A batch decided from the view committed. */
  guardPassed(): void
  /** A guard found the account changed: settles are decided under the lock for a while. */
  guardFailed(accountId: string): void
  /** Whether another node changed the account lately (a guard found it changed in the last CONTENTION_MS). */
  contended(accountId: string): boolean
  /** A hold granted in memory, or undefined: the database decides. */
  grant(accountId: string, credits: number, at: number): HoldResult | undefined
}

/** After a failed guard, how long (real ms) the account's settles are decided under the lock. */
const GUARD_BACKOFF_MS = 1_000
/**
 * How long (real ms) an account counts as served by other nodes too after a guard found it changed.
 * Longer than the backoff, so an account that keeps changing under this node, whose guard is tried
 * again once each backoff has passed, counts as contended throughout.
 */
export const CONTENTION_MS = 3 * GUARD_BACKOFF_MS
/** Views kept at most: past it, the one written longest ago goes (a node serving many accounts keeps the busy ones'). */
const MAX_VIEWS = 10_000

/** Keeps `entries` to MAX_VIEWS, dropping those written longest ago (a Map keeps insertion order). */
function dropOldest(entries: Map<string, unknown>): void {
  while (entries.size > MAX_VIEWS) entries.delete(entries.keys().next().value as string)
}

interface View {
  state: BillingState
  others: readonly OtherHolds[]
  at: number
  seenAt: number
  /** Credits this node granted on its own since the view. */
  since: number
}

export function createLocalHolds(opts: { holds: NodeHolds; newHoldId: () => string; now: () => number; realNow?: () => number; registry?: Registry | undefined }): LocalHolds {
  const inMemory = metric(opts.registry, 'pronet_ledger_holds_in_memory_total', () =>
    new Counter({ name: 'pronet_ledger_holds_in_memory_total', help: 'Holds granted from the state the last batch left, without a transaction', registers: [] }),
  )
  const fromView = metric(opts.registry, 'pronet_ledger_view_batches_total', () =>
    new Counter({
      name: 'pronet_ledger_view_batches_total',
      help: 'Batches of settles decided from the state the last batch left: committed, or found changed under the lock and read again',
      labelNames: ['outcome'],
      registers: [],
    }),
  )
  const views = new Map<string, View>()
  /**
   * Accounts whose guard failed lately: real ms of the last failure. Their settles go under the lock
   * for GUARD_BACKOFF_MS after it, and they count as contended for CONTENTION_MS.
   */
  const failedAt = new Map<string, number>()
  const realNow = opts.realNow ?? Date.now
  /** Real ms since the account's last guard failure (Infinity: none lately; one past CONTENTION_MS is forgotten). */
  const sinceFailure = (accountId: string): number => {
    const at = failedAt.get(accountId)
    if (at === undefined) return Number.POSITIVE_INFINITY
    const age = realNow() - at
    if (age <= CONTENTION_MS) return age
    failedAt.delete(accountId)
    return Number.POSITIVE_INFINITY
  }
  const fresh = (accountId: string): View | undefined => {
    const view = views.get(accountId)
    if (view && realNow() - view.seenAt <= LOCAL_VIEW_MS) return view
    views.delete(accountId)
    return undefined
  }
  return {
    seen(accountId, state, others, at) {
      views.delete(accountId)
      views.set(accountId, { state, others, at, seenAt: realNow(), since: 0 })
      dropOldest(views)
    },
    advanced(accountId, state, at) {
      const view = views.get(accountId)
      if (view) Object.assign(view, { state, at: Math.max(view.at, at) })
    },
    forget(accountId) {
      views.delete(accountId)
    },
    forSettles(accountId) {
      if (sinceFailure(accountId) < GUARD_BACKOFF_MS) return undefined
      return fresh(accountId)
    },
    guardPassed() {
      fromView.inc({ outcome: 'committed' })
    },
    guardFailed(accountId) {
      fromView.inc({ outcome: 'changed' })
      views.delete(accountId)
      failedAt.delete(accountId)
      failedAt.set(accountId, realNow())
      dropOldest(failedAt)
    },
    contended(accountId) {
      return sinceFailure(accountId) <= CONTENTION_MS
    },
    grant(accountId, credits, at) {
      const view = fresh(accountId)
      if (!view) return undefined
      if (Math.abs(at - view.at) > LOCAL_VIEW_MS) {
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
      inMemory.inc()
      const id = opts.newHoldId()
      opts.holds.add(accountId, id, { credits, at: Math.max(at, opts.now()), granted: realNow() })
      return { ok: true, hold: { id, accountId, credits, at: billingInstant(state, at) } }
    },
  }
}
