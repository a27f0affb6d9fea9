/**
 * Account webhooks end to end, on both backends, against a receiver of our own on 127.0.0.1: the
 * admin routes (secret shown once, bad input refused, another account's endpoint a 404), a test
 * delivery signed as documented, every event type found from the facts (an order paid, a change and
 * a renewal of the subscription, a pack expiring and expired, the balance below the threshold and
 * empty), each recorded once however often it is looked for, retried after a failure with every
 * attempt recorded, given up after a day, held while the endpoint is disabled.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { verifySignature } from '../../src/webhooks/webhook-signature.ts'
import { fixtureRecords } from '../helpers/ingest-fixtures.ts'
import { ADMIN_TOKEN, expectError, makeTestApp, type TestApp } from '../helpers/test-app.ts'
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../helpers/webhook-receiver.ts'

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0)
const DAY = 24 * 3_600_000
const PROFILE = '/api/v1/profile?profileUrlOrUrn=member-1'

type Received = ReceivedDelivery

let t: TestApp
let hooks: WebhookReceiver
let url: string
let received: Received[]

beforeAll(async () => {
  hooks = await startWebhookReceiver(() => t.clock.now())
  url = hooks.url
  received = hooks.received
  t = await makeTestApp({ nowMs: NOW, records: fixtureRecords(), env: { PRONET_WEBHOOK_PRIVATE_URLS: 'allow' } })
})
afterAll(async () => {
  await t.close()
  await hooks.close()
})
beforeEach(() => {
  received.length = 0
  hooks.answers.length = 0
})

const admin = (method: 'POST' | 'PATCH' | 'GET' | 'PUT' | 'DELETE', path: string, payload?: unknown) =>
  t.app.inject({
    method,
    url: path,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  })

async function account(creditsLimit = 10_000): Promise<{ id: string; key: string }> {
  const res = await admin('POST', '/admin/v1/accounts', { name: 'hooked', plan: 'custom', creditsLimit, rpsLimit: 10_000 })
  expect(res.statusCode, res.body).toBe(201)
  return { id: res.json().account.id, key: res.json().apiKey.key }
}

async function webhook(accountId: string, events: string[], to = url): Promise<{ id: string; secret: string }> {
  const res = await admin('POST', `/admin/v1/accounts/${accountId}/webhooks`, { url: to, events })
  expect(res.statusCode, res.body).toBe(201)
  return res.json()
}

/** Looks for events and sends what is due, as a node's background work does. */
async function round(): Promise<void> {
  await t.c.webhooks.findEvents()
  await t.c.webhooks.deliverDue()
}

const deliveries = async (accountId: string, whId: string) => {
  const res = await admin('GET', `/admin/v1/accounts/${accountId}/webhooks/${whId}/deliveries`)
  expect(res.statusCode, res.body).toBe(200)
  return res.json().deliveries as { id: string; eventId: string; event: string; state: string; nextAttemptAt: string | null; attempts: { status: number | null; error: string | null }[] }[]
}

function expectSigned(r: Received, secret: string): void {
  expect(r.headers['content-type']).toBe('application/json')
  const now = Math.floor(r.at / 1000)
  expect(verifySignature(secret, String(r.headers['pronet-signature']), r.body, now)).toBe(true)
  expect(verifySignature(`${secret}x`, String(r.headers['pronet-signature']), r.body, now)).toBe(false)
  expect(verifySignature(secret, String(r.headers['pronet-signature']), `${r.body} `, now)).toBe(false)
  // A delivery replayed much later is refused by a receiver that checks the time.
  expect(verifySignature(secret, String(r.headers['pronet-signature']), r.body, now + 3600)).toBe(false)
}

