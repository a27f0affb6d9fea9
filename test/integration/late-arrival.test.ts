/**
 * A call that waited on the stores before its rate was checked (gateway.ts: LATE_ARRIVAL_MS). Calls
 * held up by a database that stopped answering all reach the per-second window together when it
 * answers again; an account sending a third of its limit got 250 429s in the second after a 25 s stall
 * (a failure probe): the held-up calls and the prompt ones they crowded out. Such refusals, for a
 * window's length after a held-up call, are the service's fault (503, free, Retry-After), not the
 * client's (429). The wait is simulated: looking the key up moves the injected monotonic clock, as
 * a slow store would; the wall clock, which the window counts by, stands still.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LATE_ARRIVAL_MS } from '../../src/http/gateway.ts'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'

const RPS = 2
let t = 0
/** What the next key lookup "takes" on the injected monotonic clock. */
let lookup = 0

let app: TestApp
beforeAll(async () => {
  app = await makeTestApp({
    account: { name: 'late', plan: 'custom', creditsLimit: 1000, rpsLimit: RPS },
    overrides: { monotonic: () => t },
  })
  const identify = app.c.accounts.identify.bind(app.c.accounts)
  app.c.accounts.identify = async (key) => {
    t += lookup
    return identify(key)
  }
})
afterAll(async () => app.close())

const call = () => app.get('/api/v1/profile?profileUrlOrUrn=nobody-at-all')

describe('a call that waited on the stores before its rate was checked', () => {
  it('is refused with a free 503 and Retry-After when the window is full, not 429, and so are calls it crowds out for a second; otherwise 429 stands', async () => {
    for (let i = 0; i < RPS; i++) expect((await call()).statusCode).toBe(404)
    // Within the same second: the window is full.
    const prompt = await call()
    expect(prompt.statusCode).toBe(429)
    expect(prompt.json()).toMatchObject({ code: 'RATE_LIMITED' })

    lookup = LATE_ARRIVAL_MS + 500
    const late = await call()
    expect(late.statusCode).toBe(503)
    expect(late.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' })
    expect(late.json().error).toMatch(/waited 1500 ms/)
    expect(late.headers['retry-after']).toBe('1')
    expect(late.headers['x-credits-charged']).toBe('0')

    // A late call the window has room for is served as usual, and takes its unit.
    app.clock.advance(1_000)
    const served = await call()
    expect(served.statusCode).toBe(404)
    expect(served.headers['x-credits-charged']).toBe('1')

    // For a window's length after it, a prompt call crowded out by held-up ones is refused as the
    // service's doing too: 503, free.
    lookup = 0
    expect((await call()).statusCode).toBe(404)
    const crowded = await call()
    expect(crowded.statusCode).toBe(503)
    expect(crowded.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' })
    expect(crowded.headers['retry-after']).toBe('1')
    expect(crowded.headers['x-credits-charged']).toBe('0')
    // Past it, a full window is the client's again.
    t += LATE_ARRIVAL_MS
    expect((await call()).statusCode).toBe(429)

    // Recorded as what each got: the four 404s billed, the 429s and the 503s free.
    app.clock.advance(1_000)
    const usage = (await app.get('/api/v1/usage')).json() as { endpoints: { endpoint: string; creditsUsed: number; statusCodes: Record<string, number> }[] }
    const profile = usage.endpoints.find((e) => e.endpoint === '/api/v1/profile')
    expect(profile).toMatchObject({ creditsUsed: 4, statusCodes: { '404': 4, '429': 2, '503': 2 } })
  })
})
