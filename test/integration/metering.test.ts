/**
 * The metering gateway over HTTP: prices, 402 admission, rate budgets and their headers, the
 * account endpoints (usage, subscription), usage recording of every outcome, suspension and unknown
 * paths.
 */
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SubscriptionResponse, UsageResponse } from '../../src/contract/endpoints.schemas.ts'
import { AUTHOR_ID, COMPANY_ID, PERSON_POST_ID, fixtureRecords, profileRecord } from '../helpers/ingest-fixtures.ts'
import { ADMIN_TOKEN, expectError, expectSchema, makeTestApp, type TestApp } from '../helpers/test-app.ts'

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0)
const q = encodeURIComponent
let t: TestApp

beforeAll(async () => {
  // Sixteen members so posts/updates can ask for more than one group of 15.
  const extra = Array.from({ length: 16 }, (_, i) => ({ kind: 'profile', data: profileRecord(10 + i) }))
  t = await makeTestApp({ nowMs: NOW, records: [...fixtureRecords(), ...extra] })
})
afterAll(async () => t.close())

const admin = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
  t.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  })

/** A new account through the admin API; returns its id and key. */
async function account(body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const res = await admin('POST', '/admin/v1/accounts', body)
  expect(res.statusCode, res.body).toBe(201)
  return { id: res.json().account.id, key: res.json().apiKey.key }
}

const subscription = async (key: string) => {
  const res = await t.get('/api/v1/subscription', key)
  expect(res.statusCode, res.body).toBe(200)
  expectSchema(SubscriptionResponse, res.json())
  // The account endpoint's own budget is one call per second: step past it.
  t.clock.advance(1000)
  return res.json() as Record<string, unknown>
}

const usage = async (key: string, query = '') => {
  const res = await t.get(`/api/v1/usage${query}`, key)
  expect(res.statusCode, res.body).toBe(200)
  expectSchema(UsageResponse, res.json())
  t.clock.advance(1000)
  return res.json() as Record<string, any>
}

const batch = (key: string, companies: unknown) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/company/batch',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    payload: JSON.stringify({ companies }),
  })

describe('prices and X-Credits-Charged', () => {
  it('bills each call its price and says so', async () => {
    const a = await account({ plan: 'custom', creditsLimit: 1000, rpsLimit: 1000 })
    const members = Array.from({ length: 16 }, (_, i) => `member-${10 + i}`).join(',')
    const cases: [string, number][] = [
      [`/api/v1/profile?profileUrlOrUrn=member-1`, 1],
      [`/api/v1/company?companyUrlOrUrn=${COMPANY_ID}`, 1],
      [`/api/v1/posts?profileUrlOrUrn=member-1`, 1],
      [`/api/v1/posts?profileUrlOrUrn=member-1&count=50`, 1],
      [`/api/v1/company/posts?companyUrlOrUrn=${COMPANY_ID}&count=51`, 2],
      [`/api/v1/posts?profileUrlOrUrn=member-1&count=51`, 0],
      [`/api/v1/company/posts?companyUrlOrUrn=${COMPANY_ID}&count=100`, 2],
      [`/api/v1/company/posts?companyUrlOrUrn=${COMPANY_ID}&count=500`, 2],
      [`/api/v1/profile/articles?profileUrlOrUrn=member-1&count=100`, 2],
      [`/api/v1/profile/reactions?profileUrlOrUrn=member-2`, 1],
      [`/api/v1/posts/updates?profileUrlsOrUrns=member-1,member-2`, 1],
      [`/api/v1/posts/updates?profileUrlsOrUrns=${members}`, 2],
      [`/api/v1/post/engagement?postUrlOrUrn=${PERSON_POST_ID}`, 2],
      [`/api/v1/post/comments?postUrlOrUrn=${PERSON_POST_ID}`, 1],
      [`/api/v1/post/reactions?postUrlOrUrn=${PERSON_POST_ID}`, 1],
      // 404 of a missing record bills 1, feeds included; refusals are free.
      [`/api/v1/profile?profileUrlOrUrn=nobody-here`, 1],
      [`/api/v1/company/posts?companyUrlOrUrn=ghost-co&count=100`, 1],
      [`/api/v1/post/engagement?postUrlOrUrn=${PERSON_POST_ID.slice(0, -1)}9`, 1],
      // posts/updates is not a single record: "failed requests cost nothing".
      [`/api/v1/posts/updates?profileUrlsOrUrns=nobody-here,ghost-b`, 0],
      [`/api/v1/profile`, 0],
      [`/api/v1/posts?profileUrlOrUrn=member-1&start=3`, 0],
      [`/api/v1/company?companyUrlOrUrn=${q('urn:li:fsd_profile:' + AUTHOR_ID)}`, 0],
    ]
    let spent = 0
    for (const [url, price] of cases) {
      const res = await t.get(url, a.key)
      expect(res.headers['x-credits-charged'], url).toBe(String(price))
      expect(res.headers['x-request-id'], url).toMatch(/^[\w-]+-[0-9a-z]+$/)
      spent += price
    }
    expect((await subscription(a.key)).creditsRemaining).toBe(1000 - spent)
    const ledger = await t.c.ledger.entries(a.id)
    expect(ledger.filter((e) => e.kind === 'debit').reduce((s, e) => s - e.delta, 0)).toBe(spent)
  })

  it('batch: checks distinct entries against the balance, bills companies found', async () => {
    const a = await account({ plan: 'custom', creditsLimit: 3, rpsLimit: 1000 })
    const refused = await batch(a.key, ['a', 'b', 'c', 'd'])
    const body = expectError(refused, 402, 'QUOTA_EXHAUSTED')
    expect(body.details).toMatchObject({ creditsRemaining: 3, subscriptionCreditsRemaining: 3, paygCreditsRemaining: 0, creditsRequired: 4 })
    expect(typeof (body.details as Record<string, unknown>).buyCreditsUrl).toBe('string')
    expect(refused.headers['x-credits-charged']).toBe('0')
    const res = await batch(a.key, [COMPANY_ID, 'ghost-co', COMPANY_ID.toUpperCase(), `https://www.linkedin.com/company/${COMPANY_ID}/`])
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ found: 2, notFound: 1, failed: 0 })
    expect(res.headers['x-credits-charged']).toBe('2')
    expect(res.headers['x-ratelimit-cost']).toBe('3')
    expect((await subscription(a.key)).creditsRemaining).toBe(1)
  })
})

