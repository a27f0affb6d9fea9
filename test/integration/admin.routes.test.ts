import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, expectError, makeTestApp, type TestApp } from '../helpers/test-app.ts'

let t: TestApp
const admin = (method: 'GET' | 'POST' | 'DELETE' | 'PUT', url: string, payload?: unknown, token = ADMIN_TOKEN) =>
  t.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}`, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
  })

beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(async () => t.close())

describe('admin API: accounts and keys', () => {
  it('creates an account whose key works, lists keys without secrets, revokes keys', async () => {
    const res = await admin('POST', '/admin/v1/accounts', { name: 'acme', plan: 'custom', creditsLimit: 5000, rpsLimit: 20, status: 'trialing' })
    expect(res.statusCode).toBe(201)
    const created = res.json()
    expect(created.account).toMatchObject({ name: 'acme' })
    expect(created.apiKey.key).toMatch(/^pk_/)
    expect(created.apiKey.key.startsWith(created.apiKey.prefix)).toBe(true)
    expectError(await t.get('/api/v1/company?companyUrlOrUrn=ghost', created.apiKey.key), 404, 'COMPANY_NOT_FOUND')

    const second = (await admin('POST', `/admin/v1/accounts/${created.account.id}/keys`)).json()
    const shown = (await admin('GET', `/admin/v1/accounts/${created.account.id}`)).json()
    expect(shown.keys.map((k: { id: string }) => k.id)).toEqual([created.apiKey.id, second.id])
    expect(JSON.stringify(shown)).not.toContain(created.apiKey.key)
    expect(shown.keys.every((k: { revokedAt: null }) => k.revokedAt === null)).toBe(true)

    expect((await admin('DELETE', `/admin/v1/accounts/${created.account.id}/keys/${second.id}`)).statusCode).toBe(204)
    expectError(await t.get('/api/v1/company?companyUrlOrUrn=ghost', second.key), 401, 'INVALID_API_KEY')
    expectError(await admin('DELETE', `/admin/v1/accounts/${created.account.id}/keys/${second.id}`), 404, 'NOT_FOUND')
  })

  it('finds accounts by id, a part of the name, the start of a key, or a console user\'s address', async () => {
    const made = (await admin('POST', '/admin/v1/accounts', { name: 'Zebrafish Analytics' })).json()
    await t.c.identity.createUser({ email: 'zed@example.com', accountId: made.account.id, role: 'owner' })
    const ids = async (query: string) => {
      const res = await admin('GET', `/admin/v1/accounts?query=${encodeURIComponent(query)}`)
      expect(res.statusCode, res.body).toBe(200)
      return (res.json().accounts as { id: string }[]).map((a) => a.id)
    }
    for (const q of [made.account.id, 'zebrafish', 'FISH ANALY', made.apiKey.prefix, 'zed@example.com', 'ZED@example.com']) expect(await ids(q), q).toEqual([made.account.id])
    expect(await ids('nobody@example.com')).toEqual([])
    expect((await ids('')).length).toBeGreaterThan(0)
    const one = (await admin('GET', '/admin/v1/accounts?limit=1')).json()
    expect(one.accounts).toHaveLength(1)
    expectError(await admin('GET', '/admin/v1/accounts?limit=0'), 400, 'INVALID_PARAMETER')
    expectError(await admin('GET', '/admin/v1/accounts?query=x', undefined, 'wrong-token'), 401, 'UNAUTHENTICATED')
  })

  it('an id holding a control character names nothing: 404 on every route and store (a NUL was a 500 on PostgreSQL)', async () => {
    const { account } = (await admin('POST', '/admin/v1/accounts', { name: 'real' })).json()
    for (const id of ['%00', 'acc_%00x', 'acc_%01']) {
      expectError(await admin('GET', `/admin/v1/accounts/${id}`), 404, 'NOT_FOUND')
      expectError(await admin('POST', `/admin/v1/accounts/${id}/keys`), 404, 'NOT_FOUND')
      expectError(await admin('POST', `/admin/v1/accounts/${id}/suspend`), 404, 'NOT_FOUND')
      expectError(await admin('PUT', `/admin/v1/accounts/${id}/subscription`, { rpsLimit: 9 }), 404, 'NOT_FOUND')
      expectError(await admin('POST', `/admin/v1/accounts/${id}/packs`, { credits: 10_000 }), 404, 'NOT_FOUND')
      expectError(await admin('DELETE', `/admin/v1/accounts/${account.id}/keys/${id}`), 404, 'NOT_FOUND')
    }
  })

  it('a name: 1 to 200 characters counted as characters, one of them visible, no control character', async () => {
    const emoji = '😀'.repeat(200)
    expect((await admin('POST', '/admin/v1/accounts', { name: emoji })).json().account.name).toBe(emoji)
    for (const [name, why] of [
      ['😀'.repeat(201), /200 characters/],
      ['a\u0000b', /control characters/],
      ['line\nbreak', /control characters/],
      ['line\u2028separator', /control characters/],
      ['\u202Egnp.exe', /text-direction controls/],
      ['isolated \u2067name\u2069', /text-direction controls/],
      ['   ', /visible character/],
      ['\u200b\u00a0', /visible character/],
    ] as const) {
      const refused = expectError(await admin('POST', '/admin/v1/accounts', { name }), 400, 'INVALID_PARAMETER')
      expect(refused.details).toEqual({ parameter: 'name' })
      expect(refused.error).toMatch(why)
    }
  })

  it('suspend answers 403 FORBIDDEN on the account keys; resume restores them', async () => {
    const created = (await admin('POST', '/admin/v1/accounts', {})).json()
    const suspended = await admin('POST', `/admin/v1/accounts/${created.account.id}/suspend`)
    expect(suspended.json()).toMatchObject({ id: created.account.id, suspended: true })
    expectError(await t.get('/api/v1/company?companyUrlOrUrn=ghost', created.apiKey.key), 403, 'FORBIDDEN')
    expect((await admin('POST', `/admin/v1/accounts/${created.account.id}/resume`)).json()).toMatchObject({ suspended: false })
    expectError(await t.get('/api/v1/company?companyUrlOrUrn=ghost', created.apiKey.key), 404, 'COMPANY_NOT_FOUND')
  })

  it('suspending a suspended account keeps the time it was first suspended', async () => {
    const { account } = (await admin('POST', '/admin/v1/accounts', {})).json()
    const first = (await admin('POST', `/admin/v1/accounts/${account.id}/suspend`)).json()
    await new Promise((resolve) => setTimeout(resolve, 5))
    const again = await admin('POST', `/admin/v1/accounts/${account.id}/suspend`)
    expect(again.statusCode).toBe(200)
    expect(again.json()).toMatchObject({ suspended: true, suspendedAt: first.suspendedAt })
    expect(first.suspendedAt).toEqual(expect.any(String))
  })

  it('POST …/keys, …/suspend and …/resume take no fields: a body holding one is refused and changes nothing', async () => {
    const { account } = (await admin('POST', '/admin/v1/accounts', {})).json()
    for (const action of ['keys', 'suspend', 'resume']) {
      for (const body of [{ x: 1 }, [], 'yes']) {
        expectError(await admin('POST', `/admin/v1/accounts/${account.id}/${action}`, body), 400, 'INVALID_PARAMETER')
      }
    }
    const shown = (await admin('GET', `/admin/v1/accounts/${account.id}`)).json()
    expect(shown.keys).toHaveLength(1)
    expect(shown.account.suspended).toBe(false)
    expect((await admin('POST', `/admin/v1/accounts/${account.id}/keys`, {})).statusCode).toBe(201)
  })

  it('refuses a wrong token (401), bad bodies (400), unknown accounts (404)', async () => {
    expectError(await admin('GET', '/admin/v1/accounts/acc_x', undefined, 'wrong'), 401, 'UNAUTHENTICATED')
    expectError(await t.app.inject({ method: 'GET', url: '/admin/v1/accounts/acc_x' }), 401, 'UNAUTHENTICATED')
    // A field that takes one of a list of values says which (it said "must be equal to constant").
    expect(expectError(await admin('POST', '/admin/v1/accounts', { plan: 'gold' }), 400, 'INVALID_PARAMETER')).toEqual({
      error: "Invalid parameter 'plan': must be one of 'free', 'custom', 'none'.",
      code: 'INVALID_PARAMETER',
      details: { parameter: 'plan' },
    })
    expect(expectError(await admin('POST', '/admin/v1/accounts', { status: 'gold' }), 400, 'INVALID_PARAMETER').error).toBe(
      "Invalid parameter 'status': must be one of 'active', 'free', 'trialing', 'past_due', 'incomplete', 'unpaid', 'canceled'.",
    )
    expectError(await admin('POST', '/admin/v1/accounts', { rpsLimit: 0 }), 400, 'INVALID_PARAMETER')
    expectError(await admin('POST', '/admin/v1/accounts', { bogus: 1 }), 400, 'INVALID_PARAMETER')
    // An allowance past the bound (1e30 was stored and served as 1e+30, not an integer in JSON).
    for (const creditsLimit of [1e30, 1_000_000_001]) {
      expect(expectError(await admin('POST', '/admin/v1/accounts', { plan: 'custom', creditsLimit }), 400, 'INVALID_PARAMETER').details).toEqual({ parameter: 'creditsLimit' })
    }
    expect((await admin('POST', '/admin/v1/accounts', { plan: 'custom', creditsLimit: 1_000_000_000 })).statusCode).toBe(201)
    // The free plan is 1,000 credits a month at 5 per second, and no plan has no limits to set.
    for (const [body, field] of [
      [{ plan: 'free', creditsLimit: 5000 }, 'creditsLimit'],
      [{ creditsLimit: 5000 }, 'creditsLimit'],
      [{ plan: 'free', rpsLimit: 50 }, 'rpsLimit'],
      [{ plan: 'none', creditsLimit: 5000 }, 'creditsLimit'],
      [{ plan: 'none', rpsLimit: 50 }, 'rpsLimit'],
      // 'canceled' ends a plan, as on a subscription change: with another plan it contradicts itself
      // (it was created as an account without a plan), and the refusal names status, not the limits.
      [{ plan: 'custom', status: 'canceled' }, 'status'],
      [{ plan: 'free', status: 'canceled' }, 'status'],
      [{ plan: 'custom', creditsLimit: 5000, status: 'canceled' }, 'status'],
    ] as const) {
      expect(expectError(await admin('POST', '/admin/v1/accounts', body), 400, 'INVALID_PARAMETER').details, JSON.stringify(body)).toEqual({ parameter: field })
      // The subscription change of the same fields is refused for the same field.
      if ('status' in body) {
        const other = (await admin('POST', '/admin/v1/accounts', {})).json().account.id as string
        expect(expectError(await admin('PUT', `/admin/v1/accounts/${other}/subscription`, body), 400, 'INVALID_PARAMETER').details).toEqual({ parameter: field })
      }
    }
    // Without a plan, or with plan none, 'canceled' is an account without a plan.
    for (const body of [{ status: 'canceled' }, { plan: 'none', status: 'canceled' }]) {
      const created = await admin('POST', '/admin/v1/accounts', body)
      expect(created.statusCode, created.body).toBe(201)
      const shown = await admin('GET', `/admin/v1/accounts/${created.json().account.id}`)
      expect(shown.json().subscription).toMatchObject({ plan: 'free', status: 'canceled', creditsLimit: 0, renewalDate: null })
    }
    // What an account without a plan has, 0 credits at 5 per second, may be restated as the free plan's may.
    const restated = await admin('POST', '/admin/v1/accounts', { plan: 'none', creditsLimit: 0, rpsLimit: 5 })
    expect(restated.statusCode, restated.body).toBe(201)
    expect((await admin('GET', `/admin/v1/accounts/${restated.json().account.id}`)).json().subscription).toMatchObject({ plan: 'free', creditsLimit: 0, rpsLimit: 5 })
    const free = await admin('POST', '/admin/v1/accounts', { plan: 'free', creditsLimit: 1000, rpsLimit: 5 })
    expect(free.statusCode).toBe(201)
    const freeId = free.json().account.id as string
    for (const [body, field] of [[{ rpsLimit: 40 }, 'rpsLimit'], [{ creditsLimit: 7777 }, 'creditsLimit']] as const) {
      expect(expectError(await admin('PUT', `/admin/v1/accounts/${freeId}/subscription`, body), 400, 'INVALID_PARAMETER').details).toEqual({ parameter: field })
    }
    expect((await admin('PUT', `/admin/v1/accounts/${freeId}/subscription`, { plan: 'custom', creditsLimit: 7777, rpsLimit: 40 })).json()).toMatchObject({ plan: 'custom', creditsLimit: 7777, rpsLimit: 40 })
    expectError(await admin('GET', '/admin/v1/accounts/acc_missing'), 404, 'NOT_FOUND')
    // An admin path that does not exist: 401 without the right token, 404 with it.
    expectError(await admin('GET', '/admin/v1/nothing', undefined, 'wrong'), 401, 'UNAUTHENTICATED')
    expectError(await t.app.inject({ method: 'POST', url: '/admin/nothing' }), 401, 'UNAUTHENTICATED')
    expectError(await admin('GET', '/admin/v1/nothing'), 404, 'NOT_FOUND')
    expectError(await admin('GET', '/administrator', undefined, 'wrong'), 404, 'NOT_FOUND')
  })

  it('without PRONET_ADMIN_TOKEN every admin path is a 404', async () => {
    const bare = await makeTestApp({ env: { PRONET_ADMIN_TOKEN: '' } })
    try {
      const res = await bare.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
      expectError(res, 404, 'NOT_FOUND')
    } finally {
      await bare.close()
    }
  })

  it('the test clock exists only with PRONET_TEST_CLOCK=1 and keeps running from the set instant', async () => {
    expectError(await admin('GET', '/admin/v1/clock'), 404, 'NOT_FOUND')
    const clocked = await makeTestApp({ env: { PRONET_TEST_CLOCK: '1' } })
    try {
      // makeTestApp passes a manual clock, which wins; build one without it to see the offset clock.
      expect(clocked.c.testClock).toBeUndefined()
    } finally {
      await clocked.close()
    }
  })
})

describe('admin API: metrics', () => {
  it("serves this node's metrics in the Prometheus text format to the operator only", async () => {
    const { Gauge } = await import('prom-client')
    new Gauge({ name: 'pronet_test_gauge', help: 'a gauge registered by the test', registers: [t.c.metrics] }).set(3)
    const res = await admin('GET', '/admin/v1/metrics')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/plain/)
    expect(res.body).toMatch(/^# HELP pronet_test_gauge a gauge registered by the test$/m)
    expect(res.body).toMatch(/^pronet_test_gauge 3$/m)
    expectError(await admin('GET', '/admin/v1/metrics', undefined, 'wrong-token'), 401, 'UNAUTHENTICATED')
  })
})

describe('admin API: POST and PUT without a body (every field optional, or none)', () => {
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}` }
  const json = { ...auth, 'content-type': 'application/json' }
  const jsonUtf8 = { ...auth, 'content-type': 'application/json; charset=utf-8' }
  // Absent (no content type, no bytes) and empty (a JSON content type, zero bytes) both read as `{}`.
  const bare = (method: 'POST' | 'PUT', url: string, headers: Record<string, string>) =>
    t.app.inject({ method, url, headers })
  const empty = (method: 'POST' | 'PUT', url: string, headers: Record<string, string>) =>
    t.app.inject({ method, url, headers, payload: '' })

  it('POST /admin/v1/accounts with no body, or an empty JSON body, creates an account with the defaults as {} does', async () => {
    const fromObject = await admin('POST', '/admin/v1/accounts', {})
    expect(fromObject.statusCode).toBe(201)
    const defaults = (await admin('GET', `/admin/v1/accounts/${fromObject.json().account.id}`)).json()
    for (const res of [await bare('POST', '/admin/v1/accounts', auth), await empty('POST', '/admin/v1/accounts', json), await empty('POST', '/admin/v1/accounts', jsonUtf8)]) {
      expect(res.statusCode, res.body).toBe(201)
      const created = res.json()
      expect(created.apiKey.key).toMatch(/^pk_/)
      const shown = (await admin('GET', `/admin/v1/accounts/${created.account.id}`)).json()
      expect(shown.account.name).toBe(defaults.account.name)
      expect(shown.subscription).toEqual(defaults.subscription)
    }
  })

  it('POST …/keys, …/suspend and …/resume accept an empty body with a JSON content type', async () => {
    const { account } = (await admin('POST', '/admin/v1/accounts', {})).json()
    for (const headers of [auth, json, jsonUtf8]) {
      const key = await empty('POST', `/admin/v1/accounts/${account.id}/keys`, headers)
      expect(key.statusCode, key.body).toBe(201)
      expect(key.json().key).toMatch(/^pk_/)
      const suspended = await empty('POST', `/admin/v1/accounts/${account.id}/suspend`, headers)
      expect([suspended.statusCode, suspended.json().suspended]).toEqual([200, true])
      const resumed = await empty('POST', `/admin/v1/accounts/${account.id}/resume`, headers)
      expect([resumed.statusCode, resumed.json().suspended]).toEqual([200, false])
    }
    expect((await bare('POST', `/admin/v1/accounts/${account.id}/keys`, json)).statusCode).toBe(201)
  })

  it('PUT …/subscription with no body changes nothing; a body that is not an object is still refused', async () => {
    const { account } = (await admin('POST', '/admin/v1/accounts', {})).json()
    const before = (await admin('GET', `/admin/v1/accounts/${account.id}`)).json().subscription
    for (const res of [await bare('PUT', `/admin/v1/accounts/${account.id}/subscription`, auth), await empty('PUT', `/admin/v1/accounts/${account.id}/subscription`, json)]) {
      expect(res.statusCode, res.body).toBe(200)
      expect(res.json()).toEqual(before)
    }
    // Only "no body at all" is {}: JSON null, a list, bad JSON and unknown fields are refused as before.
    for (const payload of ['null', '[]', '{', '{"bogus":1}']) {
      const res = await t.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: json, payload })
      expectError(res, 400, 'INVALID_PARAMETER')
    }
    // A required field stays required.
    expectError(await bare('POST', `/admin/v1/accounts/${account.id}/packs`, auth), 400, 'MISSING_PARAMETER')
    expectError(await empty('POST', `/admin/v1/accounts/${account.id}/packs`, json), 400, 'MISSING_PARAMETER')
  })

  it('keeps the JSON prototype-poisoning protection on admin bodies, naming the field', async () => {
    for (const [payload, field] of [
      ['{"__proto__":{"name":"x"}}', '__proto__'],
      ['{"constructor":{"prototype":{"name":"x"}}}', 'constructor'],
    ]) {
      const res = await t.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: json, payload })
      // Refused by the parser (secure JSON), not merely by the closed schema as an unknown field.
      expect(expectError(res, 400, 'INVALID_PARAMETER')).toEqual({
        error: `Invalid parameter '${field}': this field name is not accepted.`,
        code: 'INVALID_PARAMETER',
        details: { parameter: field },
      })
    }
  })

  it('leaves the data API as it is: an empty JSON body on its POST routes is still refused', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/company/batch',
      headers: { 'x-api-key': t.key, 'content-type': 'application/json' },
      payload: '',
    })
    const body = expectError(res, 400, 'INVALID_PARAMETER')
    expect(body.error).toMatch(/empty/)
  })
})

