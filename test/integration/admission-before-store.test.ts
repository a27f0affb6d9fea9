/**
 * Nothing reaches the store before admission: every data route's parse step runs with no store behind
 * it, and its serve step only once the call's price is held. The content store and the search index
 * here throw when anything is read from them before the metering has taken a hold for the call under
 * way, so a route that read early would answer 500; a call the balance cannot cover, or whose input is
 * bad, reads nothing at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import type { MeteringService } from '../../src/domain/billing/metering.service.ts'
import { createContentService } from '../../src/domain/content/content.service.ts'
import { createResponseCache } from '../../src/domain/content/response-cache.ts'
import { DATA_ROUTES } from '../../src/http/routes/data.routes.ts'
import { buildDataApp } from '../helpers/data-app.ts'
import { COMPANY_ID, PERSON_POST_ID, fixtureRecords } from '../helpers/ingest-fixtures.ts'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'

const q = encodeURIComponent
/** Whether the call under way has had its price held, and how many reads it made. */
const call = { held: false, reads: 0 }

/** `target` with every method refusing to run before the call's hold. */
function guarded<T extends object>(target: T): T {
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value: unknown = Reflect.get(obj, prop, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        if (!call.held) throw new Error(`${String(prop)} was read before the call's price was held`)
        call.reads++
        return (value as (...a: unknown[]) => unknown).apply(obj, args)
      }
    },
  })
}

let t: TestApp
let app: FastifyInstance

beforeAll(async () => {
  t = await makeTestApp({ records: fixtureRecords(), overrides: { wrapSearchIndex: guarded } })
  const metering: MeteringService = {
    ...t.c.metering,
    hold: async (...args) => {
      const hold = await t.c.metering.hold(...args)
      call.held = true
      return hold
    },
  }
  // No response cache: every call reads the store.
  const content = createContentService({
    store: guarded(t.c.contentStore),
    clock: t.c.clock,
    tokens: t.c.tokens,
    platformHost: t.c.config.platformHost,
    cache: createResponseCache({ maxBytes: 0, version: () => '' }),
  })
  app = await buildDataApp(t.c, { content, metering })
})
afterAll(async () => {
  await app?.close()
  await t.close()
})

/** One valid call of every data route. */
const CALLS: Record<string, { method: 'GET' | 'POST'; query?: string; body?: unknown }> = {
  '/api/v1/profile': { method: 'GET', query: 'profileUrlOrUrn=member-1' },
  '/api/v1/profile/reactions': { method: 'GET', query: 'profileUrlOrUrn=member-2' },
  '/api/v1/profile/articles': { method: 'GET', query: 'profileUrlOrUrn=member-1' },
  '/api/v1/posts': { method: 'GET', query: 'profileUrlOrUrn=member-1' },
  '/api/v1/posts/updates': { method: 'GET', query: 'profileUrlsOrUrns=member-1,member-2' },
  '/api/v1/company': { method: 'GET', query: `companyUrlOrUrn=${COMPANY_ID}` },
  '/api/v1/company/batch': { method: 'POST', body: { companies: [COMPANY_ID, 'ghost-co'] } },
  '/api/v1/company/posts': { method: 'GET', query: `companyUrlOrUrn=${COMPANY_ID}` },
  '/api/v1/post/engagement': { method: 'GET', query: `postUrlOrUrn=${q(PERSON_POST_ID)}` },
  '/api/v1/post/comments': { method: 'GET', query: `postUrlOrUrn=${q(PERSON_POST_ID)}` },
  '/api/v1/post/reactions': { method: 'GET', query: `postUrlOrUrn=${q(PERSON_POST_ID)}` },
  '/api/v1/search/posts': { method: 'POST', body: { query: 'logistics OR hiring' } },
}

async function send(url: string, key: string, c: { method: 'GET' | 'POST'; query?: string; body?: unknown }) {
  call.held = false
  call.reads = 0
  return app.inject({
    method: c.method,
    url: c.query ? `${url}?${c.query}` : url,
    headers: { 'x-api-key': key, ...(c.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(c.body === undefined ? {} : { payload: JSON.stringify(c.body) }),
  })
}

describe('admission comes before any read', () => {
  it('covers every data route', () => {
    expect(Object.keys(CALLS).sort()).toEqual(DATA_ROUTES.map((r) => r.url).sort())
  })

  it.each(Object.entries(CALLS))('%s reads only once its price is held', async (url, c) => {
    const res = await send(url, t.key, c)
    expect(res.statusCode, res.body).toBe(200)
    expect(call.held).toBe(true)
    expect(call.reads).toBeGreaterThan(0)
  })

  it.each(Object.entries(CALLS))('%s reads nothing when the balance cannot cover it (402)', async (url, c) => {
    const broke = await t.c.accounts.create({ name: 'broke', plan: 'custom', creditsLimit: 0, rpsLimit: 1000 })
    const res = await send(url, broke.apiKey.key, c)
    expect(res.statusCode, res.body).toBe(402)
    expect(call.reads).toBe(0)
  })

  it.each([
    ['/api/v1/profile', 'GET', 'profileUrlOrUrn=%20', undefined],
    ['/api/v1/posts', 'GET', 'profileUrlOrUrn=member-1&start=3', undefined],
    ['/api/v1/posts/updates', 'GET', 'profileUrlsOrUrns=,,', undefined],
    ['/api/v1/post/comments', 'GET', 'postUrlOrUrn=member-1', undefined],
    ['/api/v1/posts', 'GET', 'profileUrlOrUrn=member-1&paginationToken=made-up', undefined],
    ['/api/v1/company/batch', 'POST', undefined, { companies: [] }],
    ['/api/v1/search/posts', 'POST', undefined, { query: 'a AND' }],
  ] as const)('%s %s %s: bad input is a free 400 that reads nothing', async (url, method, query, body) => {
    const res = await send(url, t.key, { method, ...(query ? { query } : {}), ...(body ? { body } : {}) })
    expect(res.statusCode, res.body).toBe(400)
    expect(res.headers['x-credits-charged']).toBe('0')
    expect(call.reads).toBe(0)
  })
})
