import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATA_ROUTES } from '../../src/http/routes/data.routes.ts'
import { ADMIN_TOKEN, expectSchema, makeTestApp, type TestApp } from '../helpers/test-app.ts'
import type { TSchema } from 'typebox'
import type { LightMyRequestResponse } from 'fastify'

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

  it('marks the required record inputs required (a query with an alias requires neither), and the admin statuses (201 created, 204 deleted)', async () => {
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

  it('the health check and the interface description answer HEAD; data routes still do not', async () => {
    for (const url of ['/healthz', '/openapi.json']) {
      const get = await t.app.inject({ method: 'GET', url })
      const head = await t.app.inject({ method: 'HEAD', url })
      expect(head.statusCode, url).toBe(200)
      expect(head.body, url).toBe('')
      expect(head.headers['content-type'], url).toBe(get.headers['content-type'])
    }
    const before = (await t.get('/api/v1/subscription')).json().creditsRemaining
    const data = await t.app.inject({ method: 'HEAD', url: '/api/v1/profile?profileUrlOrUrn=someone', headers: { 'x-api-key': t.key } })
    expect(data.statusCode).toBe(404)
    t.clock.advance(1_000)
    expect((await t.get('/api/v1/subscription')).json().creditsRemaining).toBe(before)
  })

  it("answers a path the reference page's file server refuses as a file that is not there, not as a failure", async () => {
    for (const url of ['/docs/static/../package.json', '/docs/static/..%5c', '/docs/static/swagger-ui.css%00.json', '/docs/static/%2e%2e/package.json']) {
      const res = await t.app.inject({ method: 'GET', url })
      expect(res.statusCode, url).toBe(404)
      expect(res.json().code, url).toBe('NOT_FOUND')
    }
    expect((await t.app.inject('/docs/static/swagger-ui.css')).statusCode).toBe(200)
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

interface DocResponse {
  description: string
  headers?: Record<string, { schema: { type: string } }>
  content?: Record<string, { schema: TSchema }>
}

describe('what /openapi.json declares of answers, as a generated client reads it', () => {
  let doc: { paths: Record<string, Record<string, { operationId?: string; requestBody?: { required: boolean; content: Record<string, { schema: TSchema }> }; responses: Record<string, DocResponse> }>> }
  beforeAll(async () => {
    doc = (await t.app.inject('/openapi.json')).json()
  })
  const declared = (path: string, method: string, status: number): DocResponse => {
    const response = doc.paths[path]?.[method]?.responses[String(status)]
    expect(response, `${method} ${path} declares ${status}`).toBeDefined()
    return response as DocResponse
  }
  /** The answer's status is declared, its body matches the declared schema, and every credit and rate-limit header it carries is declared. */
  const conforms = (res: LightMyRequestResponse, path: string, method = 'get') => {
    const response = declared(path, method, res.statusCode)
    const names = Object.keys(response.headers ?? {}).map((h) => h.toLowerCase())
    const sent = Object.keys(res.headers).filter((h) => /^(x-ratelimit-|x-credits-|x-request-id$|retry-after$)/.test(h))
    expect(sent.length).toBeGreaterThan(0)
    for (const h of sent) expect(names, `${path} ${res.statusCode} declares ${h}`).toContain(h)
    if (res.statusCode === 204) {
      expect(response.content).toBeUndefined()
      expect(res.body).toBe('')
      return
    }
    const schema = response.content?.['application/json']?.schema
    expect(schema, `${path} ${res.statusCode} has a JSON schema`).toBeDefined()
    expectSchema(schema as TSchema, res.json(), `${method} ${path} ${res.statusCode}`)
  }
  const admin = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, ...(payload === undefined ? {} : { payload: payload as object }) })

  it('names every operation, each once, and describes every answer', () => {
    const ops = Object.values(doc.paths).flatMap((o) => Object.values(o))
    for (const op of ops) for (const r of Object.values(op.responses)) expect(r.description, op.operationId).not.toBe('Default Response')
    const ids = ops.map((op) => op.operationId)
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id)), JSON.stringify(ids)).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('declares the headers and the error codes data calls answer with', async () => {
    const search = await t.app.inject({ method: 'POST', url: '/api/v1/search/posts', headers: { 'x-api-key': t.key }, payload: { query: 'nothing' } })
    expect(search.statusCode).toBe(200)
    conforms(search, '/api/v1/search/posts', 'post')
    for (const h of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-RateLimit-Cost', 'X-Credits-Charged']) {
      expect(Object.keys(declared('/api/v1/profile', 'get', 200).headers ?? {})).toContain(h)
    }
    const missing = await t.get('/api/v1/profile?profileUrlOrUrn=nobody-here')
    expect(missing.statusCode).toBe(404)
    conforms(missing, '/api/v1/profile')
    // INVALID_PARAMETER was left out of the profile's 400 (a parameter given twice, or too long).
    const twice = await t.get('/api/v1/profile?profileUrlOrUrn=a&profileUrlOrUrn=a')
    expect(twice.json().code).toBe('INVALID_PARAMETER')
    conforms(twice, '/api/v1/profile')
    conforms(await t.get('/api/v1/profile?profileUrlOrUrn=a', null), '/api/v1/profile')
    conforms(await t.get('/api/v1/company?companyUrlOrUrn=1', 'pk_not_a_key'), '/api/v1/company')

    // A 429 carries Retry-After, and the usage endpoint's own budget its own headers.
    const created = (await admin('POST', '/admin/v1/accounts', { plan: 'custom', creditsLimit: 10, rpsLimit: 1 })).json()
    const key = created.apiKey.key as string
    expect((await t.get('/api/v1/profile?profileUrlOrUrn=nobody-here', key)).statusCode).toBe(404)
    const limited = await t.get('/api/v1/profile?profileUrlOrUrn=nobody-here', key)
    expect(limited.statusCode).toBe(429)
    expect(limited.headers['retry-after']).toBeDefined()
    conforms(limited, '/api/v1/profile')
    conforms(await t.get('/api/v1/usage', key), '/api/v1/usage')
    const usageLimited = await t.get('/api/v1/usage', key)
    expect(usageLimited.statusCode).toBe(429)
    conforms(usageLimited, '/api/v1/usage')
    conforms(await t.get('/api/v1/subscription', key), '/api/v1/subscription')
  })

  it('documents every admin answer as it is sent, bodies that may be left out, and null as omitted', async () => {
    const created = await admin('POST', '/admin/v1/accounts', { name: null, plan: null })
    expect(created.statusCode).toBe(201)
    conforms(created, '/admin/v1/accounts', 'post')
    const id = created.json().account.id as string
    conforms(await admin('GET', `/admin/v1/accounts/${id}`), '/admin/v1/accounts/{id}')
    const key = await admin('POST', `/admin/v1/accounts/${id}/keys`)
    conforms(key, '/admin/v1/accounts/{id}/keys', 'post')
    conforms(await admin('POST', `/admin/v1/accounts/${id}/suspend`), '/admin/v1/accounts/{id}/suspend', 'post')
    conforms(await admin('POST', `/admin/v1/accounts/${id}/resume`), '/admin/v1/accounts/{id}/resume', 'post')
    conforms(await admin('PUT', `/admin/v1/accounts/${id}/subscription`, { plan: 'custom', creditsLimit: 100 }), '/admin/v1/accounts/{id}/subscription', 'put')
    conforms(await admin('POST', `/admin/v1/accounts/${id}/packs`, { credits: 1000 }), '/admin/v1/accounts/{id}/packs', 'post')
    conforms(await admin('GET', '/admin/v1/packs/quote?credits=1000'), '/admin/v1/packs/quote')
    conforms(await admin('DELETE', `/admin/v1/accounts/${id}/keys/${key.json().id as string}`), '/admin/v1/accounts/{id}/keys/{keyId}', 'delete')
    conforms(await admin('GET', '/admin/v1/accounts/acct_nobody'), '/admin/v1/accounts/{id}')
    conforms(await admin('POST', `/admin/v1/accounts/${id}/packs`, { credits: 0 }), '/admin/v1/accounts/{id}/packs', 'post')

    const metrics = await admin('GET', '/admin/v1/metrics')
    expect(metrics.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
    expect(Object.keys(declared('/admin/v1/metrics', 'get', 200).content ?? {})).toEqual(['text/plain; version=0.0.4'])

    const body = (path: string, method = 'post') => doc.paths[path]?.[method]?.requestBody
    for (const path of ['/admin/v1/accounts', '/admin/v1/accounts/{id}/keys', '/admin/v1/accounts/{id}/suspend', '/admin/v1/accounts/{id}/resume']) {
      expect(body(path)?.required, path).toBe(false)
    }
    expect(body('/admin/v1/accounts/{id}/packs')?.required).toBe(true)
    expectSchema(body('/admin/v1/accounts')?.content['application/json']?.schema as TSchema, { name: null, plan: null }, 'a body of nulls')
    // The data API still requires its bodies.
    expect(body('/api/v1/search/posts')?.required).toBe(true)
  })
})

describe('the reference page (/docs) a customer tries calls from', () => {
  it("starts the search's Try it out from a body that searches, shows its enums as strings, and offers no admin login where there is no admin API", async () => {
    const doc = (await t.app.inject('/openapi.json')).json()
    const media = doc.paths['/api/v1/search/posts'].post.requestBody.content['application/json']
    const { schema, example } = media
    expect(example).toBeDefined()
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/search/posts', headers: { 'x-api-key': t.key }, payload: example })
    expect(res.statusCode, res.body).toBe(200)
    expect(JSON.stringify(schema.properties.sortBy)).toContain('"type":"string"')
    expect(doc.components.securitySchemes.AdminToken).toBeDefined()
    expect(doc.tags.map((tag: { name: string }) => tag.name)).toEqual(['data', 'account', 'admin'])
    expect((await t.app.inject('/docs/')).body).toContain('<title>pronet API reference</title>')

    const closed = await makeTestApp({ env: { PRONET_ADMIN_TOKEN: '' } })
    try {
      const plain = (await closed.app.inject('/openapi.json')).json()
      expect(Object.keys(plain.components.securitySchemes)).toEqual(['ApiKey'])
      expect(Object.keys(plain.paths).some((path) => path.startsWith('/admin'))).toBe(false)
      expect(plain.tags.map((tag: { name: string }) => tag.name)).toEqual(['data', 'account'])
    } finally {
      await closed.close()
    }
  })
})