describe("the operator's price tables (PRONET_PRICES, PRONET_PACK_TIERS)", () => {
  it('bill and quote by the configured tables; a 404 still bills 1 and a free call holds nothing', async () => {
    const priced = await makeTestApp({
      nowMs: NOW,
      records: fixtureRecords(),
      account: { plan: 'custom', creditsLimit: 20, rpsLimit: 1000 },
      env: {
        PRONET_PRICES: JSON.stringify({ profile: 3, 'company/batch': 2, 'post/comments': 0 }),
        PRONET_PACK_TIERS: JSON.stringify([{ upTo: 100_000, per1000: 2 }, { per1000: 0.5 }]),
      },
    })
    try {
      const charged = async (url: string) => (await priced.get(url, priced.key)).headers['x-credits-charged']
      expect(await charged('/api/v1/profile?profileUrlOrUrn=member-1')).toBe('3')
      expect(await charged('/api/v1/profile?profileUrlOrUrn=nobody-here')).toBe('1')
      expect(await charged(`/api/v1/company?companyUrlOrUrn=${COMPANY_ID}`)).toBe('1')
      expect(await charged(`/api/v1/post/comments?postUrlOrUrn=${PERSON_POST_ID}`)).toBe('0')
      const found = await priced.app.inject({
        method: 'POST',
        url: '/api/v1/company/batch',
        headers: { 'x-api-key': priced.key, 'content-type': 'application/json' },
        payload: JSON.stringify({ companies: [COMPANY_ID, 'ghost-co'] }),
      })
      expect(found.json()).toMatchObject({ found: 1, notFound: 1 })
      expect(found.headers['x-credits-charged']).toBe('2')
      // 20 - 3 - 1 - 1 - 0 - 2 = 13 left: a batch of 7 distinct entries holds 14 and is refused.
      const refused = await priced.app.inject({
        method: 'POST',
        url: '/api/v1/company/batch',
        headers: { 'x-api-key': priced.key, 'content-type': 'application/json' },
        payload: JSON.stringify({ companies: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] }),
      })
      expect(expectError(refused, 402, 'QUOTA_EXHAUSTED').details).toMatchObject({ creditsRemaining: 13, creditsRequired: 14 })
      // A call priced 0 never needs the balance.
      const operator = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }
      const id = priced.accountId
      await priced.app.inject({ method: 'PUT', url: `/admin/v1/accounts/${id}/subscription`, headers: operator, payload: JSON.stringify({ creditsLimit: 0 }) })
      expect(await charged(`/api/v1/post/comments?postUrlOrUrn=${PERSON_POST_ID}`)).toBe('0')
      expectError(await priced.get('/api/v1/profile?profileUrlOrUrn=member-1', priced.key), 402, 'QUOTA_EXHAUSTED')

      const quote = await priced.app.inject({ method: 'GET', url: '/admin/v1/packs/quote?credits=300000', headers: operator })
      expect(quote.json()).toEqual({ credits: 300_000, price: 300 })
      const pack = await priced.app.inject({ method: 'POST', url: `/admin/v1/accounts/${id}/packs`, headers: operator, payload: JSON.stringify({ credits: 50_000 }) })
      expect(pack.statusCode, pack.body).toBe(201)
      expect(pack.json().price).toBe(100)
    } finally {
      await priced.close()
    }
  })
})