describe('admin API: fields read as sent (no coercion; null is omitted, never 0 or false)', () => {
  const subscriptionOf = async (id: string) => (await admin('GET', `/admin/v1/accounts/${id}`)).json().subscription as Record<string, unknown>

  it('null leaves a subscription field as it was (it set the allowance to 0 and dropped a scheduled cancellation)', async () => {
    const { account } = (await admin('POST', '/admin/v1/accounts', { plan: 'custom', creditsLimit: 5000, rpsLimit: 20 })).json()
    expect((await admin('PUT', `/admin/v1/accounts/${account.id}/subscription`, { cancelAtPeriodEnd: true })).statusCode).toBe(200)
    const before = await subscriptionOf(account.id)
    expect(before).toMatchObject({ creditsLimit: 5000, creditsRemaining: 5000, cancelAtPeriodEnd: true, rpsLimit: 20 })
    const res = await admin('PUT', `/admin/v1/accounts/${account.id}/subscription`, { creditsLimit: null, cancelAtPeriodEnd: null, rpsLimit: null, plan: null, status: null, renewalDate: null })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual(before)
    expect(await subscriptionOf(account.id)).toEqual(before)
  })

  it('a field of the wrong JSON type is a 400 naming it, and changes nothing', async () => {
    const { account } = (await admin('POST', '/admin/v1/accounts', { plan: 'custom', creditsLimit: 5000, rpsLimit: 20 })).json()
    const before = await subscriptionOf(account.id)
    const refusals: [Record<string, unknown>, string][] = [
      [{ creditsLimit: '7000' }, 'creditsLimit'],
      [{ creditsLimit: true }, 'creditsLimit'],
      [{ creditsLimit: 12.5 }, 'creditsLimit'],
      [{ rpsLimit: '30' }, 'rpsLimit'],
      [{ cancelAtPeriodEnd: 'true' }, 'cancelAtPeriodEnd'],
      [{ cancelAtPeriodEnd: 1 }, 'cancelAtPeriodEnd'],
      [{ renewalDate: true }, 'renewalDate'],
      [{ renewalDate: -1 }, 'renewalDate'],
      [{ renewalDate: 1.5e12 + 0.5 }, 'renewalDate'],
      [{ renewalDate: 'soon' }, 'renewalDate'],
      // Past the year 9999 (it was stored, and the subscription then answered 500), and days that do
      // not exist (they rolled over into the next month).
      [{ renewalDate: '99999999999999999' }, 'renewalDate'],
      [{ renewalDate: 253_402_300_800_000 }, 'renewalDate'],
      [{ renewalDate: '2030-02-30T12:00:00Z' }, 'renewalDate'],
      [{ renewalDate: 'June 20, 2030' }, 'renewalDate'],
    ]
    for (const [body, field] of refusals) {
      const err = expectError(await admin('PUT', `/admin/v1/accounts/${account.id}/subscription`, body), 400, 'INVALID_PARAMETER')
      expect(err.error, JSON.stringify(body)).toContain(`'${field}'`)
    }
    expect(await subscriptionOf(account.id)).toEqual(before)
    for (const [body, field] of [[{ name: 123 }, 'name'], [{ creditsLimit: '100' }, 'creditsLimit'], [{ rpsLimit: false }, 'rpsLimit']] as const) {
      const err = expectError(await admin('POST', '/admin/v1/accounts', body), 400, 'INVALID_PARAMETER')
      expect(err.error).toContain(`'${field}'`)
    }
    const err = expectError(await admin('POST', `/admin/v1/accounts/${account.id}/packs`, { credits: '500' }), 400, 'INVALID_PARAMETER')
    expect(err.error).toContain("'credits'")
    for (const purchasedAt of ['2026-02-30T12:00:00Z', 'March 7, 2026', '2026-03-07 10:00']) {
      const bad = expectError(await admin('POST', `/admin/v1/accounts/${account.id}/packs`, { credits: 50_000, purchasedAt }), 400, 'INVALID_PARAMETER')
      expect(bad.error, purchasedAt).toContain("'purchasedAt'")
    }
    expect(await subscriptionOf(account.id)).toEqual(before)
    // A pack's credits are required: null is no credits.
    expect((await admin('POST', `/admin/v1/accounts/${account.id}/packs`, { credits: null })).statusCode).toBe(400)
    expect(await subscriptionOf(account.id)).toEqual(before)
  })

  it('an instant is ISO 8601 text or epoch milliseconds, as a JSON number or as digits', async () => {
    const { account } = (await admin('POST', '/admin/v1/accounts', { plan: 'custom', creditsLimit: 100, rpsLimit: 5 })).json()
    const renewal = t.clock.now() + 10 * 86_400_000
    const iso = new Date(renewal).toISOString()
    for (const renewalDate of [renewal, String(renewal), iso]) {
      const res = await admin('PUT', `/admin/v1/accounts/${account.id}/subscription`, { renewalDate })
      expect(res.statusCode, res.body).toBe(200)
      expect(res.json().renewalDate).toBe(iso)
    }
    const purchasedAt = t.clock.now() - 1000
    const pack = await admin('POST', `/admin/v1/accounts/${account.id}/packs`, { credits: 50_000, purchasedAt })
    expect(pack.statusCode, pack.body).toBe(201)
    expect(pack.json().purchasedAt).toBe(new Date(purchasedAt).toISOString())
  })

  it('a pack quote takes credits in decimal digits only', async () => {
    const ok = await admin('GET', '/admin/v1/packs/quote?credits=50000')
    expect(ok.statusCode).toBe(200)
    expect(ok.json()).toMatchObject({ credits: 50000 })
    for (const credits of ['1e5', '50000.0', '0x10', 'Infinity']) {
      const err = expectError(await admin('GET', `/admin/v1/packs/quote?credits=${credits}`), 400, 'INVALID_PARAMETER')
      expect(err.error).toContain("'credits'")
    }
  })

  it('a pack\'s size is refused by the smallest and largest there are', async () => {
    const { id } = (await admin('POST', '/admin/v1/accounts', { name: 'packs', plan: 'free' })).json().account
    const before = (await admin('GET', `/admin/v1/accounts/${id}`)).json()
    for (const [credits, bound] of [[0, 'must be >= 50000'], [1, 'must be >= 50000'], [50_000_250, 'must be <= 50000000']] as const) {
      const added = expectError(await admin('POST', `/admin/v1/accounts/${id}/packs`, { credits }), 400, 'INVALID_PARAMETER')
      expect(added.error, String(credits)).toBe(`Invalid parameter 'credits': ${bound}.`)
      const quoted = expectError(await admin('GET', `/admin/v1/packs/quote?credits=${credits}`), 400, 'INVALID_PARAMETER')
      expect(quoted.error, String(credits)).toBe(`Invalid parameter 'credits': ${bound}.`)
    }
    expect(expectError(await admin('POST', `/admin/v1/accounts/${id}/packs`, { credits: 60_000 }), 400, 'INVALID_PARAMETER').error).toContain('steps of 50,000')
    expect((await admin('GET', `/admin/v1/accounts/${id}`)).json()).toEqual(before)
  })
})

