/**
 * The HTTP edge against a hostile client, in process: refusals that say they were free, the security
 * headers of every answer, wrong keys and tokens throttled per address without ever refusing a valid
 * one, packs born expired refused, prototype keys named, and the settings that bound all this.
 * What only shows over real sockets (timeouts, large bodies, the parser's refusals) is in
 * hardening-sockets.test.ts.
 */
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config/config.ts'
import { API_CSP } from '../../src/http/security-headers.ts'
import { serverTimeouts } from '../../src/http/server-timeouts.ts'
import { COMPANY_ID, fixtureRecords } from '../helpers/ingest-fixtures.ts'
import { ADMIN_TOKEN, expectError, makeTestApp, type TestApp } from '../helpers/test-app.ts'

const COMPANY = `/api/v1/company?companyUrlOrUrn=urn:li:fsd_company:${COMPANY_ID}`
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` }
const adminJson = { ...auth, 'content-type': 'application/json' }

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp({ records: fixtureRecords() })
})
afterAll(async () => t.close())

describe('settings', () => {
  it('PRONET_REQUEST_TIMEOUT_MS: 30 s by default, whole milliseconds from 100; anything else stops the start naming it', () => {
    expect(loadConfig({}).requestTimeoutMs).toBe(30_000)
    expect(loadConfig({ PRONET_REQUEST_TIMEOUT_MS: '500' }).requestTimeoutMs).toBe(500)
    for (const bad of ['soon', '0', '99', '1e3', '-500', '2.5', '3600001']) {
      expect(() => loadConfig({ PRONET_REQUEST_TIMEOUT_MS: bad })).toThrow(
        new ConfigError(`invalid environment: PRONET_REQUEST_TIMEOUT_MS must be a whole number of milliseconds from 100 to 3600000 (got ${JSON.stringify(bad)})`),
      )
    }
  })

  it('PRONET_AUTH_FAILURE_LIMIT (20, 0 for none) and PRONET_AUTH_FAILURE_WINDOW_MS (10 s, at least 1 s)', () => {
    const defaults = loadConfig({})
    expect([defaults.authFailureLimit, defaults.authFailureWindowMs]).toEqual([20, 10_000])
    expect(loadConfig({ PRONET_AUTH_FAILURE_LIMIT: '0', PRONET_AUTH_FAILURE_WINDOW_MS: '60000' })).toMatchObject({ authFailureLimit: 0, authFailureWindowMs: 60_000 })
    expect(() => loadConfig({ PRONET_AUTH_FAILURE_LIMIT: 'many' })).toThrow(/^invalid environment: PRONET_AUTH_FAILURE_LIMIT must be a whole number from 0 to 1000000 \(got "many"\)$/)
    expect(() => loadConfig({ PRONET_AUTH_FAILURE_WINDOW_MS: '999' })).toThrow(/^invalid environment: PRONET_AUTH_FAILURE_WINDOW_MS must be a whole number of milliseconds from 1000/)
  })

  it('the headers get at most 10 s of a request\'s time, and Node looks for late requests often enough to keep to it', () => {
    expect(serverTimeouts(30_000).http).toEqual({ requestTimeout: 30_000, headersTimeout: 10_000, connectionsCheckingInterval: 1_000 })
    expect(serverTimeouts(500).http).toEqual({ requestTimeout: 500, headersTimeout: 500, connectionsCheckingInterval: 125 })
    expect(serverTimeouts(30_000).fastify.requestTimeout).toBe(30_000)
  })
})

/** Every refusal is free and says so, whatever refused it. */
const expectFree = (res: LightMyRequestResponse, status: number, code: string) => {
  expectError(res, status, code)
  expect(res.headers['x-credits-charged'], `${status} ${code}`).toBe('0')
}

describe('X-Credits-Charged: 0 on every refusal', () => {
  it('unknown paths, in the API and outside it, and paths the router cannot read', async () => {
    expectFree(await t.get('/api/v1/nowhere'), 404, 'NOT_FOUND')
    expectFree(await t.get('/nowhere', null), 404, 'NOT_FOUND')
    expectFree(await t.app.inject({ method: 'DELETE', url: '/openapi.json' }), 404, 'NOT_FOUND')
    // Fastify's framework errors (a malformed percent-escape) skip the app's hooks.
    const badUrl = await t.get('/api/v1/prof%ile')
    expectFree(badUrl, 404, 'NOT_FOUND')
    expect(badUrl.headers['x-content-type-options']).toBe('nosniff')
    expect(badUrl.headers['cache-control']).toBe('no-store')
  })

  it('the admin API: wrong token, bad body, unknown account, body over the limit', async () => {
    expectFree(await t.app.inject({ method: 'GET', url: '/admin/v1/accounts/acc_x', headers: { authorization: 'Bearer wrong' } }), 401, 'UNAUTHENTICATED')
    expectFree(await t.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: adminJson, payload: '{"bogus":1}' }), 400, 'INVALID_PARAMETER')
    expectFree(await t.app.inject({ method: 'GET', url: '/admin/v1/accounts/acc_nobody', headers: auth }), 404, 'NOT_FOUND')
    const big = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) })
    expectFree(await t.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: adminJson, payload: big }), 400, 'INVALID_PARAMETER')
  })

  it('data and account routes: no key, bad parameters, a body over 1 MiB', async () => {
    expectFree(await t.get('/api/v1/subscription', null), 401, 'UNAUTHENTICATED')
    expectFree(await t.get('/api/v1/company'), 400, 'MISSING_PARAMETER')
    const big = await t.app.inject({
      method: 'POST',
      url: '/api/v1/company/batch',
      headers: { 'x-api-key': t.key, 'content-type': 'application/json' },
      payload: JSON.stringify({ companies: ['x'.repeat(2 * 1024 * 1024)] }),
    })
    expectFree(big, 400, 'INVALID_PARAMETER')
    expect(big.json().error).toBe('The body exceeds 1 MiB.')
  })

  it("the console's refusals (pages, not envelopes) too", async () => {
    const res = await t.app.inject('/console/nowhere')
    expect(res.statusCode).toBe(404)
    expect(res.headers['x-credits-charged']).toBe('0')
  })
})

describe('security headers', () => {
  const expectApiHeaders = (res: LightMyRequestResponse, label: string) => {
    expect(res.headers['x-content-type-options'], label).toBe('nosniff')
    expect(res.headers['cache-control'], label).toBe('no-store')
    expect(res.headers['content-security-policy'], label).toBe(API_CSP)
    expect(res.headers['x-frame-options'], label).toBe('DENY')
    expect(res.headers['referrer-policy'], label).toBe('no-referrer')
    expect(res.headers['cross-origin-resource-policy'], label).toBe('same-origin')
    // Only where the service is reached over TLS (PRONET_PUBLIC_URL https://).
    expect(res.headers['strict-transport-security'], label).toBeUndefined()
  }

  it('on the API: a data 200 and a data error, the subscription, an admin call, /openapi.json, the health check', async () => {
    const ok = await t.get(COMPANY)
    expect(ok.statusCode, ok.body).toBe(200)
    expectApiHeaders(ok, 'data 200')
    const missing = await t.get('/api/v1/profile?profileUrlOrUrn=no-such-member-zz')
    expect(missing.statusCode).toBe(404)
    expectApiHeaders(missing, 'data 404')
    expectApiHeaders(await t.get('/api/v1/profile?profileUrlOrUrn=x', 'pk_wrong'), 'data 401')
    const subscription = await t.get('/api/v1/subscription')
    expect(subscription.statusCode).toBe(200)
    expectApiHeaders(subscription, 'subscription')
    const admin = await t.app.inject({ method: 'GET', url: `/admin/v1/accounts/${t.accountId}`, headers: auth })
    expect(admin.statusCode).toBe(200)
    expectApiHeaders(admin, 'admin 200')
    const spec = await t.app.inject('/openapi.json')
    expect(spec.statusCode).toBe(200)
    expectApiHeaders(spec, '/openapi.json')
    expectApiHeaders(await t.app.inject('/healthz'), '/healthz')
  })

  it('/docs: a policy of its own that allows its own files and nothing inline, which are all it uses', async () => {
    const page = await t.app.inject('/docs')
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toMatch(/^text\/html/)
    expect(page.headers['x-content-type-options']).toBe('nosniff')
    expect(page.headers['cache-control']).toBe('no-store')
    const csp = String(page.headers['content-security-policy'])
    const directives = new Map(csp.split(';').map((d) => d.trim()).filter(Boolean).map((d) => [d.split(/\s+/)[0], d.split(/\s+/).slice(1)] as const))
    expect(directives.get('default-src')).toEqual(["'none'"])
    expect(directives.get('script-src')).toEqual(["'self'"])
    // And the hash of the one inline style, the logo's colours, which a browser test shows is all it needs.
    expect(directives.get('style-src')).toEqual(["'self'", "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='"])
    expect(directives.get('connect-src')).toEqual(["'self'"])
    expect(directives.get('frame-ancestors')).toEqual(["'none'"])
    expect(csp).not.toMatch(/unsafe-(inline|eval)/)
    // What the policy must allow: the page's scripts and styles are files of this origin, none inline.
    expect(page.body).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/)
    expect(page.body).not.toMatch(/<style\b|\sstyle="|\son[a-z]+="/)
    const assets = [...page.body.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="([^"]+)"/g)].map((m) => m[1] as string)
    expect(assets.length).toBeGreaterThanOrEqual(4)
    for (const asset of assets) {
      expect(asset, 'no file from elsewhere').not.toMatch(/^(https?:)?\/\//)
      const res = await t.app.inject(asset.startsWith('/') ? asset : `/docs/${asset.replace(/^\.\//, '')}`)
      expect(res.statusCode, asset).toBe(200)
      expect(res.headers['x-content-type-options'], asset).toBe('nosniff')
      expect(res.headers['content-security-policy'], asset).toBe(csp)
    }
    // The description the page fetches (connect-src 'self').
    const described = await t.app.inject('/docs/json')
    expect(described.statusCode).toBe(200)
    expect(described.json().openapi).toBe('3.1.0')
  })

  it("the console keeps its own policy and headers", async () => {
    const res = await t.app.inject('/console/sign-in')
    expect(res.statusCode).toBe(200)
    const csp = String(res.headers['content-security-policy'])
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("form-action 'self'")
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN')
    expect(res.headers['x-content-type-options']).toBe('nosniff')
    expect(res.headers['cache-control']).toBe('no-store')
  })

  it('behind TLS (PRONET_PUBLIC_URL https://), API answers tell browsers to keep to it', async () => {
    const tls = await makeTestApp({ env: { PRONET_PUBLIC_URL: 'https://api.example.org' } })
    try {
      const res = await tls.get('/api/v1/subscription')
      expect(res.statusCode).toBe(200)
      expect(res.headers['strict-transport-security']).toBe('max-age=31536000')
      expect(res.headers['content-security-policy']).toBe(API_CSP)
    } finally {
      await tls.close()
    }
  })
})

