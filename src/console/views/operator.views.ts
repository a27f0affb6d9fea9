/** The operator's pages: accounts and their search, one account in full, and the orders to settle. */
import type { SubscriptionView } from '../../domain/billing/metering.service.ts'
import type { UsageReport } from '../../domain/usage/usage-report.ts'
import type { MemberView } from '../../identity/identity.service.ts'
import type { AccountRecord, ApiKeyRecord } from '../../ports/account-store.ts'
import type { OrderRecord } from '../../ports/order-store.ts'
import { count, money, num, when } from './format.ts'
import { html, type Html } from './html.ts'
import { errorNotice, fieldState } from './layout.ts'

const token = (csrf: string) => html`<input type="hidden" name="_csrf" value="${csrf}">`

/** The grant form as it was sent, with why it was refused. */
export interface GrantForm {
  typed: string
  error: string
}

export function accountsBody(o: { accounts: readonly AccountRecord[]; query: string }): Html {
  return html`<form method="get" action="/console/operator" class="card row" role="search">
  <div><label for="query">Name, email, account id or key prefix</label><input type="text" id="query" name="query" value="${o.query}"></div>
  <div><button type="submit">Search</button></div>
</form>
<section class="card" aria-labelledby="found">
  <h2 id="found">${o.query === '' ? 'Newest accounts' : `Accounts matching “${o.query}”`}</h2>
  ${
    o.accounts.length === 0
      ? html`<p>No account matches.</p>`
      : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Accounts"><table class="named">
    <caption>Accounts, newest first</caption>
    <thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Plan</th><th scope="col">Created</th><th scope="col">State</th></tr></thead>
    <tbody>${o.accounts.map(
      (a) => html`<tr><td><a href="/console/operator/accounts/${a.id}">${a.name}</a></td><td><code>${a.id}</code></td><td>${a.plan}${a.status === a.plan ? '' : ` (${a.status})`}</td><td>${when(a.createdAt)}</td><td>${a.suspendedAt === null ? 'active' : `suspended ${when(a.suspendedAt)}`}</td></tr>`,
    )}</tbody></table></div>`
  }
</section>`
}

export function accountBody(o: {
  account: AccountRecord
  subscription: SubscriptionView
  keys: readonly ApiKeyRecord[]
  members: readonly MemberView[]
  usage: UsageReport
  orders: readonly OrderRecord[]
  csrf: string
  grant?: GrantForm | undefined
}): Html {
  const a = o.account
  const g = o.grant
  const s = o.subscription
  return html`<section class="card" aria-labelledby="summary">
  <h2 id="summary">${a.name} <code>${a.id}</code></h2>
  <dl class="facts">
    <dt>State</dt><dd>${a.suspendedAt === null ? 'active' : `suspended since ${when(a.suspendedAt)}`}</dd>
    <dt>Plan</dt><dd>${s.plan}${s.status === s.plan ? '' : ` (${s.status})`}, ${num(s.creditsLimit)} credits a period, ${num(s.rpsLimit)} requests a second</dd>
    <dt>Credits remaining</dt><dd>${num(s.creditsRemaining)} (plan ${num(s.subscriptionCreditsRemaining)}, packs ${num(s.paygCreditsRemaining)})</dd>
    <dt>Renews</dt><dd>${s.renewalDate === null ? 'no renewal' : when(Date.parse(s.renewalDate))}${s.cancelAtPeriodEnd ? ' (cancelled at period end)' : ''}</dd>
    <dt>This month</dt><dd>${count(o.usage.creditsUsed, 'credit', 'credits')} over ${count(o.usage.requests, 'request', 'requests')}</dd>
  </dl>
  <form method="post" action="/console/operator/accounts/${a.id}/${a.suspendedAt === null ? 'suspend' : 'resume'}"${a.suspendedAt === null ? html` data-confirm="Suspend ${a.name}? Its calls are refused until it is resumed."` : html``}>
    ${token(o.csrf)}<button type="submit" class="${a.suspendedAt === null ? 'danger' : ''}">${a.suspendedAt === null ? 'Suspend the account' : 'Resume the account'}</button>
  </form>
