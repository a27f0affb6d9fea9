/**
 * Webhooks on the console: the account's endpoints, a new endpoint's signing secret shown once, the
 * low-balance alert, an endpoint's edit page and its deliveries with every attempt. An owner changes
 * them; a member reads them.
 */
import { WEBHOOK_EVENTS } from '../../ports/webhook-store.ts'
import type { deliveryView, webhookView } from '../../webhooks/webhooks.service.ts'
import { MAX_LOW_CREDITS } from '../../webhooks/webhooks.service.ts'
import { count, when } from './format.ts'
import { html, type Html } from './html.ts'
import { ERROR_ID, fieldState } from './layout.ts'

export type WebhookLine = ReturnType<typeof webhookView>
export type DeliveryLine = ReturnType<typeof deliveryView>

/** What the endpoint fields show: an endpoint's settings, or what was sent when the form is shown again. */
export interface WebhookValues {
  url: string
  events: readonly string[]
  enabled: boolean
}

export const NO_WEBHOOK: WebhookValues = { url: '', events: [], enabled: true }

export const valuesOfWebhook = (w: WebhookLine): WebhookValues => ({ url: w.url, events: w.events, enabled: w.enabled })

/** What each event tells, in the customer's words. */
const EVENT_TEXT: Record<string, string> = {
  'credits.low': 'the balance fell below your low-balance alert',
  'credits.exhausted': 'the balance reached 0 credits',
  'pack.expiring': 'a pack with credits left expires in 7 days',
  'pack.expired': 'a pack expired',
  'subscription.renewed': 'the plan renewed for a new period',
  'subscription.changed': 'the plan changed',
  'order.paid': 'an order was paid',
  'webhook.test': 'a test event sent from this console',
}

const ms = (iso: string | null): number | null => (iso === null ? null : Date.parse(iso))

const eventsText = (events: readonly string[]): Html => html`<ul class="plain">${events.map((e) => html`<li><code>${e}</code></li>`)}</ul>`

const stateText = (enabled: boolean): string => (enabled ? 'Enabled' : 'Disabled: events wait for it')

/** The signing secret of an endpoint just added: the one time it is shown, with how to check a delivery. */
export function newSecretNotice(created: { url: string; secret: string }): Html {
  return html`<section class="card" aria-labelledby="new-secret">
  <h2 id="new-secret">The signing secret of your new endpoint</h2>
  <p><strong>Copy it now: it is shown only this once.</strong> Your endpoint at <code>${created.url}</code> uses it to check that each delivery comes from this service.</p>
  <div class="secret"><code id="new-secret-value">${created.secret}</code><button type="button" class="secondary" data-copy="new-secret-value" hidden>Copy</button></div>
  ${verifyingNote()}
</section>`
}

function verifyingNote(): Html {
  return html`<p>Each delivery is a POST of JSON <code>{"id", "type", "createdAt", "account", "data"}</code> with the header <code>Pronet-Signature: t=…,v1=…</code>. To check it, compute the HMAC-SHA256, with this secret, of <code>t</code>, a dot and the body exactly as received, and compare its hex with <code>v1</code>; refuse a <code>t</code> more than 5 minutes from your clock.</p>
  <p class="hint">Answer with a 2xx status within 10 seconds. Anything else is tried again with growing waits for a day, so an event may arrive more than once: skip an <code>id</code> you have handled already.</p>`
}

/** Every event as a tick box, in a group of its own with its legend; `id` keeps the ids of two forms apart. */
function eventsFieldset(id: string, chosen: readonly string[], invalid?: readonly string[]): Html {
  const describedBy = invalid?.includes('events') ? `${ERROR_ID} ${id}-events-hint` : `${id}-events-hint`
  return html`<fieldset class="choices" aria-describedby="${describedBy}">
      <legend>Events to send</legend>
      <ul class="checks flush">${WEBHOOK_EVENTS.map((e) => {
        const box = `${id}-event-${e.replace('.', '-')}`
        return html`<li class="check"><input type="checkbox" id="${box}" name="events" value="${e}"${chosen.includes(e) ? html` checked` : ''}><label for="${box}"><code>${e}</code>: ${EVENT_TEXT[e]}</label></li>`
      })}</ul>
      <p class="hint" id="${id}-events-hint">Tick at least one. Each event goes to every endpoint that takes it, at least once: skip an <code>id</code> you have handled already.</p>
    </fieldset>`
}

function urlField(id: string, value: string, invalid?: readonly string[]): Html {
  return html`<label for="${id}-url">Address</label>
    <input type="url" id="${id}-url" name="url" maxlength="2048" required value="${value}"${fieldState('url', { invalid, hint: `${id}-url-hint` })}>
    <p class="hint" id="${id}-url-hint">An https address on the public internet that accepts POST requests, e.g. <code>https://example.com/pronet-events</code>.</p>`
}

