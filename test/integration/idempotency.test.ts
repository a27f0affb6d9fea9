/**
 * Idempotency-Key over HTTP, on both backends: a repeat of the same request within a day gets the
 * first answer (status, body, content type) again, free, marked Idempotent-Replayed, while the debit
 * and the billed usage line stay those of the first call; the same key with another request is a free
 * 400 naming the header; a repeat sent while the first runs waits for it; a refusal worth a retry
 * (402) keeps nothing, so the retry runs; keys belong to their account; answers lapse after a day.
 */
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { DATA_ROUTES } from '../../src/http/routes/data.routes.ts'
import { searchGate } from '../helpers/search-index-spy.ts'
import { COMPANY_ID, fixtureRecords } from '../helpers/ingest-fixtures.ts'
import { ADMIN_TOKEN, expectError, makeTestApp, type TestApp } from '../helpers/test-app.ts'

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0)
const DAY = 24 * 3_600_000
const PROFILE = '/api/v1/profile?profileUrlOrUrn=member-1'

/** While armed, a search waits at the index until released: a call that is still running. */
/** Holds a search at its index while a repeat is sent. */
const gate = searchGate()

let t: TestApp
let serial = 0
const newKey = () => `key-${++serial}-${Math.random().toString(36).slice(2, 8)}`

beforeAll(async () => {
  t = await makeTestApp({ nowMs: NOW, records: fixtureRecords(), overrides: { wrapSearchIndex: gate.wrap } })
})
afterAll(async () => t.close())

const admin = (method: 'POST', url: string, payload: unknown) =>
  t.app.inject({ method, url, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, payload: JSON.stringify(payload) })

async function account(body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const res = await admin('POST', '/admin/v1/accounts', body)
  expect(res.statusCode, res.body).toBe(201)
  return { id: res.json().account.id, key: res.json().apiKey.key }
}

const get = (url: string, apiKey: string, idem?: string) =>
  t.app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey, ...(idem === undefined ? {} : { 'idempotency-key': idem }) } })

const post = (url: string, apiKey: string, body: string, idem?: string) =>
  t.app.inject({
    method: 'POST',
    url,
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json', ...(idem === undefined ? {} : { 'idempotency-key': idem }) },
    payload: body,
  })

/** Debits of the account, as request id → credits. */
async function debits(accountId: string): Promise<Map<string, number>> {
  const out = new Map<string, number>()
  for (const e of await t.c.ledger.entries(accountId)) {
    if (e.kind === 'debit' && e.requestId) out.set(e.requestId, (out.get(e.requestId) ?? 0) - e.delta)
  }
  return out
}

const usageOf = async (accountId: string) =>
  (await t.c.ledger.usage(accountId, '2000-01-01', '2100-01-01')).map(({ endpoint, status, requests, billable, credits }) => ({
    endpoint,
    status,
    requests,
    billable,
    credits,
  }))

const balance = async (accountId: string) => (await t.c.metering.subscription(accountId)).creditsRemaining

/** The second answer repeats the first: status, body and content type; it is marked and free. */
function expectReplay(first: LightMyRequestResponse, again: LightMyRequestResponse): void {
  expect(first.headers['idempotent-replayed']).toBeUndefined()
  expect(again.statusCode).toBe(first.statusCode)
  expect(again.rawPayload.equals(first.rawPayload)).toBe(true)
  expect(again.headers['content-type']).toBe(first.headers['content-type'])
  expect(again.headers['content-length']).toBe(first.headers['content-length'])
  expect(again.headers['idempotent-replayed']).toBe('true')
  expect(again.headers['x-credits-charged']).toBe('0')
  // Its own call: its own request id, and the rate headers of now.
  expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id'])
  expect(again.headers['x-ratelimit-cost']).toBe('1')
}