describe('402 QUOTA_EXHAUSTED', () => {
  it('refuses a call the balance cannot cover, free, with the balances; 400 still wins for bad input', async () => {
    const a = await account({ plan: 'custom', creditsLimit: 1, rpsLimit: 1000 })
    const engagement = await t.get(`/api/v1/post/engagement?postUrlOrUrn=${PERSON_POST_ID}`, a.key)
    expect(expectError(engagement, 402, 'QUOTA_EXHAUSTED').details).toMatchObject({ creditsRemaining: 1, creditsRequired: 2 })
    expect((await t.get('/api/v1/profile?profileUrlOrUrn=member-1', a.key)).statusCode).toBe(200)
    expectError(await t.get('/api/v1/profile?profileUrlOrUrn=member-1', a.key), 402, 'QUOTA_EXHAUSTED')
    expectError(await t.get('/api/v1/profile', a.key), 400, 'MISSING_PARAMETER')
    // The account endpoints answer at zero credits.
    const sub = await subscription(a.key)
    expect(sub).toMatchObject({ creditsRemaining: 0, creditsUsed: 1, creditsLimit: 1 })
    const report = await usage(a.key)
    expect(report.statusCodes ?? report.endpoints.find((e: any) => e.endpoint === '/api/v1/profile').statusCodes).toEqual({ '200': 1, '402': 1, '400': 1 })
  })
})