export function webhooksBody(o: {
  webhooks: readonly WebhookLine[]
  lowCredits: number | null
  owner: boolean
  csrf: string
  created?: Html | undefined
  values?: WebhookValues | undefined
  /** The threshold as typed, when the alert form is shown again. */
  lowTyped?: string | undefined
  /** The fields the page's error is about. */
  invalid?: readonly string[] | undefined
}): Html {
  const v = o.values ?? NO_WEBHOOK
  const token = html`<input type="hidden" name="_csrf" value="${o.csrf}">`
  return html`${o.created ?? html``}
<section class="card" aria-labelledby="endpoints">
  <h2 id="endpoints">Endpoints</h2>
  <p>Your servers are told when something happens to the account: each event is POSTed as JSON to the endpoints that take it, signed with the endpoint’s secret.</p>
  ${o.webhooks.length === 0 ? html`<p>No endpoints yet.</p>` : endpointTable(o.webhooks, o.owner, token)}
  ${o.owner ? html`` : html`<p class="hint">Only an owner of the account can add, change or delete endpoints.</p>`}
</section>
${
  o.owner
    ? html`<section class="card" aria-labelledby="add">
  <h2 id="add">Add an endpoint</h2>
  <form method="post" action="/console/webhooks" class="narrow">
    ${token}
    ${urlField('new-webhook', v.url, o.invalid)}
    ${eventsFieldset('new-webhook', v.events, o.invalid)}
    <button type="submit">Add endpoint</button>
  </form>
  <p class="hint">Its signing secret is shown once, when it is added.</p>
</section>`
    : html``
}
<section class="card" aria-labelledby="alert">
  <h2 id="alert">Low-balance alert</h2>
  <p>${o.lowCredits === null ? html`Now: no low-balance alert.` : html`Now: <code>credits.low</code> is sent when the balance falls below ${count(o.lowCredits, 'credit', 'credits')}.`}</p>
  ${
    o.owner
      ? html`<form method="post" action="/console/webhooks/alerts" class="narrow">
    ${token}
    <label for="low-credits">Send credits.low when the balance falls below this many credits</label>
    <input type="number" id="low-credits" name="lowCredits" min="0" max="${MAX_LOW_CREDITS}" step="1" inputmode="numeric" value="${o.lowTyped ?? (o.lowCredits === null ? '' : String(o.lowCredits))}"${fieldState('lowCredits', { invalid: o.invalid, hint: 'low-credits-hint' })}>
    <p class="hint" id="low-credits-hint">Leave it blank for no alert. It is sent once each time the balance falls below this, to the endpoints that take <code>credits.low</code>; <code>credits.exhausted</code> is sent when the balance reaches 0.</p>
    <button type="submit">Save the alert</button>
  </form>`
      : html``
  }
</section>`
}