describe('a repeat with the same key and request', () => {
  it('gets the first answer again, free: the balance is debited once and usage shows one billed line', async () => {
    const a = await account({ name: 'replay', plan: 'custom', creditsLimit: 100, rpsLimit: 100 })
    const key = newKey()
    const first = await get(PROFILE, a.key, key)
    expect(first.statusCode, first.body).toBe(200)
    expect(first.headers['x-credits-charged']).toBe('1')
    const again = await get(PROFILE, a.key, key)
    expectReplay(first, again)
    expectReplay(first, await get(PROFILE, a.key, key))
    expect(await balance(a.id)).toBe(99)
    expect([...(await debits(a.id))]).toEqual([[first.headers['x-request-id'], 1]])
    expect(await usageOf(a.id)).toEqual([{ endpoint: '/api/v1/profile', status: 200, requests: 3, billable: 1, credits: 1 }])
  })

  it('parameters in another order name the same request', async () => {
    const a = await account({ name: 'order', plan: 'custom', creditsLimit: 100, rpsLimit: 100 })
    const key = newKey()
    const first = await get('/api/v1/profile?profileUrlOrUrn=member-1&fullProfile=true', a.key, key)
    expect(first.statusCode).toBe(200)
    expectReplay(first, await get('/api/v1/profile?fullProfile=true&profileUrlOrUrn=member%2D1', a.key, key))
    expect(await balance(a.id)).toBe(99)
  })

  it('a 404 billed once and a 400 of the query are kept and repeated as they were', async () => {
    const a = await account({ name: 'refusals', plan: 'custom', creditsLimit: 100, rpsLimit: 100 })
    const missing = newKey()
    const first = await get('/api/v1/profile?profileUrlOrUrn=nobody-here', a.key, missing)
    expectError(first, 404, 'PROFILE_NOT_FOUND')
    expect(first.headers['x-credits-charged']).toBe('1')
    expectReplay(first, await get('/api/v1/profile?profileUrlOrUrn=nobody-here', a.key, missing))
    const bad = newKey()
    const refused = await get('/api/v1/profile?profileUrlOrUrn=member-1&fullProfile=maybe', a.key, bad)
    expectError(refused, 400, 'INVALID_PARAMETER')
    expectReplay(refused, await get('/api/v1/profile?profileUrlOrUrn=member-1&fullProfile=maybe', a.key, bad))
    expect(await balance(a.id)).toBe(99)
    expect(await usageOf(a.id)).toEqual([
      { endpoint: '/api/v1/profile', status: 400, requests: 2, billable: 0, credits: 0 },
      { endpoint: '/api/v1/profile', status: 404, requests: 2, billable: 1, credits: 1 },
    ])
  })

  it('works for the batch and for search: the body is part of the request, byte for byte', async () => {
    const a = await account({ name: 'bodies', plan: 'custom', creditsLimit: 100, rpsLimit: 100 })
    const body = JSON.stringify({ companies: [COMPANY_ID, 'no-such-company'] })
    const key = newKey()
    const first = await post('/api/v1/company/batch', a.key, body, key)
    expect(first.statusCode, first.body).toBe(200)
    expect(first.headers['x-credits-charged']).toBe('1')
    expectReplay(first, await post('/api/v1/company/batch', a.key, body, key))
    // The same JSON spaced otherwise is another body.
    const spaced = expectError(await post('/api/v1/company/batch', a.key, JSON.stringify({ companies: [COMPANY_ID, 'no-such-company'] }, null, 1), key), 400, 'INVALID_PARAMETER')
    expect(spaced.details).toEqual({ parameter: 'Idempotency-Key' })

    const search = JSON.stringify({ query: 'hiring' })
    const sk = newKey()
    const found = await post('/api/v1/search/posts', a.key, search, sk)
    expect(found.statusCode, found.body).toBe(200)
    expect(found.headers['x-credits-charged']).toBe('1')
    expectReplay(found, await post('/api/v1/search/posts', a.key, search, sk))
    expect(await balance(a.id)).toBe(98)
    expect((await debits(a.id)).size).toBe(2)
  })
})

