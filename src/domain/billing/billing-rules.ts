/**
 * The billing rules (plans and renewal, credit packs, drawdown order) as pure functions over one
 * account's billing state.
 * Every adapter of the Ledger port applies them the same way: it loads the state, lets these functions
 * change it in memory and persists the mutations they return in one transaction.
 *
 * Model: a lot is one source of credits, live while startsAt <= t < expiresAt. The plan allowance of a
 * period is one lot ending at the renewal date, so renewal "replaces" it by granting the next period's
 * lot; packs are lots ending 12 calendar months after their purchase. Expiry is therefore decided by
 * the instant of each debit, never by a sweeper, and no credit is ever removed except by a debit or an
 * operator's adjustment (the ledger stays append-only).
 */
import type { PlanName, SubscriptionStatus } from '../../ports/account-store.ts'
import { addMonths } from './calendar.ts'

export const DEFAULT_RPS = 5
export const FREE_CREDITS = 1000
/**
 * Bounds an operator may set (admin API and CLI alike): credit figures stay integers JSON renders as
 * such (1e30 would be served as `1e+30`), and sums of balances stay exact.
 */
export const MAX_CREDITS_LIMIT = 1_000_000_000
export const MAX_RPS_LIMIT = 100_000
export const PACK_LIFETIME_MONTHS = 12

export interface Subscription {
  plan: PlanName
  status: SubscriptionStatus
  creditsLimit: number
  rpsLimit: number
  /** Monthly renewals fall on anniversaries of this instant (day clamped to the month's length). */
  anchorAt: number
  /** The current period [periodStart, renewalAt); both null before the first period and without a plan. */
  periodStart: number | null
  renewalAt: number | null
  cancelAtPeriodEnd: boolean
}

export interface Lot {
  id: string
  kind: 'plan' | 'pack'
  credits: number
  remaining: number
  startsAt: number
  expiresAt: number
  priceCents: number | null
  /** Creation order, the last tie-breaker of the drawdown order. */
  seq: number
}

export interface BillingState {
  accountId: string
  subscription: Subscription
  lots: Lot[]
}

/** What a rule changed, for the adapter to persist (in order, in one transaction). */
export type Mutation =
  | { type: 'subscription'; subscription: Subscription }
  | { type: 'grant'; lot: Lot; at: number }
  | { type: 'debit'; lotId: string; amount: number; at: number; requestId: string; endpoint: string }
  | { type: 'adjust'; lotId: string; credits: number; delta: number; at: number }
  | { type: 'lotExpires'; lotId: string; expiresAt: number }
  | { type: 'event'; at: number; change: Record<string, unknown> }

export type NewLotId = () => string

const live = (lot: Lot, at: number): boolean => lot.startsAt <= at && at < lot.expiresAt

/**
 * The instant the rules read `now` as for this account: never before the latest start its state
 * records (a period's grant, a pack's purchase, a plan change). Nodes' clocks differ by milliseconds:
 * an account created, renewed or changed on a node whose clock is ahead must not look empty on one
 * behind it until that clock catches up (its newest lot would start "in the future" there, and a
 * brand-new account's first calls would be refused with 402). An operator's test clock set back does
 * not take an account back to before what it has seen either, nor before its plan ended. The rules
 * that read "now" apply it (balances, renewal, operator changes); a hold records it as the instant its request is billed at. (A period's
 * start is its plan lot's: grantPeriod sets both.)
 */
export function billingInstant(state: BillingState, now: number): number {
  let at = now
  // Without a plan, also never before the plan ended (its last plan lot's end): a plan cancelled at
  // period end grants no next lot whose start would mark it, and a test clock set back before that
  // renewal date would give the discarded allowance back, spendable.
  const ended = state.subscription.plan === 'none'
  for (const lot of state.lots) {
    if (lot.startsAt > at) at = lot.startsAt
    if (ended && lot.kind === 'plan' && lot.expiresAt > at) at = lot.expiresAt
  }
  return at
}

/** The plan lot of the period containing `at`, if any. */
export function currentPlanLot(state: BillingState, now: number): Lot | undefined {
  const at = billingInstant(state, now)
  return state.lots.find((l) => l.kind === 'plan' && live(l, at))
}

/**
 * Lots that can be spent at `at`, in drawdown order: the plan allowance, then packs by soonest expiry.
 * `at` is a request's own billing instant (its hold's), read as given: a call admitted before a renewal
 * that another call has since made bills the period it was admitted in.
 */
