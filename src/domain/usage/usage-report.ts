/**
 * GET /api/v1/usage: the balance now and the consumption over a range of UTC days.
 */
import type { Clock } from '../../ports/clock.ts'
import type { Ledger, UsageRow } from '../../ports/ledger.ts'
import { balanceAt } from '../billing/billing-rules.ts'
import { DAY_MS, parseDay, utcDay } from '../billing/calendar.ts'
import { ApiError, invalidParameter } from '../errors.ts'

/** Consumption is recorded from this UTC day, as the API documents; earlier days report 0. */
export const USAGE_RECORDED_FROM = '2026-07-16'
export const MAX_RANGE_DAYS = 366
/** The account endpoints' own calls are not part of the figures they report. */
export const UNREPORTED_ENDPOINTS: ReadonlySet<string> = new Set(['/api/v1/usage', '/api/v1/subscription'])

interface Figures {
  requests: number
  billableRequests: number
  creditsUsed: number
}

export interface UsageReport extends Figures {
  from: string
  to: string
  creditsRemaining: number
  subscriptionCreditsRemaining: number
  paygCreditsRemaining: number
  endpoints: (Figures & { endpoint: string; statusCodes: Record<string, number> })[]
  days: (Figures & { date: string })[]
}

/** Validates the range: defaults first of this month .. today, at most 366 days, `from` not after `to`. */
export function usageRange(q: { from?: string; to?: string }, now: number): { from: string; to: string } {
  const today = utcDay(now)
  const from = q.from ?? `${today.slice(0, 8)}01`
  const to = q.to ?? today
  const fromMs = parseDay(from)
  if (fromMs === undefined) throw invalidParameter('from', `'${from}' is not a date in YYYY-MM-DD form.`)
  const toMs = parseDay(to)
  if (toMs === undefined) throw invalidParameter('to', `'${to}' is not a date in YYYY-MM-DD form.`)
  if (fromMs > toMs) throw new ApiError('INVALID_PARAMETER', `'from' (${from}) is after 'to' (${to}).`, { parameter: 'from' })
  const days = (toMs - fromMs) / DAY_MS + 1
  if (days > MAX_RANGE_DAYS) {
    throw new ApiError('INVALID_PARAMETER', `A usage range covers at most ${MAX_RANGE_DAYS} days (asked for ${days}).`, {
      parameter: 'to',
    })
  }
  return { from, to }
}

export function createUsageReporter(deps: { ledger: Ledger; clock: Clock }) {
  return async function report(accountId: string, q: { from?: string; to?: string }): Promise<UsageReport> {
    const now = deps.clock.now()
    const { from, to } = usageRange(q, now)
    const state = await deps.ledger.state(accountId, now)
    if (!state) throw new ApiError('NOT_FOUND', `No account '${accountId}'.`)
    const balance = balanceAt(state, now)
    const today = utcDay(now)
    const lastDay = to < today ? to : today
    const counted = (r: UsageRow) => r.day >= USAGE_RECORDED_FROM && !UNREPORTED_ENDPOINTS.has(r.endpoint)
    const rows = lastDay < from ? [] : (await deps.ledger.usage(accountId, from, lastDay)).filter(counted)

    const total: Figures = { requests: 0, billableRequests: 0, creditsUsed: 0 }
    const byEndpoint = new Map<string, Figures & { endpoint: string; statusCodes: Record<string, number> }>()
    const byDay = new Map<string, Figures>()
    for (const r of rows) {
      const endpoint = byEndpoint.get(r.endpoint) ?? { endpoint: r.endpoint, requests: 0, billableRequests: 0, creditsUsed: 0, statusCodes: {} }
      byEndpoint.set(r.endpoint, endpoint)
      const day = byDay.get(r.day) ?? { requests: 0, billableRequests: 0, creditsUsed: 0 }
      byDay.set(r.day, day)
      for (const f of [total, endpoint, day]) {
        f.requests += r.requests
        f.billableRequests += r.billable
        f.creditsUsed += r.credits
      }
      endpoint.statusCodes[String(r.status)] = (endpoint.statusCodes[String(r.status)] ?? 0) + r.requests
    }
    const days: UsageReport['days'] = []
    // Every started day of the range, idle days with zeros; days not yet started are not listed. The
    // loop runs on instants: the day after 9999-12-31 is written '+010000-01-01', which sorts before
    // it as text, and a loop comparing day strings never ended (a usage call at the test clock's
    // last day ran the process out of memory).
    const end = parseDay(lastDay) as number
    for (let t = parseDay(from) as number; t <= end; t += DAY_MS) {
      const date = utcDay(t)
      days.push({ date, ...(byDay.get(date) ?? { requests: 0, billableRequests: 0, creditsUsed: 0 }) })
    }
    return {
      from,
      to,
      creditsRemaining: balance.total,
      subscriptionCreditsRemaining: balance.subscription,
      paygCreditsRemaining: balance.payg,
      ...total,
      endpoints: [...byEndpoint.values()].sort((a, b) => b.requests - a.requests || (a.endpoint < b.endpoint ? -1 : 1)),
      days,
    }
  }
}

export type UsageReporter = ReturnType<typeof createUsageReporter>
