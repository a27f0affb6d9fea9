/**
 * A small reference model of ONE account's billing, written from the spec and our decisions on
 * prices, rate limits, plans, packs and the operator interface alone: it imports nothing from src/.
 * It is deliberately naive (arrays and linear scans, its own month arithmetic) so that it is easy to
 * check by reading.
 *
 * What it models:
 * - the plan allowance: one lot per billing period; periods are the monthly anniversaries of an
 *   anchor (day clamped to the month's length); the period containing an instant is brought in when
 *   the account is looked at (periods nobody looked at are never granted); renewal replaces the
 *   allowance, never tops it up; cancel at period end ends the plan at the renewal instant;
 * - packs: live from the purchase instant until exactly 12 calendar months later (exclusive);
 * - the drawdown order: allowance first, then packs by soonest expiry, ties by purchase instant,
 *   then by the order they were added;
 * - admission (402 when the live balance is below the full price), settle prices (200 → price,
 *   404 of a record → 1, refusals and errors → 0), the company batch (distinct entries checked,
 *   companies found billed);
 * - the sliding one-second rate window (data calls; and the usage and subscription endpoints'
 *   own 1-per-second budgets), including the batch's wait for further units;
 * - the ledger (grants, debits in drawdown order, adjustments) and the usage records per UTC day,
 *   endpoint and status, with the usage report.
 */

export const SECOND = 1000
export const DAY = 86_400_000
export const USAGE_FROM_DAY = '2026-07-16'
const EXCLUDED_FROM_USAGE = ['/api/v1/usage', '/api/v1/subscription']
const DEFAULT_RPS = 5
const FREE_PLAN_CREDITS = 1000

// ---------- calendar (independent of src/domain/billing/calendar.ts) ----------

/** `n` calendar months after `t`: the same time of day, the day of month clamped to the target month. */
export function plusMonths(t: number, n: number): number {
  const d = new Date(t)
  const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())
  const timeOfDay = t - midnight
  const monthIndex = d.getUTCFullYear() * 12 + d.getUTCMonth() + n
  const year = Math.floor(monthIndex / 12)
  const month = monthIndex - year * 12
  // Day 0 of the following month is the last day of this one.
  const lengthOfMonth = new Date(Date.UTC(year, month + 1, 0)).getUTCDate()
  return Date.UTC(year, month, Math.min(d.getUTCDate(), lengthOfMonth)) + timeOfDay
}

export const dayOf = (t: number): string => new Date(t).toISOString().slice(0, 10)
export const isoOf = (t: number): string => new Date(t).toISOString()
export const dayStart = (day: string): number => Date.parse(`${day}T00:00:00.000Z`)

// ---------- types ----------

export type Plan = 'custom' | 'free' | 'none'
export type Status = 'active' | 'free' | 'trialing' | 'past_due' | 'incomplete' | 'unpaid' | 'canceled'
export const ALL_STATUSES: readonly Status[] = ['active', 'free', 'trialing', 'past_due', 'incomplete', 'unpaid', 'canceled']
const STATUSES_OF: Record<Plan, readonly Status[]> = {
  free: ['free'],
  custom: ['active', 'trialing', 'past_due', 'incomplete', 'unpaid'],
  none: ['free', 'canceled'],
}

export interface ModelLot {
  /** Index in creation order (= the order of the grants in the ledger). */
  ref: number
  kind: 'plan' | 'pack'
  credits: number
  remaining: number
  startsAt: number
  expiresAt: number
}

export interface ModelEntry {
  ref: number
  kind: 'grant' | 'debit' | 'adjust'
  delta: number
  at: number
  requestId: string | null
  endpoint: string | null
}

export type BatchEntry = { text: string; exists: boolean }

export type Req =
  | { op: 'profile'; input: 'found' | 'missing' | 'absent' }
  | { op: 'companyPosts'; input: 'found' | 'missing'; count: number }
  | { op: 'engagement'; input: 'found' | 'missing' }
  | { op: 'batch'; entries: BatchEntry[] }
  | { op: 'unknownPath' }
  | { op: 'badKey' }