export function spendableLots(state: BillingState, at: number): Lot[] {
  return state.lots
    .filter((l) => l.remaining > 0 && live(l, at))
    .sort((a, b) =>
      a.kind !== b.kind ? (a.kind === 'plan' ? -1 : 1) : a.expiresAt - b.expiresAt || a.startsAt - b.startsAt || a.seq - b.seq,
    )
}

export interface Balance {
  subscription: number
  payg: number
  total: number
  /** Expiry of the soonest-expiring pack that still holds credits. */
  paygExpiresAt: number | null
}

export function balanceAt(state: BillingState, now: number): Balance {
  const at = billingInstant(state, now)
  let subscription = 0
  let payg = 0
  let paygExpiresAt: number | null = null
  for (const lot of state.lots) {
    if (lot.remaining === 0 || !live(lot, at)) continue
    if (lot.kind === 'plan') subscription += lot.remaining
    else {
      payg += lot.remaining
      if (paygExpiresAt === null || lot.expiresAt < paygExpiresAt) paygExpiresAt = lot.expiresAt
    }
  }
  return { subscription, payg, total: subscription + payg, paygExpiresAt }
}

function grantPeriod(state: BillingState, start: number, end: number, newId: NewLotId, out: Mutation[]): void {
  const s = state.subscription
  s.periodStart = start
  s.renewalAt = end
  const lot: Lot = {
    id: newId(),
    kind: 'plan',
    credits: s.creditsLimit,
    remaining: s.creditsLimit,
    startsAt: start,
    expiresAt: end,
    priceCents: null,
    seq: nextSeq(state),
  }
  state.lots.push(lot)
  // A copy: later rules change the live lot in memory before the grant is persisted.
  out.push({ type: 'grant', lot: { ...lot }, at: start })
}

const nextSeq = (state: BillingState): number => state.lots.reduce((m, l) => Math.max(m, l.seq), 0) + 1

