/**
 * A console path the router cannot read (a malformed percent-escape) is a page for a person: the
 * console's HTML 404, not the API's JSON, with the request's id and a policy that lets only its
 * stylesheet in. The API's unreadable paths keep their JSON envelope.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp({ nowMs: Date.UTC(2026, 10, 20, 12) })
})
afterAll(async () => t?.close())

it('answers the console’s own 404 page for an unreadable console path, and JSON for the API’s', async () => {
  for (const url of ['/console/keys/%zz/edit', '/console/%', '/console/webhooks/%E0%A4%A/deliveries']) {
    const res = await t.app.inject({ method: 'GET', url })
    expect(res.statusCode, url).toBe(404)
    expect(res.headers['content-type'], url).toBe('text/html; charset=utf-8')
    expect(res.body, url).toContain('<title>Not found · pronet console</title>')
    expect(res.body, url).toContain('There is no such page.')
    expect(res.headers['x-request-id'], url).toEqual(expect.any(String))
    expect(res.headers['content-security-policy'], url).toBe("default-src 'none'; style-src 'self'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
    expect(res.headers['x-content-type-options'], url).toBe('nosniff')
  }
  const api = await t.app.inject({ method: 'GET', url: '/api/v1/prof%ile?profileUrlOrUrn=x' })
  expect([api.statusCode, api.json().code]).toEqual([404, 'NOT_FOUND'])
})