describe('wrong keys and tokens, throttled per client address', () => {
  let s: TestApp
  /** The monotonic clock the throttle's windows are measured by, moved by hand. */
  let now = 0
  beforeAll(async () => {
    s = await makeTestApp({
      env: { PRONET_AUTH_FAILURE_LIMIT: '5', PRONET_AUTH_FAILURE_WINDOW_MS: '10000' },
      overrides: { monotonic: () => now },
    })
  })
  afterAll(async () => s.close())

  const from = (remoteAddress: string, url: string, headers: Record<string, string>) => s.app.inject({ method: 'GET', url, headers, remoteAddress })
  const wrongKey = (address = '10.0.0.1', url = '/api/v1/profile?profileUrlOrUrn=x') => from(address, url, { 'x-api-key': 'pk_guess' })

  it('past the limit within the window, further failures get a free 429 with a truthful Retry-After; a valid key and token still pass', async () => {
    now = 1_000
    for (let i = 0; i < 5; i++) expectFree(await wrongKey(), 401, 'INVALID_API_KEY')
    const throttled = await wrongKey()
    const body = expectError(throttled, 429, 'RATE_LIMITED')
    expect(throttled.headers['retry-after']).toBe('10')
    expect(body.details).toEqual({ retryAfterSeconds: 10 })
    expect(throttled.headers['x-credits-charged']).toBe('0')
    expect(throttled.headers['x-content-type-options']).toBe('nosniff')

    // The window began at the first failure: 3.5 s on, 6.5 s are left, told in whole seconds.
    now = 4_500
    expect((await wrongKey('10.0.0.1', '/api/v1/subscription')).headers['retry-after']).toBe('7')
    // Wrong admin tokens from the address are refused too (an account route and the admin API share its count).
    expectFree(await from('10.0.0.1', '/admin/v1/accounts?query=x', { authorization: 'Bearer guess' }), 429, 'RATE_LIMITED')

    // A valid key and a valid token from the same address are answered as usual, again and again.
    for (let i = 0; i < 3; i++) {
      expect((await from('10.0.0.1', COMPANY, { 'x-api-key': s.key })).statusCode).not.toBe(429)
      expect((await from('10.0.0.1', '/api/v1/profile?profileUrlOrUrn=no-such-member-zz', { 'x-api-key': s.key })).statusCode).toBe(404)
      expect((await from('10.0.0.1', `/admin/v1/accounts/${s.accountId}`, auth)).statusCode).toBe(200)
    }
    // No key at all is no guess: told to send one, as always.
    expectFree(await from('10.0.0.1', '/api/v1/profile?profileUrlOrUrn=x', {}), 401, 'UNAUTHENTICATED')
    // Another address has its own count.
    expectFree(await wrongKey('10.0.0.2'), 401, 'INVALID_API_KEY')

    // When the Retry-After has passed, the window has ended: the next wrong key is a 401 again.
    now = 11_000
    expectFree(await wrongKey(), 401, 'INVALID_API_KEY')
  })

  it('a burst of wrong keys gets exactly the limit of 401s, the rest 429s; the valid key beside it is never refused', async () => {
    now = 100_000
    const burst = await Promise.all([
      ...Array.from({ length: 200 }, () => wrongKey('10.0.0.3')),
      ...Array.from({ length: 20 }, () => from('10.0.0.3', '/api/v1/profile?profileUrlOrUrn=no-such-member-zz', { 'x-api-key': s.key })),
    ])
    const statuses = burst.map((r) => r.statusCode)
    expect(statuses.slice(0, 200).filter((x) => x === 401)).toHaveLength(5)
    expect(statuses.slice(0, 200).filter((x) => x === 429)).toHaveLength(195)
    expect(statuses.slice(200)).toEqual(Array(20).fill(404))
  })

  it('a revoked key is a failure like any wrong key; the call is in its account\'s usage with the status it got', async () => {
    now = 200_000
    const created = await s.c.accounts.createKey(s.accountId)
    await s.c.accounts.revokeKey(s.accountId, created.id)
    for (let i = 0; i < 5; i++) expectFree(await from('10.0.0.4', COMPANY, { 'x-api-key': created.key }), 401, 'INVALID_API_KEY')
    expectFree(await from('10.0.0.4', COMPANY, { 'x-api-key': created.key }), 429, 'RATE_LIMITED')
    s.clock.advance(1_000)
    const usage = (await s.get('/api/v1/usage')).json() as { creditsUsed: number; endpoints: { endpoint: string; statusCodes: Record<string, number> }[] }
    expect(usage.endpoints.find((e) => e.endpoint === '/api/v1/company')?.statusCodes).toMatchObject({ 401: 5, 429: 1 })
  })

  it('the address is the connection\'s: a forged X-Forwarded-For does not dodge the count', async () => {
    now = 400_000
    for (let i = 0; i < 5; i++) expectFree(await from('10.0.0.5', COMPANY, { 'x-api-key': 'pk_guess', 'x-forwarded-for': `192.0.2.${i}` }), 401, 'INVALID_API_KEY')
    expectFree(await from('10.0.0.5', COMPANY, { 'x-api-key': 'pk_guess', 'x-forwarded-for': '192.0.2.99' }), 429, 'RATE_LIMITED')
  })

  it('behind a trusted proxy (PRONET_TRUST_PROXY), each client is counted by the address the proxy names', async () => {
    const proxied = await makeTestApp({ env: { PRONET_TRUST_PROXY: '10.9.0.1', PRONET_AUTH_FAILURE_LIMIT: '2' } })
    try {
      const via = (client: string) =>
        proxied.app.inject({ method: 'GET', url: COMPANY, remoteAddress: '10.9.0.1', headers: { 'x-api-key': 'pk_guess', 'x-forwarded-for': client } })
      for (let i = 0; i < 2; i++) expectFree(await via('198.51.100.1'), 401, 'INVALID_API_KEY')
      expectFree(await via('198.51.100.1'), 429, 'RATE_LIMITED')
      expectFree(await via('198.51.100.2'), 401, 'INVALID_API_KEY')
    } finally {
      await proxied.close()
    }
  })

  it('IPv6 clients are counted by their /64: the addresses of one network share a count', async () => {
    now = 300_000
    for (let i = 1; i <= 5; i++) expectFree(await wrongKey(`2001:db8:1:2::${i}`), 401, 'INVALID_API_KEY')
    expectFree(await wrongKey('2001:db8:1:2:ffff::9'), 429, 'RATE_LIMITED')
    expectFree(await wrongKey('2001:db8:1:3::1'), 401, 'INVALID_API_KEY')
  })
})