describe('rate budgets: a sliding one-second window per account', () => {
  it('sends the headers on every data response and a truthful Retry-After on 429', async () => {
    const a = await account({ plan: 'custom', creditsLimit: 1000, rpsLimit: 3 })
    const url = '/api/v1/profile?profileUrlOrUrn=member-1'
    const first = t.clock.now()
    for (let i = 0; i < 3; i++) {
      const res = await t.get(url, a.key)
      expect(res.statusCode).toBe(200)
      expect(res.headers['x-ratelimit-limit']).toBe('3')
      expect(res.headers['x-ratelimit-remaining']).toBe(String(2 - i))
      expect(res.headers['x-ratelimit-cost']).toBe('1')
      // Reset: when a unit is next free, i.e. now while some are left, else when the first call leaves the window.
      expect(Number(res.headers['x-ratelimit-reset'])).toBe(Math.ceil((i < 2 ? t.clock.now() : first + 1000) / 1000))
      t.clock.advance(100)
    }
    const refused = await t.get(url, a.key)
    expectError(refused, 429, 'RATE_LIMITED')
    expect(refused.headers['x-ratelimit-remaining']).toBe('0')
    expect(refused.headers['x-ratelimit-cost']).toBe('0')
    expect(refused.headers['x-credits-charged']).toBe('0')
    const after = Number(refused.headers['retry-after'])
    expect(after).toBeGreaterThanOrEqual(1)
    t.clock.advance(after * 1000)
    expect((await t.get(url, a.key)).statusCode).toBe(200)
  })

  it('calls sent at once each get their own place in the window: one Remaining apiece, the rest refused and free', async () => {
    const a = await account({ plan: 'custom', creditsLimit: 1000, rpsLimit: 3 })
    const url = '/api/v1/profile?profileUrlOrUrn=member-1'
    const answers = await Promise.all(Array.from({ length: 5 }, () => t.get(url, a.key)))
    const served = answers.filter((r) => r.statusCode === 200)
    const refused = answers.filter((r) => r.statusCode !== 200)
    expect(served.map((r) => r.headers['x-ratelimit-remaining']).sort()).toEqual(['0', '1', '2'])
    for (const r of served) expect(r.headers).toMatchObject({ 'x-ratelimit-limit': '3', 'x-ratelimit-cost': '1', 'x-credits-charged': '1' })
    expect(refused).toHaveLength(2)
    for (const r of refused) {
      expectError(r, 429, 'RATE_LIMITED')
      expect(r.headers).toMatchObject({ 'x-ratelimit-remaining': '0', 'x-ratelimit-cost': '0', 'x-credits-charged': '0' })
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    }
    expect(await subscription(a.key)).toMatchObject({ creditsUsed: 3 })
  })

  it('engagement takes 2 units, and a plan below 2 per second cannot call it', async () => {
    const slow = await account({ plan: 'custom', creditsLimit: 1000, rpsLimit: 1 })
    const res = await t.get(`/api/v1/post/engagement?postUrlOrUrn=${PERSON_POST_ID}`, slow.key)
    expectError(res, 429, 'RATE_LIMITED')
    expect(res.json().details).toEqual({ rpsLimit: 1, unitsRequired: 2 })
    // Every 429 carries Retry-After; no wait helps here, so it says a minute rather than 1.
    expect(res.headers['retry-after']).toBe('60')
    expect(res.headers).toMatchObject({ 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '1', 'x-ratelimit-cost': '0', 'x-credits-charged': '0' })
    t.clock.advance(1000)
    const two = await account({ plan: 'custom', creditsLimit: 1000, rpsLimit: 2 })
    const ok = await t.get(`/api/v1/post/engagement?postUrlOrUrn=${PERSON_POST_ID}`, two.key)
    expect(ok.statusCode).toBe(200)
    expect(ok.headers['x-ratelimit-cost']).toBe('2')
    expect(ok.headers['x-ratelimit-remaining']).toBe('0')
    t.clock.advance(1000)
  })

  it('pack-only and free accounts run at 5 per second', async () => {
    const packOnly = await account({ plan: 'none' })
    await admin('POST', `/admin/v1/accounts/${packOnly.id}/packs`, { credits: 50_000 })
    const statuses = []
    for (let i = 0; i < 6; i++) statuses.push((await t.get('/api/v1/profile?profileUrlOrUrn=member-1', packOnly.key)).statusCode)
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429])
    t.clock.advance(1000)
    expect(await subscription(packOnly.key)).toMatchObject({ plan: 'free', status: 'free', creditsLimit: 0, renewalDate: null, rpsLimit: 5, paygCreditsRemaining: 49_995 })
  })

  it('the batch waits for units as it goes, and entries out of time come back RATE_LIMITED, unbilled', async () => {
    const a = await account({ plan: 'custom', creditsLimit: 1000, rpsLimit: 2 })
    const companies = [COMPANY_ID, ...Array.from({ length: 5 }, (_, i) => `ghost-${i}`)]
    const started = t.clock.now()
    const res = await batch(a.key, companies)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ found: 1, notFound: 5, failed: 0 })
    // Six units at two per second: the last entries waited for the window.
    expect(t.clock.now() - started).toBeGreaterThanOrEqual(2000)
    expect(res.headers['x-ratelimit-cost']).toBe('6')
    t.clock.advance(1000)
    // 429 when no unit is free on arrival.
    await t.get('/api/v1/profile?profileUrlOrUrn=member-1', a.key)
    await t.get('/api/v1/profile?profileUrlOrUrn=member-1', a.key)
    expectError(await batch(a.key, [COMPANY_ID]), 429, 'RATE_LIMITED')
    t.clock.advance(1000)
  })

  it('usage and subscription each have their own one-per-second budget', async () => {
    const a = await account({ plan: 'custom', creditsLimit: 1000, rpsLimit: 7 })
    for (const path of ['/api/v1/usage', '/api/v1/subscription']) {
      const first = await t.get(path, a.key)
      expect(first.statusCode).toBe(200)
      expect(first.headers['x-ratelimit-limit']).toBe('7')
      expect(first.headers['x-ratelimit-cost']).toBe('0')
      expect(first.headers['x-ratelimit-remaining']).toBeUndefined()
      expect(first.headers['x-ratelimit-reset']).toBeUndefined()
      const second = await t.get(path, a.key)
      expectError(second, 429, 'RATE_LIMITED')
      expect(second.headers['retry-after']).toBe('1')
    }
    // Neither touched the plan's budget.
    const data = await t.get('/api/v1/profile?profileUrlOrUrn=member-1', a.key)
    expect(data.headers['x-ratelimit-remaining']).toBe('6')
    t.clock.advance(1000)
  })
})