function endpointTable(webhooks: readonly WebhookLine[], owner: boolean, token: Html): Html {
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Table of webhook endpoints">
<table>
  <caption>Webhook endpoints</caption>
  <thead><tr><th scope="col">Address</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col">Added</th><th scope="col">Action</th></tr></thead>
  <tbody>${webhooks.map(
    (w) => html`<tr><td class="address"><code>${w.url}</code></td><td>${eventsText(w.events)}</td><td>${stateText(w.enabled)}</td><td>${when(ms(w.createdAt))}</td><td><div class="actions"><a class="button secondary" href="/console/webhooks/${w.id}/deliveries" aria-label="Deliveries to ${w.url}">Deliveries</a>${
      owner
        ? html`<a class="button secondary" href="/console/webhooks/${w.id}/edit" aria-label="Edit the endpoint ${w.url}">Edit</a><form method="post" action="/console/webhooks/${w.id}/test">${token}<button type="submit" class="secondary" aria-label="Send a test event to ${w.url}">Send a test event</button></form><form method="post" action="/console/webhooks/${w.id}/delete" data-confirm="Delete the endpoint ${w.url}? Nothing more is sent to it.">${token}<button type="submit" class="danger" aria-label="Delete the endpoint ${w.url}">Delete</button></form>`
        : html``
    }</div></td></tr>`,
  )}</tbody>
</table></div>`
}

/** The page changing one endpoint: its address, events, and whether events are sent to it. */
export function editWebhookBody(o: { webhook: WebhookLine; values: WebhookValues; csrf: string; invalid?: readonly string[] | undefined }): Html {
  const w = o.webhook
  return html`<section class="card" aria-labelledby="edit-webhook">
  <h2 id="edit-webhook" class="address"><code>${w.url}</code></h2>
  <dl class="facts">
    <dt>Added</dt><dd>${when(ms(w.createdAt))}</dd>
    <dt>Status</dt><dd>${stateText(w.enabled)}</dd>
  </dl>
  <form method="post" action="/console/webhooks/${w.id}/edit" class="narrow">
    <input type="hidden" name="_csrf" value="${o.csrf}">
    ${urlField('edit', o.values.url, o.invalid)}
    ${eventsFieldset('edit', o.values.events, o.invalid)}
    <div class="check spaced"><input type="checkbox" id="edit-enabled" name="enabled" value="yes"${o.values.enabled ? html` checked` : ''} aria-describedby="edit-enabled-hint"><label for="edit-enabled">Enabled: send events to this endpoint</label></div>
    <p class="hint" id="edit-enabled-hint">While it is off, events wait for it and go once it is on again; they are tried for a day from when they happened.</p>
    <button type="submit">Save changes</button>
    <a class="button secondary" href="/console/webhooks">Cancel</a>
  </form>
  <p class="hint">Changes apply from the next delivery. The signing secret stays the same.</p>
</section>`
}

function stateOf(d: DeliveryLine): string {
  if (d.state === 'delivered') return 'Delivered'
  if (d.state === 'failed') return 'Failed: given up'
  return d.attempts.length === 0 ? 'Waiting to be sent' : 'Waiting to be tried again'
}

function attemptText(a: DeliveryLine['attempts'][number]): string {
  const answer = a.error ?? (a.status === null ? 'No answer.' : `Answered ${a.status}.`)
  return `${when(ms(a.at))}: ${answer} (${a.durationMs} ms)`
}

/** The deliveries to one endpoint, newest first, each with every attempt. */
export function deliveriesBody(o: { webhook: WebhookLine; deliveries: readonly DeliveryLine[]; owner: boolean; csrf: string }): Html {
  const w = o.webhook
  return html`<section class="card" aria-labelledby="endpoint">
  <h2 id="endpoint" class="address"><code>${w.url}</code></h2>
  <dl class="facts">
    <dt>Events</dt><dd>${w.events.join(', ')}</dd>
    <dt>Status</dt><dd>${stateText(w.enabled)}</dd>
  </dl>
  <div class="actions spaced">${
    o.owner
      ? html`<form method="post" action="/console/webhooks/${w.id}/test"><input type="hidden" name="_csrf" value="${o.csrf}"><button type="submit">Send a test event</button></form><a class="button secondary" href="/console/webhooks/${w.id}/edit">Edit the endpoint</a>`
      : html``
  }<a class="button secondary" href="/console/webhooks">All endpoints</a></div>
</section>
<section class="card" aria-labelledby="deliveries">
  <h2 id="deliveries">Deliveries</h2>
  ${
    o.deliveries.length === 0
      ? html`<p>Nothing has been sent to this endpoint yet.</p>`
      : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Table of deliveries">
<table>
  <caption>Deliveries, newest first</caption>
  <thead><tr><th scope="col">Event</th><th scope="col">Happened</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Next attempt</th></tr></thead>
  <tbody>${o.deliveries.map(
    (d) => html`<tr><td><code>${d.event}</code><br><span class="hint">id <code>${d.eventId}</code></span></td><td>${when(ms(d.createdAt))}</td><td>${stateOf(d)}</td><td>${
      d.attempts.length === 0 ? html`None yet` : html`<ol class="plain">${d.attempts.map((a) => html`<li>${attemptText(a)}</li>`)}</ol>`
    }</td><td>${d.state === 'pending' && !w.enabled ? 'Once the endpoint is enabled' : when(ms(d.nextAttemptAt))}</td></tr>`,
  )}</tbody>
</table></div>`
  }
  <p class="hint">The last 100 deliveries at most are shown. A delivery is delivered when your endpoint answers 2xx within 10 seconds; otherwise it is tried again with growing waits for a day, then given up.</p>
</section>`
}

/**
 * What a test delivery's first attempt came to, as a notice over the deliveries. A disabled endpoint
 * is sent the test all the same, but its retries wait until it is enabled.
 */
export function testResultText(d: DeliveryLine, enabled: boolean): { kind: 'ok' | 'error'; text: string } {
  const a = d.attempts[d.attempts.length - 1]
  if (d.state === 'delivered') return { kind: 'ok', text: `The test event was delivered: your endpoint answered ${a?.status ?? 'in time'}.` }
  const why = a === undefined ? 'it was not sent.' : (a.error ?? `your endpoint answered ${a.status}.`)
  const next =
    d.nextAttemptAt === null ? 'It is not tried again.' : enabled ? `It is tried again at ${when(ms(d.nextAttemptAt))}.` : 'It is tried again once the endpoint is enabled.'
  return { kind: 'error', text: `The test event was not delivered: ${why} ${next}` }
}
