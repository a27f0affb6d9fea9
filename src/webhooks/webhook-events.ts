/**
 * Finds what the accounts' webhooks report, from facts the store already holds durably: a renewal or
 * a change in subscription_events, an order paid, a pack's expiry coming or past, a balance below the
 * customer's threshold or empty. Each fact becomes one event whose id is made from the fact, recorded
 * with its deliveries in one transaction, so every node may look and none records a fact twice. A
 * fact is reported to the endpoints that existed, enabled and subscribed, when it happened.
 */
import { createHash } from 'node:crypto'
import { balanceAt, type BillingState } from '../domain/billing/billing-rules.ts'
import { iso } from '../domain/billing/calendar.ts'
import type { Ledger } from '../ports/ledger.ts'
import type { AlertSettings, EventToRecord, WebhookEventType, WebhookRecord, WebhookStore } from '../ports/webhook-store.ts'

/** pack.expiring is sent this long before a pack expires. */
export const EXPIRING_NOTICE_MS = 7 * 24 * 3_600_000
/** Facts are looked for this far back: a fact is reported if any node looks within this long of it. */
export const FACT_WINDOW_MS = 2 * 24 * 3_600_000

/** An event's id, the same wherever the fact is seen. */
export const eventId = (fact: string): string => `evt_${createHash('sha256').update(fact).digest('hex').slice(0, 24)}`

/** The JSON body of an event, as every delivery of it sends it. */
export function eventBody(id: string, type: string, createdAt: number, accountId: string, data: Record<string, unknown>): string {
  return JSON.stringify({ id, type, createdAt: iso(createdAt), account: accountId, data })
}