describe('webhook endpoints in the admin API', () => {
  it('are made with a secret shown once, listed without it, changed, deleted; bad input is refused', async () => {
    const longAsKept = `https://example.com/${'x'.repeat(2000)} ${'y'.repeat(27)}`
    expect(longAsKept).toHaveLength(2048)
    const a = await account()
    const made = await admin('POST', `/admin/v1/accounts/${a.id}/webhooks`, { url, events: ['order.paid', 'credits.low', 'order.paid'] })
    expect(made.statusCode, made.body).toBe(201)
    const wh = made.json()
    expect(wh).toEqual({ id: expect.stringMatching(/^wh_/), url, events: ['order.paid', 'credits.low'], enabled: true, createdAt: new Date(NOW).toISOString(), secret: expect.stringMatching(/^whsec_.{32}$/) })
    const listed = await admin('GET', `/admin/v1/accounts/${a.id}/webhooks`)
    expect(listed.json()).toEqual({ webhooks: [{ id: wh.id, url, events: ['order.paid', 'credits.low'], enabled: true, createdAt: new Date(NOW).toISOString() }] })
    expect(listed.body).not.toContain(wh.secret)

    const changed = await admin('PATCH', `/admin/v1/accounts/${a.id}/webhooks/${wh.id}`, { events: ['pack.expired'], enabled: false })
    expect(changed.json()).toMatchObject({ id: wh.id, events: ['pack.expired'], enabled: false, url })

    for (const [body, field] of [
      [{ url: 'ftp://example.com/x', events: ['order.paid'] }, 'url'],
      [{ url: 'example.com/x', events: ['order.paid'] }, 'url'],
      [{ url: 'https://user:pw@example.com/x', events: ['order.paid'] }, 'url'],
      // 2048 characters as sent, 2050 as kept (the space escaped); a label DNS cannot carry.
      [{ url: longAsKept, events: ['order.paid'] }, 'url'],
      [{ url: `https://${'a'.repeat(64)}.example.com/x`, events: ['order.paid'] }, 'url'],
      [{ url, events: [] }, 'events'],
      [{ url, events: ['order.refunded'] }, 'events'],
      [{ url, events: 'order.paid' }, 'events'],
    ] as const) {
      const res = await admin('POST', `/admin/v1/accounts/${a.id}/webhooks`, body)
      expect(String(expectError(res, 400, 'INVALID_PARAMETER').error)).toContain(field)
    }
    expectError(await admin('POST', `/admin/v1/accounts/${a.id}/webhooks`, { url }), 400, 'MISSING_PARAMETER')
    expectError(await admin('PATCH', `/admin/v1/accounts/${a.id}/webhooks/${wh.id}`, { enabled: 'yes' }), 400, 'INVALID_PARAMETER')
    expect(expectError(await admin('PATCH', `/admin/v1/accounts/${a.id}/webhooks/${wh.id}`, { url: longAsKept }), 400, 'INVALID_PARAMETER').error).toContain('at most 2048 characters')
    expect((await admin('GET', `/admin/v1/accounts/${a.id}/webhooks`)).json().webhooks).toEqual([expect.objectContaining({ id: wh.id, url })])

    const other = await account()
    expectError(await admin('PATCH', `/admin/v1/accounts/${other.id}/webhooks/${wh.id}`, { enabled: true }), 404, 'NOT_FOUND')
    expectError(await admin('GET', `/admin/v1/accounts/${other.id}/webhooks/${wh.id}/deliveries`), 404, 'NOT_FOUND')
    expectError(await admin('DELETE', `/admin/v1/accounts/${other.id}/webhooks/${wh.id}`), 404, 'NOT_FOUND')
    expectError(await admin('POST', '/admin/v1/accounts/acc_nobody/webhooks', { url, events: ['order.paid'] }), 404, 'NOT_FOUND')

    expect((await admin('DELETE', `/admin/v1/accounts/${a.id}/webhooks/${wh.id}`)).statusCode).toBe(204)
    expectError(await admin('GET', `/admin/v1/accounts/${a.id}/webhooks/${wh.id}/deliveries`), 404, 'NOT_FOUND')
    expect((await admin('GET', `/admin/v1/accounts/${a.id}/webhooks`)).json()).toEqual({ webhooks: [] })
  })

  it('sends a signed test delivery at once and shows its attempt', async () => {
    const a = await account()
    const wh = await webhook(a.id, ['order.paid'])
    const res = await admin('POST', `/admin/v1/accounts/${a.id}/webhooks/${wh.id}/test`)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({ event: 'webhook.test', state: 'delivered', nextAttemptAt: null, attempts: [{ status: 204, error: null }] })
    expect(received).toHaveLength(1)
    const r = received[0] as Received
    expect(r.json).toEqual({ id: res.json().eventId, type: 'webhook.test', createdAt: new Date(t.clock.now()).toISOString(), account: a.id, data: expect.objectContaining({ webhookId: wh.id }) })
    expectSigned(r, wh.secret)
  })

  it('takes one test event an endpoint 10 seconds after the last, however many are asked for at once', async () => {
    const a = await account()
    const wh = await webhook(a.id, ['order.paid'])
    const other = await webhook(a.id, ['order.paid'], `${url}?other`)
    const saved = t.clock.now()
    try {
      // Just before a round 10 seconds of the clock: the turn is counted from the last test, not from the clock.
      t.clock.set(Math.ceil(t.clock.now() / 10_000) * 10_000 + 9_800)
      const answers = await Promise.all(Array.from({ length: 12 }, () => admin('POST', `/admin/v1/accounts/${a.id}/webhooks/${wh.id}/test`)))
      expect(answers.map((r) => r.statusCode).sort()).toEqual([200, ...Array<number>(11).fill(429)])
      const refused = answers.find((r) => r.statusCode === 429)!
      expectError(refused, 429, 'RATE_LIMITED')
      expect(refused.json().error).toBe('A test event was sent to this endpoint moments ago; send another in 10 s.')
      expect([refused.headers['retry-after'], refused.headers['x-credits-charged']]).toEqual(['10', '0'])
      t.clock.advance(300)
      const acrossTheSecond = await admin('POST', `/admin/v1/accounts/${a.id}/webhooks/${wh.id}/test`)
      expect([acrossTheSecond.statusCode, acrossTheSecond.headers['retry-after']]).toEqual([429, '10'])
      // Another endpoint of the account is its own: tested at once.
      expect((await admin('POST', `/admin/v1/accounts/${a.id}/webhooks/${other.id}/test`)).statusCode).toBe(200)
      expect(received).toHaveLength(2)
      expect((await admin('GET', `/admin/v1/accounts/${a.id}/webhooks/${wh.id}/deliveries`)).json().deliveries).toHaveLength(1)
      // 10 seconds after the last test, the next goes.
      t.clock.advance(9_699)
      expect((await admin('POST', `/admin/v1/accounts/${a.id}/webhooks/${wh.id}/test`)).headers['retry-after']).toBe('1')
      t.clock.advance(1)
      const again = await admin('POST', `/admin/v1/accounts/${a.id}/webhooks/${wh.id}/test`)
      expect(again.statusCode).toBe(200)
      expect(again.json().eventId).not.toBe(answers.find((r) => r.statusCode === 200)!.json().eventId)
      expect(received).toHaveLength(3)
    } finally {
      t.clock.set(saved)
    }
  })
})