export interface Outcome {
  status: number
  code?: string
  /** X-Credits-Charged; undefined when the response is not metered (401, unknown path). */
  charged: string | undefined
  retryAfter?: string | undefined
  details?: Record<string, number>
  batch?: { found: number; notFound: number; failed: number }
  /** The debits this request made, in drawdown order. */
  debits: { ref: number; amount: number }[]
}

export interface SubscriptionView {
  plan: 'free' | 'custom'
  active: boolean
  status: Status
  creditsRemaining: number
  subscriptionCreditsRemaining: number
  paygCreditsRemaining: number
  paygExpiresAt: string | null
  creditsLimit: number
  creditsUsed: number
  renewalDate: string | null
  rpsLimit: number
  cancelAtPeriodEnd: boolean
}

interface Figures {
  requests: number
  billableRequests: number
  creditsUsed: number
}

export interface UsageReportView extends Figures {
  from: string
  to: string
  creditsRemaining: number
  subscriptionCreditsRemaining: number
  paygCreditsRemaining: number
  endpoints: (Figures & { endpoint: string; statusCodes: Record<string, number> })[]
  days: (Figures & { date: string })[]
}

export interface Patch {
  plan?: 'custom' | 'free'
  status?: Status
  creditsLimit?: number
  rpsLimit?: number
  cancelAtPeriodEnd?: boolean
  /** renewalDate of the PUT, as an instant: the end of this period and the anchor of the next ones. */
  renewalAt?: number
}

/** Price of a pack in currency units: marginal rates per 1,000 credits by tier. */
export function packPrice(credits: number): number {
  const tiers: [upTo: number, centsPer1000: number][] = [
    [100_000, 150],
    [500_000, 120],
    [1_000_000, 100],
    [5_000_000, 80],
    [20_000_000, 60],
    [Infinity, 45],
  ]
  let cents = 0
  let below = 0
  for (const [upTo, rate] of tiers) {
    const inTier = Math.max(0, Math.min(credits, upTo) - below)
    cents += (inTier / 1000) * rate
    below = upTo
  }
  return Math.round(cents) / 100
}

/** Pack sizes: 50,000..50,000,000; steps of 50,000 up to 1,000,000, then of 250,000. */
export const validPackSize = (credits: number): boolean =>
  Number.isSafeInteger(credits) &&
  credits >= 50_000 &&
  credits <= 50_000_000 &&
  (credits <= 1_000_000 ? credits % 50_000 === 0 : (credits - 1_000_000) % 250_000 === 0)

// ---------- the model ----------

export class BillingModel {
  now: number
  plan: Plan
  status: Status
  creditsLimit: number
  rpsLimit: number
  anchor: number
  renewalAt: number | null = null
  cancelAtPeriodEnd = false
  readonly lots: ModelLot[] = []
  readonly ledger: ModelEntry[] = []
  /** day|endpoint|status → figures */
  private readonly usage = new Map<string, { day: string; endpoint: string; status: number } & Figures>()
  /** Unit timestamps taken per budget. */
  private readonly windows = new Map<string, number[]>()

  constructor(createdAt: number, init: { plan: Plan; creditsLimit?: number; rpsLimit?: number }) {
    this.now = createdAt
    this.anchor = createdAt
    this.plan = init.plan
    this.status = init.plan === 'custom' ? 'active' : 'free'
    this.creditsLimit = init.plan === 'none' ? 0 : (init.creditsLimit ?? (init.plan === 'free' ? FREE_PLAN_CREDITS : 0))
    this.rpsLimit = init.rpsLimit ?? DEFAULT_RPS
  }

  // ----- time and periods -----

  advanceTo(t: number): void {
    if (t < this.now) throw new Error('the model clock only moves forward')
    this.now = t
  }

  /** The account is looked at, at `t`: bring the plan to the period containing t. */
  touch(t: number): void {
    if (this.plan === 'none') return
    if (this.renewalAt !== null && t < this.renewalAt) return
    if (this.renewalAt !== null && this.cancelAtPeriodEnd) {
      // Cancel at period end: at renewalDate the allowance is gone (its lot simply ends there).
      this.plan = 'none'
      this.status = 'canceled'
      this.renewalAt = null
      this.cancelAtPeriodEnd = false
      return
    }
    let k = 1
    while (plusMonths(this.anchor, k) <= t) k++
    this.grantPeriod(plusMonths(this.anchor, k - 1), plusMonths(this.anchor, k))
  }

