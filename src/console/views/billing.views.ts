/**
 * Balance and billing: the plan and every pack in the order credits are drawn from, what each call
 * costs, the rate table, a quote for every pack size, and the account's orders with their history.
 */
import type { Lot } from '../../domain/billing/billing-rules.ts'
import type { SubscriptionView } from '../../domain/billing/metering.service.ts'
import { PACK_MAX, PACK_MIN, packPriceCents, type PriceTier } from '../../domain/billing/pack-pricing.ts'
import { notFoundCredits, type Operation, type PriceRule, type PriceTable } from '../../domain/billing/prices.ts'
import { count, money, num, when } from './format.ts'
import { html, type Html } from './html.ts'
import { fieldState } from './layout.ts'

/** Every pack size one may buy: steps of 50,000 up to 1,000,000, then of 250,000. */
export function packSizes(): number[] {
  const sizes: number[] = []
  for (let c = PACK_MIN; c <= 1_000_000; c += 50_000) sizes.push(c)
  for (let c = 1_250_000; c <= PACK_MAX; c += 250_000) sizes.push(c)
  return sizes
}

export interface OrderLine {
  id: string
  credits: number
  priceCents: number
  status: string
  createdAt: number
  test: boolean
  history: readonly { status: string; at: number; note?: string | null }[]
}

export interface BillingModel {
  subscription: SubscriptionView
  /** Live lots holding credits, in the order calls draw from them. */
  lots: readonly Lot[]
  tiers: readonly PriceTier[]
  /** The credits each call costs, as the API bills them. */
  prices: PriceTable
  orders: readonly OrderLine[]
  canBuy: boolean
  canCancel: boolean
  payments: 'manual' | 'stripe' | 'test'
  csrf: string
  selected?: number | undefined
  /** The fields the page's error is about. */
  invalid?: readonly string[] | undefined
}

function tierRows(tiers: readonly PriceTier[]): Html[] {
  let from = 0
  return tiers.map((t) => {
    const label = t.upTo === Infinity ? `above ${num(from)}` : `${num(from)} to ${num(t.upTo)}`
    from = t.upTo
    return html`<tr><td>${label}</td><td class="num">${money(t.centsPer1000)}</td></tr>`
  })
}

const credits = (n: number) => count(n, 'credit', 'credits')

/** A call's price in words, as the API guide puts it. */
function priceText(rule: PriceRule): string {
  if (rule.kind === 'free' || rule.credits === 0) return 'Free'
  switch (rule.kind) {
    case 'flat':
      return `${credits(rule.credits)} a call`
    case 'perBlock':
      return `${credits(rule.credits)} per started block of ${rule.block} of the count asked for`
    case 'perGroup':
      return `${credits(rule.credits)} per started group of ${rule.group} profiles asked for`
    case 'perFound':
      return `${credits(rule.credits)} per company returned`
  }
}

/** What a 404 for a record that does not exist bills: never more than the call's own price. */
function notFoundText(rule: PriceRule): string {
  if (rule.kind === 'free') return '—'
  const billed = notFoundCredits(rule)
  return billed === 0 ? 'Free' : credits(billed)
}

function priceRows(prices: PriceTable): Html[] {
  return (Object.entries(prices) as [Operation, PriceRule][]).map(
    ([operation, rule]) => html`<tr><th scope="row"><code>/api/v1/${operation.replaceAll('.', '/')}</code></th><td>${priceText(rule)}</td><td>${notFoundText(rule)}</td></tr>`,
  )
}

const PAYMENT_NOTE = {
  manual: 'Your order waits for the operator to confirm payment; the credits are added when it is approved.',
  stripe: 'You pay by card on Stripe’s secure page; the credits are added as soon as Stripe confirms the payment.',
  test: 'Test mode: an order is marked paid at once and its credits are added (no money moves).',
} as const