describe('GET /api/v1/usage', () => {
  it('counts every outcome per endpoint and day, busiest first, without its own calls', async () => {
    const a = await account({ plan: 'custom', creditsLimit: 2, rpsLimit: 1000 })
    await t.get('/api/v1/profile?profileUrlOrUrn=member-1', a.key)
    await t.get('/api/v1/profile?profileUrlOrUrn=nobody-here', a.key)
    await t.get('/api/v1/profile?profileUrlOrUrn=member-1', a.key)
    await t.get('/api/v1/company', a.key)
    await t.get('/api/v1/no-such-thing', a.key)
    await subscription(a.key)
    const report = await usage(a.key)
    expect(report).toMatchObject({
      from: '2026-11-01',
      to: '2026-11-22',
      creditsRemaining: 0,
      subscriptionCreditsRemaining: 0,
      paygCreditsRemaining: 0,
      requests: 5,
      billableRequests: 2,
      creditsUsed: 2,
    })
    expect(report.endpoints).toEqual([
      { endpoint: '/api/v1/profile', requests: 3, billableRequests: 2, creditsUsed: 2, statusCodes: { '200': 1, '404': 1, '402': 1 } },
      { endpoint: '/api/v1/company', requests: 1, billableRequests: 0, creditsUsed: 0, statusCodes: { '400': 1 } },
      { endpoint: 'unknown', requests: 1, billableRequests: 0, creditsUsed: 0, statusCodes: { '404': 1 } },
    ])
    expect(report.days).toHaveLength(22)
    expect(report.days.at(-1)).toEqual({ date: '2026-11-22', requests: 5, billableRequests: 2, creditsUsed: 2 })
    expect(report.days[0]).toEqual({ date: '2026-11-01', requests: 0, billableRequests: 0, creditsUsed: 0 })
    // Days not yet started are not listed; a range before recording began reports zeros.
    const ahead = await usage(a.key, '?from=2026-11-20&to=2026-12-31')
    expect(ahead.days.map((d: { date: string }) => d.date)).toEqual(['2026-11-20', '2026-11-21', '2026-11-22'])
    expect(ahead.to).toBe('2026-12-31')
    const early = await usage(a.key, '?from=2026-07-01&to=2026-07-31')
    expect(early.days).toHaveLength(31)
    expect(early.requests).toBe(0)
  })

  it('refuses bad ranges with 400 INVALID_PARAMETER', async () => {
    const a = await account({ plan: 'custom', creditsLimit: 10, rpsLimit: 1000 })
    for (const query of ['?from=2026-13-01', '?to=2026-02-30', '?from=20261101', '?from=2026-11-10&to=2026-11-09', '?from=2025-11-21&to=2026-11-22']) {
      expectError(await t.get(`/api/v1/usage${query}`, a.key), 400, 'INVALID_PARAMETER')
      t.clock.advance(1000)
    }
    // Exactly 366 days is allowed.
    expect((await usage(a.key, '?from=2025-11-22&to=2026-11-22')).days).toHaveLength(366)
  })
})

describe('GET /api/v1/usage on the last day an instant may name (9999-12-31)', () => {
  it('lists the days of the range and ends (the day after is no longer a YYYY-MM-DD day)', async () => {
    const last = await makeTestApp({ nowMs: Date.UTC(9999, 11, 31, 12), account: { plan: 'custom', creditsLimit: 10, rpsLimit: 1000 } })
    try {
      await last.get('/api/v1/profile?profileUrlOrUrn=nobody-here', last.key)
      last.clock.advance(1000)
      const res = await last.get('/api/v1/usage?from=9999-12-30&to=9999-12-31', last.key)
      expect(res.statusCode, res.body).toBe(200)
      expect(res.json().days).toEqual([
        { date: '9999-12-30', requests: 0, billableRequests: 0, creditsUsed: 0 },
        { date: '9999-12-31', requests: 1, billableRequests: 1, creditsUsed: 1 },
      ])
      last.clock.advance(1000)
      const byDefault = await last.get('/api/v1/usage', last.key)
      expect(byDefault.statusCode, byDefault.body).toBe(200)
      expect(byDefault.json()).toMatchObject({ from: '9999-12-01', to: '9999-12-31', requests: 1 })
      expect(byDefault.json().days).toHaveLength(31)
    } finally {
      await last.close()
    }
  })
})