  private grantPeriod(start: number, end: number): void {
    this.renewalAt = end
    this.addLot('plan', this.creditsLimit, start, end)
  }

  private addLot(kind: 'plan' | 'pack', credits: number, startsAt: number, expiresAt: number): ModelLot {
    const lot: ModelLot = { ref: this.lots.length, kind, credits, remaining: credits, startsAt, expiresAt }
    this.lots.push(lot)
    this.ledger.push({ ref: lot.ref, kind: 'grant', delta: credits, at: startsAt, requestId: null, endpoint: null })
    return lot
  }

  // ----- balances -----

  private live(lot: ModelLot, t: number): boolean {
    return lot.startsAt <= t && t < lot.expiresAt
  }

  /** Lots that can pay at t, in drawdown order. */
  drawdownOrder(t: number): ModelLot[] {
    const rank = (l: ModelLot) => (l.kind === 'plan' ? 0 : 1)
    return this.lots
      .filter((l) => l.remaining > 0 && this.live(l, t))
      .sort((a, b) => rank(a) - rank(b) || a.expiresAt - b.expiresAt || a.startsAt - b.startsAt || a.ref - b.ref)
  }

  balance(t: number): { plan: number; payg: number; total: number; paygExpiresAt: number | null } {
    let plan = 0
    let payg = 0
    let paygExpiresAt: number | null = null
    for (const l of this.lots) {
      if (!this.live(l, t) || l.remaining === 0) continue
      if (l.kind === 'plan') plan += l.remaining
      else {
        payg += l.remaining
        paygExpiresAt = paygExpiresAt === null ? l.expiresAt : Math.min(paygExpiresAt, l.expiresAt)
      }
    }
    return { plan, payg, total: plan + payg, paygExpiresAt }
  }

  // ----- rate budgets (sliding window (t - 1 s, t]) -----

  private take(budget: string, limit: number, cost: number, t: number): { ok: true } | { ok: false; retryMs: number } {
    const inWindow = (this.windows.get(budget) ?? []).filter((ts) => ts > t - SECOND)
    this.windows.set(budget, inWindow)
    if (inWindow.length + cost <= limit) {
      for (let i = 0; i < cost; i++) inWindow.push(t)
      return { ok: true }
    }
    if (cost > limit) return { ok: false, retryMs: Infinity }
    // Enough units are free once the oldest (inWindow + cost - limit) have left the window.
    const mustLeave = inWindow.length + cost - limit
    return { ok: false, retryMs: (inWindow[mustLeave - 1] as number) + SECOND - t }
  }

  effectiveRps(): number {
    return this.plan === 'none' ? DEFAULT_RPS : this.rpsLimit
  }

  private record(t: number, endpoint: string, status: number, credits: number): void {
    const day = dayOf(t)
    const key = `${day}|${endpoint}|${status}`
    const row = this.usage.get(key) ?? { day, endpoint, status, requests: 0, billableRequests: 0, creditsUsed: 0 }
    row.requests += 1
    row.billableRequests += credits > 0 ? 1 : 0
    row.creditsUsed += credits
    this.usage.set(key, row)
  }

  // ----- requests -----