describe('a pack born expired', () => {
  const addPack = (purchasedAt: string | number) =>
    t.app.inject({ method: 'POST', url: `/admin/v1/accounts/${t.accountId}/packs`, headers: adminJson, payload: JSON.stringify({ credits: 50_000, purchasedAt }) })
  const account = async () => (await t.app.inject({ method: 'GET', url: `/admin/v1/accounts/${t.accountId}`, headers: auth })).json()

  it('is refused with a 400 naming purchasedAt, and nothing changes', async () => {
    // The keys' last uses by the calls before are written now, not by the timer while this compares.
    await t.c.accounts.flushKeyUses()
    const before = await account()
    // The clock stands at 2026-11-01: a pack lasts 12 calendar months.
    for (const purchasedAt of ['1970-01-01T00:00:00Z', 0, '2025-11-01T00:00:00.000Z']) {
      const body = expectError(await addPack(purchasedAt), 400, 'INVALID_PARAMETER')
      expect(body.details).toEqual({ parameter: 'purchasedAt' })
      expect(String(body.error)).toMatch(/^Invalid parameter 'purchasedAt': a pack bought then expired on /)
    }
    expect(await account()).toEqual(before)
    // One that has a millisecond left is granted, as the CLI's path (the same service) shows too.
    const alive = await addPack('2025-11-01T00:00:00.001Z')
    expect(alive.statusCode, alive.body).toBe(201)
    expect(alive.json().expiresAt).toBe('2026-11-01T00:00:00.001Z')
    await expect(t.c.metering.addPack(t.accountId, { credits: 50_000, purchasedAt: Date.UTC(1970, 0, 1) })).rejects.toMatchObject({
      code: 'INVALID_PARAMETER',
      details: { parameter: 'purchasedAt' },
    })
  })
})