describe('GET /api/v1/subscription and the operator interface (plans, packs, subscription changes)', () => {
  it('a new account is on the free plan with 1,000 credits a month', async () => {
    const a = await account({ name: 'new' })
    expect(await subscription(a.key)).toEqual({
      plan: 'free',
      active: true,
      status: 'free',
      creditsRemaining: 1000,
      subscriptionCreditsRemaining: 1000,
      paygCreditsRemaining: 0,
      paygExpiresAt: null,
      creditsLimit: 1000,
      creditsUsed: 0,
      renewalDate: new Date(t.clock.now() - 1000).toISOString().replace(/^2026-11/, '2026-12'),
      rpsLimit: 5,
      cancelAtPeriodEnd: false,
    })
    const shown = await admin('GET', `/admin/v1/accounts/${a.id}`)
    expect(shown.json().subscription.creditsLimit).toBe(1000)
  })

  it('packs: quote, purchase, 12-month expiry and drawdown after the allowance', async () => {
    expect((await admin('GET', '/admin/v1/packs/quote?credits=50000')).json()).toEqual({ credits: 50_000, price: 75 })
    expect((await admin('GET', '/admin/v1/packs/quote?credits=200000')).json()).toEqual({ credits: 200_000, price: 270 })
    expectError(await admin('GET', '/admin/v1/packs/quote?credits=60000'), 400, 'INVALID_PARAMETER')
    const a = await account({ plan: 'custom', creditsLimit: 1, rpsLimit: 1000 })
    const pack = await admin('POST', `/admin/v1/accounts/${a.id}/packs`, { credits: 50_000, purchasedAt: '2026-02-28T10:00:00Z' })
    expect(pack.statusCode).toBe(201)
    expect(pack.json()).toMatchObject({ credits: 50_000, purchasedAt: '2026-02-28T10:00:00.000Z', expiresAt: '2027-02-28T10:00:00.000Z', price: 75 })
    expectError(await admin('POST', `/admin/v1/accounts/${a.id}/packs`, { credits: 50_000, purchasedAt: '2099-01-01T00:00:00Z' }), 400, 'INVALID_PARAMETER')
    await t.get('/api/v1/profile?profileUrlOrUrn=member-1', a.key)
    await t.get('/api/v1/profile?profileUrlOrUrn=member-1', a.key)
    expect(await subscription(a.key)).toMatchObject({
      creditsRemaining: 49_999,
      subscriptionCreditsRemaining: 0,
      paygCreditsRemaining: 49_999,
      paygExpiresAt: '2027-02-28T10:00:00.000Z',
      creditsUsed: 1,
    })
  })

  it('cancel at period end: the allowance goes at renewal, packs stay, rps falls to 5', async () => {
    const a = await account({ plan: 'custom', creditsLimit: 500, rpsLimit: 50 })
    await admin('POST', `/admin/v1/accounts/${a.id}/packs`, { credits: 50_000 })
    const put = await admin('PUT', `/admin/v1/accounts/${a.id}/subscription`, { cancelAtPeriodEnd: true })
    expect(put.statusCode, put.body).toBe(200)
    expect(put.json()).toMatchObject({ cancelAtPeriodEnd: true, status: 'active', rpsLimit: 50 })
    const renewal = Date.parse(put.json().renewalDate)
    t.clock.set(renewal)
    expect(await subscription(a.key)).toMatchObject({
      plan: 'free',
      status: 'canceled',
      active: false,
      creditsLimit: 0,
      subscriptionCreditsRemaining: 0,
      paygCreditsRemaining: 50_000,
      renewalDate: null,
      rpsLimit: 5,
      cancelAtPeriodEnd: false,
    })
    t.clock.set(NOW + 60_000)
  })

  it('refuses contradictory changes', async () => {
    const a = await account({ plan: 'custom', creditsLimit: 10, rpsLimit: 10 })
    expectError(await admin('PUT', `/admin/v1/accounts/${a.id}/subscription`, { plan: 'free', status: 'active' }), 400, 'INVALID_PARAMETER')
    expectError(await admin('PUT', `/admin/v1/accounts/${a.id}/subscription`, { renewalDate: '2020-01-01T00:00:00Z' }), 400, 'INVALID_PARAMETER')
    expectError(await admin('PUT', `/admin/v1/accounts/${a.id}/subscription`, { plan: 'gold' }), 400, 'INVALID_PARAMETER')
    expectError(await admin('PUT', '/admin/v1/accounts/acc_nope/subscription', { status: 'past_due' }), 404, 'NOT_FOUND')
    const pastDue = await admin('PUT', `/admin/v1/accounts/${a.id}/subscription`, { status: 'past_due' })
    expect(pastDue.json()).toMatchObject({ status: 'past_due', active: false, plan: 'custom' })
    // Past-due keeps serving while credits last: active is about billing only.
    expect((await t.get('/api/v1/profile?profileUrlOrUrn=member-1', a.key)).statusCode).toBe(200)
  })
})