  /** A data call (or a failing one) arriving now; `requestId` only labels the ledger's debits. */
  request(req: Req, requestId: string): Outcome {
    const t = this.now
    // Refused before any account is known: not recorded, and X-Credits-Charged says nothing was billed.
    if (req.op === 'badKey') return { status: 401, code: 'INVALID_API_KEY', charged: '0', debits: [] }
    if (req.op === 'unknownPath') {
      // Counted under `unknown`, free, and the answer says so (X-Credits-Charged: 0).
      this.record(t, 'unknown', 404, 0)
      return { status: 404, code: 'NOT_FOUND', charged: '0', debits: [] }
    }
    const endpoint = {
      profile: '/api/v1/profile',
      companyPosts: '/api/v1/company/posts',
      engagement: '/api/v1/post/engagement',
      batch: '/api/v1/company/batch',
    }[req.op]
    const refuse = (status: number, code: string, extra: Partial<Outcome> = {}): Outcome => {
      this.record(t, endpoint, status, 0)
      return { status, code, charged: '0', debits: [], ...extra }
    }

    // 1. The rate budget on arrival (engagement takes 2 units).
    this.touch(t)
    const units = req.op === 'engagement' ? 2 : 1
    const rps = this.effectiveRps()
    const rate = this.take('data', rps, units, t)
    if (!rate.ok) {
      // A call the plan can never afford says a minute (every 429 carries Retry-After).
      const retryAfter = rate.retryMs === Infinity ? '60' : String(Math.max(1, Math.ceil(rate.retryMs / SECOND)))
      return refuse(429, 'RATE_LIMITED', { retryAfter })
    }

    // 2. Validation (free 400), then the full price.
    let price: number
    let distinct: BatchEntry[] = []
    switch (req.op) {
      case 'profile':
        if (req.input === 'absent') return refuse(400, 'MISSING_PARAMETER')
        price = 1
        break
      case 'companyPosts':
        if (req.count < 1) return refuse(400, 'INVALID_PARAMETER')
        price = Math.ceil(Math.min(req.count, 100) / 50)
        break
      case 'engagement':
        price = 2
        break
      case 'batch': {
        if (req.entries.length === 0) return refuse(400, 'INVALID_PARAMETER')
        const seen = new Set<string>()
        for (const e of req.entries) {
          const k = e.text.trim().toLowerCase()
          if (!seen.has(k)) {
            seen.add(k)
            distinct.push(e)
          }
        }
        price = distinct.length
        break
      }
    }

    // 3. Admission: the live balance must cover the full price.
    const b = this.balance(t)
    if (b.total < price) {
      return refuse(402, 'QUOTA_EXHAUSTED', {
        details: { creditsRemaining: b.total, subscriptionCreditsRemaining: b.plan, paygCreditsRemaining: b.payg, creditsRequired: price },
      })
    }

    // 4. The work, and what it bills.
    let status: number
    let charge: number
    let batch: Outcome['batch']
    let code: string | undefined
    if (req.op === 'batch') {
      // Each company after the first waits for one more unit, up to 90 s after arrival.
      const deadline = t + 90_000
      let outOfTime = false
      let found = 0
      let notFound = 0
      let failed = 0
      distinct.forEach((entry, i) => {
        if (i > 0 && !outOfTime) {
          for (;;) {
            const at = this.now
            if (at > deadline) {
              outOfTime = true
              break
            }
            this.touch(at)
            const r = this.take('data', this.effectiveRps(), 1, at)
            if (r.ok) break
            this.now += Math.max(1, Math.min(r.retryMs, deadline - at + 1))
          }
        }
        if (outOfTime) failed++
        else if (entry.exists) found++
        else notFound++
      })
      status = 200
      charge = found
      batch = { found, notFound, failed }
    } else {
      status = req.input === 'found' ? 200 : 404
      charge = status === 200 ? price : 1
      if (status === 404) code = { profile: 'PROFILE_NOT_FOUND', companyPosts: 'COMPANY_NOT_FOUND', engagement: 'POST_NOT_FOUND' }[req.op]
    }

    // 5. Settle at the arrival instant, in drawdown order.
    const debits: { ref: number; amount: number }[] = []
    let left = charge
    for (const lot of this.drawdownOrder(t)) {
      if (left === 0) break
      const amount = Math.min(left, lot.remaining)
      lot.remaining -= amount
      left -= amount
      debits.push({ ref: lot.ref, amount })
      this.ledger.push({ ref: lot.ref, kind: 'debit', delta: -amount, at: t, requestId, endpoint })
    }
    if (left > 0) throw new Error('model: admitted a call its balance could not pay')
    this.record(t, endpoint, status, charge)
    return { status, ...(code ? { code } : {}), charged: String(charge), debits, ...(batch ? { batch } : {}) }
  }

