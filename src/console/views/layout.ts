/**
 * The page frame every console page shares: a skip link, the header with the account's navigation,
 * one <main>, and only same-origin stylesheets and scripts (the pages hold no inline script or style).
 */
import { html, type Html } from './html.ts'

export interface Viewer {
  email: string
  /** The account is suspended by the operator: every page says so. */
  suspended?: boolean
  accountName: string
  role: 'owner' | 'member'
  /** Other accounts the user belongs to, to switch between. */
  accounts: readonly { id: string; name: string; current: boolean }[]
}

export type Section = 'keys' | 'usage' | 'billing' | 'members' | 'webhooks' | 'operator' | 'orders'

export interface Notice {
  kind: 'ok' | 'error'
  text: string
  /** The form fields an error is about, by name: the page marks them invalid and points them to it. */
  fields?: readonly string[]
}

/** The id of a page's error notice, which the fields it is about point to. */
export const ERROR_ID = 'form-error'

/** An error that fields point to, by the id of the block holding it. */
export const errorNotice = (text: string, id: string): Html => html`<div id="${id}"><p class="notice error" role="alert">${text}</p></div>`

/**
 * A form field's ARIA attributes: described by its hint, and when the page's error is about it,
 * marked invalid and described by the error too, so a screen reader says what is wrong on reaching it.
 */
export function fieldState(name: string, o: { invalid?: readonly string[] | undefined; hint?: string; error?: string }): Html {
  const wrong = o.invalid?.includes(name) ?? false
  const describedBy = [wrong ? (o.error ?? ERROR_ID) : undefined, o.hint].filter((id) => id !== undefined).join(' ')
  return html`${wrong ? html` aria-invalid="true"` : ''}${describedBy === '' ? '' : html` aria-describedby="${describedBy}"`}`
}

export interface PageOptions {
  title: string
  body: Html
  csrf?: string
  viewer?: Viewer
  operator?: boolean
  active?: Section
  notice?: Notice | undefined
}

const NAV: readonly { section: Section; href: string; label: string }[] = [
  { section: 'keys', href: '/console/keys', label: 'API keys' },
  { section: 'usage', href: '/console/usage', label: 'Usage' },
  { section: 'billing', href: '/console/billing', label: 'Balance and billing' },
  { section: 'members', href: '/console/members', label: 'Members' },
  { section: 'webhooks', href: '/console/webhooks', label: 'Webhooks' },
]

function navigation(o: PageOptions): Html {
  if (o.operator) {
    return html`<nav aria-label="Operator"><ul class="nav">
      <li><a href="/console/operator"${o.active === 'operator' ? html` aria-current="page"` : ''}>Accounts</a></li>
      <li><a href="/console/operator/orders"${o.active === 'orders' ? html` aria-current="page"` : ''}>Orders</a></li>
    </ul></nav>
    <form method="post" action="/console/operator/sign-out" class="inline"><input type="hidden" name="_csrf" value="${o.csrf ?? ''}"><button type="submit" class="link">Sign out</button></form>`
  }
  if (!o.viewer) return html``
  const v = o.viewer
  const switcher =
    v.accounts.length > 1
      ? html`<form method="post" action="/console/account" class="switch">
          <input type="hidden" name="_csrf" value="${o.csrf ?? ''}">
          <label for="account-switch">Account</label>
          <select id="account-switch" name="accountId">${v.accounts.map((a) => html`<option value="${a.id}"${a.current ? html` selected` : ''}>${a.name}</option>`)}</select>
          <button type="submit">Switch</button>
        </form>`
      : html``
  return html`<nav aria-label="Account"><ul class="nav">${NAV.map(
    (n) => html`<li><a href="${n.href}"${o.active === n.section ? html` aria-current="page"` : ''}>${n.label}</a></li>`,
  )}</ul></nav>
  <div class="who"><span>${v.email} · ${v.accountName} (${v.role})</span>${switcher}
    <form method="post" action="/console/sign-out" class="inline"><input type="hidden" name="_csrf" value="${o.csrf ?? ''}"><button type="submit" class="link">Sign out</button></form>
  </div>`
}

export function page(o: PageOptions): string {
  const notice = o.notice
    ? o.notice.fields?.length
      ? errorNotice(o.notice.text, ERROR_ID)
      : html`<p class="notice ${o.notice.kind}" role="${o.notice.kind === 'error' ? 'alert' : 'status'}">${o.notice.text}</p>`
    : html``
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.title} · pronet console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="${o.operator ? '/console/operator' : '/console/'}">pronet <span>${o.operator ? 'operator' : 'console'}</span></a>
  ${navigation(o)}
</header>
<main id="main" tabindex="-1">
<h1>${o.title}</h1>
${o.viewer?.suspended ? html`<p class="notice error" role="alert">This account is suspended by the operator of this service: its API calls are refused, and no key can be made or credits bought until it is resumed.</p>` : html``}
${notice}
${o.body}
</main>
<footer class="foot"><a href="/docs">API reference</a></footer>
</body>
</html>
`.text
}
