/**
 * A call that waited on the stores before its rate was checked (gateway.ts: LATE_ARRIVAL_MS). Calls
 * held up by a database that stopped answering all reach the per-second window together when it
 * answers again; an account sending a third of its limit got 250 429s in the second after a 25 s stall
 * (a failure probe): the held-up calls and the prompt ones they crowded out. Such refusals, for a
 * window's length after a held-up call of the account, are the service's fault (503, free,
 * Retry-After), not the client's (429). A client that itself sent more than its limit within the
 * second before its call reached the node keeps its 429, late or not: a loaded node in CI answered a
 * client hammering at twice its limit with 98 503s. The wait is simulated: looking the key up moves
 * the injected monotonic clock, as a slow store would; the wall clock, which the window counts by,
 * stands still, so the window stays full while the client's calls reach the node at its own pace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LATE_ARRIVAL_MS } from '../../src/http/gateway.ts'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'

const RPS = 2
let t = 0
/** What the next key lookup "takes" on the injected monotonic clock. */
let lookup = 0

let app: TestApp
let other: string
beforeAll(async () => {
  app = await makeTestApp({
    account: { name: 'late', plan: 'custom', creditsLimit: 1000, rpsLimit: RPS },
    overrides: { monotonic: () => t },
  })
  other = (await app.c.accounts.create({ name: 'prompt', plan: 'custom', creditsLimit: 1000, rpsLimit: 1 })).apiKey.key
  const identify = app.c.accounts.identify.bind(app.c.accounts)
  app.c.accounts.identify = async (key) => {
    t += lookup
    return identify(key)
  }
})
afterAll(async () => app.close())

const call = (key = app.key) => app.get('/api/v1/profile?profileUrlOrUrn=nobody-at-all', key)

const expectServiceUnavailable = (res: Awaited<ReturnType<typeof call>>) => {
  expect(res.statusCode).toBe(503)
  expect(res.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' })
  expect(res.headers['retry-after']).toBe('1')
  expect(res.headers['x-credits-charged']).toBe('0')
}

describe('a call that waited on the stores before its rate was checked', () => {
  it('finding the window full is a free 503 with Retry-After, and so are the calls of its account it crowds out for a second, while the client kept its rate; otherwise 429 stands', async () => {
    for (let i = 0; i < RPS; i++) expect((await call()).statusCode).toBe(404)
    // Within the same second: the window is full, by the client's own burst.
    const prompt = await call()
    expect(prompt.statusCode).toBe(429)
    expect(prompt.json()).toMatchObject({ code: 'RATE_LIMITED' })

    // A second later (by when it reached the node) the client sends one call; it waits 1.5 s for the
    // stores and meets a window the service has not let drain (the wall clock stands still).
    t += LATE_ARRIVAL_MS
    lookup = LATE_ARRIVAL_MS + 500
    const late = await call()
    expectServiceUnavailable(late)
    expect(late.json().error).toMatch(/waited 1500 ms/)

    // A late call the window has room for is served as usual, and takes its unit.
    app.clock.advance(1_000)
    const served = await call()
    expect(served.statusCode).toBe(404)
    expect(served.headers['x-credits-charged']).toBe('1')

    // For a window's length after it, a prompt call of the account crowded out by held-up ones is
    // refused as the service's doing too: 503, free.
    lookup = 0
    expect((await call()).statusCode).toBe(404)
    const crowded = await call()
    expectServiceUnavailable(crowded)
    expect(crowded.json().error).toMatch(/held up/)
    // Another account had no call held up: its full window is its own.
    expect((await call(other)).statusCode).toBe(404)
    const otherRefused = await call(other)
    expect(otherRefused.statusCode).toBe(429)
    expect(otherRefused.json()).toMatchObject({ code: 'RATE_LIMITED' })
    // Nor is it the service's doing once the client itself has sent more than its limit in the
    // second before: its third call of the second.
    expect((await call()).statusCode).toBe(429)

    // Past the window, a full window is the client's again.
    t += LATE_ARRIVAL_MS
    expect((await call()).statusCode).toBe(429)
    // And a late call of a client already over its limit keeps its 429: it waited, but two calls had
    // already reached the node in its second, and this is the third.
    expect((await call()).statusCode).toBe(429)
    lookup = LATE_ARRIVAL_MS + 500
    const lateOverLimit = await call()
    expect(lateOverLimit.statusCode).toBe(429)
    expect(lateOverLimit.json()).toMatchObject({ code: 'RATE_LIMITED' })

    // Recorded as what each got: the four 404s billed, the 429s and the 503s free.
    app.clock.advance(1_000)
    lookup = 0
    const usage = (await app.get('/api/v1/usage')).json() as { endpoints: { endpoint: string; creditsUsed: number; statusCodes: Record<string, number> }[] }
    const profile = usage.endpoints.find((e) => e.endpoint === '/api/v1/profile')
    expect(profile).toMatchObject({ creditsUsed: 4, statusCodes: { '404': 4, '429': 5, '503': 2 } })
  })
})
