/**
 * The account's webhooks on the console: its endpoints, the low-balance alert, an endpoint's edit
 * page, its deliveries, a test event, deleting behind a confirmation. Anyone signed in to the account
 * reads them; only an owner changes them. Another account's endpoint, or an unknown one, answers 404.
 * A suspended account adds no endpoint and sends no test event.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, isApiError } from '../domain/errors.ts'
import { WEBHOOK_EVENTS } from '../ports/webhook-store.ts'
import { MAX_WEBHOOKS } from '../webhooks/webhook-settings.ts'
import { DELIVERY_LIST_LIMIT, MAX_LOW_CREDITS, type WebhooksService } from '../webhooks/webhooks.service.ts'
import type { ConsoleDeps } from './console-deps.ts'
import { creditsTyped, field, fields, form, formRefusal, refusalNotice, send, type FieldLabels, type Form } from './forms.ts'
import { refuseIfSuspended, requireUser, USER_COOKIE, viewerOf, type SignedIn } from './session.ts'
import { confirmBody } from './views/auth.views.ts'
import { num } from './views/format.ts'
import type { Html } from './views/html.ts'
import { page, type Notice } from './views/layout.ts'
import {
  deliveriesBody,
  editWebhookBody,
  newSecretNotice,
  testResultText,
  valuesOfWebhook,
  webhooksBody,
  type WebhookLine,
  type WebhookValues,
} from './views/webhooks.views.ts'

const ownersOnly = () => new ApiError('FORBIDDEN', 'Only an owner of this account can do this.')
const noSuchEndpoint = () => new ApiError('NOT_FOUND', 'There is no such endpoint in this account.')

/** Short messages a redirect names by a word, so no text travels in a URL. */
const DONE: Record<string, Notice> = {
  updated: { kind: 'ok', text: 'The endpoint is saved: the changes apply from its next delivery.' },
  deleted: { kind: 'ok', text: 'The endpoint is deleted: nothing more is sent to it.' },
  alert: { kind: 'ok', text: 'The low-balance alert is saved.' },
  'alert-off': { kind: 'ok', text: 'The low-balance alert is off.' },
}
function doneNotice(request: FastifyRequest): Notice | undefined {
  const done = (request.query as { done?: string }).done ?? ''
  return Object.hasOwn(DONE, done) ? DONE[done] : undefined
}

/** The endpoint fields of a posted form, as typed: what the form shows when it is sent back. */
// A box with an empty value is none ticked (a browser sends nothing for it).
const webhookValues = (f: Form): WebhookValues => ({ url: field(f, 'url').trim(), events: fields(f, 'events').filter((e) => e !== ''), enabled: field(f, 'enabled') === 'yes' })

/** The address and events of a posted form, checked in the customer's words before the service sees them. */
function checked(v: WebhookValues): { url: string; events: string[] } {
  if (v.url === '') throw formRefusal('Give the address of your endpoint, such as https://example.com/pronet-events.', 'url')
  if (v.events.length === 0) throw formRefusal('Tick at least one event to send to this endpoint.', 'events')
  const unknown = v.events.find((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e))
  if (unknown !== undefined) throw formRefusal(`“${unknown.slice(0, 60)}” is not an event; tick the events in the list.`, 'events')
  return { url: v.url, events: [...new Set(v.events)] }
}

/** The fields of an endpoint's forms, as their labels name them. */
const WEBHOOK_FIELDS: FieldLabels = { url: 'address', events: 'events' }

/** The same address as the service keeps it, to tell a form sent twice from a new endpoint. */
function sameAddress(a: string, b: string): boolean {
  try {
    return new URL(a).toString() === new URL(b).toString()
  } catch {
    return false
  }
}