describe('the same key with another request', () => {
  it('is a free 400 naming the header, whatever differs: query, path, method or body; nothing is billed', async () => {
    const a = await account({ name: 'mismatch', plan: 'custom', creditsLimit: 100, rpsLimit: 100 })
    const key = newKey()
    expect((await get(PROFILE, a.key, key)).statusCode).toBe(200)
    const others = [
      await get('/api/v1/profile?profileUrlOrUrn=member-2', a.key, key),
      await get(`${PROFILE}&fullProfile=true`, a.key, key),
      await get(`/api/v1/company?companyUrlOrUrn=${COMPANY_ID}`, a.key, key),
      await post('/api/v1/company/batch', a.key, JSON.stringify({ companies: [COMPANY_ID] }), key),
    ]
    for (const res of others) {
      const body = expectError(res, 400, 'INVALID_PARAMETER')
      expect(body.details).toEqual({ parameter: 'Idempotency-Key' })
      expect(res.headers['x-credits-charged']).toBe('0')
      expect(res.headers['idempotent-replayed']).toBeUndefined()
    }
    // The first request is still answered under its key.
    expect((await get(PROFILE, a.key, key)).headers['idempotent-replayed']).toBe('true')
    expect(await balance(a.id)).toBe(99)
    expect((await debits(a.id)).size).toBe(1)
    const rows = await usageOf(a.id)
    expect(rows.filter((r) => r.status === 400)).toEqual([
      { endpoint: '/api/v1/company', status: 400, requests: 1, billable: 0, credits: 0 },
      { endpoint: '/api/v1/company/batch', status: 400, requests: 1, billable: 0, credits: 0 },
      { endpoint: '/api/v1/profile', status: 400, requests: 2, billable: 0, credits: 0 },
    ])
  })
})

describe('the header', () => {
  it('must be 1 to 255 printable ASCII characters: anything else is a free 400 naming it, recorded', async () => {
    const a = await account({ name: 'header', plan: 'custom', creditsLimit: 100, rpsLimit: 100 })
    const bad = ['', 'x'.repeat(256), 'tab\there', 'nul\u0000', 'bell\u0007', 'caf\u00e9']
    for (const value of bad) {
      const res = await get(PROFILE, a.key, value)
      const body = expectError(res, 400, 'INVALID_PARAMETER')
      expect(body.details, JSON.stringify(value)).toEqual({ parameter: 'Idempotency-Key' })
      expect(res.headers['x-credits-charged']).toBe('0')
    }
    expect(await balance(a.id)).toBe(100)
    expect(await usageOf(a.id)).toEqual([{ endpoint: '/api/v1/profile', status: 400, requests: bad.length, billable: 0, credits: 0 }])
    // The longest key and one with spaces and punctuation are keys like any other.
    for (const value of ['k'.repeat(255), 'order 42: {profile} ~!']) {
      const first = await get(PROFILE, a.key, value)
      expect(first.statusCode).toBe(200)
      expectReplay(first, await get(PROFILE, a.key, value))
    }
    expect(await balance(a.id)).toBe(98)
  })
})

describe('a repeat while the first call runs', () => {
  it('waits for it and gets its answer: billed once', async () => {
    const a = await account({ name: 'concurrent', plan: 'custom', creditsLimit: 100, rpsLimit: 100 })
    const key = newKey()
    const body = JSON.stringify({ query: 'hiring AND remote' })
    const entered = gate.arm()
    const first = post('/api/v1/search/posts', a.key, body, key)
    await entered
    let secondDone = false
    const second = post('/api/v1/search/posts', a.key, body, key).finally(() => (secondDone = true))
    // The repeat is in: it has nothing to do but wait for the first.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r))
    expect(secondDone).toBe(false)
    gate.open()
    const [one, two] = await Promise.all([first, second])
    expect(one.statusCode, one.body).toBe(200)
    expect(one.headers['x-credits-charged']).toBe('1')
    expectReplay(one, two)
    expect(await balance(a.id)).toBe(99)
    expect(await usageOf(a.id)).toEqual([{ endpoint: '/api/v1/search/posts', status: 200, requests: 2, billable: 1, credits: 1 }])
  })
})

describe('a refusal worth retrying', () => {
  it('a 402 keeps nothing: after a pack is added, the retry with the same key runs and is billed', async () => {
    const a = await account({ name: 'broke', plan: 'none' })
    const key = newKey()
    const refused = await get(PROFILE, a.key, key)
    expectError(refused, 402, 'QUOTA_EXHAUSTED')
    const again = await get(PROFILE, a.key, key)
    expectError(again, 402, 'QUOTA_EXHAUSTED')
    expect(again.headers['idempotent-replayed']).toBeUndefined()
    const pack = await admin('POST', `/admin/v1/accounts/${a.id}/packs`, { credits: 50_000 })
    expect(pack.statusCode, pack.body).toBe(201)
    const paid = await get(PROFILE, a.key, key)
    expect(paid.statusCode, paid.body).toBe(200)
    expect(paid.headers['x-credits-charged']).toBe('1')
    expect(paid.headers['idempotent-replayed']).toBeUndefined()
    expectReplay(paid, await get(PROFILE, a.key, key))
    expect(await balance(a.id)).toBe(49_999)
  })
})

