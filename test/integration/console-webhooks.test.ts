/**
 * The console's webhooks page, on every backend, against a receiver of our own on 127.0.0.1: an owner
 * adds an endpoint (its signing secret shown once, in the answer only), edits its events, disables it,
 * sends a test event that arrives signed and shows on the deliveries page with every attempt, deletes
 * it behind a confirmation; sets and clears the low-balance alert; bad input shows the form again with
 * 400 and changes nothing; a member reads but changes nothing (403); another account's endpoint is
 * 404; every change needs the form's token; a suspended account adds no endpoint and sends no test.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { verifySignature } from '../../src/webhooks/webhook-signature.ts'
import { ConsoleClient } from '../helpers/console-client.ts'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../helpers/webhook-receiver.ts'

const NOW = Date.UTC(2026, 10, 20, 12)
const MINUTE = 60_000

const NO_TOKEN = 'This form has expired or did not come from this console. Go back, reload the page and send it again.'
const OWNERS_ONLY = 'Only an owner of this account can do this.'
const NO_SUCH_ENDPOINT = 'There is no such endpoint in this account.'
const SUSPENDED = 'This account is suspended by the operator of this service; contact them.'
const SHOWN_ONCE = 'Copy it now: it is shown only this once.'
const BAD_LOW = 'The low-balance alert must be a whole number of credits from 0 to 1,000,000,000, or blank for no alert.'
const NO_EVENT = 'Tick at least one event to send to this endpoint.'

type Received = ReceivedDelivery

let t: TestApp
let hooks: WebhookReceiver
let hookUrl: string
let received: Received[]

beforeAll(async () => {
  hooks = await startWebhookReceiver(() => t.clock.now())
  hookUrl = hooks.url
  received = hooks.received
  t = await makeTestApp({ nowMs: NOW, env: { PRONET_WEBHOOK_PRIVATE_URLS: 'allow' } })
})
afterAll(async () => {
  await t?.close()
  await hooks.close()
})
beforeEach(() => {
  received.length = 0
  hooks.answers.length = 0
  t.clock.set(NOW)
})

async function signedUp(email: string): Promise<{ browser: ConsoleClient; accountId: string }> {
  const browser = new ConsoleClient(t.app)
  const key = await browser.signUp(email)
  return { browser, accountId: (await t.c.accounts.identify(key)).accountId }
}

/** A member of the account, signed in. */
async function memberOf(accountId: string, email: string): Promise<ConsoleClient> {
  await t.c.identity.createUser({ email, password: 'member password 1', accountId, role: 'member' })
  const member = new ConsoleClient(t.app)
  expect((await member.signIn(email, 'member password 1')).statusCode).toBe(303)
  return member
}

/**
 * A form sent as a browser sends it, ticked boxes repeating their name, with the client's cookies and
 * the last page's token (unless `csrf` says otherwise).
 */
