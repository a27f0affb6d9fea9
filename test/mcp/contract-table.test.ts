// @one-backend: compares the MCP package's tables with the contract the app serves, which no store changes
/**
 * The MCP package's static tables are not stale: the contract table is what the generator makes of
 * the /openapi.json the app serves now, every call of the API has its tool, and each tool's price is
 * the service's own price rule.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONTRACT_FILE, contractFrom, contractSource } from '../../packages/mcp/scripts/generate-contract.ts'
import { CONTRACT } from '../../packages/mcp/src/contract.generated.ts'
import { maxPrice } from '../../packages/mcp/src/prices.ts'
import { countDefault, TOOLS } from '../../packages/mcp/src/tool-catalogue.ts'
import { CLAMPED } from '../../src/contract/endpoints.schemas.ts'
import { PRICES, priceOf, type Operation } from '../../src/domain/billing/prices.ts'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'

let t: TestApp
let served: unknown
beforeAll(async () => {
  t = await makeTestApp()
  served = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
})
afterAll(async () => t.close())

/** The service's name of a call: its path after /api/v1/, dotted. */
const operationOf = (path: string) => path.replace('/api/v1/', '').replaceAll('/', '.') as Operation

describe('the contract table', () => {
  it('is what the generator makes of the /openapi.json served now', () => {
    expect(
      readFileSync(CONTRACT_FILE, 'utf8'),
      'packages/mcp/src/contract.generated.ts is stale: run `npx tsx packages/mcp/scripts/generate-contract.ts`',
    ).toBe(contractSource(served))
  })

  it('inlines the document\'s references, so that each input schema stands alone', () => {
    const doc = {
      paths: {
        '/api/v1/thing': {
          get: { operationId: 'getThing', summary: 'A thing', parameters: [{ $ref: '#/components/parameters/Id' }, { name: 'X-Key', in: 'header' }] },
          post: {
            operationId: 'postThing',
            requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Body' } } } },
          },
        },
        '/admin/v1/other': { get: { operationId: 'adminOnly' } },
      },
      components: {
        parameters: { Id: { name: 'id', in: 'query', required: true, schema: { $ref: '#/components/schemas/Id' } } },
        schemas: { Id: { type: 'string', minLength: 1 }, Body: { type: 'object', properties: { ids: { type: 'array', items: { $ref: '#/components/schemas/Id' } } } } },
      },
    }
    expect(contractFrom(doc)).toEqual({
      getThing: { method: 'GET', path: '/api/v1/thing', summary: 'A thing', query: [{ name: 'id', required: true, schema: { type: 'string', minLength: 1 } }] },
      postThing: {
        method: 'POST',
        path: '/api/v1/thing',
        summary: '',
        query: [],
        body: { type: 'object', properties: { ids: { type: 'array', items: { type: 'string', minLength: 1 } } } },
      },
    })
  })

  it('has every call under /api/v1/ and nothing else, and each has one tool', () => {
    const paths = Object.keys((served as { paths: Record<string, unknown> }).paths).filter((p) => p.startsWith('/api/v1/'))
    expect(Object.values(CONTRACT).map((c) => c.path).sort()).toEqual(paths.sort())
    expect(TOOLS.map((s) => s.operationId).sort()).toEqual(Object.keys(CONTRACT).sort())
    expect(new Set(TOOLS.map((s) => s.name)).size).toBe(TOOLS.length)
  })
})

describe('the tools\' prices', () => {
  it('are the service\'s price rules', () => {
    for (const spec of TOOLS) {
      const op = operationOf(CONTRACT[spec.operationId].path)
      const server = PRICES[op]
      const mine = spec.price.rule
      expect(mine.kind, spec.name).toBe(server.kind)
      if (server.kind === 'free') continue
      expect(spec.price.notFound, spec.name).toBe(server.notFound)
      expect('credits' in mine && mine.credits, spec.name).toBe(server.credits)
      if (server.kind === 'perBlock' && mine.kind === 'perBlock') expect(mine.block, spec.name).toBe(server.block)
      if (server.kind === 'perGroup' && mine.kind === 'perGroup') expect(mine.group, spec.name).toBe(server.group)
    }
  })

  it('clamp a feed\'s count where the service does, and only where the contract sets no maximum', () => {
    const clamps: Record<string, number | undefined> = {}
    for (const spec of TOOLS) {
      if (spec.price.rule.kind !== 'perBlock') continue
      clamps[spec.operationId] = spec.price.rule.clampedAt
      const count = CONTRACT[spec.operationId].query.find((q) => q.name === 'count')
      expect(count?.schema.maximum === undefined, spec.name).toBe(spec.price.rule.clampedAt !== undefined)
    }
    expect(clamps).toEqual({
      getProfileReactions: undefined,
      getProfileArticles: CLAMPED.articlesCount,
      getPosts: undefined,
      getCompanyPosts: CLAMPED.companyPostsCount,
    })
  })

  it('hold, for a call\'s arguments, at least what the service holds for it', () => {
    for (const spec of TOOLS) {
      const rule = PRICES[operationOf(CONTRACT[spec.operationId].path)]
      const cases: { input: Record<string, unknown>; basis: { count?: number; units?: number } }[] =
        spec.price.rule.kind === 'perBlock'
          ? [
              { input: {}, basis: { count: countDefault(spec) ?? 0 } },
              ...[1, 50, 51, 100].map((count) => ({ input: { count }, basis: { count } })),
              ...(spec.price.rule.clampedAt ? [{ input: { count: 250 }, basis: { count: spec.price.rule.clampedAt } }] : []),
            ]
          : spec.price.rule.kind === 'perGroup'
            ? [1, 15, 16, 60].map((n) => ({
                input: { profileUrlsOrUrns: Array.from({ length: n }, (_, i) => `member-${i}`).join(',') },
                basis: { units: n },
              }))
            : spec.price.rule.kind === 'perFound'
              ? [{ input: { companies: ['a', 'A ', 'b'] }, basis: { units: 2 } }]
              : [{ input: {}, basis: {} }]
      for (const { input, basis } of cases) {
        expect(maxPrice(spec.price, input, countDefault(spec)), `${spec.name} ${JSON.stringify(input)}`).toBe(priceOf(rule, basis))
      }
    }
  })
})