describe('admin API: a new creditsLimit within the period keeps what was used', () => {
  it('lowered below the credits spent, then raised again: nothing is given back', async () => {
    const created = (await admin('POST', '/admin/v1/accounts', { plan: 'custom', creditsLimit: 100, rpsLimit: 1000 })).json()
    const id = created.account.id as string
    for (let i = 0; i < 10; i++) expect((await t.get('/api/v1/company?companyUrlOrUrn=ghost', created.apiKey.key)).statusCode).toBe(404)
    const sub = async () => (await admin('GET', `/admin/v1/accounts/${id}`)).json().subscription as Record<string, number>
    expect(await sub()).toMatchObject({ creditsLimit: 100, creditsRemaining: 90, creditsUsed: 10 })
    expect((await admin('PUT', `/admin/v1/accounts/${id}/subscription`, { creditsLimit: 5 })).json()).toMatchObject({ creditsLimit: 5, creditsRemaining: 0, creditsUsed: 5 })
    expect((await admin('PUT', `/admin/v1/accounts/${id}/subscription`, { creditsLimit: 100 })).json()).toMatchObject({ creditsLimit: 100, creditsRemaining: 90, creditsUsed: 10 })
    expect((await admin('PUT', `/admin/v1/accounts/${id}/subscription`, { creditsLimit: 12 })).json()).toMatchObject({ creditsLimit: 12, creditsRemaining: 2, creditsUsed: 10 })
    expect(await sub()).toMatchObject({ creditsLimit: 12, creditsRemaining: 2, creditsUsed: 10 })
  })
})
