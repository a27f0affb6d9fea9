/**
 * Each account's share of a node's search time (search-time-budget.ts): searches that take long
 * empty it, and then the account's next search is a free 429 with Retry-After until it has refilled,
 * while its other calls and other accounts' searches go on. Searches are timed by an injected clock;
 * the index's calls move it, as slow queries would. Only on the embedded store, where searches run on
 * the node's one thread: on PostgreSQL they run in the database, and slow ones are not refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SEARCH_BANK_SECONDS, SEARCH_MS_PER_RPS } from '../../src/domain/billing/search-time-budget.ts'
import type { SearchIndex } from '../../src/ports/search-index.ts'
import { ADMIN_TOKEN, makeTestApp, type TestApp } from '../helpers/test-app.ts'
import { SEARCH_URL, searchNetwork } from '../helpers/search-fixtures.ts'
import { beforeEachCall } from '../helpers/search-index-spy.ts'

const RPS = 5
const FILL = RPS * SEARCH_MS_PER_RPS
/** What a search's read of its matches "takes" on the injected clock. */
let slow = 0
let t = 0

let app: TestApp
beforeAll(async () => {
  // A date-sorted page without filters reads its matches once.
  const slowIndex = (index: SearchIndex): SearchIndex =>
    beforeEachCall(index, (name) => {
      if (name === 'newestMatches') t += slow
    })
  app = await makeTestApp({
    records: searchNetwork(60),
    account: { name: 'searcher', plan: 'custom', creditsLimit: 1000, rpsLimit: RPS },
    overrides: { monotonic: () => t, wrapSearchIndex: slowIndex },
  })
})
afterAll(async () => app.close())

const search = (key: string) => app.app.inject({ method: 'POST', url: SEARCH_URL, headers: { 'x-api-key': key }, payload: { query: 'the', sortBy: 'date' } })

const onPostgres = process.env.PRONET_TEST_BACKEND === 'postgres'

describe("an account's share of search time", () => {
  // One case per backend, so that neither project reports a skipped test.
  const embedded = async () => {
    const other = (await app.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { plan: 'custom', creditsLimit: 1000, rpsLimit: RPS } })).json().apiKey.key as string
    // Each search takes 7/8 of the bucket and refills a fifth of that meanwhile: the second ends in debt.
    slow = (FILL * SEARCH_BANK_SECONDS * 7) / 8
    const before = (await app.get('/api/v1/subscription')).json().creditsRemaining as number
    expect((await search(app.key)).statusCode).toBe(200)
    expect((await search(app.key)).statusCode).toBe(200)
    const refused = await search(app.key)
    expect(refused.statusCode).toBe(429)
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED', details: { searchMsPerSecond: FILL } })
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    expect(refused.headers['x-credits-charged']).toBe('0')
    // The account's other calls, and another account's searches, are not held back.
    expect((await app.get('/api/v1/profile?profileUrlOrUrn=nobody-at-all')).statusCode).toBe(404)
    slow = 0
    expect((await search(other)).statusCode).toBe(200)
    // After the wait it names, the bucket holds some again.
    t += Number(refused.headers['retry-after']) * 1000
    app.clock.advance(2_000)
    expect((await search(app.key)).statusCode).toBe(200)
    app.clock.advance(2_000)
    const after = (await app.get('/api/v1/subscription')).json().creditsRemaining as number
    // Three searches billed and the profile's 404 (1); the 429 free.
    expect(before - after).toBe(4)
  }

  const database = async () => {
    slow = FILL * SEARCH_BANK_SECONDS
    const before = (await app.get('/api/v1/subscription')).json().creditsRemaining as number
    for (let i = 0; i < 4; i++) expect((await search(app.key)).statusCode).toBe(200)
    slow = 0
    // /subscription has its own budget of one call a second.
    app.clock.advance(2_000)
    const after = (await app.get('/api/v1/subscription')).json().creditsRemaining as number
    expect(before - after).toBe(4)
  }

  if (onPostgres) it('on PostgreSQL, slow searches within the rate are all served and billed (the database runs them, not this thread)', database)
  else it('refuses a search with a free 429 once slow searches have used it, until it refills; other calls and accounts go on', embedded)
})
