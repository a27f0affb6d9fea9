/**
 * Metering by structure: a data route names its row of the price table, and the app refuses to start
 * without one, so no route is ever served unpriced. A route that has one is priced from its parsed
 * request, held before it is served, and billed by the table's rule (a 404 included) with nothing
 * of its own to remember; a cached one is kept under its whole parsed request.
 */
import Type from 'typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { Defaulted } from '../../src/contract/validated.ts'
import { ApiError } from '../../src/domain/errors.ts'
import { getRoute, type DataRoute } from '../../src/http/data-route.ts'
import { DATA_ROUTES } from '../../src/http/routes/data.routes.ts'
import { buildDataApp } from '../helpers/data-app.ts'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp({ account: { name: 'dummy', plan: 'custom', creditsLimit: 3, rpsLimit: 1000 } })
})
afterAll(async () => t.close())

const DummyQuery = Type.Object({
  name: Type.Optional(Type.String()),
  count: Type.Optional(Defaulted(Type.Integer({ minimum: 1, maximum: 100 }), 60)),
})

/** A GET data route following the contributor's steps; priced as the posts feed (per started block of 50 of its count). */
const dummy = (): DataRoute =>
  getRoute({
    url: '/api/v1/dummy',
    operationId: 'getDummy',
    price: 'posts',
    summary: 'A route of this test',
    querystring: DummyQuery,
    response: Type.Object({ name: Type.String(), count: Type.Integer() }),
    errors: ['INVALID_PARAMETER', 'PROFILE_NOT_FOUND'],
    parse: (q) => {
      if (q.name === 'bad') throw new ApiError('INVALID_PARAMETER', 'bad name', { parameter: 'name' })
      return { name: q.name ?? 'someone', count: q.count }
    },
    serve: async (r) => {
      if (r.name === 'nobody') throw new ApiError('PROFILE_NOT_FOUND', 'No profile exists for this input.')
      return { body: Buffer.from(JSON.stringify(r)) }
    },
  })

describe('a data route without a price rule', () => {
  it('keeps the app from starting, naming the route', async () => {
    const { price: _none, ...unpriced } = dummy()
    await expect(buildDataApp(t.c, { routes: [unpriced as DataRoute] })).rejects.toThrow(/GET \/api\/v1\/dummy has no price rule.*names none/)
  })

  it('naming no row of the price table (or a free one) keeps it from starting too', async () => {
    await expect(buildDataApp(t.c, { routes: [{ ...dummy(), price: 'nothing' as never }] })).rejects.toThrow(/'nothing' is not a priced call/)
    await expect(buildDataApp(t.c, { routes: [{ ...dummy(), price: 'usage' as never }] })).rejects.toThrow(/'usage' is not a priced call/)
  })

  it('every route of the API has one, and the whole app starts', async () => {
    for (const route of DATA_ROUTES) expect(t.c.config.prices[route.price], route.url).toBeDefined()
    const app = await buildApp(t.c)
    await app.close()
  })
})

describe('a data route with a price rule', () => {
  it('starts, and is held and billed by its rule from its parsed request, its default from its schema', async () => {
    const app = await buildDataApp(t.c, { routes: [dummy()] })
    try {
      const get = (query: string) => app.inject({ method: 'GET', url: `/api/v1/dummy${query}`, headers: { 'x-api-key': t.key } })
      // count defaults to 60 (the schema's default): two blocks of 50.
      const served = await get('?name=ada')
      expect(served.statusCode, served.body).toBe(200)
      expect(served.json()).toEqual({ name: 'ada', count: 60 })
      expect(served.headers['x-credits-charged']).toBe('2')
      // A bad input is refused before anything is held: free.
      const refused = await get('?name=bad')
      expect(refused.statusCode).toBe(400)
      expect(refused.headers['x-credits-charged']).toBe('0')
      // One credit left: a call priced 2 is refused whole, 402, free.
      const broke = await get('?name=ada&count=51')
      expect(broke.statusCode).toBe(402)
      expect(broke.json().details).toMatchObject({ creditsRemaining: 1, creditsRequired: 2 })
      // Priced 1, and its 404 bills what the table says a 404 of this rule bills.
      const missing = await get('?name=nobody&count=5')
      expect(missing.statusCode).toBe(404)
      expect(missing.headers['x-credits-charged']).toBe('1')
      const sub = await t.c.metering.subscription(t.accountId)
      expect(sub.creditsRemaining).toBe(0)
    } finally {
      await app.close()
    }
  })
})

describe('a cached data route', () => {
  it('is kept under its whole parsed request: every parameter, defaults included, is in the key', async () => {
    const served: unknown[] = []
    const route = getRoute({
      ...dummy(),
      querystring: DummyQuery,
      price: 'company',
      parse: (q) => ({ name: q.name ?? 'someone', count: q.count }),
      serve: async (r) => {
        served.push(r)
        return { body: Buffer.from(JSON.stringify(r)) }
      },
      cached: true,
    })
    const rich = await t.c.accounts.create({ name: 'cached', plan: 'custom', creditsLimit: 100, rpsLimit: 1000 })
    const app = await buildDataApp(t.c, { routes: [route] })
    try {
      const get = async (query: string) => {
        const res = await app.inject({ method: 'GET', url: `/api/v1/dummy${query}`, headers: { 'x-api-key': rich.apiKey.key } })
        expect(res.statusCode, res.body).toBe(200)
        // Served from the cache or not, a delivered call bills its price.
        expect(res.headers['x-credits-charged']).toBe('1')
        return res.json()
      }
      expect(await get('?name=ada')).toEqual({ name: 'ada', count: 60 })
      expect(await get('?name=ada&count=60')).toEqual({ name: 'ada', count: 60 })
      expect(await get('?name=ada&count=7')).toEqual({ name: 'ada', count: 7 })
      expect(await get('?name=bo&count=7')).toEqual({ name: 'bo', count: 7 })
      expect(served).toEqual([
        { name: 'ada', count: 60 },
        { name: 'ada', count: 7 },
        { name: 'bo', count: 7 },
      ])
    } finally {
      await app.close()
    }
  })
})
