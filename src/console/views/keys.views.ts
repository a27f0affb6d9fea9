/** API keys: the list, a new key's secret shown once, and revocation behind a confirmation. */
import { count, when } from './format.ts'
import { html, type Html } from './html.ts'
import { fieldState } from './layout.ts'
import { endpointsFieldset, endpointsText, limitField, limitText, NO_SETTINGS, type KeySettingsValues } from './key-settings.views.ts'

export interface KeyLine {
  id: string
  name: string
  prefix: string
  createdAt: number
  lastUsedAt: number | null
  revokedAt: number | null
  /** Credits its calls may be billed per UTC month (null: no limit of its own). */
  monthlyCreditLimit: number | null
  /** The endpoints it may call, as the paths after /api/v1/ (null: every one). */
  endpoints: readonly string[] | null
  /** Credits its calls were billed this UTC month (none given: a key just made, billed nothing yet). */
  creditsThisMonth?: number
  /** Whether the viewer may revoke or change it (an owner: any key; a member: their own). */
  revocable: boolean
}

/** The secret of a key just made: the one time it is shown. */
/** The secret of a key just made, once; `endpoints` are those it may call (null: every one), so its try-it call is one it may make. */
export function newKeyNotice(created: { key: string; name: string; endpoints?: readonly string[] | null }, publicUrl: string): Html {
  const free = created.endpoints == null || created.endpoints.includes('subscription')
  return html`<section class="card" aria-labelledby="new-key">
  <h2 id="new-key">Your new key “${created.name}”</h2>
  <p><strong>Copy it now: it is shown only this once.</strong> Send it in the <code>X-API-Key</code> header of every call.</p>
  <div class="secret"><code id="new-key-value">${created.key}</code><button type="button" class="secondary" data-copy="new-key-value" hidden>Copy</button></div>
  ${free
    ? html`<p class="hint">Try it: <code>curl -H "X-API-Key: ${created.key}" "${publicUrl}/api/v1/subscription"</code></p>`
    : html`<p class="hint">It may call only: ${(created.endpoints ?? []).map((e) => `/api/v1/${e}`).join(', ')}.</p>`}
</section>`
}

export function keysBody(o: {
  keys: readonly KeyLine[]
  csrf: string
  created?: Html | undefined
  publicUrl: string
  values?: KeySettingsValues | undefined
  /** The fields the page's error is about. */
  invalid?: readonly string[] | undefined
}): Html {
  const v = o.values ?? NO_SETTINGS
  const live = o.keys.filter((k) => k.revokedAt === null)
  const revoked = o.keys.filter((k) => k.revokedAt !== null)
  return html`${o.created ?? html``}
<section class="card" aria-labelledby="create">
  <h2 id="create">Create a key</h2>
  <form method="post" action="/console/keys" class="narrow">
    <input type="hidden" name="_csrf" value="${o.csrf}">
    <label for="key-name">Name</label>
    <input type="text" id="key-name" name="name" maxlength="100" required${fieldState('name', { invalid: o.invalid, hint: 'key-name-hint' })} value="${v.name}">
    <p class="hint" id="key-name-hint">Where the key is used, e.g. “production crawler”.</p>
    ${limitField('new-key', v.limit, o.invalid)}
    ${endpointsFieldset('new-key', v, o.invalid)}
    <button type="submit">Create key</button>
  </form>
</section>
<section class="card" aria-labelledby="live">
  <h2 id="live">Keys in use</h2>
  ${live.length === 0 ? html`<p>No live keys.</p>` : keyTable(live, o.csrf, true)}
  <p class="hint">Calls go to <code>${o.publicUrl}/api/v1/…</code>. A revoked key is refused on every server within a second.</p>
</section>
${revoked.length > 0 ? html`<section class="card" aria-labelledby="revoked"><h2 id="revoked">Revoked keys</h2>${keyTable(revoked, o.csrf, false)}</section>` : html``}`
}

function keyTable(keys: readonly KeyLine[], csrf: string, live: boolean): Html {
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${live ? 'Table of keys in use' : 'Table of revoked keys'}">
<table class="named">
  <caption>${live ? 'Keys in use' : 'Revoked keys'}</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">Starts with</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col" class="num">Billed this month</th><th scope="col">Monthly limit</th><th scope="col">Endpoints</th>${live ? html`<th scope="col">Action</th>` : html`<th scope="col">Revoked</th>`}</tr></thead>
  <tbody>${keys.map(
    (k) => html`<tr><td>${k.name}</td><td><code>${k.prefix}…</code></td><td>${when(k.createdAt)}</td><td>${when(k.lastUsedAt)}</td><td class="num">${count(k.creditsThisMonth ?? 0, 'credit', 'credits')}</td><td>${limitText(k.monthlyCreditLimit)}</td><td>${endpointsText(k.endpoints)}</td>${
      live
        ? html`<td>${
            k.revocable
              ? html`<div class="actions"><a class="button secondary" href="/console/keys/${k.id}/edit" aria-label="Edit the key “${k.name}”">Edit</a><form method="post" action="/console/keys/${k.id}/revoke" data-confirm="Revoke the key “${k.name}”? Calls with it are refused from now on."><input type="hidden" name="_csrf" value="${csrf}"><button type="submit" class="danger" aria-label="Revoke the key “${k.name}” (${k.prefix}…)">Revoke</button></form></div>`
              : html`—`
          }</td>`
        : html`<td>${when(k.revokedAt)}</td>`
    }</tr>`,
  )}</tbody>
</table></div>`
}

/** Asked again, on a page of its own, when the browser runs no script to confirm. */
export function revokeConfirmBody(o: { key: KeyLine; csrf: string }): Html {
  return html`<section class="card narrow">
  <p>Revoke the key <strong>${o.key.name}</strong> (<code>${o.key.prefix}…</code>)? Calls with it are refused from now on, on every server.</p>
  <form method="post" action="/console/keys/${o.key.id}/revoke">
    <input type="hidden" name="_csrf" value="${o.csrf}">
    <input type="hidden" name="confirmed" value="yes">
    <button type="submit" class="danger">Revoke the key</button>
    <a class="button secondary" href="/console/keys">Keep it</a>
  </form>
</section>`
}