export function registerWebhookPages(app: FastifyInstance, deps: ConsoleDeps): void {
  const user = (request: FastifyRequest) => requireUser(deps, request, USER_COOKIE)
  const render = (reply: FastifyReply, s: SignedIn, csrf: string, o: { title: string; body: Html; notice?: Notice | undefined; status?: number }) =>
    send(reply, o.status ?? 200, page({ title: o.title, active: 'webhooks', body: o.body, notice: o.notice, viewer: { ...viewerOf(s), suspended: s.suspended }, csrf }))

  /** The account's endpoint, or 404 as if it did not exist (another account's, or none). */
  async function endpointOf(s: SignedIn, request: FastifyRequest): Promise<WebhookLine> {
    const whId = (request.params as { whId: string }).whId
    try {
      return await deps.webhooks.get(s.accountId, whId)
    } catch (e) {
      if (isApiError(e) && e.code === 'NOT_FOUND') throw noSuchEndpoint()
      throw e
    }
  }

  async function listPage(
    reply: FastifyReply,
    s: SignedIn,
    o: { created?: Html; notice?: Notice | undefined; status?: number; values?: WebhookValues; lowTyped?: string; invalid?: readonly string[] | undefined } = {},
  ) {
    const [webhooks, alerts] = await Promise.all([deps.webhooks.list(s.accountId), deps.webhooks.alerts(s.accountId)])
    const csrf = reply.generateCsrf()
    const body = webhooksBody({ webhooks, lowCredits: alerts.lowCredits, owner: s.role === 'owner', csrf, created: o.created, values: o.values, lowTyped: o.lowTyped, invalid: o.invalid })
    return render(reply, s, csrf, { title: 'Webhooks', body, notice: o.notice, ...(o.status ? { status: o.status } : {}) })
  }

  async function deliveriesPage(reply: FastifyReply, s: SignedIn, webhook: WebhookLine, o: { notice?: Notice | undefined; status?: number } = {}) {
    const deliveries = await deps.webhooks.deliveries(s.accountId, webhook.id, DELIVERY_LIST_LIMIT)
    const csrf = reply.generateCsrf()
    return render(reply, s, csrf, {
      title: 'Webhook deliveries',
      body: deliveriesBody({ webhook, deliveries, owner: s.role === 'owner', csrf }),
      notice: o.notice,
      ...(o.status ? { status: o.status } : {}),
    })
  }

  function editPage(reply: FastifyReply, s: SignedIn, webhook: WebhookLine, values: WebhookValues, o: { notice?: Notice; status?: number } = {}) {
    const csrf = reply.generateCsrf()
    const body = editWebhookBody({ webhook, values, csrf, invalid: o.notice?.fields })
    return render(reply, s, csrf, { title: 'Edit an endpoint', body, notice: o.notice, ...(o.status ? { status: o.status } : {}) })
  }

  app.get('/webhooks', async (request, reply) => listPage(reply, await user(request), { notice: doneNotice(request) }))

  app.post('/webhooks', async (request, reply) => {
    const s = await user(request)
    if (s.role !== 'owner') throw ownersOnly()
    const values = webhookValues(form(request))
    try {
      refuseIfSuspended(s)
      const input = checked(values)
      // One endpoint an address: the same form sent again (a reload) makes no second secret nobody saw.
      const existing = await deps.webhooks.list(s.accountId)
      if (existing.some((w) => sameAddress(w.url, input.url))) {
        throw formRefusal('An endpoint with this address exists already; edit it to change its events.', 'url')
      }
      // Said here in the page's words; the service refuses it alike.
      if (existing.length >= MAX_WEBHOOKS) throw new ApiError('INVALID_PARAMETER', `An account has at most ${MAX_WEBHOOKS} webhook endpoints; delete one first.`)
      const created = await deps.webhooks.create(s.accountId, input)
      // The secret is in this answer only: no redirect, so it never travels in a URL or a later page.
      return listPage(reply, s, { created: newSecretNotice(created), status: 201 })
    } catch (e) {
      if (!isApiError(e)) throw e
      const notice = refusalNotice(e, WEBHOOK_FIELDS)
      return listPage(reply, s, { notice, status: e.status, values, invalid: notice.fields })
    }
  })

  app.post('/webhooks/alerts', async (request, reply) => {
    const s = await user(request)
    if (s.role !== 'owner') throw ownersOnly()
    const typed = field(form(request), 'lowCredits').trim()
    const lowCredits = creditsTyped(typed, MAX_LOW_CREDITS)
    if (lowCredits === undefined) {
      const text = `The low-balance alert must be a whole number of credits from 0 to ${num(MAX_LOW_CREDITS)}, or blank for no alert.`
      return listPage(reply, s, { notice: { kind: 'error', text, fields: ['lowCredits'] }, status: 400, lowTyped: typed, invalid: ['lowCredits'] })
    }
    await deps.webhooks.setAlerts(s.accountId, { lowCredits })
    return reply.redirect(`/console/webhooks?done=${lowCredits === null ? 'alert-off' : 'alert'}`, 303)
  })

  app.get('/webhooks/:whId/edit', async (request, reply) => {
    const s = await user(request)
    const webhook = await endpointOf(s, request)
    if (s.role !== 'owner') throw ownersOnly()
    return editPage(reply, s, webhook, valuesOfWebhook(webhook))
  })

  app.post('/webhooks/:whId/edit', async (request, reply) => {
    const s = await user(request)
    const webhook = await endpointOf(s, request)
    if (s.role !== 'owner') throw ownersOnly()
    const values = webhookValues(form(request))
    try {
      const input = checked(values)
      if ((await deps.webhooks.list(s.accountId)).some((w) => w.id !== webhook.id && sameAddress(w.url, input.url))) {
        throw formRefusal('Another endpoint has this address already; choose another address.', 'url')
      }
      await deps.webhooks.update(s.accountId, webhook.id, { ...input, enabled: values.enabled })
    } catch (e) {
      if (!isApiError(e) || e.code !== 'INVALID_PARAMETER') throw e
      return editPage(reply, s, webhook, values, { notice: refusalNotice(e, WEBHOOK_FIELDS), status: e.status })
    }
    return reply.redirect('/console/webhooks?done=updated', 303)
  })

  app.post('/webhooks/:whId/delete', async (request, reply) => {
    const s = await user(request)
    const webhook = await endpointOf(s, request)
    if (s.role !== 'owner') throw ownersOnly()
    if (field(form(request), 'confirmed') !== 'yes') {
      const csrf = reply.generateCsrf()
      const question = `Delete the endpoint ${webhook.url}? Nothing more is sent to it, and the record of its deliveries is deleted with it.`
      const body = confirmBody({ question, action: `/console/webhooks/${webhook.id}/delete`, csrf, button: 'Delete the endpoint', back: '/console/webhooks' })
      return render(reply, s, csrf, { title: 'Delete an endpoint', body })
    }
    await deps.webhooks.remove(s.accountId, webhook.id)
    return reply.redirect('/console/webhooks?done=deleted', 303)
  })

  app.post('/webhooks/:whId/test', async (request, reply) => {
    const s = await user(request)
    const webhook = await endpointOf(s, request)
    if (s.role !== 'owner') throw ownersOnly()
    refuseIfSuspended(s)
    // Sent now, and this answer shows how its first attempt went, over the list of deliveries.
    let delivery: Awaited<ReturnType<WebhooksService['test']>>
    try {
      delivery = await deps.webhooks.test(s.accountId, webhook.id)
    } catch (e) {
      if (!(isApiError(e) && e.code === 'RATE_LIMITED')) throw e
      // One test every few seconds: the page says when the next may go, over the deliveries as they are.
      if (e.headers) reply.headers(e.headers)
      return deliveriesPage(reply, s, webhook, { notice: { kind: 'error', text: e.message }, status: 429 })
    }
    return deliveriesPage(reply, s, webhook, { notice: testResultText(delivery, webhook.enabled) })
  })

  app.get('/webhooks/:whId/deliveries', async (request, reply) => {
    const s = await user(request)
    return deliveriesPage(reply, s, await endpointOf(s, request))
  })
}
