// @one-backend: the interface description is the same whatever store the app runs on.
/**
 * The client's generated types are those of the /openapi.json the service serves now: a fresh
 * generation from the served document must equal the committed file (`npm run client:types`
 * regenerates it), and every customer operation of the document is one the client can call.
 */
import { readFileSync } from 'node:fs'
import type { OpenAPI3 } from 'openapi-typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GENERATED_FILE, generateTypes } from '../../packages/client/scripts/generate-types.ts'
import { OPERATIONS } from '../../packages/client/src/index.ts'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'

let t: TestApp
let doc: OpenAPI3
beforeAll(async () => {
  t = await makeTestApp()
  const res = await t.app.inject({ method: 'GET', url: '/openapi.json' })
  expect(res.statusCode).toBe(200)
  doc = res.json() as OpenAPI3
})
afterAll(async () => t?.close())

describe('generated types', () => {
  it('the committed file is what openapi-typescript makes of the served /openapi.json', async () => {
    const fresh = await generateTypes(doc)
    const committed = readFileSync(GENERATED_FILE, 'utf8')
    // On failure: run `npm run client:types` and commit the result.
    expect(committed === fresh, 'packages/client/src/openapi.gen.ts is stale: run `npm run client:types`').toBe(true)
  })

  it('every /api/v1 operation of the document is in the client, with its method and path', () => {
    const served: Record<string, { method: string; path: string }> = {}
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      if (!path.startsWith('/api/v1/')) continue
      for (const [method, op] of Object.entries(item as Record<string, { operationId?: string }>)) {
        if (op?.operationId) served[op.operationId] = { method: method.toUpperCase(), path }
      }
    }
    expect(Object.fromEntries(Object.entries(OPERATIONS).map(([id, r]) => [id, { method: r.method, path: r.path }]))).toEqual(served)
  })
})
