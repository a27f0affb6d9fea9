import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config/config.ts'
import { createContainer } from '../../src/container.ts'
import { DATA_DOCS } from '../../src/contract/docs/data.docs.ts'
import { arrivalUnits } from '../../src/domain/billing/metering.service.ts'
import { PRICES } from '../../src/domain/billing/prices.ts'
import { LOGO_SVG } from '../../src/http/docs-assets/docs-assets.ts'
import { OPERATION_DOCS } from '../../src/http/openapi-document.ts'
import { DATA_ROUTES } from '../../src/http/routes/data.routes.ts'
import { ADMIN_TOKEN, expectSchema, makeTestApp, type TestApp } from '../helpers/test-app.ts'
import type { TSchema } from 'typebox'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'

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
    const resolve = resolverOf(doc)
    expect(JSON.stringify(resolve(doc.paths['/api/v1/subscription'].get.responses['200']))).toContain('paygExpiresAt')
    expect(JSON.stringify(resolve(doc.paths['/api/v1/usage'].get.responses['200']))).toContain('statusCodes')
    expect(doc.paths['/api/v1/usage'].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['from', 'to'])
    for (const path of ['/admin/v1/accounts/{id}/subscription', '/admin/v1/accounts/{id}/packs', '/admin/v1/packs/quote']) {
      expect(doc.paths[path], path).toBeDefined()
    }
    expect(doc.components.securitySchemes.ApiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key', description: expect.stringContaining('API key') })
    expect(JSON.stringify(resolve(doc.paths['/api/v1/profile'].get.responses['200']))).toContain('recommendations')
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
  content?: Record<string, Media>
}

interface Media {
  schema: TSchema
  example?: unknown
  examples?: Record<string, { summary: string; value: unknown }>
}

interface DocOperation {
  operationId?: string
  description?: string
  security?: Record<string, unknown>[]
  parameters?: { in: string; name: string; required?: boolean; schema: TSchema; example?: unknown }[]
  requestBody?: { required: boolean; content: Record<string, Media> }
  responses: Record<string, DocResponse>
  'x-codeSamples'?: { lang: string; source: string }[]
  'x-credits'?: Record<string, unknown>
  'x-rate-cost'?: number
}

interface Document {
  servers?: { url: string }[]
  paths: Record<string, Record<string, DocOperation>>
  components: { schemas: Record<string, Record<string, unknown>> }
}

/**
 * The document's schemas with each reference to a component replaced by the component itself, as
 * a client generator reads them. A reference to no component fails the test. Memoised, so that one
 * component is one object (and compiled once).
 */
function resolverOf(doc: Document): (node: unknown) => unknown {
  const memo = new Map<object, unknown>()
  const resolve = (node: unknown): unknown => {
    if (node === null || typeof node !== 'object') return node
    const known = memo.get(node)
    if (known !== undefined) return known
    const ref = (node as { $ref?: unknown }).$ref
    let out: unknown
    if (typeof ref === 'string') {
      const target = doc.components.schemas[ref.replace(/^#\/components\/schemas\//, '')]
      expect(target, `${ref} names a component`).toBeDefined()
      out = resolve(target)
    } else {
      out = Array.isArray(node) ? node.map(resolve) : Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolve(v)]))
    }
    memo.set(node, out)
    return out
  }
  return resolve
}

/** Every operation of the document, with its method and path. */
const operationsOf = (doc: Document) =>
  Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })))