describe('who is recorded', () => {
  it('HEAD of a data route is not a route (nothing billed for a body never sent)', async () => {
    const a = await account({ plan: 'custom', creditsLimit: 10, rpsLimit: 1000 })
    const res = await t.app.inject({ method: 'HEAD', url: '/api/v1/profile?profileUrlOrUrn=member-1', headers: { 'x-api-key': a.key } })
    expect(res.statusCode).toBe(404)
    expect((await subscription(a.key)).creditsRemaining).toBe(10)
    expect((await usage(a.key)).endpoints).toEqual([{ endpoint: 'unknown', requests: 1, billableRequests: 0, creditsUsed: 0, statusCodes: { '404': 1 } }])
  })

  it('a bad body sent to a path or method that does not exist is that: 404, counted once under unknown', async () => {
    const a = await account({ plan: 'custom', creditsLimit: 10, rpsLimit: 1000 })
    const json = { 'x-api-key': a.key, 'content-type': 'application/json' }
    const sent = [
      { method: 'POST', url: '/api/v1/nope', payload: '{bad' },
      { method: 'POST', url: '/api/v1/profile', payload: '' },
      { method: 'PUT', url: '/api/v1/company/batch', payload: '{"companies":' },
      { method: 'DELETE', url: '/api/v1/usage', payload: '[' },
      { method: 'POST', url: '/api/v1/nope', payload: '{"__proto__":{}}' },
    ] as const
    for (const r of sent) expectError(await t.app.inject({ ...r, headers: json }), 404, 'NOT_FOUND')
    // Without a key: still 404, and nobody's usage.
    expectError(await t.app.inject({ method: 'POST', url: '/api/v1/nope', payload: '{bad', headers: { 'content-type': 'application/json' } }), 404, 'NOT_FOUND')
    expect((await usage(a.key)).endpoints).toEqual([
      { endpoint: 'unknown', requests: sent.length, billableRequests: 0, creditsUsed: 0, statusCodes: { '404': sent.length } },
    ])
    // A route that exists still refuses a bad body as 400.
    expectError(await t.app.inject({ method: 'POST', url: '/api/v1/company/batch', payload: '{bad', headers: json }), 400, 'INVALID_PARAMETER')
  })

  it('a request body with a Content-Encoding is a free 400 naming it, compressed or not; identity is fine', async () => {
    const a = await account({ plan: 'custom', creditsLimit: 10, rpsLimit: 1000 })
    const body = JSON.stringify({ companies: [COMPANY_ID] })
    const batchWith = (headers: Record<string, string>, payload: string | Buffer = body) =>
      t.app.inject({ method: 'POST', url: '/api/v1/company/batch', payload, headers: { 'x-api-key': a.key, 'content-type': 'application/json', ...headers } })
    for (const [encoding, payload] of [['gzip', gzipSync(body)], ['gzip', body], ['br', body], ['deflate', body]] as const) {
      const res = await batchWith({ 'content-encoding': encoding }, payload)
      const err = expectError(res, 400, 'INVALID_PARAMETER')
      expect(err.error).toContain(`Content-Encoding '${encoding}'`)
      expect(res.headers['x-credits-charged']).toBe('0')
    }
    const plain = await batchWith({ 'content-encoding': 'identity' })
    expect(plain.statusCode, plain.body).toBe(200)
    expect((await subscription(a.key)).creditsRemaining).toBe(9)
  })

  it('a path the router cannot read (a malformed percent-escape, an over-long parameter) is an unknown path: 404 in the envelope, counted', async () => {
    const a = await account({ plan: 'custom', creditsLimit: 10, rpsLimit: 1000 })
    for (const url of ['/api/v1/prof%ile?profileUrlOrUrn=x', '/api/v1/%']) {
      const res = await t.get(url, a.key)
      expectError(res, 404, 'NOT_FOUND')
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
      expect(res.headers['x-request-id']).toMatch(/^[\w-]+-[0-9a-z]+$/)
    }
    expectError(await admin('GET', '/admin/v1/accounts/%zz'), 404, 'NOT_FOUND')
    expectError(await admin('GET', `/admin/v1/accounts/${'a'.repeat(150)}`), 404, 'NOT_FOUND')
    const report = await usage(a.key)
    expect(report.endpoints).toEqual([{ endpoint: 'unknown', requests: 2, billableRequests: 0, creditsUsed: 0, statusCodes: { '404': 2 } }])
    expect((await subscription(a.key)).creditsRemaining).toBe(10)
  })

  it('every response names its request in x-request-id: 200, 401, 404 and admin calls alike', async () => {
    const responses = [
      await t.get('/api/v1/profile?profileUrlOrUrn=member-1'),
      await t.get('/api/v1/profile?profileUrlOrUrn=member-1', null),
      await t.get('/api/v1/profile?profileUrlOrUrn=member-1', 'pk_unknown'),
      await t.get('/api/v1/nope'),
      await admin('GET', '/admin/v1/packs/quote?credits=50000'),
      await t.app.inject({ method: 'GET', url: '/admin/v1/nothing', headers: { authorization: 'Bearer wrong' } }),
    ]
    const ids = responses.map((r) => r.headers['x-request-id'])
    for (const id of ids) expect(id).toMatch(/^[\w-]+-[0-9a-z]+$/)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('a suspended account is refused with 403 and its calls are counted; a missing key is not', async () => {
    const a = await account({ plan: 'custom', creditsLimit: 10, rpsLimit: 1000 })
    await admin('POST', `/admin/v1/accounts/${a.id}/suspend`)
    const refused = await t.get('/api/v1/profile?profileUrlOrUrn=member-1', a.key)
    expectError(refused, 403, 'FORBIDDEN')
    // Every data response carries the rate headers; the refusal took no unit.
    expect(refused.headers).toMatchObject({ 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '1000', 'x-ratelimit-cost': '0', 'x-credits-charged': '0' })
    expect(Number(refused.headers['x-ratelimit-reset'])).toBe(Math.ceil(t.clock.now() / 1000))
    const own = await t.get('/api/v1/subscription', a.key)
    expectError(own, 403, 'FORBIDDEN')
    expect(own.headers).toMatchObject({ 'x-ratelimit-limit': '1000', 'x-ratelimit-cost': '0' })
    expect(own.headers['x-ratelimit-remaining']).toBeUndefined()
    await admin('POST', `/admin/v1/accounts/${a.id}/resume`)
    const report = await usage(a.key)
    expect(report.endpoints).toEqual([
      { endpoint: '/api/v1/profile', requests: 1, billableRequests: 0, creditsUsed: 0, statusCodes: { '403': 1 } },
    ])
    expect((await subscription(a.key)).creditsRemaining).toBe(10)
  })
})

describe('Retry-After while a batch waits for the window (each entry after the first takes a unit)', () => {
  it('a call refused while a batch queues for units is admitted when retried at its Retry-After', async () => {
    // The batch's waits are held here and released as the test moves the clock past them.
    const sleepers: { until: number; wake(): void }[] = []
    const app = await makeTestApp({
      nowMs: NOW,
      records: fixtureRecords(),
      account: { name: 'batching', plan: 'custom', creditsLimit: 1000, rpsLimit: 3 },
      sleep: (ms, clock) => new Promise<void>((wake) => sleepers.push({ until: clock.now() + ms, wake })),
    })
    try {
      let finished = false
      // Waits in real time, not in event-loop turns: on PostgreSQL and Redis each step of the
      // batch is a network round trip, which a fixed number of turns did not always cover in CI.
      const settle = async (done: () => boolean) => {
        const deadline = Date.now() + 15_000
        while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2))
        expect(done()).toBe(true)
      }
      // Twelve entries at three units a second: the first three go at once, the rest wait.
      const companies = [COMPANY_ID, ...Array.from({ length: 11 }, (_, i) => `ghost-${i}`)]
      const batchDone = app.app
        .inject({ method: 'POST', url: '/api/v1/company/batch', headers: { 'x-api-key': app.key, 'content-type': 'application/json' }, payload: JSON.stringify({ companies }) })
        .then((res) => {
          finished = true
          return res
        })
      await settle(() => sleepers.length === 1)
      const arrival = NOW + 100
      app.clock.set(arrival)
      const profile = '/api/v1/profile?profileUrlOrUrn=member-1'
      const refused = await app.get(profile)
      expectError(refused, 429, 'RATE_LIMITED')
      const retryAfter = Number(refused.headers['retry-after'])
      expect(refused.json().details.retryAfterMs).toBeLessThanOrEqual(retryAfter * 1000)

      /** Moves the clock to `to`, letting the batch take each unit its timer waits for on the way. */
      const passTime = async (to: number) => {
        for (;;) {
          const next = sleepers[0]
          if (!next || next.until > to) break
          sleepers.shift()
          app.clock.set(Math.max(app.clock.now(), next.until))
          next.wake()
          await settle(() => finished || sleepers.length > 0)
        }
        app.clock.set(to)
      }
      // A second later, what the window alone would have promised, the batch holds the budget.
      await passTime(arrival + 1000)
      expectError(await app.get(profile), 429, 'RATE_LIMITED')
      // At the Retry-After the call first refused is admitted.
      await passTime(arrival + retryAfter * 1000)
      const retried = await app.get(profile)
      expect(retried.statusCode, retried.body).toBe(200)
      await settle(() => finished)
      const res = await batchDone
      expect(res.statusCode).toBe(200)
      expect(res.json()).toMatchObject({ found: 1, notFound: 11, failed: 0 })
      expect(res.headers['x-ratelimit-cost']).toBe('12')
      // Nor does it promise far more than the batch needs: nine units queued, three a second.
      expect(retryAfter).toBeLessThanOrEqual(5)
    } finally {
      await app.close()
    }
  })
})

