/** Every data route refuses a missing, unknown, revoked or suspended key, before looking at anything else. */
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATA_ROUTES } from '../../src/http/routes/data.routes.ts'
import { expectError, makeTestApp, storedRows, type TestApp } from '../helpers/test-app.ts'

let t: TestApp

beforeAll(async () => {
  // In a file on SQLite, so that the key-storage test can read the store as it is.
  t = await makeTestApp({ file: true })
})
afterAll(async () => t.close())

const call = (method: 'GET' | 'POST', url: string, headers: Record<string, string>) =>
  t.app.inject({ method, url, headers: { 'content-type': 'application/json', ...headers }, ...(method === 'POST' ? { payload: '{}' } : {}) })

describe.each(DATA_ROUTES.map((r) => [r.method, r.url] as const))('%s %s', (method, url) => {
  it('401 UNAUTHENTICATED without X-API-Key, even with bad parameters; nothing charged, and the header says so', async () => {
    const res = await call(method, `${url}?count=-5`, {})
    const body = expectError(res, 401, 'UNAUTHENTICATED')
    expect(String(body.error)).toMatch(/X-API-Key/)
    expect(res.headers['x-credits-charged']).toBe('0')
  })

  it('401 INVALID_API_KEY for an unknown key', async () => {
    const res = await call(method, url, { 'x-api-key': 'pk_not-a-real-key' })
    expectError(res, 401, 'INVALID_API_KEY')
    expect(res.headers['x-credits-charged']).toBe('0')
  })

  it('503 with X-Credits-Charged: 0 when the store cannot be asked about the key', async () => {
    const identify = t.c.accounts.identify
    // What each store throws when it cannot answer: a refused connection, a file locked past the busy timeout.
    const unavailable = t.c.config.databaseUrl
      ? Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
      : Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })
    t.c.accounts.identify = async () => {
      throw unavailable
    }
    try {
      const res = await call(method, url, { 'x-api-key': t.key })
      expectError(res, 503, 'SERVICE_UNAVAILABLE')
      expect(res.headers['x-credits-charged']).toBe('0')
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    } finally {
      t.c.accounts.identify = identify
    }
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

  it("a revoked key's calls are refused, free, and counted in its account's usage (every request made with its keys)", async () => {
    const key = await t.c.accounts.createKey(t.accountId)
    await t.c.accounts.revokeKey(t.accountId, key.id)
    // The usage endpoint has its own budget of one call a second: each read is a second apart.
    const usage = async () => {
      t.clock.advance(1000)
      return (await t.get('/api/v1/usage')).json() as {
        requests: number
        creditsUsed: number
        endpoints: { endpoint: string; statusCodes: Record<string, number> }[]
      }
    }
    const before = await usage()
    const refused = expectError(await t.get('/api/v1/company?companyUrlOrUrn=ghost', key.key), 401, 'INVALID_API_KEY')
    expect(refused).toEqual({ error: 'The API key is not valid.', code: 'INVALID_API_KEY' })
    expectError(await t.get('/api/v1/no-such-endpoint', key.key), 404, 'NOT_FOUND')
    const after = await usage()
    expect(after.requests - before.requests).toBe(2)
    expect(after.creditsUsed).toBe(before.creditsUsed)
    expect(after.endpoints.find((e) => e.endpoint === '/api/v1/company')?.statusCodes['401']).toBe(1)
    expect(after.endpoints.find((e) => e.endpoint === 'unknown')?.statusCodes['404']).toBeGreaterThanOrEqual(1)
    // An unknown key names no account: nothing is recorded anywhere.
    expectError(await t.get('/api/v1/company?companyUrlOrUrn=ghost', 'pk_not-a-real-key'), 401, 'INVALID_API_KEY')
    expect((await usage()).requests).toBe(after.requests)
  })

  it('a suspended account answers 403 FORBIDDEN until resumed', async () => {
    await t.c.accounts.suspend(t.accountId)
    expectError(await t.get('/api/v1/profile?profileUrlOrUrn=x'), 403, 'FORBIDDEN')
    await t.c.accounts.resume(t.accountId)
    expectError(await t.get('/api/v1/profile?profileUrlOrUrn=nobody-here'), 404, 'PROFILE_NOT_FOUND')
  })

  it('keys are stored only as SHA-256 hashes', async () => {
    // The first key, and one made now (keyed through another path of the service).
    const made = await t.c.accounts.createKey(t.accountId)
    const keys = [
      { id: t.keyId, key: t.key },
      { id: made.id, key: made.key },
    ]
    const sha256 = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex')
    // Read from the store itself (every table, over a connection of the test's own), not through the app.
    const stored = await storedRows(t)
    const rows = stored.get('api_keys') ?? []
    for (const { id, key } of keys) {
      expect(key).toMatch(/^pk_/)
      const row = rows.find((r) => r.id === id)
      expect(row, `api_keys row of ${id}`).toBeDefined()
      expect([row!.account_id, row!.hash]).toEqual([t.accountId, sha256(key)])
    }
    // No column of any table holds a key.
    const held: string[] = []
    for (const [table, tableRows] of stored) {
      for (const row of tableRows) {
        for (const [column, value] of Object.entries(row)) {
          if (value === null || value === undefined) continue
          const text = Buffer.isBuffer(value) ? value.toString('latin1') : typeof value === 'object' ? JSON.stringify(value) : String(value)
          for (const { key } of keys) if (text.includes(key)) held.push(`${table}.${column}`)
        }
      }
    }
    expect(held).toEqual([])
    expect(stored.size).toBeGreaterThan(1)
  })
})

describe('unknown paths and methods', () => {
  it('404 NOT_FOUND in the error envelope, free and saying so (X-Credits-Charged on every answer of the API)', async () => {
    const answers = [
      await t.get('/api/v1/nope'),
      await t.get('/api/v1/nope', null),
      await t.app.inject({ method: 'DELETE', url: '/api/v1/profile', headers: { 'x-api-key': t.key } }),
      await t.app.inject({ method: 'POST', url: '/api/v1/profile?x=1', headers: { 'x-api-key': t.key, 'content-type': 'application/json' }, payload: '{' }),
    ]
    for (const res of answers) {
      expectError(res, 404, 'NOT_FOUND')
      expect(res.headers['x-credits-charged']).toBe('0')
    }
  })
})
