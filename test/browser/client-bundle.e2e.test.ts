/**
 * @pronet/client's built package (packages/client/dist, as npm would ship it) loaded as it is used:
 * as ES modules in headless Chromium, from a page whose origin also forwards /api/ to a running
 * pronet (the API sends no CORS headers, so a page calls it on its own origin), and by Node's own
 * import. Each makes a real call and reads the answer and its metering.
 */
// @one-backend: what is tested is how the package loads; the store behind the call does not change it
import { readFile } from 'node:fs/promises'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type * as ClientModule from '../../packages/client/src/index.ts'
import { browserAvailable, launchBrowser } from '../helpers/browser.ts'
import { companyRecord, profileRecord } from '../helpers/ingest-fixtures.ts'
import { clientDist, ensurePackagesBuilt } from '../helpers/package-builds.ts'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'

const hasBrowser = browserAvailable()
const SLUG = 'ada-okafor'

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>client bundle</title></head>
<body><script type="module">
import { createClient, ProfileNotFoundError } from '/client/index.js'
window.pronet = { createClient, ProfileNotFoundError }
document.body.dataset.ready = 'yes'
</script></body></html>`

/**
 * The page, the package's dist/ under /client/, and /api/ forwarded to the app: one origin for all,
 * as a site that serves its own front end and proxies the API would be.
 */
function pageServer(apiPort: number): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://page')
    if (url.pathname.startsWith('/api/')) {
      const upstream = request({ host: '127.0.0.1', port: apiPort, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      })
      upstream.on('error', () => res.writeHead(502).end())
      req.pipe(upstream)
      return
    }
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE)
      return
    }
    const file = normalize(url.pathname.slice('/client/'.length))
    if (!url.pathname.startsWith('/client/') || file.startsWith('..') || !['.js', '.map'].includes(extname(file))) {
      res.writeHead(404).end()
      return
    }
    readFile(join(clientDist, file)).then(
      (body) => res.writeHead(200, { 'content-type': file.endsWith('.js') ? 'text/javascript' : 'application/json' }).end(body),
      () => res.writeHead(404).end(),
    )
  })
}

let t: TestApp
let apiBase: string
beforeAll(async () => {
  await ensurePackagesBuilt()
  t = await makeTestApp({ records: [{ kind: 'company', data: companyRecord() }, { kind: 'profile', data: profileRecord(1, { slug: SLUG }) }] })
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  apiBase = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
}, 120_000)
afterAll(async () => t?.close())

describe('@pronet/client from its build, in Node', () => {
  it('imports dist/index.js and makes a metered call', async () => {
    const pkg = (await import(pathToFileURL(join(clientDist, 'index.js')).href)) as typeof ClientModule
    const client = pkg.createClient({ apiKey: t.key, baseUrl: apiBase, maxRetries: 0 })
    const { data, meta } = await client.getProfile({ profileUrlOrUrn: SLUG })
    expect(data).toMatchObject({ publicIdentifier: SLUG, firstName: 'Ada1', lastName: 'Okafor' })
    expect(meta).toMatchObject({ status: 200, creditsCharged: 1, attempts: 1, replayed: false })
    expect(meta.requestId).toMatch(/\S/)
    await expect(client.getProfile({ profileUrlOrUrn: 'nobody-here' })).rejects.toBeInstanceOf(pkg.ProfileNotFoundError)
  })
})

describe.skipIf(!hasBrowser)('@pronet/client from its build, in a browser', () => {
  let browser: Browser
  let page: Server
  let origin: string
  beforeAll(async () => {
    page = pageServer(Number(new URL(apiBase).port))
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await new Promise((resolve) => page?.close(resolve))
  })

  it('loads as ES modules and makes a metered call, its meta read from the headers', async () => {
    const tab = await browser.newPage()
    const problems: string[] = []
    const requested: string[] = []
    tab.on('pageerror', (e) => problems.push(`script error: ${e.message}`))
    tab.on('request', (r) => requested.push(r.url()))
    expect((await tab.goto(`${origin}/`))?.status()).toBe(200)
    await tab.waitForSelector('body[data-ready="yes"]', { state: 'attached', timeout: 10_000 })

    const outcome = await tab.evaluate(
      async ({ key, slug }) => {
        type Loaded = { createClient: typeof ClientModule.createClient; ProfileNotFoundError: typeof ClientModule.ProfileNotFoundError }
        const { createClient, ProfileNotFoundError } = (window as unknown as { pronet: Loaded }).pronet
        const client = createClient({ apiKey: key, baseUrl: location.origin, maxRetries: 0 })
        const { data, meta } = await client.getProfile({ profileUrlOrUrn: slug })
        let missing: unknown
        try {
          await client.getProfile({ profileUrlOrUrn: 'nobody-here' })
        } catch (e) {
          missing = { typed: e instanceof ProfileNotFoundError, code: (e as { code?: string }).code, creditsCharged: (e as { creditsCharged?: number }).creditsCharged }
        }
        return { data, meta, missing }
      },
      { key: t.key, slug: SLUG },
    )
    expect(outcome.data).toMatchObject({ publicIdentifier: SLUG, firstName: 'Ada1', lastName: 'Okafor' })
    expect(outcome.meta).toMatchObject({ status: 200, creditsCharged: 1, attempts: 1, replayed: false })
    expect(outcome.meta.requestId).toMatch(/\S/)
    expect(outcome.meta.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/)
    expect(outcome.missing).toEqual({ typed: true, code: 'PROFILE_NOT_FOUND', creditsCharged: 1 })
    expect(problems).toEqual([])
    // Everything the page loaded came from its own origin: the package needs nothing else.
    expect(requested.filter((u) => !u.startsWith(`${origin}/`))).toEqual([])
    expect(requested).toContain(`${origin}/client/index.js`)
    await tab.close()
  })
})