  /** The usage or subscription endpoint's own budget of 1 per second per account. */
  accountEndpoint(which: 'usage' | 'subscription'): { status: 200 } | { status: 429; retryAfter: string } {
    this.touch(this.now)
    const r = this.take(which, 1, 1, this.now)
    return r.ok ? { status: 200 } : { status: 429, retryAfter: String(Math.max(1, Math.ceil(r.retryMs / SECOND))) }
  }

  // ----- views -----

  subscription(): SubscriptionView {
    const t = this.now
    this.touch(t)
    const b = this.balance(t)
    const creditsLimit = this.plan === 'none' ? 0 : this.creditsLimit
    return {
      plan: this.plan === 'custom' ? 'custom' : 'free',
      active: this.status === 'free' || this.status === 'active' || this.status === 'trialing',
      status: this.status,
      creditsRemaining: b.total,
      subscriptionCreditsRemaining: b.plan,
      paygCreditsRemaining: b.payg,
      paygExpiresAt: b.paygExpiresAt === null ? null : isoOf(b.paygExpiresAt),
      creditsLimit,
      creditsUsed: creditsLimit - b.plan,
      renewalDate: this.renewalAt === null ? null : isoOf(this.renewalAt),
      rpsLimit: this.effectiveRps(),
      cancelAtPeriodEnd: this.cancelAtPeriodEnd,
    }
  }

  usageReport(from: string, to: string): UsageReportView {
    const t = this.now
    this.touch(t)
    const today = dayOf(t)
    const last = to < today ? to : today
    const zero = (): Figures => ({ requests: 0, billableRequests: 0, creditsUsed: 0 })
    const total = zero()
    const endpoints = new Map<string, Figures & { endpoint: string; statusCodes: Record<string, number> }>()
    const days = new Map<string, Figures>()
    for (const r of this.usage.values()) {
      if (r.day < from || r.day > last || r.day < USAGE_FROM_DAY || EXCLUDED_FROM_USAGE.includes(r.endpoint)) continue
      const e = endpoints.get(r.endpoint) ?? { endpoint: r.endpoint, ...zero(), statusCodes: {} }
      endpoints.set(r.endpoint, e)
      const d = days.get(r.day) ?? zero()
      days.set(r.day, d)
      for (const f of [total, e, d]) {
        f.requests += r.requests
        f.billableRequests += r.billableRequests
        f.creditsUsed += r.creditsUsed
      }
      e.statusCodes[String(r.status)] = (e.statusCodes[String(r.status)] ?? 0) + r.requests
    }
    const dayList: UsageReportView['days'] = []
    for (let d = dayStart(from); dayOf(d) <= last; d += DAY) dayList.push({ date: dayOf(d), ...(days.get(dayOf(d)) ?? zero()) })
    const b = this.balance(t)
    return {
      from,
      to,
      creditsRemaining: b.total,
      subscriptionCreditsRemaining: b.plan,
      paygCreditsRemaining: b.payg,
      ...total,
      endpoints: [...endpoints.values()].sort((a, b) => b.requests - a.requests || (a.endpoint < b.endpoint ? -1 : 1)),
      days: dayList,
    }
  }

  // ----- operator actions -----

  /** POST /admin/v1/accounts/:id/packs at now. */
  buyPack(credits: number, purchasedAt: number | undefined): { status: 201; ref: number; expiresAt: number; price: number } | { status: 400 } {
    const at = purchasedAt ?? this.now
    // Bought in the future, or so long ago that its twelve months are over: refused.
    if (!validPackSize(credits) || at > this.now || plusMonths(at, 12) <= this.now) return { status: 400 }
    this.touch(this.now)
    const lot = this.addLot('pack', credits, at, plusMonths(at, 12))
    return { status: 201, ref: lot.ref, expiresAt: lot.expiresAt, price: packPrice(credits) }
  }