describe('a balance lowered while a call runs (a 402 details the balance)', () => {
  it('the call is refused at its end with 402 and the balance now in its details, free', async () => {
    let lower: (() => Promise<unknown>) | undefined
    const app = await makeTestApp({
      nowMs: NOW,
      records: fixtureRecords(),
      account: { name: 'lowered', plan: 'custom', creditsLimit: 10, rpsLimit: 1 },
      // While the batch waits for its first rate unit, the operator lowers the allowance to nothing.
      sleep: async (ms, clock) => {
        const change = lower
        lower = undefined
        await change?.()
        clock.advance(ms)
      },
    })
    try {
      lower = () =>
        app.app.inject({
          method: 'PUT',
          url: `/admin/v1/accounts/${app.accountId}/subscription`,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          payload: JSON.stringify({ creditsLimit: 0 }),
        })
      const res = await app.app.inject({
        method: 'POST',
        url: '/api/v1/company/batch',
        headers: { 'x-api-key': app.key, 'content-type': 'application/json' },
        payload: JSON.stringify({ companies: [COMPANY_ID, 'ghost-1', 'ghost-2'] }),
      })
      expect(lower).toBeUndefined()
      const err = expectError(res, 402, 'QUOTA_EXHAUSTED')
      expect(err.details).toEqual({
        creditsRemaining: 0,
        subscriptionCreditsRemaining: 0,
        paygCreditsRemaining: 0,
        creditsRequired: 1,
        creditsHeld: 0,
        buyCreditsUrl: expect.any(String),
      })
      expect(res.headers['x-credits-charged']).toBe('0')
    } finally {
      await app.close()
    }
  })
})
