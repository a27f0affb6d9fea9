import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATA_ROUTES } from '../../src/http/routes/data.routes.ts'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(async () => t.close())

describe('interface description', () => {
  it('/openapi.json is OpenAPI 3.1, version 1.0.0, and documents every data route with its schemas', async () => {
    const res = await t.app.inject('/openapi.json')
    expect(res.statusCode).toBe(200)
    const doc = res.json()
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.info.version).toBe('1.0.0')
    for (const route of DATA_ROUTES) {
      const op = doc.paths[route.url]?.[route.method.toLowerCase()]
      expect(op, route.url).toBeDefined()
      expect(op.responses['200'], route.url).toBeDefined()
      expect(op.responses['401'], route.url).toBeDefined()
      expect(op.security).toEqual([{ ApiKey: [] }])
    }
    for (const path of ['/api/v1/usage', '/api/v1/subscription']) {
      const op = doc.paths[path]?.get
      expect(op, path).toBeDefined()
      expect(op.security).toEqual([{ ApiKey: [] }])
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '401', '429']))
    }
    expect(JSON.stringify(doc.paths['/api/v1/subscription'].get.responses['200'])).toContain('paygExpiresAt')
    expect(JSON.stringify(doc.paths['/api/v1/usage'].get.responses['200'])).toContain('statusCodes')
    expect(doc.paths['/api/v1/usage'].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['from', 'to'])
    for (const path of ['/admin/v1/accounts/{id}/subscription', '/admin/v1/accounts/{id}/packs', '/admin/v1/packs/quote']) {
      expect(doc.paths[path], path).toBeDefined()
    }
    expect(doc.components.securitySchemes.ApiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' })
    expect(JSON.stringify(doc.paths['/api/v1/profile'].get.responses['200'])).toContain('recommendations')
  })

  it('marks the required record inputs required (a query with an alias requires neither), and the admin statuses of D12', async () => {
    const doc = (await t.app.inject('/openapi.json')).json()
    const required = (path: string, method = 'get') =>
      (doc.paths[path][method].parameters as { name: string; required?: boolean }[]).filter((p) => p.required).map((p) => p.name)
    expect(required('/api/v1/profile')).toEqual(['profileUrlOrUrn'])
    expect(required('/api/v1/posts')).toEqual(['profileUrlOrUrn'])
    expect(required('/api/v1/posts/updates')).toEqual(['profileUrlsOrUrns'])
    expect(required('/api/v1/company')).toEqual(['companyUrlOrUrn'])
    expect(required('/api/v1/post/engagement')).toEqual(['postUrlOrUrn'])
    expect(required('/api/v1/company/posts')).toEqual([])
    // Documentation only: a missing input is still the service's MISSING_PARAMETER, not the validator's.
    const missing = await t.get('/api/v1/profile', t.key)
    expect(missing.statusCode).toBe(400)
    expect(missing.json()).toMatchObject({ code: 'MISSING_PARAMETER', details: { parameter: 'profileUrlOrUrn' } })
    expect(Object.keys(doc.paths['/admin/v1/accounts'].post.responses)).toContain('201')
    expect(Object.keys(doc.paths['/admin/v1/accounts/{id}/keys'].post.responses)).toContain('201')
    expect(Object.keys(doc.paths['/admin/v1/accounts/{id}/keys/{keyId}'].delete.responses)).toContain('204')
    expect(Object.keys(doc.paths['/admin/v1/accounts/{id}/packs'].post.responses)).toContain('201')
    expect(Object.keys(doc.paths['/admin/v1/accounts/{id}'].get.responses)).toEqual(expect.arrayContaining(['200', '401', '404']))
  })

  it('/docs serves a reference page whose assets are all local', async () => {
    const page = await t.app.inject('/docs/')
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toMatch(/text\/html/)
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string)
    expect(assets.length).toBeGreaterThan(0)
    for (const asset of assets) {
      expect(asset, 'no asset from the internet').not.toMatch(/^https?:\/\//)
      const url = asset.startsWith('/') ? asset : `/docs/${asset.replace(/^\.\//, '')}`
      expect((await t.app.inject(url)).statusCode, url).toBe(200)
    }
  })
})
