/**
 * A call that waited on the stores before its rate was checked (gateway.ts: LATE_ARRIVAL_MS). Calls
 * held up by a database that stopped answering all reach the per-second window together when it
 * answers again; an account sending a third of its limit got 250 429s in the second after a 25 s stall
 * (a failure probe). Such a call is refused as the service's fault (503, free, Retry-After), not as
 * the client's (429). The wait is simulated: looking the key up moves the injected monotonic clock, as
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
  it('is refused with a free 503 and Retry-After when the window is full, not 429; one that did not wait keeps its 429', async () => {
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

    // A late call the window has room for is served as usual.
    app.clock.advance(1_000)
    const served = await call()
    expect(served.statusCode).toBe(404)
    expect(served.headers['x-credits-charged']).toBe('1')

    // Recorded as what each got: the three 404s billed, the 429 and the 503 free.
    lookup = 0
    app.clock.advance(1_000)
    const usage = (await app.get('/api/v1/usage')).json() as { endpoints: { endpoint: string; creditsUsed: number; statusCodes: Record<string, number> }[] }
    const profile = usage.endpoints.find((e) => e.endpoint === '/api/v1/profile')
    expect(profile).toMatchObject({ creditsUsed: 3, statusCodes: { '404': 3, '429': 1, '503': 1 } })
  })
})
