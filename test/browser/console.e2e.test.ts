/**
 * The customer console end to end, in real headless Chromium (playwright-core driving the machine's
 * `chromium`), against real server processes:
 * - the customer's walk: sign up → copy the key → GET /api/v1/profile with it → the usage page shows
 *   the call → buy 50,000 credits (PRONET_PAYMENTS=test) → the balance shows the pack and its expiry →
 *   revoke the key → the API refuses it; on SQLite, and again on two nodes over PostgreSQL + Redis
 *   (signed in on one node, the key revoked there and refused by the other);
 * - forms work without script (the revoke, through its confirmation page, and creating a key);
 * - no inline script or style in any console document, and every console response carries a
 *   Content-Security-Policy without 'unsafe-inline'; the browser reports no CSP violation;
 * - axe-core finds no serious or critical violation on any page at 1280 and 375 px, and no page
 *   scrolls sideways at 375 px, not even with an account, a key and an endpoint of very long names;
 * - screenshots of every page at both widths go to docs/console/ (with its README), so they stay current.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page, Response } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { axeViolations, browserAvailable, isSerious, launchBrowser } from '../helpers/browser.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'
import { REDIS_URL, redisAvailable } from '../helpers/redis.ts'
import { startServer, type ServerProcess } from '../helpers/server-process.ts'

const ADMIN = 'console-e2e-admin-token'
const PASSWORD = 'correct horse battery staple'
const DOCS = join(import.meta.dirname, '..', '..', 'docs', 'console')
const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 375, height: 812 }
const WIDTHS = [
  { name: 'desktop', ...DESKTOP },
  { name: 'phone', ...PHONE },
] as const

const hasBrowser = browserAvailable()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The banner's example call names a profile of this store (the node that seeded prints it). */
async function bannerSlug(server: ServerProcess): Promise<string> {
  const tip = () => /Try: curl .*profileUrlOrUrn=([^"\s]+)"/.exec(server.stdout())?.[1]
  for (const deadline = Date.now() + 10_000; tip() === undefined && Date.now() < deadline; ) await sleep(20)
  const slug = tip()
  if (slug === undefined) throw new Error(`no 'Try:' line in the banner:\n${server.stdout()}`)
  return decodeURIComponent(slug)
}

const apiGet = (node: ServerProcess, path: string, key: string) => fetch(`${node.baseUrl}${path}`, { headers: { 'x-api-key': key } })

/**
 * Watches every console response a context receives: its CSP header, and (for an HTML document) its
 * markup, parsed by the browser's own DOMParser, for inline script, style and event handlers. In
 * contexts that enforce the CSP, the browser's reports of refused script or style are kept too.
 */
class ConsoleWatch {
  readonly checked: string[] = []
  readonly problems: string[] = []
  private readonly pending: Promise<void>[] = []
  /** A blank page of its own whose DOMParser reads the markup (the page that loaded it may have moved on). */
  private parser: Promise<Page> | undefined

  constructor(private readonly browser: () => Browser) {}

  watch(context: BrowserContext, o: { enforcesCsp: boolean }): void {
    context.setDefaultTimeout(10_000)
    context.on('response', (r) => this.pending.push(this.inspect(r).catch((e: Error) => void this.problems.push(`${r.url()}: not inspected: ${e.message}`))))
    if (o.enforcesCsp) {
      context.on('console', (m) => {
        if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) this.problems.push(`CSP report on ${m.page()?.url()}: ${m.text()}`)
      })
    }
  }

  private async inspect(r: Response): Promise<void> {
    const url = new URL(r.url())
    if (!url.pathname.startsWith('/console')) return
    const what = `${r.request().method()} ${url.pathname}${url.search} → ${r.status()}`
    this.checked.push(what)
    const redirect = r.status() >= 300 && r.status() < 400
    const document = r.request().resourceType() === 'document' && !redirect
    // The body is asked for at once: the browser drops it when its page moves on to another.
    const reading = document ? this.markupOf(r) : undefined
    const csp = (await r.allHeaders())['content-security-policy']
    if (csp === undefined) this.problems.push(`${what}: no content-security-policy header`)
    else if (csp.includes("'unsafe-inline'") || !/script-src 'self'(;|$)/.test(csp) || !/style-src 'self'(;|$)/.test(csp)) this.problems.push(`${what}: weak CSP ${csp}`)
    if (reading === undefined) return
    const body = await reading
    this.parser ??= this.browser()
      .newContext()
      .then((c) => c.newPage())
    const found = await (await this.parser).evaluate((markup) => {
      const doc = new DOMParser().parseFromString(markup, 'text/html')
      const all = [...doc.querySelectorAll('*')]
      return {
        inlineScripts: doc.querySelectorAll('script:not([src])').length,
        styleElements: doc.querySelectorAll('style').length,
        styleAttributes: doc.querySelectorAll('[style]').length,
        eventHandlerAttributes: all.filter((e) => [...e.attributes].some((a) => a.name.toLowerCase().startsWith('on'))).length,
        scripts: [...doc.querySelectorAll('script')].map((s) => s.getAttribute('src')),
      }
    }, body)
    const { scripts, ...counts } = found
    for (const [name, n] of Object.entries(counts)) if (n > 0) this.problems.push(`${what}: ${n} ${name}`)
    for (const src of scripts) if (src === null || !src.startsWith('/console/assets/')) this.problems.push(`${what}: script from ${src}`)
  }

  /**
   * A document's markup. A page the test moved on from before its body was read is read again with
   * the page's cookies, when it was a GET (a page, which reading again changes nothing of).
   */
  private async markupOf(r: Response): Promise<string> {
    try {
      return await r.text()
    } catch (e) {
      if (r.request().method() !== 'GET' || !/navigated away|No resource with given identifier/.test((e as Error).message)) throw e
      const again = await r.frame().page().context().request.get(r.url(), { maxRedirects: 0 })
      return again.text()
    }
  }

  async settled(): Promise<void> {
    while (this.pending.length > 0) await Promise.all(this.pending.splice(0))
  }

  async close(): Promise<void> {
    if (this.parser) await (await this.parser).context().close()
  }
}

/** The document as it is: only script with a source, and (with script off, so as served) no style attribute. */
async function liveMarkup(page: Page): Promise<{ inlineScripts: number; styled: number }> {
  return page.evaluate(() => ({ inlineScripts: document.querySelectorAll('script:not([src])').length, styled: document.querySelectorAll('[style]').length }))
}

interface Walked {
  email: string
  /** The signed-in browser context (script on, clipboard granted). */
  context: BrowserContext
  /** How long after the revocation the API node first refused the key. */
  refusedAfterMs: number
}

/**
 * The customer's walk: the console on `ui`, the API calls on `api` (the same node on SQLite; another
 * node of the same store on PostgreSQL). Leaves one extra key made and revoked, and the pack bought.
 */
async function walk(browser: Browser, watch: ConsoleWatch, o: { ui: ServerProcess; api: ServerProcess; slug: string; email: string; accountName: string }): Promise<Walked> {
  const base = o.ui.baseUrl
  const context = await browser.newContext({ viewport: DESKTOP, permissions: ['clipboard-read', 'clipboard-write'] })
  watch.watch(context, { enforcesCsp: true })
  const page = await context.newPage()

  // Sign up: the first key is on the page that answers.
  await page.goto(`${base}/console/sign-up`)
  await page.getByLabel('Email', { exact: true }).fill(o.email)
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByLabel('Company or project name (optional)').fill(o.accountName)
  const [signedUp] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/console/sign-up') && r.request().method() === 'POST'), page.getByRole('button', { name: 'Create account' }).click()])
  expect(signedUp.status()).toBe(201)
  await page.waitForLoadState()
  expect(await page.locator('h1').textContent()).toBe('API keys')
  const shown = (await page.locator('#new-key-value').textContent())!.trim()
  expect(shown).toMatch(/^pk_/)

  // The copy button (shown by the script) puts exactly the key on the clipboard.
  const copy = page.getByRole('button', { name: 'Copy' })
  await copy.click()
  await page.getByRole('button', { name: 'Copied' }).waitFor()
  const key = await page.evaluate(() => navigator.clipboard.readText())
  expect(key).toBe(shown)

  // The key works on the API (on the other node, where there is one).
  const call = await apiGet(o.api, `/api/v1/profile?profileUrlOrUrn=${encodeURIComponent(o.slug)}`, key)
  expect(call.status).toBe(200)
  expect(call.headers.get('x-credits-charged')).toBe('1')
  await call.arrayBuffer()

  // The usage page shows the call.
  const profileRow = page.locator('tr', { has: page.locator('th code', { hasText: '/api/v1/profile' }) })
  await page.goto(`${base}/console/usage`)
  for (let tries = 0; (await profileRow.count()) === 0 && tries < 50; tries++) {
    await sleep(100)
    await page.reload()
  }
  expect(await profileRow.count()).toBe(1)
  const cells = (await profileRow.locator('td').allTextContents()).map((t) => t.trim())
  expect(cells.slice(0, 2)).toEqual(['1', '1']) // credits, requests
  const facts = async () => Object.fromEntries(await page.locator('dl.facts dt').evaluateAll((dts) => dts.map((dt) => [dt.textContent!.trim(), dt.nextElementSibling!.textContent!.trim()])))
  expect(await facts()).toMatchObject({ 'Credits used': '1', Requests: '1', 'Credits remaining': '999' })

  // Buy 50,000 credits with the test adapter: paid at once, the pack and its expiry on the balance.
  await page.goto(`${base}/console/billing`)
  expect(await facts()).toMatchObject({ Plan: 'Free', 'Credits remaining': '999', 'Of packs': '0' })
  await page.getByLabel('Pack size').selectOption('50000')
  await Promise.all([page.waitForURL(/\/console\/billing\?done=paid$/), page.getByRole('button', { name: 'Buy' }).click()])
  expect(await page.getByRole('status').textContent()).toContain('Paid: the pack is on your balance.')
  expect(await facts()).toMatchObject({ 'Credits remaining': '50,999', 'Of packs': '50,000' })
  const pack = page.locator('tr', { hasText: 'Pack bought' })
  expect(await pack.count()).toBe(1)
  const [, source, remaining, of, expires] = (await pack.locator('td').allTextContents()).map((t) => t.trim())
  expect(source).toMatch(/^Pack bought \d{4}-\d\d-\d\d \d\d:\d\d UTC$/)
  expect([remaining, of]).toEqual(['50,000', '50,000'])
  const expiresAt = Date.parse(expires!.replace(' UTC', 'Z').replace(' ', 'T'))
  const days = (expiresAt - Date.now()) / 86_400_000
  expect(days, `the pack expires ${expires}`).toBeGreaterThan(360) // 12 months after purchase
  expect(days, `the pack expires ${expires}`).toBeLessThan(368)
  const orders = page.locator('section', { has: page.locator('#orders') }).locator('tbody tr')
  expect(await orders.count()).toBe(1)
  expect((await orders.locator('td').allTextContents()).slice(1, 4)).toEqual(['50,000', await orderPrice(page), 'paid (test)'])

  // Without script: revoking goes through the server's own confirmation page.
  const noScript = await browser.newContext({ viewport: DESKTOP, javaScriptEnabled: false, storageState: await context.storageState() })
  watch.watch(noScript, { enforcesCsp: true })
  const plain = await noScript.newPage()
  await plain.goto(`${base}/console/keys`)
  expect(await liveMarkup(plain)).toEqual({ inlineScripts: 0, styled: 0 })
  await Promise.all([plain.waitForURL(/\/revoke$/), plain.locator('tr', { hasText: 'First key' }).getByRole('button', { name: 'Revoke' }).click()])
  expect(await plain.locator('h1').textContent()).toBe('Revoke a key')
  expect(await plain.locator('main').textContent()).toContain('First key')
  await Promise.all([plain.waitForURL(/\/console\/keys\?done=revoked$/), plain.getByRole('button', { name: 'Revoke the key' }).click()])
  const revokedAt = Date.now()
  expect(await plain.getByRole('status').textContent()).toContain('The key is revoked')

  // The API refuses the key (on the other node: within a second, through the revocation bus).
  let status = 0
  while (Date.now() - revokedAt < 5_000) {
    const res = await apiGet(o.api, `/api/v1/profile?profileUrlOrUrn=${encodeURIComponent(o.slug)}`, key)
    await res.arrayBuffer()
    status = res.status
    if (status === 401) break
    expect([200, 429]).toContain(status)
    await sleep(50)
  }
  const refusedAfterMs = Date.now() - revokedAt
  expect(status).toBe(401)

  // Another form without script: a new key, shown once; the copy button stays hidden (it needs script).
  await plain.getByLabel('Name', { exact: true }).fill('no-script key')
  const [created] = await Promise.all([plain.waitForResponse((r) => r.url().endsWith('/console/keys') && r.request().method() === 'POST'), plain.getByRole('button', { name: 'Create key' }).click()])
  expect(created.status()).toBe(201)
  await plain.waitForLoadState()
  expect(await plain.locator('#new-key-value').textContent()).toMatch(/^pk_/)
  expect(await plain.locator('button[data-copy]').isVisible()).toBe(false)
  await noScript.close()

  // With script the revoke asks in a dialog: dismissed, nothing happens; accepted, the key is revoked.
  await page.goto(`${base}/console/keys`)
  const revokeButton = page.locator('tr', { hasText: 'no-script key' }).getByRole('button', { name: 'Revoke' })
  const asked: string[] = []
  page.once('dialog', (d) => {
    asked.push(d.message())
    void d.dismiss()
  })
  await revokeButton.click()
  await sleep(200)
  expect(asked).toEqual(['Revoke the key “no-script key”? Calls with it are refused from now on.'])
  expect(new URL(page.url()).pathname).toBe('/console/keys')
  expect(await revokeButton.count()).toBe(1)
  page.once('dialog', (d) => void d.accept())
  await Promise.all([page.waitForURL(/\/console\/keys\?done=revoked$/), revokeButton.click()])
  expect(await page.locator('tr', { hasText: 'no-script key' }).getByRole('button', { name: 'Revoke' }).count()).toBe(0)
  expect(await page.locator('section', { has: page.locator('#revoked') }).locator('tr', { hasText: 'no-script key' }).count()).toBe(1)

  await page.close()
  return { email: o.email, context, refusedAfterMs }
}

/** The price the billing page quoted for a 50,000-credit pack: what the order must have cost. */
async function orderPrice(page: Page): Promise<string> {
  const option = (await page.locator('#credits option[value="50000"]').textContent())!
  return /: (\$[\d,.]+)$/.exec(option)![1]!
}

/** One page of the tour: how to reach it from the page before, and its caption in docs/console. */
interface Stop {
  name: string
  title: string
  caption: string
  /** The navigation's link marked as the current page, if any. */
  current?: string
  open(page: Page, base: string): Promise<unknown>
}

describe.skipIf(!hasBrowser)('the console in headless Chromium, on SQLite', () => {
  let server: ServerProcess
  let browser: Browser
  let dataDir: string
  let slug: string
  let walked: Walked
  const watch = new ConsoleWatch(() => browser)

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'pronet-console-e2e-'))
    ;[server, browser] = await Promise.all([
      startServer({
        dataDir,
        env: {
          PRONET_SEED: '30',
          PRONET_PAYMENTS: 'test',
          PRONET_ADMIN_TOKEN: ADMIN,
          // The address customers are told (the default port's): the screenshots read the same on every run.
          PRONET_PUBLIC_URL: 'http://localhost:3000',
        },
        timeoutMs: 60_000,
      }),
      launchBrowser(),
    ])
    slug = await bannerSlug(server)
  }, 90_000)

  afterAll(async () => {
    await watch.close()
    await browser?.close()
    await server?.kill()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  it('sign up → copy the key → call the API → usage → buy a pack → balance → revoke → refused', async () => {
    walked = await walk(browser, watch, { ui: server, api: server, slug, email: 'ada@example.com', accountName: 'Acme Research' })
    console.log(`[console e2e, SQLite] the revoked key was refused ${walked.refusedAfterMs} ms after the revocation`)
  }, 60_000)

  it('every page: no serious or critical axe violation at 1280 and 375 px, no sideways scroll at 375 px; screenshots in docs/console', async () => {
    expect(walked).toBeDefined()
    const base = server.baseUrl
    // axe's script is injected, so these contexts do not enforce the CSP; the walk's contexts did.
    const signedOut = await browser.newContext({ viewport: DESKTOP, bypassCSP: true })
    const signedIn = await browser.newContext({ viewport: DESKTOP, bypassCSP: true, storageState: await walked.context.storageState() })
    watch.watch(signedOut, { enforcesCsp: false })
    watch.watch(signedIn, { enforcesCsp: false })
    const out = await signedOut.newPage()
    const user = await signedIn.newPage()

    const tour: [Page, Stop][] = [
      [out, { name: 'sign-in', title: 'Sign in', caption: 'Email and password; links to a password reset and to sign-up.', open: (p, b) => p.goto(`${b}/console/sign-in`) }],
      [out, { name: 'sign-up', title: 'Create an account', caption: 'A new account starts on the free plan: 1,000 credits a month, 5 requests a second.', open: (p, b) => p.goto(`${b}/console/sign-up`) }],
      [out, { name: 'forgot', title: 'Forgotten password', caption: 'Asks for a link to set a new password (mailed, or written to the log without SMTP).', open: (p, b) => p.goto(`${b}/console/forgot`) }],
      [
        user,
        {
          name: 'keys', current: 'API keys',
          title: 'API keys',
          caption: 'A new key, shown this once, with its copy button; creating a key; the keys in use and revoked.',
          open: async (p, b) => {
            await p.goto(`${b}/console/keys`)
            await p.getByLabel('Name', { exact: true }).fill('production crawler')
            await Promise.all([p.waitForResponse((r) => r.url().endsWith('/console/keys') && r.request().method() === 'POST'), p.getByRole('button', { name: 'Create key' }).click()])
            await p.waitForLoadState()
            await p.getByRole('button', { name: 'Copy' }).waitFor()
          },
        },
      ],
      [
        user,
        {
          name: 'usage', current: 'Usage',
          title: 'Usage',
          caption: 'Credits and requests for a range of UTC days: totals, per day (a chart drawn from the table), per endpoint and status, and a CSV download.',
          open: async (p, b) => {
            await p.goto(`${b}/console/usage`)
            await p.locator('#usage-chart').waitFor()
          },
        },
      ],
      [user, { name: 'billing', current: 'Balance and billing', title: 'Balance and billing', caption: 'The plan, where the credits are (every pack with its expiry, in drawdown order), the price of each call, the rate table, buying a pack, and the orders.', open: (p, b) => p.goto(`${b}/console/billing`) }],
      [user, { name: 'members', current: 'Members', title: 'Members', caption: 'The people in the account and their roles; an owner changes roles, removes members, invites, and withdraws invitations not yet accepted.', open: (p, b) => p.goto(`${b}/console/members`) }],
      [
        user,
        {
          name: 'webhooks', current: 'Webhooks',
          title: 'Webhooks',
          caption: 'A new endpoint’s signing secret, shown this once, with how to check a delivery’s signature; the endpoints; adding one; the low-balance alert.',
          open: async (p, b) => {
            await p.goto(`${b}/console/webhooks`)
            await p.getByLabel('Address', { exact: true }).fill('https://example.com/pronet-events')
            await p.getByLabel('credits.low: the balance fell below your low-balance alert').check()
            await p.getByLabel('order.paid: an order was paid').check()
            const [added] = await Promise.all([p.waitForResponse((r) => r.url().endsWith('/console/webhooks') && r.request().method() === 'POST'), p.getByRole('button', { name: 'Add endpoint' }).click()])
            expect(added.status()).toBe(201)
            await p.waitForLoadState()
            await p.getByRole('button', { name: 'Copy' }).waitFor()
          },
        },
      ],
      [
        user,
        {
          name: 'webhook-edit', current: 'Webhooks',
          title: 'Editing a webhook endpoint',
          caption: 'Its address, its events, and whether events are sent to it (while it is disabled they wait for it).',
          open: async (p, b) => {
            await p.goto(`${b}/console/webhooks`)
            await Promise.all([p.waitForURL(/\/console\/webhooks\/[^/]+\/edit$/), p.getByRole('link', { name: 'Edit the endpoint https://example.com/pronet-events' }).click()])
          },
        },
      ],
      [
        user,
        {
          name: 'webhook-deliveries', current: 'Webhooks',
          title: 'Webhook deliveries',
          caption: 'An endpoint’s deliveries, newest first, each with every attempt, its state and its next attempt; an owner sends a test event from here.',
          open: async (p, b) => {
            await p.goto(`${b}/console/webhooks`)
            await Promise.all([p.waitForURL(/\/console\/webhooks\/[^/]+\/deliveries$/), p.getByRole('link', { name: 'Deliveries to https://example.com/pronet-events' }).click()])
          },
        },
      ],
      [
        user,
        {
          name: 'revoke-key', current: 'API keys',
          title: 'Revoking a key without script',
          caption: 'With script the browser asks in a dialog; without it, the server asks on a page of its own.',
          open: async (p, b) => {
            await p.goto(`${b}/console/keys`)
            // form.submit() skips the script's confirm dialog: the request a browser without script sends.
            await Promise.all([p.waitForURL(/\/revoke$/), p.locator('form[data-confirm]').first().evaluate((f: HTMLFormElement) => f.submit())])
          },
        },
      ],
      [out, { name: 'operator-sign-in', title: 'Operator sign-in', caption: 'The operator signs in with PRONET_ADMIN_TOKEN; without the token set, the operator pages answer 404.', open: (p, b) => p.goto(`${b}/console/operator/sign-in`) }],
      [
        out,
        {
          name: 'operator-accounts', current: 'Accounts',
          title: 'Operator: accounts',
          caption: 'Accounts, newest first, searched by name, email, account id or key prefix.',
          open: async (p) => {
            await p.getByLabel('Admin token').fill(ADMIN)
            await Promise.all([p.waitForURL(/\/console\/operator$/), p.getByRole('button', { name: 'Sign in' }).click()])
          },
        },
      ],
      [
        out,
        {
          name: 'operator-account', current: 'Accounts',
          title: 'Operator: one account',
          caption: 'Its plan, balance and month; suspend or resume it, grant a pack; its keys, members and orders.',
          open: (p) => Promise.all([p.waitForURL(/\/console\/operator\/accounts\//), p.getByRole('link', { name: 'Acme Research' }).click()]),
        },
      ],
      [out, { name: 'operator-orders', current: 'Orders', title: 'Operator: orders', caption: 'Orders by status; a pending manual order is approved (its pack granted) or rejected here.', open: (p, b) => p.goto(`${b}/console/operator/orders?status=all`) }],
    ]

    mkdirSync(DOCS, { recursive: true })
    const serious: string[] = []
    const lesser: string[] = []
    const overflow: string[] = []
    const inline: string[] = []
    for (const [page, stop] of tour) {
      await stop.open(page, base)
      const title = await page.title()
      expect(title, `${stop.name}: the page's title`).not.toMatch(/^(Not found|Something is not right)/)
      expect(await page.locator('nav [aria-current="page"]').allTextContents(), `${stop.name}: the current page in the navigation`).toEqual(stop.current ? [stop.current] : [])
      const live = await liveMarkup(page)
      if (live.inlineScripts > 0) inline.push(`${stop.name}: ${live.inlineScripts} script elements without src`)
      for (const w of WIDTHS) {
        await page.setViewportSize({ width: w.width, height: w.height })
        // Two frames: the layout (and the chart's resize observer) settle at the new width.
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
        if (w.name === 'phone') {
          const scroll = await page.evaluate(() => document.documentElement.scrollWidth)
          if (scroll > PHONE.width) overflow.push(`${stop.name}: ${scroll} px wide`)
        }
        await page.screenshot({ path: join(DOCS, `${stop.name}-${w.name}.png`), caret: 'hide', animations: 'disabled' })
        for (const v of await axeViolations(page)) {
          const line = `${stop.name} @${w.width}: [${v.impact}] ${v.id} (${v.help}): ${v.nodes.map((n) => `${n.target.join(' ')}${n.failureSummary ? ` — ${n.failureSummary.replace(/\s+/g, ' ')}` : ''}`).join('; ')}`
          ;(isSerious(v) ? serious : lesser).push(line)
        }
      }
    }
    console.log(`[console e2e] axe on ${tour.length} pages × 2 widths: ${serious.length} serious or critical, ${lesser.length} moderate or minor${lesser.length ? `:\n  ${lesser.join('\n  ')}` : ''}`)
    writeFileSync(join(DOCS, 'README.md'), docsReadme(tour.map(([, s]) => s)))

    expect(serious).toEqual([])
    expect(overflow).toEqual([])
    expect(inline).toEqual([])
    await signedOut.close()
    await signedIn.close()
  }, 60_000)

  it('long unbroken names, keys and addresses break rather than scroll the page sideways at 375 px', async () => {
    const base = server.baseUrl
    const context = await browser.newContext({ viewport: PHONE })
    watch.watch(context, { enforcesCsp: true })
    const page = await context.newPage()
    const accountName = 'N'.repeat(200)
    await page.goto(`${base}/console/sign-up`)
    await page.getByLabel('Email', { exact: true }).fill(`${'e'.repeat(60)}@${'d'.repeat(60)}.example.com`)
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByLabel('Company or project name (optional)').fill(accountName)
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/console/sign-up') && r.request().method() === 'POST'), page.getByRole('button', { name: 'Create account' }).click()])
    await page.waitForLoadState()
    const wide: string[] = []
    const measure = async (what: string) => {
      const width = await page.evaluate(() => document.documentElement.scrollWidth)
      if (width > PHONE.width) wide.push(`${what}: ${width} px wide`)
    }
    await measure('signed up')
    await page.getByLabel('Name', { exact: true }).fill('K'.repeat(100))
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/console/keys') && r.request().method() === 'POST'), page.getByRole('button', { name: 'Create key' }).click()])
    await page.waitForLoadState()
    await measure('a new key')
    await page.goto(`${base}/console/webhooks`)
    await page.getByLabel('Address', { exact: true }).fill(`https://example.com/${'p'.repeat(1_000)}`)
    await page.getByLabel('order.paid: an order was paid').check()
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/console/webhooks') && r.request().method() === 'POST'), page.getByRole('button', { name: 'Add endpoint' }).click()])
    await page.waitForLoadState()
    await measure('a new endpoint')
    for (const path of ['keys', 'usage', 'billing', 'members', 'webhooks']) {
      await page.goto(`${base}/console/${path}`)
      expect(await page.locator('.who').textContent(), path).toContain(accountName)
      await measure(path)
    }
    // The operator's pages name the account in their headings and tables.
    const operator = await context.newPage()
    await operator.goto(`${base}/console/operator/sign-in`)
    await operator.getByLabel('Admin token').fill(ADMIN)
    await Promise.all([operator.waitForURL(/\/console\/operator$/), operator.getByRole('button', { name: 'Sign in' }).click()])
    for (const url of [`${base}/console/operator`, `${base}/console/operator?query=${accountName}`]) {
      await operator.goto(url)
      const width = await operator.evaluate(() => document.documentElement.scrollWidth)
      if (width > PHONE.width) wide.push(`${url}: ${width} px wide`)
    }
    await Promise.all([operator.waitForURL(/\/console\/operator\/accounts\//), operator.getByRole('link', { name: accountName }).click()])
    const width = await operator.evaluate(() => document.documentElement.scrollWidth)
    if (width > PHONE.width) wide.push(`the operator's account page: ${width} px wide`)
    expect(wide).toEqual([])
    // Its responses are read before the context goes, or the CSP check would find them unread.
    await watch.settled()
    await context.close()
  }, 60_000)

  it('every console response carries a CSP without unsafe-inline; no document holds inline script or style; the browser reported no CSP violation', async () => {
    await watch.settled()
    await walked?.context.close()
    await watch.settled()
    expect(watch.checked.length).toBeGreaterThan(30)
    expect(watch.checked.some((c) => c.startsWith('GET /console/assets/console.js'))).toBe(true)
    expect(watch.problems).toEqual([])
  })
})

describe.skipIf(!hasBrowser || !((await postgresAvailable()) && (await redisAvailable())))('the console in headless Chromium, on two nodes over PostgreSQL + Redis', () => {
  let db: { url: string; drop(): Promise<void> }
  const dirs: string[] = []
  const nodes: ServerProcess[] = []
  let browser: Browser
  let slug: string
  const watch = new ConsoleWatch(() => browser)

  beforeAll(async () => {
    db = await createTestDatabase('pronet_console_e2e')
    const start = () => {
      const dir = mkdtempSync(join(tmpdir(), 'pronet-console-e2e-'))
      dirs.push(dir)
      return startServer({
        dataDir: dir,
        env: { DATABASE_URL: db.url, REDIS_URL, PRONET_SECRET: 'console-e2e-shared-secret-0123456789abcdef', PRONET_SEED: '30', PRONET_PAYMENTS: 'test', PRONET_ADMIN_TOKEN: ADMIN },
        timeoutMs: 90_000,
      })
    }
    // The first node seeds the empty database; the second starts on it once it is ready.
    const [first, launched] = await Promise.all([start(), launchBrowser()])
    nodes.push(first)
    browser = launched
    slug = await bannerSlug(first)
    nodes.push(await start())
  }, 150_000)

  afterAll(async () => {
    await watch.close()
    await browser?.close()
    await Promise.all(nodes.map((n) => n.kill()))
    await db?.drop()
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  }, 60_000)

  it('signed in on one node; the API on the other; the key revoked on the first is refused by the second', async () => {
    const [a, b] = nodes as [ServerProcess, ServerProcess]
    const walked = await walk(browser, watch, { ui: a, api: b, slug, email: 'grace@example.com', accountName: 'Hopper Labs' })
    console.log(`[console e2e, PostgreSQL + Redis] the key revoked on node A was refused by node B ${walked.refusedAfterMs} ms after the revocation`)

    // The session is in the store: the other node's console knows the user and shows the pack bought on the first.
    const page = await walked.context.newPage()
    await page.goto(`${b.baseUrl}/console/billing`)
    expect(await page.locator('h1').textContent()).toBe('Balance and billing')
    expect(await page.locator('tr', { hasText: 'Pack bought' }).locator('td').nth(2).textContent()).toBe('50,000')
    await walked.context.close()
    await watch.settled()
    expect(watch.problems).toEqual([])
  }, 60_000)
})

function docsReadme(stops: readonly Stop[]): string {
  const lines = [
    '# The console, page by page',
    '',
    '<!-- Written by test/browser/console.e2e.test.ts on every run: edit the captions there. -->',
    '',
    'Screenshots of the customer and operator console (`/console/`), taken by the end-to-end test in',
    'headless Chromium at 1280 px (desktop) and 375 px (phone) wide, so they show the console as it is.',
    'The data is what the test makes: an account signed up as `ada@example.com`, a call with its first key',
    '(and one refused once the key is revoked), a 50,000-credit pack bought with the test payment adapter',
    '(`PRONET_PAYMENTS=test`).',
    '',
  ]
  for (const s of stops) {
    lines.push(`## ${s.title}`, '', s.caption, '', `![${s.title}, 1280 px wide](${s.name}-desktop.png) ![${s.title}, 375 px wide](${s.name}-phone.png)`, '')
  }
  return lines.join('\n')
}
