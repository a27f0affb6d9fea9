/** Every data route refuses a missing, unknown, revoked or suspended key, before looking at anything else. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATA_ROUTES } from '../../src/http/routes/data.routes.ts'
import { expectError, makeTestApp, type TestApp } from '../helpers/test-app.ts'

let t: TestApp

beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(async () => t.close())

const call = (method: 'GET' | 'POST', url: string, headers: Record<string, string>) =>
  t.app.inject({ method, url, headers: { 'content-type': 'application/json', ...headers }, ...(method === 'POST' ? { payload: '{}' } : {}) })

describe.each(DATA_ROUTES.map((r) => [r.method, r.url] as const))('%s %s', (method, url) => {
  it('401 UNAUTHENTICATED without X-API-Key, even with bad parameters', async () => {
    const body = expectError(await call(method, `${url}?count=-5`, {}), 401, 'UNAUTHENTICATED')
    expect(String(body.error)).toMatch(/X-API-Key/)
  })

  it('401 INVALID_API_KEY for an unknown key', async () => {
    expectError(await call(method, url, { 'x-api-key': 'pk_not-a-real-key' }), 401, 'INVALID_API_KEY')
  })
})

describe('key lifecycle', () => {
  it('a revoked key answers 401 INVALID_API_KEY from then on; the other key keeps working', async () => {
    const second = await t.c.accounts.createKey(t.accountId)
    expect((await t.get('/api/v1/profile', second.key)).statusCode).toBe(400)
    await t.c.accounts.revokeKey(t.accountId, second.id)
    expectError(await t.get('/api/v1/profile', second.key), 401, 'INVALID_API_KEY')
    expect((await t.get('/api/v1/profile')).statusCode).toBe(400)
  })

  it('a suspended account answers 403 FORBIDDEN until resumed', async () => {
    await t.c.accounts.suspend(t.accountId)
    expectError(await t.get('/api/v1/profile?profileUrlOrUrn=x'), 403, 'FORBIDDEN')
    await t.c.accounts.resume(t.accountId)
    expectError(await t.get('/api/v1/profile?profileUrlOrUrn=nobody-here'), 404, 'PROFILE_NOT_FOUND')
  })

  it('keys are stored only as SHA-256 hashes', async () => {
    const rows = (t.c as unknown as { accountStore: { listKeys(id: string): Promise<object[]> } }).accountStore
    const keys = await rows.listKeys(t.accountId)
    expect(JSON.stringify(keys)).not.toContain(t.key)
  })
})

describe('unknown paths and methods', () => {
  it('404 NOT_FOUND in the error envelope', async () => {
    expectError(await t.get('/api/v1/nope'), 404, 'NOT_FOUND')
    expectError(await t.app.inject({ method: 'DELETE', url: '/api/v1/profile', headers: { 'x-api-key': t.key } }), 404, 'NOT_FOUND')
  })
})
