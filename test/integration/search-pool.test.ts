/**
 * Searches walked on the worker pool (their own read connections, off the event loop): the same
 * answers as a walk on the event-loop thread, and fair turns across accounts under a flood.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bodyBytes } from '../../src/domain/content/content.service.ts'
import { searchNetwork, SEARCH_NOW, SEARCH_URL } from '../helpers/search-fixtures.ts'
import { ADMIN_TOKEN, makeTestApp, type TestApp } from '../helpers/test-app.ts'

interface Started {
  accountId: string
  passedBy: number
}

let t: TestApp
let member: string
/** Rounds of the quiet account under the flood: one search and one profile read each. */
const ROUNDS = 15
const started: Started[] = []

beforeAll(async () => {
  const records = searchNetwork(200)
  const profile = records.find((r) => r.kind === 'profile')
  member = profile?.kind === 'profile' ? profile.data.publicIdentifier : ''
  t = await makeTestApp({
    records,
    nowMs: SEARCH_NOW,
    file: true,
    overrides: { searchWorkers: 1, searchObserver: { started: (accountId, _ms, passedBy) => started.push({ accountId, passedBy }) } },
  })
})

afterAll(async () => {
  await t?.close()
})

const post = (body: unknown, key = t.key) =>
  t.app.inject({ method: 'POST', url: SEARCH_URL, headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload: JSON.stringify(body) })

/** The same search walked on the event-loop thread, with no pool between. */
async function walkedHere(body: unknown): Promise<string> {
  return bodyBytes(await t.c.search.run(t.c.search.prepare(body))).toString()
}

async function newAccount(name: string, rpsLimit: number): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/admin/v1/accounts',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ name, plan: 'custom', creditsLimit: 1_000_000, rpsLimit }),
  })
  expect(res.statusCode, res.body).toBe(201)
  return (res.json() as { apiKey: { key: string } }).apiKey.key
}

describe('searches on the worker pool', () => {
  it('answer byte for byte as a walk on the event loop, every page and cursor of the walk', async () => {
    const bodies = [
      { query: 'the', sortBy: 'date', maxResults: 7 },
      { query: 'the', maxResults: 9 },
      { query: 'team OR product', maxResults: 11 },
      { query: '"the team"', postedWithin: 'week' },
    ]
    let pages = 0
    for (const first of bodies) {
      let body: Record<string, unknown> = first
      for (let page = 0; page < 30; page++) {
        const before = started.length
        const res = await post(body)
        expect(res.statusCode, res.body).toBe(200)
        expect(started.length, 'the page was walked by the pool').toBe(before + 1)
        expect(res.headers['x-credits-charged']).toBe('1')
        expect(res.body).toBe(await walkedHere(body))
        pages++
        const cursor = (res.json() as { cursor: string | null }).cursor
        if (cursor === null) break
        body = { ...first, cursor }
      }
    }
    expect(pages).toBeGreaterThan(bodies.length)
  })

  it('refuses a bad body or cursor on the event loop, free, before the pool is asked', async () => {
    const before = started.length
    const bad = await post({ query: 'the', cursor: 'not-a-cursor' })
    expect(bad.statusCode).toBe(400)
    expect(bad.json()).toMatchObject({ code: 'INVALID_PARAMETER', details: { parameter: 'cursor' } })
    expect(bad.headers['x-credits-charged']).toBe('0')
    const worse = await post({ query: 'the', maxResults: 0 })
    expect(worse.statusCode).toBe(400)
    expect(started.length).toBe(before)
  })

  it('gives a quiet account the next turn under a flood: each of its searches waits for at most one search of each busy account', { timeout: 120_000 }, async () => {
    const busy = await Promise.all([1, 2, 3, 4, 5].map((i) => newAccount(`busy-${i}`, 100)))
    // The same plan as the busy ones: its searches then weigh as theirs, and its turn comes after at
    // most one of each of theirs (a smaller plan's share is smaller, and its wait longer).
    const quiet = await newAccount('quiet', 100)
    const quietId = (await t.c.accounts.identify(quiet)).accountId
    const busyIds = new Set(await Promise.all(busy.map(async (k) => (await t.c.accounts.identify(k)).accountId)))
    let flooding = true
    const statuses = new Map<number, number>()
    const retryAfters: string[] = []
    /** What each refusal of the flood said it charged, and the plan rate every answer stated. */
    const refusalCharges = new Set<string>()
    const rateLimits = new Set<string>()
    const flood = busy.flatMap((key) =>
      Array.from({ length: 60 }, async () => {
        while (flooding) {
          const res = await post({ query: 'the', maxResults: 50 }, key)
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
          rateLimits.add(String(res.headers['x-ratelimit-limit']))
          if (res.statusCode === 429 || res.statusCode === 503) {
            retryAfters.push(String(res.headers['retry-after']))
            refusalCharges.add(String(res.headers['x-credits-charged']))
            // A client told to wait does; the budget's clock is the test's, so a short real pause stands for it.
            await new Promise((r) => setTimeout(r, 20))
          }
        }
      }),
    )
    const mark = started.length
    const quietStatuses: number[] = []
    for (let i = 0; i < ROUNDS; i++) {
      // The requests' clock is a test's: each round is a new second of every account's rate budget.
      t.clock.advance(1000)
      const [search, profile] = await Promise.all([post({ query: 'team', maxResults: 10 }, quiet), t.get(`/api/v1/profile?profileUrlOrUrn=${member}`, quiet)])
      quietStatuses.push(search.statusCode, profile.statusCode)
    }
    flooding = false
    await Promise.all(flood)
    expect(quietStatuses.filter((s) => s === 200)).toHaveLength(2 * ROUNDS)
    const during = started.slice(mark)
    const quietTurns = during.filter((s) => s.accountId === quietId)
    expect(quietTurns).toHaveLength(ROUNDS)
    // The busy accounts had searches waiting all along, yet none of the quiet one's waited behind
    // more than one search of each of them.
    for (const turn of quietTurns) expect(turn.passedBy).toBeLessThanOrEqual(busyIds.size)
    expect(during.filter((s) => busyIds.has(s.accountId)).length).toBeGreaterThan(quietTurns.length * 2)
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0)
    // Whatever the flood was refused with, it was the rate limit (or, for calls the stores held up
    // past a second under this load, a free 503), with a whole-second Retry-After.
    expect([...statuses.keys()].filter((s) => s !== 200 && s !== 429 && s !== 503)).toEqual([])
    for (const r of retryAfters) expect(Number.isInteger(Number(r)) && Number(r) >= 1).toBe(true)
    // Refusals are free, and every answer of a data route states the plan's rate.
    expect([...refusalCharges].filter((c) => c !== '0')).toEqual([])
    expect([...rateLimits]).toEqual(['100'])
  })
})