describe('a __proto__ or constructor.prototype key is refused naming the field', () => {
  const cases = [
    ['{"name":"x","__proto__":{"name":"y"}}', '__proto__'],
    ['{"name":"x","constructor":{"prototype":{"name":"y"}}}', 'constructor'],
  ] as const

  it('on the admin API (accounts, subscriptions, orders), and nothing is created', async () => {
    const count = async () => (await t.app.inject({ method: 'GET', url: '/admin/v1/accounts?limit=500', headers: auth })).json().accounts.length
    const before = await count()
    for (const [payload, field] of cases) {
      for (const [method, url] of [
        ['POST', '/admin/v1/accounts'],
        ['PUT', `/admin/v1/accounts/${t.accountId}/subscription`],
        ['POST', '/admin/v1/orders/ord_nobody/reject'],
      ] as const) {
        const res = await t.app.inject({ method, url, headers: adminJson, payload })
        const body = expectError(res, 400, 'INVALID_PARAMETER')
        expect(body, `${method} ${url}`).toEqual({ error: `Invalid parameter '${field}': this field name is not accepted.`, code: 'INVALID_PARAMETER', details: { parameter: field } })
      }
    }
    expect(await count()).toBe(before)
  })

  it('on a data POST route, free, with the path of a nested one', async () => {
    const post = (payload: string) =>
      t.app.inject({ method: 'POST', url: '/api/v1/company/batch', headers: { 'x-api-key': t.key, 'content-type': 'application/json' }, payload })
    for (const [payload, field] of [
      ['{"companies":["1035"],"__proto__":{"x":1}}', '__proto__'],
      ['{"companies":["1035"],"constructor":{"prototype":{"x":1}}}', 'constructor'],
      ['{"companies":[{"__proto__":{}}]}', 'companies.0.__proto__'],
    ] as const) {
      const res = await post(payload)
      expect(expectError(res, 400, 'INVALID_PARAMETER').details).toEqual({ parameter: field })
      expect(res.headers['x-credits-charged']).toBe('0')
    }
    // Text that is not JSON is still that.
    expect(expectError(await post('{"companies":'), 400, 'INVALID_PARAMETER').error).toBe('The body is not valid JSON.')
  })
})
