/**
 * The console's pages through HTTP, on every backend: sign-up to a paid, metered call; sessions and
 * their cookie; CSRF on every state-changing request; sign-in throttling; what a member may do; other
 * accounts' things answering 404; the pages' security headers and markup; the usage page's figures
 * against GET /api/v1/usage; secrets never in a URL.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { profileRecord } from '../helpers/ingest-fixtures.ts'
import { ConsoleClient, keyIn } from '../helpers/console-client.ts'
import { ADMIN_TOKEN, makeTestApp, type TestApp } from '../helpers/test-app.ts'

const NOW = Date.UTC(2026, 10, 20, 12)
let t: TestApp

beforeAll(async () => {
  t = await makeTestApp({ nowMs: NOW, env: { PRONET_PAYMENTS: 'test' }, records: [{ kind: 'profile', data: profileRecord(1) }] })
})
afterAll(async () => t?.close())

const api = (key: string, url: string) => {
  // The account endpoints allow one call a second: the test clock moves past it.
  if (url.startsWith('/api/v1/subscription') || url.startsWith('/api/v1/usage')) t.clock.advance(1_100)
  return t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } })
}
const noInlineScript = (body: string) => [...body.matchAll(/<script\b[^>]*>/g)].every((m) => /\ssrc="\/console\/assets\//.test(m[0]))

describe('from sign-up to a paid, metered call', () => {
  it('signs up on the free plan, shows the first key once, and the key calls the API', async () => {
    const browser = new ConsoleClient(t.app)
    const key = await browser.signUp('ada@example.com')
    const sub = (await api(key, '/api/v1/subscription')).json()
    expect(sub).toMatchObject({ plan: 'free', creditsLimit: 1000, creditsRemaining: 1000, rpsLimit: 5 })
    const call = await api(key, '/api/v1/profile?profileUrlOrUrn=member-1')
    expect(call.statusCode).toBe(200)
    // The keys page lists the key by its prefix, never the secret again.
    const keys = await browser.get('/console/keys')
    expect(keys.statusCode).toBe(200)
    expect(keys.body).toContain(key.slice(0, 10))
    expect(keys.body).not.toContain(key)
  })

  it('buys 50,000 credits with the test payments; the balance shows the pack and its expiry', async () => {
    const browser = new ConsoleClient(t.app)
    const key = await browser.signUp('buyer@example.com')
    await browser.get('/console/billing')
    const order = await browser.post('/console/billing/orders', { credits: '50000' })
    expect(order.statusCode).toBe(303)
    expect(order.headers.location).toBe('/console/billing?done=paid')
    const billing = await browser.get(order.headers.location as string)
    expect(billing.body).toContain('Paid: the pack is on your balance.')
    const expiry = new Date(NOW)
    expiry.setUTCFullYear(expiry.getUTCFullYear() + 1)
    expect(billing.body).toContain(`${expiry.toISOString().slice(0, 16).replace('T', ' ')} UTC`)
    expect(billing.body).toMatch(/50,000<\/td>/)
    expect((await api(key, '/api/v1/subscription')).json()).toMatchObject({ paygCreditsRemaining: 50_000, creditsRemaining: 51_000 })
    // A size not on sale is refused on the page and orders nothing.
    const odd = await browser.post('/console/billing/orders', { credits: '12345' })
    expect(odd.statusCode).toBe(400)
    expect((await t.c.orders.list((await t.c.accounts.identify(key)).accountId)).length).toBe(1)
  })

  it("a 402's purchase link is the console's billing page", async () => {
    const browser = new ConsoleClient(t.app)
    const key = await browser.signUp('broke@example.com')
    const { accountId } = await t.c.accounts.identify(key)
    await t.c.metering.changeSubscription(accountId, { plan: 'none' })
    const refused = await api(key, '/api/v1/profile?profileUrlOrUrn=member-1')
    expect(refused.statusCode).toBe(402)
    expect(refused.json().details.buyCreditsUrl).toMatch(/\/console\/billing$/)
  })
})

describe('sessions and their cookie', () => {
  it('an HttpOnly, SameSite=Lax cookie on /console, not Secure over http; a new id at every sign-in', async () => {
    const browser = new ConsoleClient(t.app)
    await browser.signUp('eve@example.com')
    const first = browser.cookies.get('pronet_session')
    const res = await browser.signIn('eve@example.com')
    expect(res.statusCode).toBe(303)
    const cookie = res.cookies.find((c) => c.name === 'pronet_session')
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/console' })
    expect(cookie?.secure).toBeFalsy()
    expect(cookie?.value).not.toBe(first)
    expect(cookie?.value).toMatch(/^[A-Za-z0-9_-]{43}$/)
    // Signing out ends the session in the store: the old cookie opens nothing.
    const stolen = new ConsoleClient(t.app)
    stolen.cookies.set('pronet_session', cookie?.value as string)
    expect((await stolen.get('/console/keys')).statusCode).toBe(200)
    await browser.get('/console/keys')
    await browser.post('/console/sign-out')
    const after = await stolen.get('/console/keys')
    expect([after.statusCode, after.headers.location]).toEqual([303, '/console/sign-in?next=%2Fconsole%2Fkeys'])
  })

  it('the cookie is Secure, and HSTS sent, when the public address is https', async () => {
    const https = await makeTestApp({ nowMs: NOW, env: { PRONET_PUBLIC_URL: 'https://console.example' } })
    try {
      const browser = new ConsoleClient(https.app)
      await browser.signUp('sec@example.com')
      const res = await browser.signIn('sec@example.com')
      expect(res.cookies.find((c) => c.name === 'pronet_session')?.secure).toBe(true)
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/)
    } finally {
      await https.close()
    }
  })

  it('sign-in failures are throttled per address: refused with Retry-After even with the right password', async () => {
    const browser = new ConsoleClient(t.app)
    await browser.signUp('throttle@example.com')
    await browser.post('/console/sign-out')
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) statuses.push((await browser.signIn('throttle@example.com', 'wrong password!')).statusCode)
    expect(statuses).toEqual([401, 401, 401, 401, 401])
    const locked = await browser.signIn('throttle@example.com')
    expect(locked.statusCode).toBe(429)
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0)
    expect(locked.cookies.find((c) => c.name === 'pronet_session')).toBeUndefined()
  })
})

describe('CSRF', () => {
  it('a state-changing request without the form token is refused and changes nothing', async () => {
    const browser = new ConsoleClient(t.app)
    const key = await browser.signUp('csrf@example.com')
    const { accountId, keyId } = await t.c.accounts.identify(key)
    const before = await t.c.accountStore.listKeys(accountId)
    const wh = await t.c.webhooks.create(accountId, { url: 'https://example.com/hooks', events: ['order.paid'] })
    await browser.get('/console/keys')
    for (const [url, fields] of [
      ['/console/keys', { name: 'sneaky' }],
      ['/console/billing/orders', { credits: '50000' }],
      ['/console/keys/' + keyId + '/revoke', { confirmed: 'yes' }],
      ['/console/keys/' + keyId + '/edit', { name: 'sneaky', monthlyCreditLimit: '1', endpointsAllowed: 'every' }],
      ['/console/webhooks', { url: 'https://example.com/sneaky', events: 'order.paid' }],
      ['/console/webhooks/alerts', { lowCredits: '5' }],
      ['/console/webhooks/' + wh.id + '/edit', { url: 'https://example.com/sneaky', events: 'pack.expired' }],
      ['/console/webhooks/' + wh.id + '/delete', { confirmed: 'yes' }],
      ['/console/webhooks/' + wh.id + '/test', {}],
    ] as const) {
      for (const csrf of [false, 'forged-token'] as const) {
        const res = await browser.post(url, fields, { csrf })
        expect(res.statusCode, `${url} ${csrf}`).toBe(403)
        expect(res.headers['content-type']).toMatch(/^text\/html/)
      }
    }
    expect(await t.c.accountStore.listKeys(accountId)).toEqual(before)
    expect(before.map((k) => k.revokedAt)).toEqual([null])
    expect(await t.c.orders.list(accountId)).toEqual([])
    expect(await t.c.webhooks.list(accountId)).toEqual([{ id: wh.id, url: wh.url, events: ['order.paid'], enabled: true, createdAt: wh.createdAt }])
    expect(await t.c.webhooks.alerts(accountId)).toEqual({ lowCredits: null })
    // Nor can a sign-in be forced from another site.
    const fresh = new ConsoleClient(t.app)
    const forced = await fresh.post('/console/sign-in', { email: 'csrf@example.com', password: 'correct horse battery' }, { csrf: false })
    expect(forced.statusCode).toBe(403)
    expect(forced.cookies.find((c) => c.name === 'pronet_session')).toBeUndefined()
  })
})

describe('roles and other accounts', () => {
  it('a member makes and revokes their own keys, but cannot buy, cancel, or revoke the owner’s keys', async () => {
    const owner = new ConsoleClient(t.app)
    const ownerKey = await owner.signUp('owner@example.com')
    const { accountId, keyId: ownerKeyId } = await t.c.accounts.identify(ownerKey)
    await t.c.identity.createUser({ email: 'member@example.com', password: 'member password 1', accountId, role: 'member' })
    const member = new ConsoleClient(t.app)
    expect((await member.signIn('member@example.com', 'member password 1')).statusCode).toBe(303)
    const keysPage = await member.get('/console/keys')
    expect(keysPage.body).not.toContain(ownerKey.slice(0, 10))
    const made = await member.post('/console/keys', { name: 'member key' })
    expect(made.statusCode).toBe(201)
    const memberKey = keyIn(made.body)
    const memberKeyId = (await t.c.accounts.identify(memberKey)).keyId
    expect((await member.post(`/console/keys/${ownerKeyId}/revoke`, { confirmed: 'yes' })).statusCode).toBe(404)
    expect((await member.post('/console/billing/orders', { credits: '50000' })).statusCode).toBe(403)
    expect((await member.post('/console/billing/cancel', { cancel: 'true' })).statusCode).toBe(403)
    expect((await member.post('/console/members/invite', { email: 'x@example.com', role: 'owner' })).statusCode).toBe(403)
    expect(await t.c.orders.list(accountId)).toEqual([])
    // Billing reads, but offers no purchase.
    expect((await member.get('/console/billing')).body).toContain('Only an owner of the account can buy credits.')
    const revoked = await member.post(`/console/keys/${memberKeyId}/revoke`, { confirmed: 'yes' })
    expect([revoked.statusCode, revoked.headers.location]).toEqual([303, '/console/keys?done=revoked'])
    expect((await api(memberKey, '/api/v1/subscription')).statusCode).toBe(401)
    expect((await api(ownerKey, '/api/v1/subscription')).statusCode).toBe(200)
  })

  it('another account’s key is not found; revoking asks first without script', async () => {
    const a = new ConsoleClient(t.app)
    const aKey = await a.signUp('a@example.com')
    const b = new ConsoleClient(t.app)
    await b.signUp('b@example.com')
    const aKeyId = (await t.c.accounts.identify(aKey)).keyId
    await b.get('/console/keys')
    expect((await b.post(`/console/keys/${aKeyId}/revoke`, { confirmed: 'yes' })).statusCode).toBe(404)
    expect((await api(aKey, '/api/v1/subscription')).statusCode).toBe(200)
    await a.get('/console/keys')
    const ask = await a.post(`/console/keys/${aKeyId}/revoke`)
    expect(ask.statusCode).toBe(200)
    expect(ask.body).toContain('name="confirmed" value="yes"')
    expect((await api(aKey, '/api/v1/subscription')).statusCode).toBe(200)
    await a.post(`/console/keys/${aKeyId}/revoke`, { confirmed: 'yes' })
    expect((await api(aKey, '/api/v1/subscription')).statusCode).toBe(401)
  })

  it('suspending an account and removing a member ask again before acting, without script', async () => {
    const owner = new ConsoleClient(t.app)
    const key = await owner.signUp('asks@example.com')
    const { accountId } = await t.c.accounts.identify(key)
    const member = await t.c.identity.createUser({ email: 'asked@example.com', password: 'member password 2', accountId, role: 'member' })
    await owner.get('/console/members')
    const ask = await owner.post(`/console/members/${member.user.id}/remove`)
    expect(ask.statusCode).toBe(200)
    expect(ask.body).toContain('Remove asked@example.com from')
    expect((await t.c.identity.members(accountId)).map((m) => m.email).sort()).toEqual(['asked@example.com', 'asks@example.com'])
    const removed = await owner.post(`/console/members/${member.user.id}/remove`, { confirmed: 'yes' })
    expect([removed.statusCode, removed.headers.location]).toEqual([303, '/console/members?done=removed'])
    expect((await t.c.identity.members(accountId)).map((m) => m.email)).toEqual(['asks@example.com'])

    const operator = new ConsoleClient(t.app)
    await operator.get('/console/operator/sign-in')
    await operator.post('/console/operator/sign-in', { token: ADMIN_TOKEN })
    await operator.get(`/console/operator/accounts/${accountId}`)
    const asked = await operator.post(`/console/operator/accounts/${accountId}/suspend`)
    expect(asked.statusCode).toBe(200)
    expect(asked.body).toContain('Its calls are refused with 403 until it is resumed.')
    expect((await t.c.accounts.get(accountId)).suspendedAt).toBeNull()
    await operator.post(`/console/operator/accounts/${accountId}/suspend`, { confirmed: 'yes' })
    expect((await t.c.accounts.get(accountId)).suspendedAt).not.toBeNull()
    expect((await api(key, '/api/v1/profile?profileUrlOrUrn=member-1')).statusCode).toBe(403)
    await operator.post(`/console/operator/accounts/${accountId}/resume`)
    expect((await t.c.accounts.get(accountId)).suspendedAt).toBeNull()
  })

  it('pages need a session; operator pages need the operator’s', async () => {
    const anonymous = new ConsoleClient(t.app)
    for (const url of ['/console/keys', '/console/usage', '/console/billing', '/console/members']) {
      const res = await anonymous.get(url)
      expect([res.statusCode, res.headers.location], url).toEqual([303, `/console/sign-in?next=${encodeURIComponent(url)}`])
    }
    const user = new ConsoleClient(t.app)
    await user.signUp('notop@example.com')
    for (const url of ['/console/operator', '/console/operator/orders', '/console/operator/accounts/x']) {
      const res = await user.get(url)
      expect([res.statusCode, res.headers.location], url).toEqual([303, '/console/operator/sign-in'])
    }
    const operator = new ConsoleClient(t.app)
    await operator.get('/console/operator/sign-in')
    expect((await operator.post('/console/operator/sign-in', { token: 'not the token' })).statusCode).toBe(401)
    expect((await operator.post('/console/operator/sign-in', { token: ADMIN_TOKEN })).statusCode).toBe(303)
    const found = await operator.get('/console/operator?query=notop%40example.com')
    expect(found.statusCode).toBe(200)
    expect(found.body).toContain('notop@example.com')
    expect((await operator.get('/console/operator/accounts/acc_missing')).statusCode).toBe(404)
  })
})

describe('what a first outside trial found', () => {
  it('a reload of a form that made something makes nothing more', async () => {
    const browser = new ConsoleClient(t.app)
    const key = await browser.signUp('reload@example.com')
    const { accountId } = await t.c.accounts.identify(key)
    // The sign-up form sent again by the signed-in browser is no second sign-up.
    const again = await browser.post('/console/sign-up', { email: 'reload@example.com', password: 'correct horse battery' })
    expect([again.statusCode, again.headers.location]).toEqual([303, '/console/keys'])
    await browser.get('/console/keys')
    const token = browser.csrf
    expect((await browser.post('/console/keys', { name: 'crawler' }, { csrf: token })).statusCode).toBe(201)
    const twice = await browser.post('/console/keys', { name: 'crawler' }, { csrf: token })
    expect(twice.statusCode).toBe(400)
    expect(twice.body).toContain('named “crawler” already')
    expect((await t.c.accountStore.listKeys(accountId)).filter((k) => k.name === 'crawler')).toHaveLength(1)
  })

  it('a suspended account says so on every page and makes no key and buys nothing', async () => {
    const browser = new ConsoleClient(t.app)
    const key = await browser.signUp('suspended@example.com')
    const { accountId } = await t.c.accounts.identify(key)
    await t.c.accounts.suspend(accountId)
    for (const url of ['/console/keys', '/console/usage', '/console/billing']) expect((await browser.get(url)).body, url).toContain('This account is suspended')
    expect((await browser.post('/console/keys', { name: 'more' })).statusCode).toBe(403)
    await browser.get('/console/billing')
    expect((await browser.post('/console/billing/orders', { credits: '50000' })).statusCode).toBe(403)
    expect(await t.c.orders.list(accountId)).toEqual([])
    expect((await t.c.accountStore.listKeys(accountId)).length).toBe(1)
  })

  it('a removed member’s keys are revoked with them, and they can still reach the sign-in page', async () => {
    const owner = new ConsoleClient(t.app)
    const ownerKey = await owner.signUp('keeper@example.com')
    const { accountId } = await t.c.accounts.identify(ownerKey)
    const member = await t.c.identity.createUser({ email: 'leaver@example.com', password: 'leaver password 1', accountId, role: 'member' })
    const leaver = new ConsoleClient(t.app)
    await leaver.signIn('leaver@example.com', 'leaver password 1')
    const leaverKey = keyIn((await leaver.post('/console/keys', { name: 'mine' })).body)
    await owner.get('/console/members')
    await owner.post(`/console/members/${member.user.id}/remove`, { confirmed: 'yes' })
    expect((await api(leaverKey, '/api/v1/subscription')).statusCode).toBe(401)
    expect((await api(ownerKey, '/api/v1/subscription')).statusCode).toBe(200)
    expect((await leaver.get('/console/keys')).statusCode).toBe(403)
    const signIn = await leaver.get('/console/sign-in')
    expect(signIn.statusCode).toBe(200)
  })

  it('the purchase link leads back to billing after signing in; another site is never the next stop', async () => {
    const browser = new ConsoleClient(t.app)
    await browser.signUp('next@example.com')
    await browser.post('/console/sign-out')
    const sent = await browser.get('/console/billing')
    expect([sent.statusCode, sent.headers.location]).toEqual([303, '/console/sign-in?next=%2Fconsole%2Fbilling'])
    const form = await browser.get(sent.headers.location as string)
    expect(form.body).toContain('name="next" value="/console/billing"')
    const back = await browser.post('/console/sign-in', { email: 'next@example.com', password: 'correct horse battery', next: '/console/billing' })
    expect(back.headers.location).toBe('/console/billing')
    for (const next of ['//evil.example/x', 'https://evil.example/', '/console//evil.example', '/docs', '/console/sign-out']) {
      await browser.post('/console/sign-out')
      const res = await browser.post('/console/sign-in', { email: 'next@example.com', password: 'correct horse battery', next })
      expect(res.headers.location, next).toBe('/console/keys')
    }
  })

  it('invitations are limited per address and per account; an address holding markup is refused', async () => {
    const owner = new ConsoleClient(t.app)
    await owner.signUp('inviter@example.com')
    await owner.get('/console/members')
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) statuses.push((await owner.post('/console/members/invite', { email: 'target@example.com', role: 'member' })).statusCode)
    expect(statuses).toEqual([303, 303, 303, 429])
    const markup = await owner.post('/console/members/invite', { email: '<b>x</b>@example.com', role: 'member' })
    expect(markup.statusCode).toBe(400)
  })

  it('behind a trusted proxy, sign-in throttling counts each client by its forwarded address', async () => {
    const proxied = await makeTestApp({ nowMs: NOW, env: { PRONET_TRUST_PROXY: 'true' } })
    try {
      await new ConsoleClient(proxied.app).signUp('proxied@example.com')
      const attacker = new ConsoleClient(proxied.app)
      attacker.headers = { 'x-forwarded-for': '198.51.100.7' }
      const statuses: number[] = []
      for (let i = 0; i < 21; i++) statuses.push((await attacker.signIn(`guess${i}@example.com`, 'wrong password')).statusCode)
      expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true)
      expect(statuses[20]).toBe(429)
      // Another client behind the same proxy signs in.
      const customer = new ConsoleClient(proxied.app)
      customer.headers = { 'x-forwarded-for': '203.0.113.9' }
      expect((await customer.signIn('proxied@example.com')).statusCode).toBe(303)
    } finally {
      await proxied.close()
    }
  })
})

describe('pages', () => {
  it('every page: a strict CSP, no inline script or style, nothing cached, a request id', async () => {
    const browser = new ConsoleClient(t.app)
    const { keyId } = await t.c.accounts.identify(await browser.signUp('pages@example.com'))
    const operator = new ConsoleClient(t.app)
    await operator.get('/console/operator/sign-in')
    await operator.post('/console/operator/sign-in', { token: ADMIN_TOKEN })
    const anonymous = new ConsoleClient(t.app)
    const pages = [
      ...['/console/sign-in', '/console/sign-up', '/console/forgot', '/console/reset?token=x', '/console/verify?token=x', '/console/nowhere'].map((u) => [anonymous, u] as const),
      ...['/console/keys', `/console/keys/${keyId}/edit`, '/console/usage', '/console/billing', '/console/members'].map((u) => [browser, u] as const),
      ...['/console/operator', '/console/operator/orders'].map((u) => [operator, u] as const),
    ]
    for (const [client, url] of pages) {
      const res = await client.get(url)
      expect(res.headers['content-type'], url).toMatch(/^text\/html/)
      const csp = String(res.headers['content-security-policy'])
      expect(csp, url).toContain("script-src 'self'")
      expect(csp, url).toContain("default-src 'none'")
      expect(csp, url).not.toContain('unsafe-inline')
      expect(res.headers['x-content-type-options'], url).toBe('nosniff')
      expect(res.headers['cache-control'], url).toBe('no-store')
      expect(noInlineScript(res.body), url).toBe(true)
      expect(res.body, url).not.toMatch(/\sstyle="/)
      expect(res.body, url).not.toMatch(/<style\b/)
    }
  })

  it('the usage page and its CSV give the figures of GET /api/v1/usage for the same days', async () => {
    const browser = new ConsoleClient(t.app)
    const key = await browser.signUp('usage@example.com')
    for (const url of ['/api/v1/profile?profileUrlOrUrn=member-1', '/api/v1/profile?profileUrlOrUrn=nobody-here', '/api/v1/profile']) await api(key, url)
    const report = (await api(key, '/api/v1/usage?from=2026-11-01&to=2026-11-30')).json()
    expect(report.requests).toBe(3)
    const page = await browser.get('/console/usage?from=2026-11-01&to=2026-11-30')
    expect(page.statusCode).toBe(200)
    const csv = (await browser.get('/console/usage.csv?from=2026-11-01&to=2026-11-30')).body.trim().split('\n')
    const days = csv.filter((l) => l.startsWith('day,')).map((l) => l.split(','))
    expect(days.map((d) => [d[1], Number(d[3]), Number(d[4]), Number(d[5])])).toEqual(
      report.days.map((d: { date: string; creditsUsed: number; requests: number; billableRequests: number }) => [d.date, d.creditsUsed, d.requests, d.billableRequests]),
    )
    for (const e of report.endpoints as { endpoint: string; statusCodes: Record<string, number>; creditsUsed: number }[]) {
      for (const [status, n] of Object.entries(e.statusCodes)) expect(csv).toContain(`endpoint,${e.endpoint},${status},,${n},`)
      expect(page.body).toContain(`<code>${e.endpoint}</code>`)
    }
    const today = report.days.find((d: { date: string }) => d.date === '2026-11-20')
    expect(page.body).toContain(`<tr><td>2026-11-20</td><td class="num" data-value="${today.creditsUsed}">`)
    // A range past 366 days is the API's own refusal, shown on the page.
    const long = await browser.get('/console/usage?from=2024-01-01&to=2026-11-30')
    expect(long.statusCode).toBe(400)
    expect(long.body).toContain('366')
  })

  it('no secret in a URL: keys and session ids are never in a Location or a link', async () => {
    const browser = new ConsoleClient(t.app)
    const key = await browser.signUp('urls@example.com')
    const made = await browser.post('/console/keys', { name: 'second' })
    const second = keyIn(made.body)
    const locations: string[] = []
    for (const res of [await browser.signIn('urls@example.com'), await browser.post('/console/sign-out')]) locations.push(String(res.headers.location))
    for (const l of locations) {
      expect(l).not.toContain(key)
      expect(l).not.toContain(second)
    }
    const keys = await browser.get('/console/keys')
    const hrefs = [...keys.body.matchAll(/(?:href|action)="([^"]*)"/g)].map((m) => m[1] as string)
    for (const h of hrefs) expect(h).not.toMatch(/pk_|token=|session/)
  })
})

describe('a password reset link', () => {
  it('opens the form while it works; once used or unknown, the page says so and offers a new link', async () => {
    const mails: { to: string; link: string }[] = []
    const own = await makeTestApp({ nowMs: NOW, overrides: { mailer: { send: async (m) => void mails.push({ to: m.to, link: m.link }) } } })
    try {
      const browser = new ConsoleClient(own.app)
      await browser.signUp('forgetful@example.com')
      const visitor = new ConsoleClient(own.app)
      await visitor.get('/console/forgot')
      expect((await visitor.post('/console/forgot', { email: 'forgetful@example.com' })).statusCode).toBe(200)
      await vi.waitFor(() => expect(mails.filter((m) => m.link.includes('/console/reset?token='))).toHaveLength(1))
      const link = new URL(mails.find((m) => m.link.includes('/console/reset?token='))!.link)
      const path = link.pathname + link.search
      const token = link.searchParams.get('token')!

      // Looking at the link twice uses nothing.
      for (let i = 0; i < 2; i++) {
        const form = await visitor.get(path)
        expect(form.statusCode).toBe(200)
        expect(form.body).toContain('name="password"')
      }
      const done = await visitor.post('/console/reset', { token, password: 'a new long password' })
      expect(done.statusCode).toBe(303)
      expect(done.headers.location).toBe('/console/sign-in?reset=done')
      expect((await new ConsoleClient(own.app).signIn('forgetful@example.com', 'a new long password')).statusCode).toBe(303)

      for (const url of [path, '/console/reset?token=x', '/console/reset']) {
        const dead = await visitor.get(url)
        expect(dead.statusCode, url).toBe(400)
        expect(dead.body, url).toContain('This link is not valid, was used already or has expired.')
        expect(dead.body, url).toContain('href="/console/forgot"')
        expect(dead.body, url).not.toContain('name="password"')
        expect(dead.body, url).not.toContain('Invalid parameter')
      }
      // The form sent again with the used link: the same page, and the password stays the new one.
      await visitor.get('/console/forgot')
      const again = await visitor.post('/console/reset', { token, password: 'yet another password' })
      expect(again.statusCode).toBe(400)
      expect(again.body).toContain('This link is not valid, was used already or has expired.')
      expect(again.body).not.toContain('name="password"')
      expect((await new ConsoleClient(own.app).signIn('forgetful@example.com', 'yet another password')).statusCode).toBe(401)
    } finally {
      await own.close()
    }
  })
})

describe('the operator approves a manual order', () => {
  it('once: the pack is granted; again: the page says it was paid already, and nothing more is granted', async () => {
    const own = await makeTestApp({ nowMs: NOW })
    try {
      const key = await new ConsoleClient(own.app).signUp('buyer@example.com')
      const { accountId } = await own.c.accounts.identify(key)
      const { order } = await own.c.orders.placeOrder({ accountId, credits: 50_000 })
      const operator = new ConsoleClient(own.app)
      await operator.get('/console/operator/sign-in')
      await operator.post('/console/operator/sign-in', { token: ADMIN_TOKEN })
      const notices: string[] = []
      for (let i = 0; i < 2; i++) {
        await operator.get('/console/operator/orders')
        const res = await operator.post(`/console/operator/orders/${order.id}/approve`)
        expect(res.statusCode).toBe(303)
        notices.push((await operator.get(String(res.headers.location))).body)
      }
      expect(notices[0]).toContain('The order is approved and its pack granted.')
      expect(notices[1]).toContain('The order was paid already; its pack is granted once, nothing more now.')
      expect((await own.c.ledger.entries(accountId)).filter((e) => e.kind === 'grant' && e.delta === 50_000)).toHaveLength(1)
    } finally {
      await own.close()
    }
  })
})