export function createEventFinder(deps: { store: WebhookStore; ledger: Ledger }) {
  const { store, ledger } = deps

  /** The fact as an event for the endpoints that took `type` when it happened, added to `out`; none when no endpoint did. */
  function report(out: EventToRecord[], accountId: string, webhooks: readonly WebhookRecord[], type: WebhookEventType, fact: string, at: number, data: Record<string, unknown>): void {
    const to = takers(webhooks, type, at)
    if (to.length === 0) return
    const id = eventId(fact)
    out.push({ event: { id, accountId, type, createdAt: at, body: eventBody(id, type, at, accountId, data) }, webhookIds: to })
  }

  /**
   * The plan's current period, when it follows another of the same plan: a renewal. Read from the
   * billing state as it stands now, since a period begins at its date whether or not a call has been
   * billed in it yet. A period opened by a change of plan also follows a period, but at an instant the
   * change recorded (`planChanges`): that is subscription.changed, not a renewal.
   */
  function renewal(out: EventToRecord[], accountId: string, webhooks: readonly WebhookRecord[], state: BillingState, now: number, planChanges: ReadonlySet<number>): void {
    const s = state.subscription
    const start = s.periodStart
    if (s.plan === 'none' || start === null || start < now - FACT_WINDOW_MS || planChanges.has(start)) return
    if (!state.lots.some((l) => l.kind === 'plan' && l.startsAt < start && l.expiresAt === start)) return
    report(out, accountId, webhooks, 'subscription.renewed', `subscription.renewed:${accountId}:${start}`, start, {
      plan: s.plan,
      creditsLimit: s.creditsLimit,
      periodStart: iso(start),
      renewalDate: s.renewalAt === null ? null : iso(s.renewalAt),
    })
  }

  /** The balance alerts: each sent once per fall below its mark, again after the balance rose above it. */
  async function balanceAlerts(accountId: string, webhooks: readonly WebhookRecord[], alerts: AlertSettings, state: BillingState, now: number): Promise<number> {
    const wantsLow = alerts.lowCredits !== null && takers(webhooks, 'credits.low', now).length > 0
    const wantsEmpty = takers(webhooks, 'credits.exhausted', now).length > 0
    if (!wantsLow && !wantsEmpty) return 0
    const remaining = balanceAt(state, now).total
    let found = 0
    const next = { lowSent: alerts.lowSent, exhaustedSent: alerts.exhaustedSent, lowRound: alerts.lowRound, exhaustedRound: alerts.exhaustedRound }
    const events: EventToRecord[] = []
    const add = (type: WebhookEventType, fact: string, data: Record<string, unknown>) => report(events, accountId, webhooks, type, fact, now, data)
    if (alerts.lowCredits !== null) {
      if (remaining < alerts.lowCredits && !alerts.lowSent) {
        next.lowSent = true
        if (wantsLow) add('credits.low', `credits.low:${accountId}:${alerts.lowRound}`, { creditsRemaining: remaining, lowCredits: alerts.lowCredits })
      } else if (remaining >= alerts.lowCredits && alerts.lowSent) {
        next.lowSent = false
        next.lowRound++
      }
    }
    if (remaining === 0 && !alerts.exhaustedSent) {
      next.exhaustedSent = true
      if (wantsEmpty) add('credits.exhausted', `credits.exhausted:${accountId}:${alerts.exhaustedRound}`, { creditsRemaining: 0 })
    } else if (remaining > 0 && alerts.exhaustedSent) {
      next.exhaustedSent = false
      next.exhaustedRound++
    }
    const changed = next.lowSent !== alerts.lowSent || next.exhaustedSent !== alerts.exhaustedSent
    if (!changed) return 0
    // The state and the first event in one transaction; a second event (low and empty at once) after it.
    const [first, ...rest] = events
    await store.setAlertState(accountId, next, first)
    for (const e of rest) if (await store.record(e.event, e.webhookIds)) found++
    return found + (first ? 1 : 0)
  }

  /** Accounts whose endpoints take a balance alert, as the last look found them. */
  let alerted = new Set<string>()
  const takesAlerts = (webhooks: readonly WebhookRecord[]) => webhooks.some((h) => h.events.some((e) => e === 'credits.low' || e === 'credits.exhausted'))

  return {
    /** Whether the account's endpoints take a balance alert (as of the last look for events). */
    watchesBalance: (accountId: string): boolean => alerted.has(accountId),

    /** The balance alerts of one account now (after a call billed it), between looks; resolves to the events recorded. */
    async checkBalance(accountId: string, now: number): Promise<number> {
      const webhooks = await store.list(accountId)
      if (!takesAlerts(webhooks)) return 0
      const state = await ledger.state(accountId, now)
      if (!state) return 0
      return balanceAlerts(accountId, webhooks, await store.alerts(accountId), state, now)
    },

    /** Looks for new facts of every watched account at `now`; resolves to the number of events recorded. */
    async find(now: number): Promise<number> {
      const watched = await store.watchedAccounts()
      alerted = new Set(watched.filter((w) => takesAlerts(w.webhooks)).map((w) => w.accountId))
      if (watched.length === 0) return 0
      const byAccount = new Map(watched.map((w) => [w.accountId, w.webhooks]))
      const facts = await store.facts([...byAccount.keys()], now - FACT_WINDOW_MS, now + EXPIRING_NOTICE_MS)
      // Every fact in the window is seen again at each look: the events are made, then those recorded
      // before are told apart in one read, and only new ones are written.
      const candidates: EventToRecord[] = []
      for (const e of facts.subscriptionEvents) {
        if (e.at > now) continue
        // The stored change names the new renewal instant in ms; the event says it as the API does, a date.
        const { renewalAt, ...rest } = e.change
        const changes = typeof renewalAt === 'number' ? { ...rest, renewalDate: iso(renewalAt) } : rest
        report(candidates, e.accountId, byAccount.get(e.accountId) ?? [], 'subscription.changed', `subscription.changed:${e.accountId}:${e.id}`, e.at, { changes })
      }
      for (const o of facts.paidOrders) {
        if (o.paidAt > now) continue
        report(candidates, o.accountId, byAccount.get(o.accountId) ?? [], 'order.paid', `order.paid:${o.id}`, o.paidAt, {
          orderId: o.id,
          credits: o.credits,
          price: o.priceCents / 100,
          currency: o.currency,
          test: o.test,
          paidAt: iso(o.paidAt),
        })
      }
      for (const p of facts.packs) {
        if (p.remaining === 0) continue
        const webhooks = byAccount.get(p.accountId) ?? []
        const data = { packId: p.id, credits: p.credits, creditsRemaining: p.remaining, expiresAt: iso(p.expiresAt) }
        const notice = p.expiresAt - EXPIRING_NOTICE_MS
        if (notice <= now && now < p.expiresAt) {
          // Still true until the pack expires, so it goes to the endpoints there now; a pack added
          // within its last week (bought long ago) is reported when it is found.
          const since = Math.min(now, Math.max(notice, ...webhooks.map((w) => w.createdAt)))
          report(candidates, p.accountId, webhooks, 'pack.expiring', `pack.expiring:${p.id}`, since, data)
        }
        if (p.expiresAt <= now) report(candidates, p.accountId, webhooks, 'pack.expired', `pack.expired:${p.id}`, p.expiresAt, data)
      }
      let found = 0
      for (const w of watched) {
        // The billing state is read only for what it tells: a renewal, or the balance for its alerts.
        if (!w.webhooks.some((h) => h.events.some((e) => e === 'subscription.renewed' || e === 'credits.low' || e === 'credits.exhausted'))) continue
        const state = await ledger.state(w.accountId, now)
        if (!state) continue
        const planChanges = new Set(facts.subscriptionEvents.filter((e) => e.accountId === w.accountId && 'plan' in e.change).map((e) => e.at))
        renewal(candidates, w.accountId, w.webhooks, state, now, planChanges)
        found += await balanceAlerts(w.accountId, w.webhooks, w.alerts, state, now)
      }
      const known = candidates.length === 0 ? new Set<string>() : await store.recorded(candidates.map((c) => c.event.id))
      for (const c of candidates) if (!known.has(c.event.id) && (await store.record(c.event, c.webhookIds))) found++
      return found
    },
  }
}

/** The ids of the endpoints that take `type` and existed at `at`; a disabled one's deliveries wait until it is enabled. */
function takers(webhooks: readonly WebhookRecord[], type: WebhookEventType, at: number): string[] {
  return webhooks.filter((w) => w.events.includes(type) && w.createdAt <= at).map((w) => w.id)
}