describe('events', () => {
  it('order.paid, subscription.changed and subscription.renewed: each sent once, however often looked for', async () => {
    const a = await account()
    const wh = await webhook(a.id, ['order.paid', 'subscription.changed', 'subscription.renewed'])
    const placed = await t.c.orders.placeOrder({ accountId: a.id, credits: 50_000 })
    await t.c.orders.approve(placed.order.id, 'test')
    expect((await admin('PUT', `/admin/v1/accounts/${a.id}/subscription`, { creditsLimit: 20_000, renewalDate: '2026-12-20T12:00:00Z' })).statusCode).toBe(200)
    // Two nodes looking at once record each fact once.
    await Promise.all([t.c.webhooks.findEvents(), t.c.webhooks.findEvents()])
    await t.c.webhooks.deliverDue()
    await round()
    const types = received.map((r) => r.json.type).sort()
    expect(types).toEqual(['order.paid', 'subscription.changed'])
    const paid = received.find((r) => r.json.type === 'order.paid') as Received
    expect(paid.json.data).toMatchObject({ orderId: placed.order.id, credits: 50_000, currency: 'usd' })
    expect((received.find((r) => r.json.type === 'subscription.changed') as Received).json.data).toEqual({
      changes: { creditsLimit: 20_000, renewalDate: '2026-12-20T12:00:00.000Z' },
    })
    for (const r of received) expectSigned(r, wh.secret)

    // A month later the plan renews, found once the account is next read.
    received.length = 0
    const saved = t.clock.now()
    try {
      t.clock.set(NOW + 31 * DAY)
      await t.c.metering.subscription(a.id)
      await round()
      await round()
      expect(received.map((r) => r.json.type)).toEqual(['subscription.renewed'])
      expect((received[0] as Received).json.data).toEqual({
        plan: 'custom',
        creditsLimit: 20_000,
        periodStart: '2026-12-20T12:00:00.000Z',
        renewalDate: '2027-01-20T12:00:00.000Z',
      })
      // Newest first; the order and the change fell in the same millisecond.
      const listed = (await deliveries(a.id, wh.id)).map((d) => d.event)
      expect(listed[0]).toBe('subscription.renewed')
      expect(listed.slice(1).sort()).toEqual(['order.paid', 'subscription.changed'])
    } finally {
      t.clock.set(saved)
    }
  })

  it('a change of plan opens a period: subscription.changed, not a renewal', async () => {
    const res = await admin('POST', '/admin/v1/accounts', { name: 'free one' })
    const id = res.json().account.id as string
    await webhook(id, ['subscription.changed', 'subscription.renewed'])
    const saved = t.clock.now()
    try {
      t.clock.set(NOW + 3 * DAY)
      expect((await admin('PUT', `/admin/v1/accounts/${id}/subscription`, { plan: 'custom', creditsLimit: 5000, rpsLimit: 10 })).statusCode).toBe(200)
      await round()
      await round()
      expect(received.map((r) => [r.json.type, r.json.data])).toEqual([['subscription.changed', { changes: { plan: 'custom', creditsLimit: 5000, rpsLimit: 10 } }]])
    } finally {
      t.clock.set(saved)
    }
  })

  it('credits.low once per fall below the threshold, and credits.exhausted at 0', async () => {
    const a = await account(10)
    const wh = await webhook(a.id, ['credits.low', 'credits.exhausted'])
    expect((await admin('PUT', `/admin/v1/accounts/${a.id}/alerts`, { lowCredits: 5 })).json()).toEqual({ lowCredits: 5 })
    expect((await admin('GET', `/admin/v1/accounts/${a.id}/alerts`)).json()).toEqual({ lowCredits: 5 })
    for (let i = 0; i < 5; i++) expect((await t.get(PROFILE, a.key)).statusCode).toBe(200)
    await round()
    expect(received).toHaveLength(0)
    expect((await t.get(PROFILE, a.key)).statusCode).toBe(200)
    await round()
    await round()
    expect(received.map((r) => [r.json.type, r.json.data])).toEqual([['credits.low', { creditsRemaining: 4, lowCredits: 5 }]])
    for (let i = 0; i < 4; i++) expect((await t.get(PROFILE, a.key)).statusCode).toBe(200)
    await round()
    await round()
    expect(received.map((r) => r.json.type)).toEqual(['credits.low', 'credits.exhausted'])
    // Back above the threshold, then below it again: a second credits.low, with an id of its own.
    expect((await admin('POST', `/admin/v1/accounts/${a.id}/packs`, { credits: 50_000 })).statusCode).toBe(201)
    await round()
    expect(received).toHaveLength(2)
    expect((await admin('PUT', `/admin/v1/accounts/${a.id}/alerts`, { lowCredits: 50_001 })).statusCode).toBe(200)
    await round()
    expect(received.map((r) => r.json.type)).toEqual(['credits.low', 'credits.exhausted', 'credits.low'])
    expect(new Set(received.map((r) => r.json.id)).size).toBe(3)
    expect((await admin('PUT', `/admin/v1/accounts/${a.id}/alerts`, { lowCredits: null })).json()).toEqual({ lowCredits: null })
    expectError(await admin('PUT', `/admin/v1/accounts/${a.id}/alerts`, {}), 400, 'MISSING_PARAMETER')
    expectError(await admin('PUT', `/admin/v1/accounts/${a.id}/alerts`, { lowCredits: -1 }), 400, 'INVALID_PARAMETER')
    expectError(await admin('PUT', `/admin/v1/accounts/${a.id}/alerts`, { lowCredits: '5' }), 400, 'INVALID_PARAMETER')
    expect((await admin('GET', `/admin/v1/accounts/${a.id}/alerts`)).json()).toEqual({ lowCredits: null })
  })

  it('balance alerts for a dip that lasts only until a pack is added, seen after the calls, not at a later look', async () => {
    const a = await account(10)
    await webhook(a.id, ['credits.low', 'credits.exhausted'])
    expect((await admin('PUT', `/admin/v1/accounts/${a.id}/alerts`, { lowCredits: 5 })).statusCode).toBe(200)
    // A look for events finds nothing to report, and learns that this account takes balance alerts.
    await round()
    const calls = await Promise.all(Array.from({ length: 12 }, () => t.get(PROFILE, a.key)))
    expect(calls.filter((r) => r.statusCode === 200)).toHaveLength(10)
    await t.c.webhooks.settled()
    expect((await admin('POST', `/admin/v1/accounts/${a.id}/packs`, { credits: 50_000 })).statusCode).toBe(201)
    // No look for events while the balance was low: the checks after the billed calls saw it.
    await t.c.webhooks.deliverDue()
    expect(received.map((r) => r.json.type).sort()).toEqual(['credits.exhausted', 'credits.low'])
    await round()
    expect(received).toHaveLength(2)
  })

  it('pack.expiring a week before a pack with credits left expires, and pack.expired after', async () => {
    const a = await account()
    const wh = await webhook(a.id, ['pack.expiring', 'pack.expired'])
    // Bought almost a year ago and added now: it expires in 3 days, so it is reported as soon as it is found.
    const purchasedAt = new Date(Date.UTC(2025, 10, 23, 12, 0, 0)).toISOString()
    const pack = await admin('POST', `/admin/v1/accounts/${a.id}/packs`, { credits: 50_000, purchasedAt })
    expect(pack.statusCode, pack.body).toBe(201)
    await round()
    await round()
    expect(received.map((r) => [r.json.type, r.json.data.packId, r.json.createdAt])).toEqual([['pack.expiring', pack.json().id, new Date(NOW).toISOString()]])
    // Bought later, it expires in 10 days: its notice falls due 3 days from now, after the endpoint was made.
    const later = await admin('POST', `/admin/v1/accounts/${a.id}/packs`, { credits: 50_000, purchasedAt: new Date(Date.UTC(2025, 10, 30, 12, 0, 0)).toISOString() })
    expect(later.statusCode).toBe(201)
    const seen = () => received.map((r) => `${r.json.type} ${r.json.data.packId === pack.json().id ? 'first' : 'later'}`).sort()
    const saved = t.clock.now()
    try {
      t.clock.set(NOW + 2 * DAY)
      await round()
      expect(seen()).toEqual(['pack.expiring first'])
      t.clock.set(NOW + 3 * DAY + 3_600_000)
      await round()
      await round()
      expect(seen()).toEqual(['pack.expired first', 'pack.expiring first', 'pack.expiring later'])
      expect(received.find((r) => r.json.type === 'pack.expiring' && r.json.data.packId === later.json().id)?.json.data).toEqual({
        packId: later.json().id,
        credits: 50_000,
        creditsRemaining: 50_000,
        expiresAt: later.json().expiresAt,
      })
      t.clock.set(NOW + 10 * DAY + 3_600_000)
      await round()
      await round()
      expect(seen()).toEqual(['pack.expired first', 'pack.expired later', 'pack.expiring first', 'pack.expiring later'])
      for (const r of received) expectSigned(r, wh.secret)
    } finally {
      t.clock.set(saved)
    }
  })
})