</section>
<section class="card" aria-labelledby="grant">
  <h2 id="grant">Grant a pack</h2>
  ${g === undefined ? html`` : errorNotice(g.error, 'grant-error')}
  <form method="post" action="/console/operator/accounts/${a.id}/packs" class="narrow">
    ${token(o.csrf)}
    <label for="credits">Credits</label>
    <input type="number" id="credits" name="credits" min="50000" max="50000000" step="50000" required value="${g?.typed ?? ''}"${fieldState('credits', { invalid: g === undefined ? [] : ['credits'], hint: 'credits-hint', error: 'grant-error' })}>
    <p class="hint" id="credits-hint">50,000 to 50,000,000, in steps of 50,000 up to 1,000,000, then 250,000. Expires in 12 months.</p>
    <button type="submit">Grant</button>
  </form>
</section>
<section class="card" aria-labelledby="keys">
  <h2 id="keys">Keys</h2>
  <div class="table-wrap" tabindex="0" role="region" aria-label="Table of keys"><table class="named">
    <caption>Keys of the account</caption>
    <thead><tr><th scope="col">Name</th><th scope="col">Starts with</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Revoked</th></tr></thead>
    <tbody>${o.keys.map((k) => html`<tr><td>${k.name || 'Unnamed key'}</td><td><code>${k.prefix}…</code></td><td>${when(k.createdAt)}</td><td>${when(k.lastUsedAt)}</td><td>${when(k.revokedAt)}</td></tr>`)}</tbody>
  </table></div>
</section>
<section class="card" aria-labelledby="people">
  <h2 id="people">Members</h2>
  ${o.members.length === 0 ? html`<p>No console users.</p>` : html`<ul>${o.members.map((m) => html`<li>${m.email} (${m.role})</li>`)}</ul>`}
</section>
<section class="card" aria-labelledby="orders">
  <h2 id="orders">Orders</h2>
  ${ordersTable(o.orders, o.csrf)}
</section>`
}

export function ordersTable(orders: readonly OrderRecord[], csrf: string): Html {
  if (orders.length === 0) return html`<p>No orders.</p>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Table of orders"><table>
  <caption>Orders, newest first</caption>
  <thead><tr><th scope="col">Placed</th><th scope="col">Account</th><th scope="col" class="num">Credits</th><th scope="col" class="num">Price</th><th scope="col">Paid by</th><th scope="col">Status</th><th scope="col">Action</th></tr></thead>
  <tbody>${orders.map(
    (o) => html`<tr><td>${when(o.createdAt)}</td><td><a href="/console/operator/accounts/${o.accountId}"><code>${o.accountId}</code></a></td><td class="num">${num(o.credits)}</td><td class="num">${money(o.priceCents)}</td><td>${o.provider}${o.test ? ' (test)' : ''}</td><td>${o.status}</td><td>${
      o.status === 'pending' && o.provider === 'manual'
        ? html`<form method="post" action="/console/operator/orders/${o.id}/approve" class="inline">${token(csrf)}<button type="submit">Approve</button></form>
        <form method="post" action="/console/operator/orders/${o.id}/reject" class="inline">${token(csrf)}<label for="note-${o.id}">Reason</label><input type="text" id="note-${o.id}" name="note" maxlength="200"><button type="submit" class="danger">Reject</button></form>`
        : html`—`
    }</td></tr>`,
  )}</tbody></table></div>`
}

export function ordersBody(o: { orders: readonly OrderRecord[]; status: string; csrf: string }): Html {
  const statuses = ['pending', 'paid', 'failed', 'canceled', 'rejected', 'all']
  return html`<form method="get" action="/console/operator/orders" class="card row">
  <div><label for="status">Status</label><select id="status" name="status">${statuses.map((s) => html`<option value="${s}"${s === o.status ? html` selected` : ''}>${s}</option>`)}</select></div>
  <div><button type="submit">Show</button></div>
</form>
<section class="card">${ordersTable(o.orders, o.csrf)}</section>`
}