  /** PUT /admin/v1/accounts/:id/subscription at now. */
  changeSubscription(p: Patch): { status: 200 | 400 } {
    const t = this.now
    this.touch(t)
    // Which changes are refused (the plan decides its statuses and, unless custom, its limits).
    const cancelling = p.status === 'canceled'
    const plan: Plan = cancelling ? 'none' : (p.plan ?? this.plan)
    if (cancelling && p.plan !== undefined) return { status: 400 }
    if (p.status !== undefined && !STATUSES_OF[plan].includes(p.status)) return { status: 400 }
    // Without a plan there is no period to end or move, and no limit but the 0 credits at 5 per second it has (which may be restated).
    if (plan === 'none' && ((p.creditsLimit ?? 0) !== 0 || (p.rpsLimit ?? DEFAULT_RPS) !== DEFAULT_RPS || p.cancelAtPeriodEnd !== undefined || p.renewalAt !== undefined)) {
      return { status: 400 }
    }
    // The free plan is 1,000 credits a month at 5 per second; only custom sets its own limits.
    if (plan === 'free' && ((p.creditsLimit !== undefined && p.creditsLimit !== FREE_PLAN_CREDITS) || (p.rpsLimit !== undefined && p.rpsLimit !== DEFAULT_RPS))) {
      return { status: 400 }
    }
    if (p.renewalAt !== undefined && p.renewalAt <= t) return { status: 400 }

    if (cancelling) {
      // Cancelled now: the plan ends at once, its allowance with it; packs stay.
      this.endPlanLot(t)
      this.plan = 'none'
      this.status = 'canceled'
      this.renewalAt = null
      this.cancelAtPeriodEnd = false
      if (p.rpsLimit !== undefined) this.rpsLimit = p.rpsLimit
    } else if (p.plan !== undefined && p.plan !== this.plan) {
      // A new plan: a new period starts now (and anchors the next ones).
      this.endPlanLot(t)
      this.plan = p.plan
      this.status = p.status ?? (p.plan === 'custom' ? 'active' : 'free')
      this.creditsLimit = p.creditsLimit ?? (p.plan === 'free' ? FREE_PLAN_CREDITS : this.creditsLimit)
      this.rpsLimit = p.rpsLimit ?? (p.plan === 'free' ? DEFAULT_RPS : this.rpsLimit)
      this.cancelAtPeriodEnd = p.cancelAtPeriodEnd ?? false
      this.anchor = t
      this.grantPeriod(t, plusMonths(t, 1))
    } else {
      if (p.status !== undefined) this.status = p.status
      if (p.rpsLimit !== undefined) this.rpsLimit = p.rpsLimit
      if (p.cancelAtPeriodEnd !== undefined) this.cancelAtPeriodEnd = p.cancelAtPeriodEnd
      if (p.creditsLimit !== undefined && p.creditsLimit !== this.creditsLimit) {
        // A new limit within the period: the allowance left is the new limit less what this period's
        // requests spent (never below 0); the lot has granted max(limit, spent).
        const lot = this.currentPlanLot(t)
        if (lot) {
          const spent = -this.ledger.filter((e) => e.ref === lot.ref && e.kind === 'debit').reduce((sum, e) => sum + e.delta, 0)
          const delta = Math.max(0, p.creditsLimit - spent) - lot.remaining
          lot.credits = Math.max(p.creditsLimit, spent)
          lot.remaining += delta
          this.ledger.push({ ref: lot.ref, kind: 'adjust', delta, at: t, requestId: null, endpoint: null })
        }
        this.creditsLimit = p.creditsLimit
      }
      if (p.renewalAt !== undefined) {
        // The current period now ends at renewalDate, and later periods are its monthly anniversaries.
        this.anchor = p.renewalAt
        this.renewalAt = p.renewalAt
        const lot = this.currentPlanLot(t)
        if (lot) lot.expiresAt = p.renewalAt
      }
    }
    return { status: 200 }
  }

  private currentPlanLot(t: number): ModelLot | undefined {
    return this.lots.find((l) => l.kind === 'plan' && this.live(l, t))
  }

  private endPlanLot(t: number): void {
    const lot = this.currentPlanLot(t)
    if (lot) lot.expiresAt = t
  }
}