describe('deliveries', () => {
  it('are retried after a failure, every attempt recorded, and given up a day after the event', async () => {
    const a = await account()
    const wh = await webhook(a.id, ['subscription.changed'])
    hooks.answers.push(500, 503)
    expect((await admin('PUT', `/admin/v1/accounts/${a.id}/subscription`, { creditsLimit: 30_000 })).statusCode).toBe(200)
    await round()
    let [d] = await deliveries(a.id, wh.id)
    expect(d).toMatchObject({ state: 'pending', nextAttemptAt: new Date(t.clock.now() + 30_000).toISOString(), attempts: [{ status: 500, error: 'The receiver answered 500.' }] })
    await round()
    expect(received).toHaveLength(1)
    const saved = t.clock.now()
    try {
      t.clock.set(saved + 30_000)
      await round()
      t.clock.set(saved + 30_000 + 120_000)
      await round()
      ;[d] = await deliveries(a.id, wh.id)
      expect(d).toMatchObject({ state: 'delivered', nextAttemptAt: null })
      expect(d?.attempts.map((x) => x.status)).toEqual([500, 503, 204])
      expect(new Set(received.map((r) => r.json.id)).size).toBe(1)

      // An endpoint that never answers 2xx is given up once the next attempt would fall past a day.
      received.length = 0
      hooks.answers.push(...Array<number>(100).fill(500))
      expect((await admin('PUT', `/admin/v1/accounts/${a.id}/subscription`, { creditsLimit: 40_000 })).statusCode).toBe(200)
      const start = t.clock.now()
      for (let at = start; at <= start + 2 * DAY; at += 15 * 60_000) {
        t.clock.set(at)
        await round()
      }
      const [given] = await deliveries(a.id, wh.id)
      expect(given?.state).toBe('failed')
      expect(given?.nextAttemptAt).toBeNull()
      expect(given?.attempts.length).toBe(received.length)
      expect(received.length).toBeGreaterThanOrEqual(8)
    } finally {
      t.clock.set(saved)
    }
  })

  it('wait while their endpoint is disabled, and go once it is enabled', async () => {
    const a = await account()
    const wh = await webhook(a.id, ['subscription.changed'])
    expect((await admin('PATCH', `/admin/v1/accounts/${a.id}/webhooks/${wh.id}`, { enabled: false })).statusCode).toBe(200)
    expect((await admin('PUT', `/admin/v1/accounts/${a.id}/subscription`, { creditsLimit: 25_000 })).statusCode).toBe(200)
    await round()
    await round()
    expect(received).toHaveLength(0)
    expect((await deliveries(a.id, wh.id)).map((d) => [d.event, d.state, d.attempts.length])).toEqual([['subscription.changed', 'pending', 0]])
    expect((await admin('PATCH', `/admin/v1/accounts/${a.id}/webhooks/${wh.id}`, { enabled: true })).statusCode).toBe(200)
    await round()
    expect(received.map((r) => r.json.data)).toEqual([{ changes: { creditsLimit: 25_000 } }])
    expect((await deliveries(a.id, wh.id)).map((d) => d.state)).toEqual(['delivered'])
  })
})
