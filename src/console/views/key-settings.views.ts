/**
 * A key's spend controls on the console: the monthly credit limit and the endpoints it may call, as
 * form fields (the create form and the edit page share them) and as text in the list of keys.
 */
import { KEY_ENDPOINTS, MAX_KEY_CREDIT_LIMIT } from '../../key-caps/key-settings.ts'
import { count, when } from './format.ts'
import { html, type Html } from './html.ts'
import { ERROR_ID, fieldState } from './layout.ts'

/** What the settings fields show: a key's settings, or what was sent when the form is shown again. */
export interface KeySettingsValues {
  name: string
  /** The limit as typed ('' for none). */
  limit: string
  /** Every endpoint, rather than only the ticked ones. */
  every: boolean
  endpoints: readonly string[]
}

export const NO_SETTINGS: KeySettingsValues = { name: '', limit: '', every: true, endpoints: [] }

export const valuesOfKey = (k: { name: string; monthlyCreditLimit: number | null; endpoints: readonly string[] | null }): KeySettingsValues => ({
  name: k.name,
  limit: k.monthlyCreditLimit === null ? '' : String(k.monthlyCreditLimit),
  every: k.endpoints === null,
  endpoints: k.endpoints ?? [],
})

export const limitText = (limit: number | null): string => (limit === null ? 'No monthly limit' : count(limit, 'credit', 'credits'))

/** The endpoints of a key, as a list of paths, or “Every endpoint”. */
export function endpointsText(endpoints: readonly string[] | null): Html {
  if (endpoints === null) return html`Every endpoint`
  return html`<ul class="plain">${endpoints.map((e) => html`<li><code>/api/v1/${e}</code></li>`)}</ul>`
}

/** The monthly credit limit field; `id` keeps the ids of two forms on one page apart; `invalid` names the fields the page's error is about. */
export function limitField(id: string, value: string, invalid?: readonly string[]): Html {
  return html`<label for="${id}-limit">Monthly credit limit (optional)</label>
    <input type="number" id="${id}-limit" name="monthlyCreditLimit" min="0" max="${MAX_KEY_CREDIT_LIMIT}" step="1" inputmode="numeric" value="${value}"${fieldState('monthlyCreditLimit', { invalid, hint: `${id}-limit-hint` })}>
    <p class="hint" id="${id}-limit-hint">The most credits this key’s calls may use in a month. Calls that would pass it are refused with 402 and cost nothing; it starts again on the 1st of each month, UTC. Leave it blank for no limit on this key.</p>`
}

/** Every endpoint, or only the ticked ones: a group of its own with its legend (a group takes no aria-invalid: the error describes it). */
export function endpointsFieldset(id: string, v: KeySettingsValues, invalid?: readonly string[]): Html {
  const describedBy = invalid?.includes('endpoints') ? `${ERROR_ID} ${id}-endpoints-hint` : `${id}-endpoints-hint`
  return html`<fieldset class="choices" aria-describedby="${describedBy}">
      <legend>Endpoints this key may call</legend>
      <div class="check"><input type="radio" id="${id}-every" name="endpointsAllowed" value="every"${v.every ? html` checked` : ''}><label for="${id}-every">Every endpoint</label></div>
      <div class="check"><input type="radio" id="${id}-only" name="endpointsAllowed" value="only"${v.every ? '' : html` checked`}><label for="${id}-only">Only these:</label></div>
      <ul class="checks">${KEY_ENDPOINTS.map((e) => {
        const box = `${id}-endpoint-${e.replaceAll('/', '-')}`
        return html`<li class="check"><input type="checkbox" id="${box}" name="endpoints" value="${e}"${v.endpoints.includes(e) ? html` checked` : ''}><label for="${box}"><code>/api/v1/${e}</code></label></li>`
      })}</ul>
      <p class="hint" id="${id}-endpoints-hint">Calls to other endpoints are refused with 403 and cost nothing.</p>
    </fieldset>`
}

/** The page changing one key: its name, monthly limit and endpoints. */
export function editKeyBody(o: {
  key: { id: string; name: string; prefix: string; createdAt: number; creditsThisMonth: number }
  values: KeySettingsValues
  csrf: string
  /** The fields the page's error is about. */
  invalid?: readonly string[] | undefined
}): Html {
  const k = o.key
  return html`<section class="card" aria-labelledby="edit-key">
  <h2 id="edit-key">${k.name} (<code>${k.prefix}…</code>)</h2>
  <dl class="facts">
    <dt>Created</dt><dd>${when(k.createdAt)}</dd>
    <dt>Billed this month</dt><dd>${count(k.creditsThisMonth, 'credit', 'credits')}</dd>
  </dl>
  <form method="post" action="/console/keys/${k.id}/edit" class="narrow">
    <input type="hidden" name="_csrf" value="${o.csrf}">
    <label for="edit-name">Name</label>
    <input type="text" id="edit-name" name="name" maxlength="100" required value="${o.values.name}"${fieldState('name', { invalid: o.invalid })}>
    ${limitField('edit', o.values.limit, o.invalid)}
    ${endpointsFieldset('edit', o.values, o.invalid)}
    <button type="submit">Save changes</button>
    <a class="button secondary" href="/console/keys">Cancel</a>
  </form>
  <p class="hint">Changes apply from the key’s next call. A limit below what the key was billed this month refuses its calls that cost credits until the 1st of next month; nothing billed is given back.</p>
</section>`
}
