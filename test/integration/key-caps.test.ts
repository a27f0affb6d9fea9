/**
 * A key's spend controls over HTTP, on both backends: a monthly credit limit its calls never pass
 * (402 QUOTA_EXHAUSTED with the key's figures, billed nothing, not even under concurrent calls), the
 * endpoints it may call (403 FORBIDDEN otherwise, free, recorded), what the admin API shows of a key
 * (its spend this month among it), changing and removing both, and the limit starting again with
 * the month.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMPANY_ID, fixtureRecords } from '../helpers/ingest-fixtures.ts'
import { ADMIN_TOKEN, expectError, makeTestApp, type TestApp } from '../helpers/test-app.ts'

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0)
const PROFILE = '/api/v1/profile?profileUrlOrUrn=member-1'
const MISSING = '/api/v1/profile?profileUrlOrUrn=nobody-here-at-all'
const COMPANY = `/api/v1/company?companyUrlOrUrn=${COMPANY_ID}`

let t: TestApp

beforeAll(async () => {
  t = await makeTestApp({ nowMs: NOW, records: fixtureRecords() })
})
afterAll(async () => t.close())

const admin = (method: 'POST' | 'PATCH' | 'GET', url: string, payload?: unknown) =>
  t.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
  })

async function account(): Promise<{ id: string; key: string }> {
  const res = await admin('POST', '/admin/v1/accounts', { name: 'capped', plan: 'custom', creditsLimit: 10_000, rpsLimit: 10_000 })
  expect(res.statusCode, res.body).toBe(201)
  return { id: res.json().account.id, key: res.json().apiKey.key }
}

async function newKey(accountId: string, body: unknown): Promise<{ id: string; key: string; view: Record<string, unknown> }> {
  const res = await admin('POST', `/admin/v1/accounts/${accountId}/keys`, body)
  expect(res.statusCode, res.body).toBe(201)
  const { key, ...view } = res.json() as Record<string, unknown>
  return { id: view.id as string, key: key as string, view }
}

async function keyView(accountId: string, keyId: string): Promise<Record<string, unknown>> {
  const res = await admin('GET', `/admin/v1/accounts/${accountId}`)
  expect(res.statusCode, res.body).toBe(200)
  return (res.json().keys as Record<string, unknown>[]).find((k) => k.id === keyId) as Record<string, unknown>
}

const balance = async (accountId: string) => (await t.c.metering.subscription(accountId)).creditsRemaining

const usageOf = async (accountId: string) =>
  (await t.c.ledger.usage(accountId, '2000-01-01', '2100-01-01')).map(({ endpoint, status, requests, credits }) => ({ endpoint, status, requests, credits }))

describe('a key with a monthly credit limit', () => {
  it('is created with its controls and shows them, with its spend this month', async () => {
    const a = await account()
    const k = await newKey(a.id, { name: 'nightly', monthlyCreditLimit: 3, endpoints: ['profile', 'search/posts'] })
    expect(k.view).toEqual({
      id: k.id,
      prefix: k.key.slice(0, 10),
      name: 'nightly',
      createdAt: new Date(NOW).toISOString(),
      revokedAt: null,
      lastUsedAt: null,
      monthlyCreditLimit: 3,
      endpoints: ['profile', 'search/posts'],
      creditsThisMonth: 0,
    })
    expect(await keyView(a.id, k.id)).toEqual(k.view)
    // The account's first key carries no controls.
    const first = (await admin('GET', `/admin/v1/accounts/${a.id}`)).json().keys[0]
    expect(first).toMatchObject({ name: '', monthlyCreditLimit: null, endpoints: null, creditsThisMonth: 0 })
  })

  it('bills up to its limit and refuses the call that would pass it, free', async () => {
    const a = await account()
    const k = await newKey(a.id, { monthlyCreditLimit: 3 })
    const before = await balance(a.id)
    // A 404 of a record bills 1 and counts toward the limit like any billed call.
    expect((await t.get(MISSING, k.key)).statusCode).toBe(404)
    for (let i = 0; i < 2; i++) {
      const ok = await t.get(PROFILE, k.key)
      expect(ok.statusCode, ok.body).toBe(200)
      expect(ok.headers['x-credits-charged']).toBe('1')
    }
    const refused = await t.get(PROFILE, k.key)
    const body = expectError(refused, 402, 'QUOTA_EXHAUSTED')
    expect(body.details).toMatchObject({ keyCreditsRemaining: 0, keyCreditLimit: 3, creditsRequired: 1 })
    expect(body.error).toMatch(/monthly limit of 3 credits/)
    expect(refused.headers['x-credits-charged']).toBe('0')
    expect(await balance(a.id)).toBe(before - 3)
    expect((await keyView(a.id, k.id)).creditsThisMonth).toBe(3)
    // The account's other key is not held to this key's limit.
    expect((await t.get(PROFILE, a.key)).statusCode).toBe(200)
    expect((await keyView(a.id, k.id)).creditsThisMonth).toBe(3)
    expect(await usageOf(a.id)).toEqual(
      expect.arrayContaining([
        { endpoint: '/api/v1/profile', status: 200, requests: 3, credits: 3 },
        { endpoint: '/api/v1/profile', status: 402, requests: 1, credits: 0 },
        { endpoint: '/api/v1/profile', status: 404, requests: 1, credits: 1 },
      ]),
    )
  })

  it('holds a company batch to it whole: a batch it cannot cover is refused, free; one it covers bills what was found', async () => {
    const a = await account()
    const k = await newKey(a.id, { monthlyCreditLimit: 2 })
    const batch = (companies: string[]) =>
      t.app.inject({ method: 'POST', url: '/api/v1/company/batch', headers: { 'x-api-key': k.key, 'content-type': 'application/json' }, payload: JSON.stringify({ companies }) })
    const before = await balance(a.id)
    const refused = await batch([COMPANY_ID, 'no-such-company-1', 'no-such-company-2'])
    expect(expectError(refused, 402, 'QUOTA_EXHAUSTED').details).toMatchObject({ keyCreditsRemaining: 2, keyCreditLimit: 2, creditsRequired: 3 })
    expect(refused.headers['x-credits-charged']).toBe('0')
    expect(await balance(a.id)).toBe(before)
    const covered = await batch([COMPANY_ID, 'no-such-company-1'])
    expect(covered.statusCode, covered.body).toBe(200)
    expect(covered.headers['x-credits-charged']).toBe('1')
    expect((await keyView(a.id, k.id)).creditsThisMonth).toBe(1)
    expect(await balance(a.id)).toBe(before - 1)
  })

  it("counts its refusals in the account's usage report, billed nothing", async () => {
    const a = await account()
    const k = await newKey(a.id, { monthlyCreditLimit: 1, endpoints: ['profile'] })
    expect((await t.get(PROFILE, k.key)).statusCode).toBe(200)
    expectError(await t.get(PROFILE, k.key), 402, 'QUOTA_EXHAUSTED')
    expectError(await t.get(COMPANY, k.key), 403, 'FORBIDDEN')
    const report = await t.get('/api/v1/usage', a.key)
    expect(report.statusCode, report.body).toBe(200)
    expect(report.json()).toMatchObject({ requests: 3, billableRequests: 1, creditsUsed: 1 })
  })

  it('never passes its limit under concurrent calls', async () => {
    const a = await account()
    const k = await newKey(a.id, { monthlyCreditLimit: 7 })
    const before = await balance(a.id)
    const answers = await Promise.all(Array.from({ length: 25 }, () => t.get(PROFILE, k.key)))
    const statuses = answers.map((r) => r.statusCode)
    expect(statuses.filter((s) => s === 200)).toHaveLength(7)
    expect(statuses.filter((s) => s === 402)).toHaveLength(18)
    expect(await balance(a.id)).toBe(before - 7)
    expect((await keyView(a.id, k.id)).creditsThisMonth).toBe(7)
  })

  it('changes, and lets go of a limit set to null', async () => {
    const a = await account()
    const k = await newKey(a.id, { monthlyCreditLimit: 1 })
    expect((await t.get(PROFILE, k.key)).statusCode).toBe(200)
    expectError(await t.get(PROFILE, k.key), 402, 'QUOTA_EXHAUSTED')

    const raised = await admin('PATCH', `/admin/v1/accounts/${a.id}/keys/${k.id}`, { monthlyCreditLimit: 2 })
    expect(raised.statusCode, raised.body).toBe(200)
    expect(raised.json()).toMatchObject({ id: k.id, monthlyCreditLimit: 2, endpoints: null, creditsThisMonth: 1 })
    expect((await t.get(PROFILE, k.key)).statusCode).toBe(200)
    expect(expectError(await t.get(PROFILE, k.key), 402, 'QUOTA_EXHAUSTED').details).toMatchObject({ keyCreditsRemaining: 0, keyCreditLimit: 2 })

    // Lowered below what was billed: refused until the month ends, nothing taken back.
    const lowered = await admin('PATCH', `/admin/v1/accounts/${a.id}/keys/${k.id}`, { monthlyCreditLimit: 0, name: 'paused' })
    expect(lowered.json()).toMatchObject({ name: 'paused', monthlyCreditLimit: 0, creditsThisMonth: 2 })
    expectError(await t.get(PROFILE, k.key), 402, 'QUOTA_EXHAUSTED')

    const removed = await admin('PATCH', `/admin/v1/accounts/${a.id}/keys/${k.id}`, { monthlyCreditLimit: null })
    expect(removed.json()).toMatchObject({ name: 'paused', monthlyCreditLimit: null, creditsThisMonth: 2 })
    for (let i = 0; i < 3; i++) expect((await t.get(PROFILE, k.key)).statusCode).toBe(200)
    expect((await keyView(a.id, k.id)).creditsThisMonth).toBe(5)
  })

  it('starts again on the first of the next month (UTC)', async () => {
    const a = await account()
    const k = await newKey(a.id, { monthlyCreditLimit: 1 })
    expect((await t.get(PROFILE, k.key)).statusCode).toBe(200)
    expectError(await t.get(PROFILE, k.key), 402, 'QUOTA_EXHAUSTED')
    const saved = t.clock.now()
    try {
      t.clock.set(Date.UTC(2026, 11, 1, 0, 0, 0))
      expect((await keyView(a.id, k.id)).creditsThisMonth).toBe(0)
      expect((await t.get(PROFILE, k.key)).statusCode).toBe(200)
      expectError(await t.get(PROFILE, k.key), 402, 'QUOTA_EXHAUSTED')
      expect((await keyView(a.id, k.id)).creditsThisMonth).toBe(1)
    } finally {
      t.clock.set(saved)
    }
  })
})

describe("a key's endpoints", () => {
  it('refuses any other endpoint with 403, free and recorded, and allows all again when set to null', async () => {
    const a = await account()
    const k = await newKey(a.id, { endpoints: ['profile'] })
    const before = await balance(a.id)
    expect((await t.get(PROFILE, k.key)).statusCode).toBe(200)
    const refused = await t.get(COMPANY, k.key)
    const body = expectError(refused, 403, 'FORBIDDEN')
    expect(body.details).toEqual({ endpoint: 'company' })
    expect(refused.headers['x-credits-charged']).toBe('0')
    expect(refused.headers['x-ratelimit-limit']).toBeDefined()
    expectError(await t.get('/api/v1/subscription', k.key), 403, 'FORBIDDEN')
    expect(await balance(a.id)).toBe(before - 1)
    expect(await usageOf(a.id)).toEqual(expect.arrayContaining([{ endpoint: '/api/v1/company', status: 403, requests: 1, credits: 0 }]))

    const opened = await admin('PATCH', `/admin/v1/accounts/${a.id}/keys/${k.id}`, { endpoints: null })
    expect(opened.json()).toMatchObject({ endpoints: null })
    expect((await t.get(COMPANY, k.key)).statusCode).toBe(200)
    expect((await t.get('/api/v1/subscription', k.key)).statusCode).toBe(200)

    const narrowed = await admin('PATCH', `/admin/v1/accounts/${a.id}/keys/${k.id}`, { endpoints: ['company', 'company', 'subscription'] })
    expect(narrowed.json()).toMatchObject({ endpoints: ['company', 'subscription'] })
    expectError(await t.get(PROFILE, k.key), 403, 'FORBIDDEN')
    expect((await t.get(COMPANY, k.key)).statusCode).toBe(200)
  })
})

describe('bad input to the key routes', () => {
  it('is refused with 400 naming the field, and changes nothing', async () => {
    const a = await account()
    const k = await newKey(a.id, { monthlyCreditLimit: 10, endpoints: ['profile'] })
    const bad: [unknown, string][] = [
      [{ monthlyCreditLimit: -1 }, 'monthlyCreditLimit'],
      [{ monthlyCreditLimit: 1.5 }, 'monthlyCreditLimit'],
      [{ monthlyCreditLimit: '5' }, 'monthlyCreditLimit'],
      [{ monthlyCreditLimit: 1e12 }, 'monthlyCreditLimit'],
      [{ endpoints: [] }, 'endpoints'],
      [{ endpoints: ['profiles'] }, 'endpoints'],
      [{ endpoints: 'profile' }, 'endpoints'],
      [{ endpoints: [7] }, 'endpoints'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ name: 'key\u202Egnp' }, 'name'],
      [{ name: 'two\u2029lines' }, 'name'],
    ]
    for (const [body, field] of bad) {
      for (const [method, url] of [
        ['POST', `/admin/v1/accounts/${a.id}/keys`],
        ['PATCH', `/admin/v1/accounts/${a.id}/keys/${k.id}`],
      ] as const) {
        const res = await admin(method, url, body)
        const err = expectError(res, 400, 'INVALID_PARAMETER')
        expect(`${method} ${JSON.stringify(body)}: ${String(err.error)}`).toContain(field)
      }
    }
    expectError(await admin('PATCH', `/admin/v1/accounts/${a.id}/keys/${k.id}`, { limit: 5 }), 400, 'INVALID_PARAMETER')
    expectError(await admin('PATCH', `/admin/v1/accounts/${a.id}/keys/${k.id}`, '{"monthlyCreditLimit": 5'), 400, 'INVALID_PARAMETER')
    // Still as made, and no key was added.
    const shown = (await admin('GET', `/admin/v1/accounts/${a.id}`)).json()
    expect(shown.keys).toHaveLength(2)
    expect(await keyView(a.id, k.id)).toMatchObject({ monthlyCreditLimit: 10, endpoints: ['profile'] })
  })

  it('answers 404 for a key that is not a live key of the account', async () => {
    const a = await account()
    const other = await account()
    const k = await newKey(a.id, {})
    expectError(await admin('PATCH', `/admin/v1/accounts/${other.id}/keys/${k.id}`, { monthlyCreditLimit: 1 }), 404, 'NOT_FOUND')
    expectError(await admin('PATCH', `/admin/v1/accounts/${a.id}/keys/key_nobody`, { monthlyCreditLimit: 1 }), 404, 'NOT_FOUND')
    expectError(await admin('PATCH', `/admin/v1/accounts/acc_nobody/keys/${k.id}`, { monthlyCreditLimit: 1 }), 404, 'NOT_FOUND')
    const revoked = await t.app.inject({ method: 'DELETE', url: `/admin/v1/accounts/${a.id}/keys/${k.id}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    expect(revoked.statusCode).toBe(204)
    expectError(await admin('PATCH', `/admin/v1/accounts/${a.id}/keys/${k.id}`, { monthlyCreditLimit: 1 }), 404, 'NOT_FOUND')
    expect(await keyView(a.id, k.id)).toMatchObject({ monthlyCreditLimit: null })
  })
})