describe('what /openapi.json declares of answers, as a generated client reads it', () => {
  let doc: Document
  let resolve: (node: unknown) => unknown
  beforeAll(async () => {
    doc = (await t.app.inject('/openapi.json')).json()
    resolve = resolverOf(doc)
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
    expectSchema(resolve(schema) as TSchema, res.json(), `${method} ${path} ${res.statusCode}`)
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
    expectSchema(resolve(body('/admin/v1/accounts')?.content['application/json']?.schema) as TSchema, { name: null, plan: null }, 'a body of nulls')
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

/**
 * An app with every optional part of the API: the admin token, a live source (whose upstream is
 * never called here) and the test clock, served at a public address of its own.
 */
async function appWithEverything(): Promise<{ app: FastifyInstance; close(): Promise<void> }> {
  const config = loadConfig({
    PRONET_SEED: 'none',
    LOG_LEVEL: 'silent',
    PRONET_SECRET: 'test-secret',
    PRONET_ADMIN_TOKEN: ADMIN_TOKEN,
    PRONET_DATA_DIR: '/nonexistent-test-dir',
    PRONET_PUBLIC_URL: 'https://data.pronet.test/api-gateway',
    PRONET_SOURCE: 'upstream',
    PRONET_UPSTREAM_URL: 'http://127.0.0.1:9',
    PRONET_UPSTREAM_KEY: 'pk_upstream-key-for-tests',
    PRONET_UPSTREAM_RPS: '5',
    PRONET_TEST_CLOCK: '1',
  })
  const c = await createContainer(config, { sqlitePath: ':memory:' })
  const app = await buildApp(c)
  return {
    app,
    async close() {
      await app.close()
      await c.close()
    },
  }
}

describe('named components: the shared schemas a generated client gets as named types', () => {
  it('puts Profile, Company, Post, Comment, Reaction, Error, Subscription and Usage under components/schemas, referenced from the operations', async () => {
    const doc: Document = (await t.app.inject('/openapi.json')).json()
    const schemas = doc.components.schemas
    for (const name of ['Profile', 'Company', 'Post', 'Comment', 'Reaction', 'Error', 'Subscription', 'Usage']) {
      expect(schemas[name], name).toMatchObject({ type: 'object', title: name })
    }
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
    const success = (path: string, method = 'get', status = '200') => doc.paths[path]?.[method]?.responses[status]?.content?.['application/json']?.schema
    expect((success('/api/v1/profile') as { anyOf: unknown[] }).anyOf).toContainEqual(ref('Profile'))
    expect(success('/api/v1/company')).toEqual(ref('Company'))
    expect(success('/api/v1/posts')).toEqual(ref('PostsPage'))
    expect(schemas.PostsPage?.properties).toMatchObject({ posts: { type: 'array', items: ref('Post') } })
    expect(success('/api/v1/post/comments')).toEqual(ref('CommentsPage'))
    expect(schemas.CommentsPage?.properties).toMatchObject({ comments: { type: 'array', items: ref('Comment') } })
    expect(success('/api/v1/post/reactions')).toEqual(ref('ReactionsPage'))
    expect(schemas.ReactionsPage?.properties).toMatchObject({ reactions: { type: 'array', items: ref('Reaction') } })
    expect(success('/api/v1/usage')).toEqual(ref('Usage'))
    expect(success('/api/v1/subscription')).toEqual(ref('Subscription'))
    expect(success('/admin/v1/accounts/{id}/subscription', 'put')).toEqual(ref('Subscription'))

    // Every error answer is the Error component, narrowed to the codes its status carries.
    for (const { path, method, op } of operationsOf(doc)) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue
        const schema = response.content?.['application/json']?.schema as { allOf?: unknown[]; properties?: { code?: { enum?: string[] } } }
        expect(schema.allOf, `${method} ${path} ${status}`).toEqual([ref('Error')])
        expect(schema.properties?.code?.enum?.length, `${method} ${path} ${status}`).toBeGreaterThan(0)
      }
    }
    // No titled schema is left inline in an answer: each is its component, and every reference resolves.
    const inline: string[] = []
    const walk = (node: unknown, at: string): void => {
      if (node === null || typeof node !== 'object') return
      if (typeof (node as { title?: unknown }).title === 'string') inline.push(at)
      for (const [k, v] of Object.entries(node)) if (!['example', 'examples', 'enum', 'default'].includes(k)) walk(v, `${at}/${k}`)
    }
    for (const { path, method, op } of operationsOf(doc)) walk(op.responses, `${method} ${path}`)
    expect(inline).toEqual([])
    JSON.stringify(resolverOf(doc)(doc.paths))
  })
})

describe('every operation described, with an example call and answer', () => {
  /** The document's operations each have a description, an example call (and curl line) and answer, and an example of every error code, each valid for its schema. */
  function expectDescribedAndExemplified(doc: Document, publicUrl: string): number {
    const resolve = resolverOf(doc)
    const ops = operationsOf(doc)
    for (const { path, method, op } of ops) {
      const at = `${method.toUpperCase()} ${path}`
      expect(op.description?.length ?? 0, `${at} has a description`).toBeGreaterThan(40)
      expect(op.description, at).not.toMatch(/\bspec \d|\b[A-Z]\d{1,2}\b/)
      expect(OPERATION_DOCS[op.operationId ?? ''], `${at} has its example in the docs`).toBeDefined()

      // The example call: every required parameter has an example, and each example is valid.
      for (const p of op.parameters ?? []) {
        if (p.required) expect(p.example, `${at} ${p.name} has an example`).toBeDefined()
        if (p.example !== undefined) expectSchema(resolve(p.schema) as TSchema, p.example, `${at} ${p.name}'s example`)
      }
      const requestMedia = op.requestBody?.content['application/json']
      if (op.requestBody?.required) expect(requestMedia?.example, `${at} has an example body`).toBeDefined()
      if (requestMedia?.example !== undefined) expectSchema(resolve(requestMedia.schema) as TSchema, requestMedia.example, `${at}'s example body`)
      const [sample] = op['x-codeSamples'] ?? []
      expect(sample?.source, `${at} has a curl line`).toMatch(new RegExp(`^curl .*'${publicUrl}${path.replace(/\{\w+\}/g, '[^/\']+').replace(/[/.]/g, '\\$&')}'`))

      // The example answer, and an example of each error code of each error status.
      const success = Object.entries(op.responses).filter(([status]) => Number(status) < 300)
      expect(success.length, at).toBe(1)
      for (const [status, response] of success) {
        if (status === '204') {
          expect(response.content, at).toBeUndefined()
          continue
        }
        const [type, media] = Object.entries(response.content ?? {})[0] ?? []
        expect(media?.example, `${at} has an example answer`).toBeDefined()
        if (type === 'application/json') expectSchema(resolve(media?.schema) as TSchema, media?.example, `${at}'s example answer`)
        else expect(typeof media?.example).toBe('string')
      }
      // A parameter can be missing only from a query or a body: without a path parameter, the path is another.
      const takesInput = (op.parameters ?? []).some((p) => p.in === 'query') || requestMedia?.example !== undefined
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue
        const media = response.content?.['application/json'] as Media
        const codes = (media.schema as { properties: { code: { enum: string[] } } }).properties.code.enum
        const exemplified = codes.filter((code) => code !== 'MISSING_PARAMETER' || takesInput)
        expect(exemplified.length, `${at} ${status}`).toBeGreaterThan(0)
        expect(Object.keys(media.examples ?? {}), `${at} ${status} has an example of each code`).toEqual(exemplified)
        for (const [code, example] of Object.entries(media.examples ?? {})) {
          expect((example.value as { code: string }).code, `${at} ${status}`).toBe(code)
          expectSchema(resolve(media.schema) as TSchema, example.value, `${at} ${status} ${code}'s example`)
        }
      }
    }
    return ops.length
  }

  it('on the API as this suite serves it', async () => {
    const doc: Document = (await t.app.inject('/openapi.json')).json()
    expect(doc.servers).toEqual([{ url: t.c.config.publicUrl, description: 'This service' }])
    expect(expectDescribedAndExemplified(doc, t.c.config.publicUrl)).toBeGreaterThan(25)
  })

  it('on an API with every optional part (live source, test clock), served at its public address', async () => {
    const every = await appWithEverything()
    try {
      const doc: Document = (await every.app.inject('/openapi.json')).json()
      expect(doc.servers).toEqual([{ url: 'https://data.pronet.test/api-gateway', description: 'This service' }])
      // The public address's path is where a proxy serves the API: the paths keep their own.
      expect(doc.paths['/api/v1/profile']).toBeDefined()
      const ops = operationsOf(doc).map(({ op }) => op.operationId)
      expect(ops).toEqual(expect.arrayContaining(['getUpstreamStatus', 'getClock', 'setClock']))
      expect(expectDescribedAndExemplified(doc, 'https://data.pronet.test/api-gateway')).toBe(Object.keys(OPERATION_DOCS).length)
    } finally {
      await every.close()
    }
  })

  it('gives examples that are real answers: each data example is valid for its route’s own contract schema', () => {
    for (const route of DATA_ROUTES) {
      const about = (DATA_DOCS as Record<string, { response: { body?: unknown } }>)[route.operationId]
      expect(about, route.operationId).toBeDefined()
      expectSchema(route.response, about?.response.body, `${route.operationId}'s example answer`)
    }
  })
})

describe("each data operation's price and rate cost, from the price table in force", () => {
  it('states them in x-credits, x-rate-cost and a sentence, as PRONET_PRICES overrides the table', async () => {
    const doc: Document = (await t.app.inject('/openapi.json')).json()
    for (const route of DATA_ROUTES) {
      const op = doc.paths[route.url]?.[route.method.toLowerCase()] as DocOperation
      const rule = PRICES[route.price] as { kind: string; credits: number; notFound: number }
      expect(op['x-credits'], route.url).toEqual({ ...rule, notFound: Math.min(rule.notFound, rule.credits) })
      expect(op['x-rate-cost'], route.url).toBe(arrivalUnits(route.price))
      expect(op.description, route.url).toContain(`**Price:** ${rule.credits} credit${rule.credits === 1 ? '' : 's'} per`)
      expect(op.description, route.url).toContain(`**Rate limit:** takes ${arrivalUnits(route.price)} unit`)
    }
    const priced = await makeTestApp({ env: { PRONET_PRICES: '{"profile": 3, "post/engagement": 5, "posts": 0}' } })
    try {
      const other: Document = (await priced.app.inject('/openapi.json')).json()
      const op = (path: string) => other.paths[path]?.get as DocOperation
      expect(op('/api/v1/profile')['x-credits']).toEqual({ kind: 'flat', credits: 3, notFound: 1 })
      expect(op('/api/v1/profile').description).toContain('**Price:** 3 credits per call. A 404 for a record that does not exist costs 1 credit')
      expect(op('/api/v1/post/engagement')['x-credits']).toEqual({ kind: 'flat', credits: 5, notFound: 1 })
      expect(op('/api/v1/post/engagement')['x-rate-cost']).toBe(2)
      // A free call bills nothing for a 404 either: nothing is held for it.
      expect(op('/api/v1/posts')['x-credits']).toEqual({ kind: 'perBlock', credits: 0, block: 50, notFound: 0 })
      expect(op('/api/v1/posts').description).toContain('**Price:** free (0 credits). A 404 costs nothing')
    } finally {
      await priced.close()
    }
  })
})

describe("the reference page (/docs) is pronet's", () => {
  it("shows pronet's name, logo and favicon from this service, not the library's, and tries calls on the server it was served from", async () => {
    const require = createRequire(import.meta.url)
    const ours = Buffer.from(LOGO_SVG).toString('base64')
    const theirs = readFileSync(require.resolve('@fastify/swagger-ui/static/logo.svg')).toString('base64')
    const page = (await t.app.inject('/docs/')).body
    expect(page).toContain('<title>pronet API reference</title>')
    expect(page).toContain('href="./static/theme/favicon.svg"')
    expect(page).not.toContain('favicon-32x32.png')
    const favicon = await t.app.inject('/docs/static/theme/favicon.svg')
    expect(favicon.statusCode).toBe(200)
    expect(favicon.headers['content-type']).toBe('image/svg+xml')
    const initializer = (await t.app.inject('/docs/static/swagger-initializer.js')).body
    expect(initializer).toContain(`data:image/svg+xml;base64,${ours}`)
    expect(initializer).not.toContain(theirs)
    // The page fetches its description from /docs/json: the same, with a server relative to it.
    const described = (await t.app.inject('/docs/json')).json()
    expect(described.servers).toEqual([{ url: '..', description: 'The server of this page' }])
    expect(described.paths).toEqual((await t.app.inject('/openapi.json')).json().paths)
  })
})
