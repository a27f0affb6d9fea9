/**
 * The reference page (/docs) in real headless Chromium under its Content-Security-Policy: it renders
 * every operation, the browser reports no refused script, style or request, and "Try it out" reaches
 * the API (a request from the page, which the policy allows to this origin only).
 */
// @one-backend: the reference page reads no store; one run shows whether the browser accepts its policy
import type { AddressInfo } from 'node:net'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { browserAvailable, launchBrowser } from '../helpers/browser.ts'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'

const hasBrowser = browserAvailable()

describe.skipIf(!hasBrowser)('/docs in a browser, under its policy', () => {
  let t: TestApp
  let base: string
  let browser: Browser
  beforeAll(async () => {
    t = await makeTestApp()
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await t?.close()
  })

  /** A page that keeps the browser's reports of anything the policy refused, and script errors. */
  async function watchedPage(): Promise<{ page: Page; refused: string[] }> {
    const page = await browser.newPage()
    const refused: string[] = []
    await page.exposeFunction('reportViolation', (text: string) => refused.push(text))
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        ;(window as unknown as { reportViolation(t: string): void }).reportViolation(`${e.effectiveDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`)
      })
    })
    page.on('pageerror', (e) => refused.push(`script error: ${e.message}`))
    return { page, refused }
  }

  it('renders every operation with nothing refused, and Try it out reaches the API', async () => {
    const { page, refused } = await watchedPage()
    const res = await page.goto(`${base}/docs`)
    expect(res?.status()).toBe(200)
    expect(res?.headers()['content-security-policy']).toMatch(/^default-src 'none'/)
    await page.waitForSelector('.opblock')
    const documented = Object.values((await t.app.inject('/openapi.json')).json().paths as Record<string, object>).flatMap((p) => Object.keys(p)).length
    expect(await page.locator('.opblock').count()).toBe(documented)

    // The subscription call, made from the page without a key: the API's own 401 comes back.
    const op = page.locator('#operations-account-getSubscription')
    await op.locator('.opblock-summary').click()
    await op.locator('.try-out__btn').click()
    await op.locator('.execute').click()
    await expect.poll(async () => (await op.locator('.live-responses-table tbody .response-col_status').first().textContent())?.trim(), { timeout: 10_000 }).toBe('401')
    expect(refused).toEqual([])
    await page.close()
  })
})
