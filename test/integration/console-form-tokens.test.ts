/**
 * A console form's token is bound to the session it was shown in: another session's token, or its
 * token and secret cookie planted in this browser (cookie tossing from a sibling subdomain), or a
 * token shown before a sign-in, is refused with 403 and changes nothing; the operator's pages bind to
 * the operator's session alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConsoleClient } from '../helpers/console-client.ts'
import { ADMIN_TOKEN, makeTestApp, type TestApp } from '../helpers/test-app.ts'

const NOW = Date.UTC(2026, 10, 20, 12)
let t: TestApp

beforeAll(async () => {
  t = await makeTestApp({ nowMs: NOW })
})
afterAll(async () => t?.close())

const CSRF_COOKIE = 'pronet_csrf'
const keyNames = async (accountId: string) => (await t.c.accountStore.listKeys(accountId)).map((k) => k.name).sort()

async function signedUp(email: string): Promise<{ browser: ConsoleClient; accountId: string }> {
  const browser = new ConsoleClient(t.app)
  await browser.signUp(email)
  const page = await browser.get('/console/keys')
  expect(page.statusCode).toBe(200)
  const session = await t.c.identity.session(browser.cookies.get('pronet_session') as string)
  if (session?.kind !== 'user' || !session.account) throw new Error('not signed in')
  return { browser, accountId: session.account.accountId }
}

describe('form tokens', () => {
  it("another session's token, or its token with its secret cookie planted here, is refused and changes nothing", async () => {
    const a = await signedUp('tossed@example.com')
    const b = await signedUp('tosser@example.com')
    const before = await keyNames(a.accountId)

    // B's token with A's cookies.
    const crossed = await a.browser.post('/console/keys', { name: 'crossed' }, { csrf: b.browser.csrf })
    expect(crossed.statusCode).toBe(403)
    expect(crossed.body).toContain('This form has expired or did not come from this console.')

    // B's secret cookie and token planted in A's browser.
    const own = a.browser.cookies.get(CSRF_COOKIE) as string
    a.browser.cookies.set(CSRF_COOKIE, b.browser.cookies.get(CSRF_COOKIE) as string)
    expect((await a.browser.post('/console/keys', { name: 'tossed' }, { csrf: b.browser.csrf })).statusCode).toBe(403)
    a.browser.cookies.set(CSRF_COOKIE, own)
    expect(await keyNames(a.accountId)).toEqual(before)

    // A's own token still works, however often it is sent.
    await a.browser.get('/console/keys')
    const token = a.browser.csrf
    expect((await a.browser.post('/console/keys', { name: 'first' }, { csrf: token })).statusCode).toBe(201)
    expect((await a.browser.post('/console/keys', { name: 'second' }, { csrf: token })).statusCode).toBe(201)
    expect(await keyNames(a.accountId)).toEqual([...before, 'first', 'second'].sort())
  })

  it('a token shown before a sign-in or in an ended session is refused after it; the new pages give one that works', async () => {
    const { browser, accountId } = await signedUp('rotate@example.com')
    const before = await keyNames(accountId)
    const inSession = browser.csrf
    await browser.post('/console/sign-out')
    const signedOut = browser.csrf
    await browser.post('/console/sign-in', { email: 'rotate@example.com', password: 'correct horse battery' })
    for (const old of [inSession, signedOut]) {
      expect((await browser.post('/console/keys', { name: 'stale' }, { csrf: old })).statusCode).toBe(403)
    }
    expect(await keyNames(accountId)).toEqual(before)
    // The sign-in's redirect led to a page, whose token is this session's.
    expect((await browser.post('/console/keys', { name: 'fresh' })).statusCode).toBe(201)
  })

  it("the sign-up page's token works for the page the sign-up answers with, which sets the session", async () => {
    const browser = new ConsoleClient(t.app)
    await browser.get('/console/sign-up')
    const res = await browser.post('/console/sign-up', { email: 'same-page@example.com', password: 'correct horse battery' })
    expect(res.statusCode).toBe(201)
    // The answer's forms are bound to the session it has just set.
    expect((await browser.post('/console/keys', { name: 'from the first page' })).statusCode).toBe(201)
  })

  it("operator pages bind to the operator's session, apart from a user's", async () => {
    const { browser: user } = await signedUp('beside@example.com')
    const operator = new ConsoleClient(t.app)
    await operator.get('/console/operator/sign-in')
    expect((await operator.post('/console/operator/sign-in', { token: ADMIN_TOKEN })).statusCode).toBe(303)
    const found = await operator.get('/console/operator?q=beside%40example.com')
    expect(found.statusCode).toBe(200)
    // The user's token and cookies do not pass on an operator form, nor the operator's on a user's.
    const userToken = user.csrf
    const userCsrfCookie = user.cookies.get(CSRF_COOKIE) as string
    const opCsrfCookie = operator.cookies.get(CSRF_COOKIE) as string
    operator.cookies.set(CSRF_COOKIE, userCsrfCookie)
    expect((await operator.post('/console/operator/sign-out', {}, { csrf: userToken })).statusCode).toBe(403)
    operator.cookies.set(CSRF_COOKIE, opCsrfCookie)
    await operator.get('/console/operator')
    expect((await operator.post('/console/operator/sign-out')).statusCode).toBe(303)
  })
})