/** The k ≥ 1 such that anchor + (k-1) months <= at < anchor + k months (k = 1 before the anchor). */
function periodIndex(anchor: number, at: number): number {
  const a = new Date(anchor)
  const b = new Date(at)
  let k = Math.max(1, (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + b.getUTCMonth() - a.getUTCMonth())
  while (k > 1 && addMonths(anchor, k - 1) > at) k--
  while (addMonths(anchor, k) <= at) k++
  return k
}

/** Whether renew() would change anything at `now`: the period has ended (or a plan has none yet). */
export function renewalDue(state: BillingState, now: number): boolean {
  const s = state.subscription
  return !(s.plan === 'none' || (s.renewalAt !== null && billingInstant(state, now) < s.renewalAt))
}

/**
 * Brings the subscription to the period containing `at`: opens the first period, or at the renewal
 * date either ends a plan cancelled at period end or grants the allowance of the current period (the
 * previous period's lot simply stops being live: replaced, never topped up). Periods nobody used in
 * between are skipped, not granted.
 */
export function renew(state: BillingState, now: number, newId: NewLotId): Mutation[] {
  if (!renewalDue(state, now)) return []
  const at = billingInstant(state, now)
  const s = state.subscription
  const out: Mutation[] = []
  if (s.renewalAt !== null && s.cancelAtPeriodEnd) {
    out.push({ type: 'event', at: s.renewalAt, change: { plan: 'none', status: 'canceled', reason: 'cancelAtPeriodEnd' } })
    Object.assign(s, { plan: 'none', status: 'canceled', periodStart: null, renewalAt: null, cancelAtPeriodEnd: false })
    out.push({ type: 'subscription', subscription: { ...s } })
    return out
  }
  const k = periodIndex(s.anchorAt, at)
  grantPeriod(state, k === 1 ? s.anchorAt : addMonths(s.anchorAt, k - 1), addMonths(s.anchorAt, k), newId, out)
  out.push({ type: 'subscription', subscription: { ...s } })
  return out
}

/**
 * Debits `amount` at `at` in drawdown order, which is fixed: the plan allowance first, then packs by
 * soonest expiry. Returns undefined, changing nothing, when the live balance cannot cover it.
 */
export function debit(
  state: BillingState,
  amount: number,
  at: number,
  request: { requestId: string; endpoint: string },
): Mutation[] | undefined {
  if (amount === 0) return []
  const lots = spendableLots(state, at)
  if (lots.reduce((sum, l) => sum + l.remaining, 0) < amount) return undefined
  const out: Mutation[] = []
  let left = amount
  for (const lot of lots) {
    if (left === 0) break
    const take = Math.min(left, lot.remaining)
    lot.remaining -= take
    left -= take
    out.push({ type: 'debit', lotId: lot.id, amount: take, at, ...request })
  }
  return out
}

export interface NewPack {
  credits: number
  purchasedAt: number
  priceCents: number
}

/** Adds a pack: live from its purchase instant for exactly 12 calendar months, never extended. */
export function addPack(state: BillingState, pack: NewPack, newId: NewLotId): { lot: Lot; mutations: Mutation[] } {
  const lot: Lot = {
    id: newId(),
    kind: 'pack',
    credits: pack.credits,
    remaining: pack.credits,
    startsAt: pack.purchasedAt,
    expiresAt: addMonths(pack.purchasedAt, PACK_LIFETIME_MONTHS),
    priceCents: pack.priceCents,
    seq: nextSeq(state),
  }
  state.lots.push(lot)
  return { lot, mutations: [{ type: 'grant', lot: { ...lot }, at: pack.purchasedAt }] }
}

export interface SubscriptionPatch {
  plan?: PlanName
  status?: SubscriptionStatus
  creditsLimit?: number
  rpsLimit?: number
  renewalAt?: number
  cancelAtPeriodEnd?: boolean
}

/** Statuses each plan may carry; `canceled` always means the plan has ended. */
export const STATUSES_BY_PLAN: Readonly<Record<PlanName, readonly SubscriptionStatus[]>> = {
  free: ['free'],
  custom: ['active', 'trialing', 'past_due', 'incomplete', 'unpaid'],
  none: ['free', 'canceled'],
}

/**
 * Whether `plan` takes these limits: `free` is 1,000 credits a month at 5 per second, nothing
 * else; an account with no plan has no allowance and the default rate. Only `custom` sets its own.
 */
export function planLimitsProblem(plan: PlanName, limits: { creditsLimit?: number; rpsLimit?: number }): { field: string; why: string } | undefined {
  if (plan === 'free') {
    if (limits.creditsLimit !== undefined && limits.creditsLimit !== FREE_CREDITS) {
      return { field: 'creditsLimit', why: `the free plan's allowance is ${FREE_CREDITS} credits a month; use plan 'custom' to set another.` }
    }
    if (limits.rpsLimit !== undefined && limits.rpsLimit !== DEFAULT_RPS) {
      return { field: 'rpsLimit', why: `the free plan's rate is ${DEFAULT_RPS} per second; use plan 'custom' to set another.` }
    }
  }
  if (plan === 'none') {
    // What an account without a plan has (0 and 5) may be restated, as the free plan's may.
    if (limits.creditsLimit !== undefined && limits.creditsLimit !== 0) {
      return { field: 'creditsLimit', why: "the account has no plan, so no allowance (0); set plan 'custom' first." }
    }
    if (limits.rpsLimit !== undefined && limits.rpsLimit !== DEFAULT_RPS) {
      return { field: 'rpsLimit', why: `an account without a plan has the default rate of ${DEFAULT_RPS} per second; set plan 'custom' first.` }
    }
  }
  return undefined
}

/**
 * The plan that a plan and a status given together leave, from `current` (`canceled` ends the
 * plan), or why they contradict each other. Account creation and subscription changes both ask here.
 */
export function planWithStatus(
  given: PlanName | undefined,
  status: SubscriptionStatus | undefined,
  current: PlanName,
): { plan: PlanName; problem?: undefined } | { problem: { field: string; why: string } } {
  const cancelling = status === 'canceled'
  const plan = cancelling ? 'none' : (given ?? current)
  if (cancelling && given !== undefined && given !== 'none') {
    return { problem: { field: 'status', why: `'canceled' ends the plan; it cannot be combined with plan '${given}'.` } }
  }
  if (status !== undefined && !STATUSES_BY_PLAN[plan].includes(status)) {
    return { problem: { field: 'status', why: `plan '${plan}' takes status ${STATUSES_BY_PLAN[plan].join(', ')}.` } }
  }
  return { plan }
}

/** Why a patch cannot apply to this state, or undefined when it can (checked before any change). */
export function patchProblem(state: BillingState, patch: SubscriptionPatch, at: number): { field: string; why: string } | undefined {
  const resulting = planWithStatus(patch.plan, patch.status, state.subscription.plan)
  if (resulting.problem) return resulting.problem
  const plan = resulting.plan
  if (plan === 'none') {
    for (const field of ['renewalAt', 'cancelAtPeriodEnd'] as const) {
      if (patch[field] !== undefined) return { field: field === 'renewalAt' ? 'renewalDate' : field, why: 'the account has no plan; set plan first.' }
    }
  }
  const limits = planLimitsProblem(plan, patch)
  if (limits) return limits
  if (patch.renewalAt !== undefined && patch.renewalAt <= at) return { field: 'renewalDate', why: 'must be in the future.' }
  return undefined
}

/** Ends the plan lot of the current period at `at` (its unspent allowance is no longer spendable). */
function endPlanLot(state: BillingState, at: number, out: Mutation[]): void {
  const lot = currentPlanLot(state, at)
  if (lot) {
    lot.expiresAt = at
    out.push({ type: 'lotExpires', lotId: lot.id, expiresAt: at })
  }
}

/**
 * An operator's change of the subscription (admin API or CLI), applied at `at` after renew(). Changing the plan
 * starts a new period now (or ending at the given renewal date); `status: canceled` or `plan: none`
 * ends the plan at once; a new creditsLimit within the same plan adjusts this period's allowance by
 * the difference, so creditsUsed is kept; renewalDate moves the end of this period and the anchor of
 * the next ones. The caller checks patchProblem() first.
 */
export function changeSubscription(state: BillingState, patch: SubscriptionPatch, now: number, newId: NewLotId): Mutation[] {
  const at = billingInstant(state, now)
  const s = state.subscription
  const out: Mutation[] = [{ type: 'event', at, change: { ...patch } }]
  const endsPlan = patch.status === 'canceled' || (patch.plan === 'none' && s.plan !== 'none')
  if (endsPlan) {
    endPlanLot(state, at, out)
    const previous = s.plan
    Object.assign(s, {
      plan: 'none',
      status: patch.status ?? (previous === 'none' ? s.status : 'canceled'),
      periodStart: null,
      renewalAt: null,
      cancelAtPeriodEnd: false,
    })
    if (patch.rpsLimit !== undefined) s.rpsLimit = patch.rpsLimit
  } else if (patch.plan !== undefined && patch.plan !== s.plan) {
    endPlanLot(state, at, out)
    const plan = patch.plan
    s.plan = plan
    s.status = patch.status ?? (plan === 'custom' ? 'active' : plan === 'free' ? 'free' : s.status)
    s.creditsLimit = patch.creditsLimit ?? (plan === 'free' ? FREE_CREDITS : s.creditsLimit)
    s.rpsLimit = patch.rpsLimit ?? (plan === 'free' ? DEFAULT_RPS : s.rpsLimit)
    s.cancelAtPeriodEnd = patch.cancelAtPeriodEnd ?? false
    if (plan !== 'none') {
      const end = patch.renewalAt ?? addMonths(at, 1)
      s.anchorAt = patch.renewalAt ?? at
      grantPeriod(state, at, end, newId, out)
    }
  } else {
    if (patch.status !== undefined) s.status = patch.status
    if (patch.rpsLimit !== undefined) s.rpsLimit = patch.rpsLimit
    if (patch.cancelAtPeriodEnd !== undefined) s.cancelAtPeriodEnd = patch.cancelAtPeriodEnd
    if (patch.creditsLimit !== undefined && patch.creditsLimit !== s.creditsLimit) {
      const lot = currentPlanLot(state, at)
      if (lot) {
        // What was used stays used: the allowance left is the new limit less what this period spent
        // (never below 0). The lot's credits are what it has granted, max(limit, used), so
        // credits − remaining is always what was spent: a limit lowered below it and raised again
        // gives nothing back (100 → 5 → 100 with 10 spent leaves 90, not 95).
        const used = lot.credits - lot.remaining
        const remaining = Math.max(0, patch.creditsLimit - used)
        const delta = remaining - lot.remaining
        lot.credits = Math.max(patch.creditsLimit, used)
        lot.remaining = remaining
        out.push({ type: 'adjust', lotId: lot.id, credits: lot.credits, delta, at })
      }
      s.creditsLimit = patch.creditsLimit
    }
    if (patch.renewalAt !== undefined) {
      s.anchorAt = patch.renewalAt
      s.renewalAt = patch.renewalAt
      const lot = currentPlanLot(state, at)
      if (lot) {
        lot.expiresAt = patch.renewalAt
        out.push({ type: 'lotExpires', lotId: lot.id, expiresAt: patch.renewalAt })
      }
    }
  }
  out.push({ type: 'subscription', subscription: { ...s } })
  return out
}

/** The rps an account is held to: the plan's, or the default 5 without a live plan (pack-only or cancelled). */
export const effectiveRps = (s: Subscription): number => (s.plan === 'none' ? DEFAULT_RPS : s.rpsLimit)

/** `active` is about billing only: past-due, incomplete and unpaid accounts keep being served while credits last. */
export const isActiveStatus = (status: SubscriptionStatus): boolean => status === 'free' || status === 'active' || status === 'trialing'