describe('a failure of the service', () => {
  it('keeps nothing either: the call is answered 500, free, and the retry with the same key runs and is billed', async () => {
    const a = await account({ name: 'failure', plan: 'custom', creditsLimit: 100, rpsLimit: 100 })
    const key = newKey()
    const spy = vi.spyOn(t.c.ledger, 'settle').mockRejectedValueOnce(new Error('the disk refused the write'))
    try {
      const failed = await get(PROFILE, a.key, key)
      expectError(failed, 500, 'INTERNAL_ERROR')
      expect(failed.headers['x-credits-charged']).toBe('0')
    } finally {
      spy.mockRestore()
    }
    const retried = await get(PROFILE, a.key, key)
    expect(retried.statusCode).toBe(200)
    expect(retried.headers['x-credits-charged']).toBe('1')
    expect(retried.headers['idempotent-replayed']).toBeUndefined()
    expect(await balance(a.id)).toBe(99)
  })
})

describe('keys', () => {
  it("belong to their account: another account's call with the same key runs afresh", async () => {
    const a = await account({ name: 'mine', plan: 'custom', creditsLimit: 100, rpsLimit: 100 })
    const b = await account({ name: 'theirs', plan: 'custom', creditsLimit: 100, rpsLimit: 100 })
    const key = newKey()
    expect((await get(PROFILE, a.key, key)).headers['x-credits-charged']).toBe('1')
    const theirs = await get(PROFILE, b.key, key)
    expect(theirs.statusCode).toBe(200)
    expect(theirs.headers['x-credits-charged']).toBe('1')
    expect(theirs.headers['idempotent-replayed']).toBeUndefined()
    // And another request under it is theirs to make.
    expect((await get('/api/v1/profile?profileUrlOrUrn=member-2', b.key, newKey())).statusCode).toBe(200)
    expect(await balance(a.id)).toBe(99)
    expect(await balance(b.id)).toBe(98)
  })

  it('are kept a day: the repeat just before is answered from the first call, the one after runs afresh', async () => {
    const a = await account({ name: 'day', plan: 'custom', creditsLimit: 100, rpsLimit: 100 })
    const key = newKey()
    const first = await get(PROFILE, a.key, key)
    expect(first.statusCode).toBe(200)
    t.clock.advance(DAY - 1_000)
    expectReplay(first, await get(PROFILE, a.key, key))
    t.clock.advance(1_000)
    const later = await get(PROFILE, a.key, key)
    expect(later.statusCode).toBe(200)
    expect(later.headers['x-credits-charged']).toBe('1')
    expect(later.headers['idempotent-replayed']).toBeUndefined()
    // A day on, the key is free for another request too.
    t.clock.advance(DAY)
    const other = await get('/api/v1/profile?profileUrlOrUrn=member-2', a.key, key)
    expect(other.statusCode).toBe(200)
    expect(other.headers['x-credits-charged']).toBe('1')
    expect(await balance(a.id)).toBe(97)
  })
})

describe('a call without the header', () => {
  it('is billed each time, as ever', async () => {
    const a = await account({ name: 'plain', plan: 'custom', creditsLimit: 100, rpsLimit: 100 })
    for (let i = 0; i < 2; i++) {
      const res = await get(PROFILE, a.key)
      expect(res.headers['x-credits-charged']).toBe('1')
      expect(res.headers['idempotent-replayed']).toBeUndefined()
    }
    expect(await balance(a.id)).toBe(98)
  })
})

describe('/openapi.json', () => {
  it('offers the header, optional, on every data operation, and declares the header of a repeated answer', async () => {
    const doc = (await t.app.inject('/openapi.json')).json()
    for (const route of DATA_ROUTES) {
      const op = doc.paths[route.url][route.method.toLowerCase()]
      const header = (op.parameters as { in: string; name: string; required?: boolean; schema: Record<string, unknown> }[]).find((p) => p.in === 'header')
      expect(header, route.url).toMatchObject({ name: 'Idempotency-Key', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } })
      for (const status of ['200', '400']) expect(Object.keys(op.responses[status].headers), `${route.url} ${status}`).toContain('Idempotent-Replayed')
    }
  })
})