function send(browser: ConsoleClient, url: string, pairs: [string, string][], o: { csrf?: string | false } = {}) {
  const body = new URLSearchParams(pairs)
  if (o.csrf !== false) body.set('_csrf', o.csrf ?? browser.csrf)
  return t.app.inject({
    method: 'POST',
    url,
    headers: { cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
    payload: body.toString(),
  })
}

/** The endpoint form's fields: an address, the ticked events, and (on the edit page) the enabled box. */
const endpoint = (url: string, events: string[], enabled?: boolean): [string, string][] => [
  ['url', url],
  ...events.map((e): [string, string] => ['events', e]),
  ...(enabled ? [['enabled', 'yes'] as [string, string]] : []),
]

const notice = (kind: 'ok' | 'error', text: string) => `<p class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>`

/** The account's endpoints as the service has them (without secrets). */
const endpoints = async (accountId: string) => (await t.c.webhooks.list(accountId)).map(({ url, events, enabled }) => ({ url, events, enabled }))

/** The texts of an endpoint's line on the webhooks page: address, events, status, added. */
function endpointCells(body: string, url: string): string[] {
  const row = new RegExp(`<tr><td class="address"><code>${url.replace(/[.?]/g, '\\$&')}</code></td>.*?</tr>`, 's').exec(body)?.[0]
  if (row === undefined) throw new Error(`no line for the endpoint ${url}`)
  const cells = [...row.matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((m) => (m[1] as string).replaceAll('</li><li>', ', ').replace(/<[^>]+>/g, '').trim())
  return cells.slice(0, 4)
}

/** The deliveries page's rows: event, happened, state, attempts, next attempt. */
function deliveryRows(body: string): string[][] {
  const tbody = /<tbody>(.*?)<\/tbody>/s.exec(body)?.[1] ?? ''
  return [...tbody.matchAll(/<tr>(.*?)<\/tr>/gs)].map((r) =>
    [...(r[1] as string).matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((m) =>
      (m[1] as string)
        .replaceAll('</li><li>', ' | ')
        .replace(/<br>.*$/s, '')
        .replace(/<[^>]+>/g, '')
        .replace(/\(\d+ ms\)/g, '(N ms)')
        .trim(),
    ),
  )
}

describe('an owner’s endpoint, from adding it to deleting it', () => {
  it('adds an endpoint with its secret shown once, edits its events, disables it, sends a test event and sees its attempts, deletes it', async () => {
    const { browser, accountId } = await signedUp('hooks@example.com')
    const empty = await browser.get('/console/webhooks')
    expect(empty.statusCode).toBe(200)
    expect(empty.body).toContain('<h1>Webhooks</h1>')
    expect(empty.body).toContain('<a href="/console/webhooks" aria-current="page">Webhooks</a>')
    expect(empty.body).toContain('<p>No endpoints yet.</p>')
    expect(empty.body).toContain('<form method="post" action="/console/webhooks" class="narrow">')
    expect(empty.body).toContain('<p>Now: no low-balance alert.</p>')

    // Added: 201, the secret in this answer only, with how to check a signature.
    const made = await send(browser, '/console/webhooks', endpoint(hookUrl, ['credits.low', 'order.paid']))
    expect(made.statusCode).toBe(201)
    expect(made.headers.location).toBeUndefined()
    const secret = /<code id="new-secret-value">(whsec_[A-Za-z0-9_-]+)<\/code>/.exec(made.body)?.[1]
    expect(secret).toBeDefined()
    expect(made.body).toContain(`<strong>${SHOWN_ONCE}</strong> Your endpoint at <code>${hookUrl}</code> uses it to check that each delivery comes from this service.`)
    expect(made.body).toContain('To check it, compute the HMAC-SHA256, with this secret, of <code>t</code>, a dot and the body exactly as received, and compare its hex with <code>v1</code>; refuse a <code>t</code> more than 5 minutes from your clock.')
    expect(made.body).toContain('so an event may arrive more than once: skip an <code>id</code> you have handled already.')
    expect(endpointCells(made.body, hookUrl)).toEqual([hookUrl, 'credits.low, order.paid', 'Enabled', '2026-11-20 12:00 UTC'])
    expect(await endpoints(accountId)).toEqual([{ url: hookUrl, events: ['credits.low', 'order.paid'], enabled: true }])
    const whId = (await t.c.webhooks.list(accountId)).map((w) => w.id)[0] as string

    // Never again: not on the list page, and the same form sent again makes no second endpoint.
    const list = await browser.get('/console/webhooks')
    expect(list.body).not.toContain(secret)
    expect(list.body).not.toContain('new-secret-value')
    expect(list.body).not.toContain(SHOWN_ONCE)
    expect(list.body).toContain(`<a class="button secondary" href="/console/webhooks/${whId}/edit" aria-label="Edit the endpoint ${hookUrl}">Edit</a>`)
    expect(list.body).toContain(`<form method="post" action="/console/webhooks/${whId}/test">`)
    expect(list.body).toContain(`<form method="post" action="/console/webhooks/${whId}/delete" data-confirm="Delete the endpoint ${hookUrl}? Nothing more is sent to it.">`)
    const again = await send(browser, '/console/webhooks', endpoint(hookUrl, ['credits.low', 'order.paid']))
    expect(again.statusCode).toBe(400)
    expect(again.body).toContain(notice('error', 'An endpoint with this address exists already; edit it to change its events.'))
    expect(again.body).not.toContain('new-secret-value')
    expect(await endpoints(accountId)).toHaveLength(1)

    // The edit page shows the settings; new events are saved.
    const form = await browser.get(`/console/webhooks/${whId}/edit`)
    expect(form.statusCode).toBe(200)
    expect(form.body).toContain('<h1>Edit an endpoint</h1>')
    expect(form.body).toContain(`<form method="post" action="/console/webhooks/${whId}/edit" class="narrow">`)
    expect(form.body).toContain(`name="url" maxlength="2048" required value="${hookUrl}" aria-describedby="edit-url-hint">`)
    expect(form.body).toContain('<input type="checkbox" id="edit-event-credits-low" name="events" value="credits.low" checked>')
    expect(form.body).toContain('<input type="checkbox" id="edit-event-order-paid" name="events" value="order.paid" checked>')
    expect(form.body).toContain('<input type="checkbox" id="edit-event-pack-expired" name="events" value="pack.expired">')
    expect(form.body).toContain('<input type="checkbox" id="edit-enabled" name="enabled" value="yes" checked aria-describedby="edit-enabled-hint">')
    const edited = await send(browser, `/console/webhooks/${whId}/edit`, endpoint(hookUrl, ['pack.expired', 'order.paid'], true))
    expect([edited.statusCode, edited.headers.location]).toEqual([303, '/console/webhooks?done=updated'])
    expect(await endpoints(accountId)).toEqual([{ url: hookUrl, events: ['pack.expired', 'order.paid'], enabled: true }])
    const saved = await browser.get('/console/webhooks?done=updated')
    expect(saved.body).toContain(notice('ok', 'The endpoint is saved: the changes apply from its next delivery.'))
    expect(endpointCells(saved.body, hookUrl)).toEqual([hookUrl, 'pack.expired, order.paid', 'Enabled', '2026-11-20 12:00 UTC'])

    // Disabled: the box left unticked.
    await browser.get(`/console/webhooks/${whId}/edit`)
    const disabled = await send(browser, `/console/webhooks/${whId}/edit`, endpoint(hookUrl, ['pack.expired', 'order.paid']))
    expect([disabled.statusCode, disabled.headers.location]).toEqual([303, '/console/webhooks?done=updated'])
    expect(await endpoints(accountId)).toEqual([{ url: hookUrl, events: ['pack.expired', 'order.paid'], enabled: false }])
    expect(endpointCells((await browser.get('/console/webhooks')).body, hookUrl)).toEqual([hookUrl, 'pack.expired, order.paid', 'Disabled: events wait for it', '2026-11-20 12:00 UTC'])
    expect((await browser.get(`/console/webhooks/${whId}/edit`)).body).toContain('<input type="checkbox" id="edit-enabled" name="enabled" value="yes" aria-describedby="edit-enabled-hint">')

    // A test event goes now (disabled or not), signed with the secret shown once; the answer says how it went.
    t.clock.advance(MINUTE)
    const tested = await send(browser, `/console/webhooks/${whId}/test`, [])
    expect(tested.statusCode).toBe(200)
    expect(tested.body).toContain('<h1>Webhook deliveries</h1>')
    expect(tested.body).toContain(notice('ok', 'The test event was delivered: your endpoint answered 204.'))
    expect(received).toHaveLength(1)
    const r = received[0] as Received
    expect(r.json).toEqual({ id: expect.stringMatching(/^evt_/), type: 'webhook.test', createdAt: '2026-11-20T12:01:00.000Z', account: accountId, data: expect.objectContaining({ webhookId: whId }) })
    expect(verifySignature(secret as string, String(r.headers['pronet-signature']), r.body, Math.floor(r.at / 1000))).toBe(true)
    expect(verifySignature(`${secret}x`, String(r.headers['pronet-signature']), r.body, Math.floor(r.at / 1000))).toBe(false)
    expect(deliveryRows(tested.body)).toEqual([['webhook.test', '2026-11-20 12:01 UTC', 'Delivered', '2026-11-20 12:01 UTC: Answered 204. (N ms)', '—']])
    expect(tested.body).toContain(`id <code>${r.json.id}</code>`)
    // Another test at once is refused, and the page says when one may go; nothing more is sent.
    const tooSoon = await send(browser, `/console/webhooks/${whId}/test`, [])
    expect([tooSoon.statusCode, tooSoon.headers['retry-after']]).toEqual([429, '10'])
    expect(tooSoon.body).toContain(notice('error', 'A test event was sent to this endpoint moments ago; send another in 10 s.'))
    expect(deliveryRows(tooSoon.body)).toHaveLength(1)
    expect(received).toHaveLength(1)

    // A test the receiver refuses: the answer says so, and that its retry waits for the endpoint to be enabled.
    t.clock.advance(MINUTE)
    hooks.answers.push(500)
    const refused = await send(browser, `/console/webhooks/${whId}/test`, [])
    expect(refused.statusCode).toBe(200)
    expect(refused.body).toContain(notice('error', 'The test event was not delivered: The receiver answered 500. It is tried again once the endpoint is enabled.'))
    expect(deliveryRows(refused.body)).toEqual([
      ['webhook.test', '2026-11-20 12:02 UTC', 'Waiting to be tried again', '2026-11-20 12:02 UTC: The receiver answered 500. (N ms)', 'Once the endpoint is enabled'],
      ['webhook.test', '2026-11-20 12:01 UTC', 'Delivered', '2026-11-20 12:01 UTC: Answered 204. (N ms)', '—'],
    ])
    t.clock.advance(MINUTE)
    await t.c.webhooks.deliverDue()
    expect(received).toHaveLength(2)

    // Enabled again: the page gives the retry's time, and the retry goes.
    const enabled = await send(browser, `/console/webhooks/${whId}/edit`, endpoint(hookUrl, ['pack.expired', 'order.paid'], true))
    expect([enabled.statusCode, enabled.headers.location]).toEqual([303, '/console/webhooks?done=updated'])
    expect(deliveryRows((await browser.get(`/console/webhooks/${whId}/deliveries`)).body)[0]?.[4]).toBe('2026-11-20 12:02 UTC')
    await t.c.webhooks.deliverDue()
    expect(received).toHaveLength(3)
    expect(received[2]?.json.id).toBe(received[1]?.json.id)
    const shown = await browser.get(`/console/webhooks/${whId}/deliveries`)
    expect(shown.statusCode).toBe(200)
    expect(shown.body).toContain('<caption>Deliveries, newest first</caption>')
    expect(deliveryRows(shown.body)).toEqual([
      ['webhook.test', '2026-11-20 12:02 UTC', 'Delivered', '2026-11-20 12:02 UTC: The receiver answered 500. (N ms) | 2026-11-20 12:03 UTC: Answered 204. (N ms)', '—'],
      ['webhook.test', '2026-11-20 12:01 UTC', 'Delivered', '2026-11-20 12:01 UTC: Answered 204. (N ms)', '—'],
    ])

    // Deleting asks first, on a page of its own, then deletes.
    await browser.get('/console/webhooks')
    const ask = await send(browser, `/console/webhooks/${whId}/delete`, [])
    expect(ask.statusCode).toBe(200)
    expect(ask.body).toContain('<h1>Delete an endpoint</h1>')
    expect(ask.body).toContain(`<p>Delete the endpoint ${hookUrl}? Nothing more is sent to it, and the record of its deliveries is deleted with it.</p>`)
    expect(ask.body).toContain('<input type="hidden" name="confirmed" value="yes">')
    expect(await endpoints(accountId)).toHaveLength(1)
    const deleted = await send(browser, `/console/webhooks/${whId}/delete`, [['confirmed', 'yes']])
    expect([deleted.statusCode, deleted.headers.location]).toEqual([303, '/console/webhooks?done=deleted'])
    expect(await endpoints(accountId)).toEqual([])
    const gone = await browser.get('/console/webhooks?done=deleted')
    expect(gone.body).toContain(notice('ok', 'The endpoint is deleted: nothing more is sent to it.'))
    expect(gone.body).toContain('<p>No endpoints yet.</p>')
    expect((await browser.get(`/console/webhooks/${whId}/deliveries`)).statusCode).toBe(404)
  })

  it('sets the low-balance alert, refuses a bad one and keeps the old, and clears it', async () => {
    const { browser, accountId } = await signedUp('alerts@example.com')
    await browser.get('/console/webhooks')
    const set = await send(browser, '/console/webhooks/alerts', [['lowCredits', '500']])
    expect([set.statusCode, set.headers.location]).toEqual([303, '/console/webhooks?done=alert'])
    expect(await t.c.webhooks.alerts(accountId)).toEqual({ lowCredits: 500 })
    const page = await browser.get('/console/webhooks?done=alert')
    expect(page.body).toContain(notice('ok', 'The low-balance alert is saved.'))
    expect(page.body).toContain('<p>Now: <code>credits.low</code> is sent when the balance falls below 500 credits.</p>')
    expect(page.body).toContain('<label for="low-credits">Send credits.low when the balance falls below this many credits</label>')
    expect(page.body).toContain('name="lowCredits" min="0" max="1000000000" step="1" inputmode="numeric" value="500"')

    for (const typed of ['-1', '1.5', 'ten', '1,000', '1000000001', '99999999999999999999']) {
      const res = await send(browser, '/console/webhooks/alerts', [['lowCredits', typed]])
      expect(res.statusCode, typed).toBe(400)
      expect(res.body, typed).toContain(notice('error', BAD_LOW))
      expect(res.body, typed).toContain(`inputmode="numeric" value="${typed}" aria-invalid="true" aria-describedby="form-error low-credits-hint">`)
      expect(await t.c.webhooks.alerts(accountId), typed).toEqual({ lowCredits: 500 })
    }

    const cleared = await send(browser, '/console/webhooks/alerts', [['lowCredits', '  ']])
    expect([cleared.statusCode, cleared.headers.location]).toEqual([303, '/console/webhooks?done=alert-off'])
    expect(await t.c.webhooks.alerts(accountId)).toEqual({ lowCredits: null })
    const off = await browser.get('/console/webhooks?done=alert-off')
    expect(off.body).toContain(notice('ok', 'The low-balance alert is off.'))
    expect(off.body).toContain('<p>Now: no low-balance alert.</p>')
    expect(off.body).toContain('inputmode="numeric" value=""')
  })
})

describe('bad input', () => {
  it('shows the form again with 400 and the reason, keeps what was typed, and creates or changes nothing', async () => {
    const { browser, accountId } = await signedUp('typos-hooks@example.com')
    await browser.get('/console/webhooks')
    const cases: [string, [string, string][], string][] = [
      ['no address', endpoint('', ['order.paid']), 'Give the address of your endpoint, such as https://example.com/pronet-events.'],
      ['not http', endpoint('ftp://example.com/x', ['order.paid']), 'The address must be an https address.'],
      ['not absolute', endpoint('example.com/x', ['order.paid']), 'The address must be an absolute https address, such as https://example.com/pronet-events.'],
      ['a password in it', endpoint('https://user:pw@example.com/x', ['order.paid']), 'The address must carry no user name or password; deliveries are signed instead.'],
      ['too long', endpoint(`https://example.com/${'x'.repeat(2048)}`, ['order.paid']), 'The address must be an https address of at most 2048 characters.'],
      // 2048 characters as typed (the field's limit), 2050 once the parser escapes the space.
      ['too long as kept', endpoint(`https://example.com/${'x'.repeat(2000)} ${'y'.repeat(27)}`, ['order.paid']), 'The address must be an https address of at most 2048 characters.'],
      ['a host that cannot exist', endpoint(`https://${'a'.repeat(64)}.example.com/x`, ['order.paid']), 'The address must name a host that can exist: labels of at most 63 characters, 253 in all.'],
      ['no event ticked', endpoint('https://example.com/x', []), NO_EVENT],
      ['an event that does not exist', endpoint('https://example.com/x', ['order.paid', 'order.refunded']), '“order.refunded” is not an event; tick the events in the list.'],
    ]
    for (const [what, fields, text] of cases) {
      const res = await send(browser, '/console/webhooks', fields)
      expect(res.statusCode, what).toBe(400)
      expect(res.headers['content-type'], what).toMatch(/^text\/html/)
      expect(res.body, what).toContain(notice('error', text))
      expect(res.body, what).toContain('<form method="post" action="/console/webhooks" class="narrow">')
      expect(res.body, what).not.toContain('new-secret-value')
      expect(await endpoints(accountId), what).toEqual([])
    }
    // The form keeps what was sent, to be corrected.
    const kept = await send(browser, '/console/webhooks', endpoint('example.com/hooks', ['pack.expiring', 'order.paid']))
    // The address the error is about is marked invalid and pointed at the error.
    expect(kept.body).toContain('required value="example.com/hooks" aria-invalid="true" aria-describedby="form-error new-webhook-url-hint">')
    expect(kept.body).toContain('<fieldset class="choices" aria-describedby="new-webhook-events-hint">')
    const noEvent = await send(browser, '/console/webhooks', endpoint('https://example.com/x', []))
    expect(noEvent.body).toContain('<fieldset class="choices" aria-describedby="form-error new-webhook-events-hint">')
    expect(noEvent.body).toContain('required value="https://example.com/x" aria-describedby="new-webhook-url-hint">')
    expect(kept.body).toContain('value="pack.expiring" checked>')
    expect(kept.body).toContain('value="order.paid" checked>')
    expect(kept.body).not.toContain('value="credits.low" checked>')

    // The edit page refuses alike and changes nothing.
    const wh = await t.c.webhooks.create(accountId, { url: hookUrl, events: ['order.paid'] })
    await browser.get(`/console/webhooks/${wh.id}/edit`)
    for (const [what, fields, text] of cases) {
      const res = await send(browser, `/console/webhooks/${wh.id}/edit`, [...fields, ['enabled', 'yes']])
      expect(res.statusCode, what).toBe(400)
      expect(res.body, what).toContain(notice('error', text))
      expect(res.body, what).toContain(`<form method="post" action="/console/webhooks/${wh.id}/edit" class="narrow">`)
      expect(await endpoints(accountId), what).toEqual([{ url: hookUrl, events: ['order.paid'], enabled: true }])
    }
    // Two endpoints may not share an address.
    await t.c.webhooks.create(accountId, { url: 'https://example.com/other', events: ['order.paid'] })
    const shared = await send(browser, `/console/webhooks/${wh.id}/edit`, endpoint('https://example.com/other', ['order.paid'], true))
    expect(shared.statusCode).toBe(400)
    expect(shared.body).toContain(notice('error', 'Another endpoint has this address already; choose another address.'))
    expect((await endpoints(accountId))[0]).toEqual({ url: hookUrl, events: ['order.paid'], enabled: true })

    // At most ten endpoints an account.
    for (let i = 2; i < 10; i++) await t.c.webhooks.create(accountId, { url: `https://example.com/hook-${i}`, events: ['order.paid'] })
    await browser.get('/console/webhooks')
    const eleventh = await send(browser, '/console/webhooks', endpoint('https://example.com/hook-11', ['order.paid']))
    expect(eleventh.statusCode).toBe(400)
    expect(eleventh.body).toContain(notice('error', 'An account has at most 10 webhook endpoints; delete one first.'))
    expect(await endpoints(accountId)).toHaveLength(10)
  })
})

describe('who may see and change endpoints', () => {
  it('a member sees the endpoints, the alert and the deliveries, but every change answers 403 and changes nothing', async () => {
    const { browser: owner, accountId } = await signedUp('hook-owner@example.com')
    const wh = await t.c.webhooks.create(accountId, { url: hookUrl, events: ['order.paid'] })
    await t.c.webhooks.setAlerts(accountId, { lowCredits: 100 })
    await owner.get('/console/webhooks')
    await send(owner, `/console/webhooks/${wh.id}/test`, [])
    expect(received).toHaveLength(1)
    const member = await memberOf(accountId, 'hook-member@example.com')

    const page = await member.get('/console/webhooks')
    expect(page.statusCode).toBe(200)
    expect(endpointCells(page.body, hookUrl)).toEqual([hookUrl, 'order.paid', 'Enabled', '2026-11-20 12:00 UTC'])
    expect(page.body).toContain('<p class="hint">Only an owner of the account can add, change or delete endpoints.</p>')
    expect(page.body).toContain('<p>Now: <code>credits.low</code> is sent when the balance falls below 100 credits.</p>')
    expect(page.body).toContain(`href="/console/webhooks/${wh.id}/deliveries"`)
    for (const absent of ['action="/console/webhooks"', 'action="/console/webhooks/alerts"', `/console/webhooks/${wh.id}/edit`, `/console/webhooks/${wh.id}/test`, `/console/webhooks/${wh.id}/delete`, 'name="lowCredits"']) {
      expect(page.body, absent).not.toContain(absent)
    }
    const deliveries = await member.get(`/console/webhooks/${wh.id}/deliveries`)
    expect(deliveries.statusCode).toBe(200)
    expect(deliveryRows(deliveries.body).map((row) => row.slice(0, 3))).toEqual([['webhook.test', '2026-11-20 12:00 UTC', 'Delivered']])
    expect(deliveries.body).not.toContain(`action="/console/webhooks/${wh.id}/test"`)

    const look = await member.get(`/console/webhooks/${wh.id}/edit`)
    expect(look.statusCode).toBe(403)
    expect(look.body).toContain(OWNERS_ONLY)
    expect(look.body).not.toContain('name="url"')
    for (const [url, fields] of [
      ['/console/webhooks', endpoint('https://example.com/member', ['order.paid'])],
      ['/console/webhooks/alerts', [['lowCredits', '5']]],
      [`/console/webhooks/${wh.id}/edit`, endpoint('https://example.com/member', ['pack.expired'])],
      [`/console/webhooks/${wh.id}/delete`, [['confirmed', 'yes']]],
      [`/console/webhooks/${wh.id}/delete`, []],
      [`/console/webhooks/${wh.id}/test`, []],
    ] as [string, [string, string][]][]) {
      const res = await send(member, url, fields)
      expect(res.statusCode, url).toBe(403)
      expect(res.headers['content-type'], url).toMatch(/^text\/html/)
      expect(res.body, url).toContain(OWNERS_ONLY)
    }
    expect(await endpoints(accountId)).toEqual([{ url: hookUrl, events: ['order.paid'], enabled: true }])
    expect(await t.c.webhooks.alerts(accountId)).toEqual({ lowCredits: 100 })
    expect(received).toHaveLength(1)
  })

  it('another account’s endpoint, or an unknown one, is not found on every page and form', async () => {
    const { accountId } = await signedUp('hook-a@example.com')
    const wh = await t.c.webhooks.create(accountId, { url: hookUrl, events: ['order.paid'] })
    const { browser: stranger, accountId: strangerId } = await signedUp('hook-b@example.com')
    await stranger.get('/console/webhooks')
    for (const id of [wh.id, 'wh_nothing']) {
      for (const path of ['edit', 'deliveries']) {
        const res = await stranger.get(`/console/webhooks/${id}/${path}`)
        expect(res.statusCode, `${id} ${path}`).toBe(404)
        expect(res.body, `${id} ${path}`).toContain(NO_SUCH_ENDPOINT)
        expect(res.body, `${id} ${path}`).not.toContain(hookUrl)
      }
      for (const [path, fields] of [
        ['edit', endpoint('https://example.com/taken', ['pack.expired'], true)],
        ['delete', [['confirmed', 'yes']]],
        ['delete', []],
        ['test', []],
      ] as [string, [string, string][]][]) {
        const res = await send(stranger, `/console/webhooks/${id}/${path}`, fields)
        expect(res.statusCode, `${id} ${path}`).toBe(404)
        expect(res.body, `${id} ${path}`).toContain(NO_SUCH_ENDPOINT)
      }
    }
    expect(await endpoints(accountId)).toEqual([{ url: hookUrl, events: ['order.paid'], enabled: true }])
    expect(await endpoints(strangerId)).toEqual([])
    expect(received).toHaveLength(0)
    // A visitor not signed in is sent to sign in first.
    for (const url of ['/console/webhooks', `/console/webhooks/${wh.id}/deliveries`]) {
      const res = await new ConsoleClient(t.app).get(url)
      expect([res.statusCode, res.headers.location], url).toEqual([303, `/console/sign-in?next=${encodeURIComponent(url)}`])
    }
  })

  it('without the form’s token every change is refused and nothing changes', async () => {
    const { browser, accountId } = await signedUp('hook-tokens@example.com')
    const wh = await t.c.webhooks.create(accountId, { url: hookUrl, events: ['order.paid'] })
    await browser.get('/console/webhooks')
    for (const csrf of [false, 'forged-token'] as const) {
      for (const [url, fields] of [
        ['/console/webhooks', endpoint('https://example.com/sneaky', ['order.paid'])],
        ['/console/webhooks/alerts', [['lowCredits', '5']]],
        [`/console/webhooks/${wh.id}/edit`, endpoint('https://example.com/sneaky', ['pack.expired'])],
        [`/console/webhooks/${wh.id}/delete`, [['confirmed', 'yes']]],
        [`/console/webhooks/${wh.id}/test`, []],
      ] as [string, [string, string][]][]) {
        const res = await send(browser, url, fields, { csrf })
        expect(res.statusCode, `${url} ${csrf}`).toBe(403)
        expect(res.headers['content-type'], `${url} ${csrf}`).toMatch(/^text\/html/)
        expect(res.body, `${url} ${csrf}`).toContain(NO_TOKEN)
      }
    }
    expect(await endpoints(accountId)).toEqual([{ url: hookUrl, events: ['order.paid'], enabled: true }])
    expect(await t.c.webhooks.alerts(accountId)).toEqual({ lowCredits: null })
    expect(received).toHaveLength(0)
  })

  it('a suspended account says so, adds no endpoint and sends no test event; it may still switch one off', async () => {
    const { browser, accountId } = await signedUp('hook-suspended@example.com')
    const wh = await t.c.webhooks.create(accountId, { url: hookUrl, events: ['order.paid'] })
    await t.c.accounts.suspend(accountId)
    const page = await browser.get('/console/webhooks')
    expect(page.body).toContain('This account is suspended')
    const made = await send(browser, '/console/webhooks', endpoint('https://example.com/more', ['order.paid']))
    expect(made.statusCode).toBe(403)
    expect(made.body).toContain(notice('error', SUSPENDED))
    expect(made.body).not.toContain('new-secret-value')
    const tested = await send(browser, `/console/webhooks/${wh.id}/test`, [])
    expect(tested.statusCode).toBe(403)
    expect(tested.body).toContain(SUSPENDED)
    expect(received).toHaveLength(0)
    const off = await send(browser, `/console/webhooks/${wh.id}/edit`, endpoint(hookUrl, ['order.paid']))
    expect([off.statusCode, off.headers.location]).toEqual([303, '/console/webhooks?done=updated'])
    expect(await endpoints(accountId)).toEqual([{ url: hookUrl, events: ['order.paid'], enabled: false }])
  })
})

describe('the wording and the markup', () => {
  it('labels every field, groups the events under a legend, and shows customers no internal word', async () => {
    const { browser, accountId } = await signedUp('hook-words@example.com')
    const wh = await t.c.webhooks.create(accountId, { url: hookUrl, events: ['order.paid'] })
    for (const url of ['/console/webhooks', `/console/webhooks/${wh.id}/edit`]) {
      const res = await browser.get(url)
      expect(res.statusCode, url).toBe(200)
      const inputs = [...res.body.matchAll(/<input\b[^>]*>/g)].map((m) => m[0]).filter((i) => !i.includes('type="hidden"'))
      expect(inputs.length, url).toBeGreaterThanOrEqual(8)
      for (const input of inputs) {
        const id = /\sid="([^"]+)"/.exec(input)?.[1]
        expect(id, input).toBeDefined()
        expect(res.body, input).toContain(`<label for="${id}">`)
      }
      const group = /<fieldset\b[^>]*>\s*<legend>Events to send<\/legend>(.*?)<\/fieldset>/s.exec(res.body)?.[1] ?? ''
      expect([...group.matchAll(/type="checkbox"/g)].length, url).toBe(7)
      expect(group, url).toContain('<code>credits.low</code>: the balance fell below your low-balance alert</label>')
      expect(group, url).toContain('<code>pack.expiring</code>: a pack with credits left expires in 7 days</label>')
      const text = res.body.replace(/<[^>]+>/g, ' ')
      for (const word of ['lowCredits', 'whId', 'null', 'undefined', 'INVALID_PARAMETER', 'Invalid parameter', 'NOT_FOUND', wh.id]) expect(text, `${url}: ${word}`).not.toContain(word)
    }
  })
})