export function billingBody(m: BillingModel): Html {
  const s = m.subscription
  const selected = m.selected ?? PACK_MIN
  return html`
<section class="card" aria-labelledby="plan">
  <h2 id="plan">Plan</h2>
  <dl class="facts">
    <dt>Plan</dt><dd>${s.plan === 'free' ? 'Free' : 'Custom'}${s.status === s.plan ? '' : ` (${s.status})`}</dd>
    <dt>Credits remaining</dt><dd>${num(s.creditsRemaining)}</dd>
    <dt>Of the plan</dt><dd>${num(s.subscriptionCreditsRemaining)} of ${num(s.creditsLimit)} this period</dd>
    <dt>Of packs</dt><dd>${num(s.paygCreditsRemaining)}</dd>
    <dt>Renews</dt><dd>${s.renewalDate === null ? 'no renewal' : when(Date.parse(s.renewalDate))}${s.cancelAtPeriodEnd ? ' (ends then: cancelled at period end)' : ''}</dd>
    <dt>Rate limit</dt><dd>${num(s.rpsLimit)} requests per second</dd>
  </dl>
  ${
    m.canCancel && s.plan === 'custom' && s.renewalDate !== null
      ? html`<form method="post" action="/console/billing/cancel">
      <input type="hidden" name="_csrf" value="${m.csrf}">
      <input type="hidden" name="cancel" value="${s.cancelAtPeriodEnd ? 'false' : 'true'}">
      <button type="submit" class="secondary">${s.cancelAtPeriodEnd ? 'Keep the plan after this period' : 'Cancel at the end of this period'}</button>
    </form>`
      : html``
  }
</section>
<section class="card" aria-labelledby="lots">
  <h2 id="lots">Where your credits are</h2>
  <p class="hint">Calls draw from the plan's allowance first, then from packs, the soonest-expiring first.</p>
  ${
    m.lots.length === 0
      ? html`<p>No credits left.</p>`
      : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Credits by source">
  <table>
    <caption>Credit sources in drawdown order</caption>
    <thead><tr><th scope="col">Order</th><th scope="col">Source</th><th scope="col" class="num">Remaining</th><th scope="col" class="num">Of</th><th scope="col">Expires</th></tr></thead>
    <tbody>${m.lots.map(
      (l, i) => html`<tr><td>${i + 1}</td><td>${l.kind === 'plan' ? 'Plan allowance' : `Pack bought ${when(l.startsAt)}`}</td><td class="num">${num(l.remaining)}</td><td class="num">${num(l.credits)}</td><td>${when(l.expiresAt)}</td></tr>`,
    )}</tbody>
  </table></div>`
  }
</section>
<section class="card" aria-labelledby="prices">
  <h2 id="prices">Price of each call</h2>
  <div class="table-wrap" tabindex="0" role="region" aria-label="Table of call prices">
  <table>
    <caption>Credits each call costs, by endpoint</caption>
    <thead><tr><th scope="col">Endpoint</th><th scope="col">Price</th><th scope="col">A 404 for a record that does not exist</th></tr></thead>
    <tbody>${priceRows(m.prices)}</tbody>
  </table></div>
  <p class="hint">Every other refusal or failure is free. Each answer’s <code>X-Credits-Charged</code> header says what that call cost.</p>
</section>
<section class="card" aria-labelledby="buy">
  <h2 id="buy">Buy credits</h2>
  <p>A pack holds ${num(PACK_MIN)} to ${num(PACK_MAX)} credits and expires 12 months after purchase. Each band of a pack is priced at its own rate, so a larger pack is cheaper only above each threshold.</p>
  <div class="table-wrap" tabindex="0" role="region" aria-label="Rate table">
  <table>
    <caption>Price per 1,000 credits, by band of the pack</caption>
    <thead><tr><th scope="col">Credits in the band</th><th scope="col" class="num">Per 1,000</th></tr></thead>
    <tbody>${tierRows(m.tiers)}</tbody>
  </table></div>
  ${
    m.canBuy
      ? html`<form method="post" action="/console/billing/orders" class="narrow">
    <input type="hidden" name="_csrf" value="${m.csrf}">
    <label for="credits">Pack size</label>
    <select id="credits" name="credits"${fieldState('credits', { invalid: m.invalid, hint: 'payment-note' })}>${packSizes().map(
      (c) => html`<option value="${c}"${c === selected ? html` selected` : ''}>${num(c)} credits: ${money(packPriceCents(c, m.tiers))}</option>`,
    )}</select>
    <p class="hint" id="payment-note">${PAYMENT_NOTE[m.payments]}</p>
    <button type="submit">Buy</button>
  </form>`
      : html`<p class="hint">Only an owner of the account can buy credits.</p>`
  }
</section>
<section class="card" aria-labelledby="orders">
  <h2 id="orders">Orders</h2>
  ${
    m.orders.length === 0
      ? html`<p>No orders yet.</p>`
      : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Table of orders">
  <table>
    <caption>Orders, newest first</caption>
    <thead><tr><th scope="col">Placed</th><th scope="col" class="num">Credits</th><th scope="col" class="num">Price</th><th scope="col">Status</th><th scope="col">History</th></tr></thead>
    <tbody>${m.orders.map(
      (o) => html`<tr><td>${when(o.createdAt)}</td><td class="num">${num(o.credits)}</td><td class="num">${money(o.priceCents)}</td><td>${o.status}${o.test ? ' (test)' : ''}</td><td class="wrap">${o.history.map((h) => html`${h.status} ${when(h.at)}${h.note ? `: ${h.note}` : ''}<br>`)}</td></tr>`,
    )}</tbody>
  </table></div>`
  }
</section>`
}
