/**
 * POST /api/v1/search/posts over HTTP: the response shape and items, free refusals naming their
 * field, billing and usage, cursor walks (date order, relevance, depth cap, binding and tampering),
 * every filter against a brute-force model computed from the ingest records, `partial` for unreadable
 * cards, and the cap on simultaneous searches.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UsageResponse } from '../../src/contract/endpoints.schemas.ts'
import type { IngestRecord, PostRecord } from '../../src/contract/ingest.schemas.ts'
import { SearchResponseSchema, SearchResultSchema } from '../../src/contract/resources.schemas.ts'
import { createMemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.ts'
import { createMeteringService } from '../../src/domain/billing/metering.service.ts'
import { ApiError } from '../../src/domain/errors.ts'
import type { RateLimiter } from '../../src/ports/rate-limiter.ts'
import { idFromTime, isoFromId } from '../../src/domain/content/ids.ts'
import { tokenize } from '../../src/domain/search/query-tokens.ts'
import {
  COMPANY_ID,
  activityUrn,
  companyPostRecord,
  companyRecord,
  personPostRecord,
  profileIdFor,
  profileRecord,
} from '../helpers/ingest-fixtures.ts'
import {
  HOST,
  SEARCH_NOW,
  SearchModel,
  WITHIN_MS,
  idOfUrn,
  makeSearchApp,
  newestFirst,
  postSearch,
  searchNetwork,
  searchPage,
  walkSearch,
  type SearchApp,
  type SearchPage,
} from '../helpers/search-fixtures.ts'
import { expectError, expectSchema, makeTestApp, type TestApp } from '../helpers/test-app.ts'

const NOW = SEARCH_NOW
const DAY = 86_400_000
const DEPTH = 500

let net: IngestRecord[]
let model: SearchModel
let t: TestApp

// Subjects picked from the generated network (deterministic: fixed seed and size).
let words: string[] // plain words with 40 to 200 matching posts, most frequent first
let bigram: string // two adjacent words found in several posts
let broad: string // a word in more than 500 posts
let topPerson: string
let secondPerson: string
let topCompany: string
let mentioned: string
let titlePhrase: string

const OPERATOR_WORDS = new Set(['and', 'or', 'not'])
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

function pickSubjects(): void {
  const df = new Map<string, number>()
  const bigrams = new Map<string, number>()
  for (const p of model.posts) {
    for (const tk of new Set(p.tokens)) df.set(tk, (df.get(tk) ?? 0) + 1)
    const seen = new Set<string>()
    for (let i = 0; i + 1 < p.tokens.length; i++) {
      const [a, b] = [p.tokens[i] as string, p.tokens[i + 1] as string]
      if (/^[a-z]{4,}$/.test(a) && /^[a-z]{4,}$/.test(b)) seen.add(`${a} ${b}`)
    }
    for (const g of seen) bigrams.set(g, (bigrams.get(g) ?? 0) + 1)
  }
  const plain = [...df].filter(([w]) => /^[a-z]{3,}$/.test(w) && !OPERATOR_WORDS.has(w)).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
  words = plain.filter(([, n]) => n >= 40 && n <= 200).map(([w]) => w)
  broad = (plain.find(([, n]) => n > DEPTH + 100) as [string, number])[0]
  bigram = ([...bigrams].filter(([, n]) => n >= 5 && n <= 100).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0] as [string, number])[0]

  const count = (key: (p: SearchModel['posts'][number]) => string | undefined) => {
    const m = new Map<string, number>()
    for (const p of model.posts) {
      const k = key(p)
      if (k !== undefined) m.set(k, (m.get(k) ?? 0) + 1)
    }
    return [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([k]) => k)
  }
  const persons = count((p) => (p.authorKind === 'person' ? p.authorId : undefined))
  ;[topPerson, secondPerson] = persons as [string, string]
  topCompany = count((p) => (p.authorKind === 'company' ? p.authorId : undefined))[0] as string
  const mentionCounts = new Map<string, number>()
  for (const p of model.posts) for (const m of new Set(p.mentions)) mentionCounts.set(m, (mentionCounts.get(m) ?? 0) + 1)
  mentioned = ([...mentionCounts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0] as [string, number])[0]
  // The last two words of the commonest multi-word title among authors, so it matches as a phrase
  // inside longer titles too.
  const titles = count((p) => (p.authorKind === 'person' && tokenize(p.authorTitle).length >= 2 ? p.authorTitle : undefined))
  titlePhrase = tokenize(titles[0] as string).slice(-2).join(' ')
}

beforeAll(async () => {
  net = searchNetwork(100)
  model = new SearchModel(net)
  pickSubjects()
  t = await makeTestApp({ records: net, nowMs: NOW })
}, 120_000)
afterAll(async () => t?.close())

const post = (body: unknown, key?: string | null) => postSearch(t, body, key)
const page = (body: unknown) => searchPage(t, body)
const walk = (body: Record<string, unknown>, sizes?: number[]) => walkSearch(t, body, sizes)
const idsOf = (p: SearchPage) => p.results.map((r) => idOfUrn(r.id as string))
const sorted = (ids: readonly string[]) => [...ids].sort(newestFirst)

describe('the chosen subjects', () => {
  it('exist in the generated network with useful sizes', () => {
    expect(words.length).toBeGreaterThanOrEqual(4)
    expect(model.select({ query: broad }, NOW).length).toBeGreaterThan(DEPTH)
    expect(model.select({ query: `"${bigram}"` }, NOW).length).toBeGreaterThanOrEqual(5)
    expect(model.select({ profiles: [topPerson] }, NOW).length).toBeGreaterThanOrEqual(5)
    expect(model.select({ companies: [topCompany] }, NOW).length).toBeGreaterThanOrEqual(5)
    expect(model.select({ query: broad, mentions: [mentioned] }, NOW).length).toBeGreaterThanOrEqual(3)
    expect(model.select({ query: broad, jobTitle: titlePhrase }, NOW).length).toBeGreaterThanOrEqual(3)
    expect(model.reposts.size).toBeGreaterThan(0)
  })
})

describe('response shape: the search response and its result items', () => {
  it('is exactly {query, sort, results, cursor} and validates against the contract', async () => {
    const res = await post({ query: words[0], maxResults: 5 })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    const body = res.json() as SearchPage
    expect(Object.keys(body)).toEqual(['query', 'sort', 'results', 'cursor'])
    expectSchema(SearchResponseSchema, body)
    expect(body.results).toHaveLength(5)
    for (const item of body.results) expectSchema(SearchResultSchema, item, 'result item')
    expect(typeof body.cursor).toBe('string')
  })

  it('echoes the normalised query', async () => {
    const [a, b, c] = words as [string, string, string]
    const cases: [string, string][] = [
      [`${a} and ${b}`, `${a} AND ${b}`],
      [`${a.toUpperCase()}   or  ${b}`, `${a.toUpperCase()} OR ${b}`],
      [`\u201C${bigram}\u201D`, `"${bigram}"`],
      [`'${bigram}' not ${c}`, `"${bigram}" NOT ${c}`],
      [`${a} & ${b}`, `${a} AND ${b}`],
      [`( ${a} OR ${b} ) ${c}`, `(${a} OR ${b}) ${c}`],
      ['#Hiring', '#Hiring'],
    ]
    for (const [sent, echoed] of cases) {
      const p = await page({ query: sent, maxResults: 1 })
      expect(p.query, sent).toBe(echoed)
    }
  })

  it('echoes null on an author-only search, and sortBy as sent or null', async () => {
    expect((await page({ authorProfiles: [topPerson], maxResults: 1 })).query).toBeNull()
    expect((await page({ authorProfiles: [topPerson], maxResults: 1 })).sort).toBeNull()
    expect((await page({ authorProfiles: [topPerson], sortBy: 'date', maxResults: 1 })).sort).toBe('date')
    expect((await page({ authorProfiles: [topPerson], sortBy: 'relevance', maxResults: 1 })).sort).toBe('relevance')
    expect((await page({ query: words[0], maxResults: 1 })).sort).toBeNull()
    expect((await page({ query: words[0], sortBy: 'relevance', maxResults: 1 })).sort).toBe('relevance')
    expect((await page({ query: words[0], sortBy: 'date', maxResults: 1 })).sort).toBe('date')
  })

  it('items are the ingested Post plus isEdited, reactionTypeCounts and video width/height', async () => {
    // Every searchable post of the network is reached by one author walk or another; check a wide set:
    // video posts, edited ones, image posts and plain ones.
    const wanted = new Map<string, PostRecord>()
    const pick = (f: (p: PostRecord) => boolean, n: number) =>
      model.posts.filter((p) => f(p.record)).slice(0, n).forEach((p) => wanted.set(p.id, p.record))
    pick((p) => p.video !== null, 5)
    pick((p) => p.isEdited === true, 5)
    pick((p) => p.images.length > 0, 3)
    pick((p) => p.resharedPostUrn !== undefined, 3)
    pick((p) => p.authorType === 'Company', 3)
    pick(() => true, 3)
    expect(wanted.size).toBeGreaterThanOrEqual(15)
    let checked = 0
    for (const [id, record] of wanted) {
      const author = record.authorType === 'Person' ? { authorProfiles: [record.authorProfileId] } : { authorCompanies: [idOfUrn(record.profile.urn)] }
      const w = await walk({ ...author, sortBy: 'date' })
      const item = w.pages.flatMap((p) => p.results).find((r) => idOfUrn(r.id) === id)
      expect(item, id).toBeDefined()
      expectSchema(SearchResultSchema, item, `result ${id}`)
      const { repostOf: _r, isEdited, mentionsCompanies: _m, liveVideo: _l, jobPost: _j, ...postFields } = record
      const stream = record.video?.progressiveStreams[0]
      const expected = {
        ...postFields,
        video: record.video === null ? null : { ...record.video, width: stream?.width ?? null, height: stream?.height ?? null },
        isEdited: isEdited === true,
        reactionTypeCounts: Object.fromEntries(Object.entries(record.reactionsByType).map(([k, v]) => [k.toUpperCase(), v])),
      }
      expect(item).toEqual(expected)
      // Images carry their own width and height.
      for (const image of item!.images as { width: number; height: number }[]) {
        expect(Number.isInteger(image.width) && Number.isInteger(image.height)).toBe(true)
      }
      checked++
    }
    expect(checked).toBe(wanted.size)
  })
})

describe('refusals are free 400s naming the field', () => {
  const tooMany = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i))
  const cases = (): [string, unknown, string, string][] => [
    ['neither query nor author', {}, 'MISSING_PARAMETER', 'query'],
    ['only filters', { contentType: ['image'], postedWithin: 'week' }, 'MISSING_PARAMETER', 'query'],
    ['unknown key', { query: 'a', keywords: 'b' }, 'INVALID_PARAMETER', 'keywords'],
    ['group filter', { query: 'a', group: '123' }, 'INVALID_PARAMETER', 'group'],
    ['viewer network filter', { query: 'a', network: ['F'] }, 'INVALID_PARAMETER', 'network'],
    ['sortBy value', { query: 'a', sortBy: 'newest' }, 'INVALID_PARAMETER', 'sortBy'],
    ['postedWithin value', { query: 'a', postedWithin: 'year' }, 'INVALID_PARAMETER', 'postedWithin'],
    ['contentType value', { query: 'a', contentType: ['image', 'poll'] }, 'INVALID_PARAMETER', 'contentType[1]'],
    ['6 content types', { query: 'a', contentType: ['image', 'video', 'liveVideo', 'jobPost', 'document', 'video'] }, 'INVALID_PARAMETER', 'contentType'],
    ['11 profiles', { authorProfiles: tooMany(11, (i) => `ACoAA${'Z'.repeat(32)}${String(i).padStart(2, '0')}`) }, 'INVALID_PARAMETER', 'authorProfiles'],
    ['11 companies', { authorCompanies: tooMany(11, (i) => String(i + 1)) }, 'INVALID_PARAMETER', 'authorCompanies'],
    ['11 mentions', { query: 'a', mentionsCompanies: tooMany(11, (i) => String(i + 1)) }, 'INVALID_PARAMETER', 'mentionsCompanies'],
    ['empty list', { query: 'a', authorProfiles: [] }, 'INVALID_PARAMETER', 'authorProfiles'],
    ['maxResults 0', { query: 'a', maxResults: 0 }, 'INVALID_PARAMETER', 'maxResults'],
    ['maxResults 51', { query: 'a', maxResults: 51 }, 'INVALID_PARAMETER', 'maxResults'],
    ['maxResults 1.5', { query: 'a', maxResults: 1.5 }, 'INVALID_PARAMETER', 'maxResults'],
    ['maxResults "10"', { query: 'a', maxResults: '10' }, 'INVALID_PARAMETER', 'maxResults'],
    ['postedAfter future', { query: 'a', postedAfter: t.clock.now() + 60_000 }, 'INVALID_PARAMETER', 'postedAfter'],
    ['postedAfter too old', { query: 'a', postedAfter: t.clock.now() - 366 * DAY }, 'INVALID_PARAMETER', 'postedAfter'],
    ['postedAfter not a date', { query: 'a', postedAfter: 'last tuesday' }, 'INVALID_PARAMETER', 'postedAfter'],
    ['profile slug', { authorProfiles: ['jane-doe'] }, 'INVALID_PARAMETER', 'authorProfiles[0]'],
    ['company slug', { authorCompanies: ['northwind'] }, 'INVALID_PARAMETER', 'authorCompanies[0]'],
    ['mention slug', { query: 'a', mentionsCompanies: ['https://www.linkedin.com/company/northwind/'] }, 'INVALID_PARAMETER', 'mentionsCompanies[0]'],
    ['job title empty', { query: 'a', authorJobTitle: '' }, 'INVALID_PARAMETER', 'authorJobTitle'],
    ['job title 101', { query: 'a', authorJobTitle: 'x'.repeat(101) }, 'INVALID_PARAMETER', 'authorJobTitle'],
    ['job title punctuation', { query: 'a', authorJobTitle: '???' }, 'INVALID_PARAMETER', 'authorJobTitle'],
    ['cursor 1025', { query: 'a', cursor: 'c'.repeat(1025) }, 'INVALID_PARAMETER', 'cursor'],
    ['cursor not issued', { query: 'a', cursor: 'abc.def' }, 'INVALID_PARAMETER', 'cursor'],
    ['date with hashtag', { query: '#hiring', sortBy: 'date' }, 'INVALID_PARAMETER', 'sortBy'],
    ['query grammar', { query: 'data AND' }, 'INVALID_PARAMETER', 'query'],
    ['query only excludes', { query: 'NOT data' }, 'INVALID_PARAMETER', 'query'],
    ['six operators', { query: 'a OR b OR c OR d OR e OR f OR g' }, 'INVALID_PARAMETER', 'query'],
    ['query 501', { query: 'q'.repeat(501) }, 'INVALID_PARAMETER', 'query'],
    ['body array', [{ query: 'a' }], 'INVALID_PARAMETER', 'body'],
    ['body null', 'null', 'INVALID_PARAMETER', 'body'],
    ['body string', '"data"', 'INVALID_PARAMETER', 'body'],
    ['malformed JSON', '{"query": "data"', 'INVALID_PARAMETER', 'body'],
  ]

  it('each refusal: 400 with its code and field, X-Credits-Charged 0, balance unchanged, usage not billable', async () => {
    const created = await t.c.accounts.create({ name: 'refusals', plan: 'custom', creditsLimit: 10, rpsLimit: 1000 })
    const key = created.apiKey.key
    const list = cases()
    for (const [label, body, code, parameter] of list) {
      const res = await post(body, key)
      const err = expectError(res, 400, code)
      expect(err.details, label).toEqual({ parameter })
      expect(res.headers['x-credits-charged'], label).toBe('0')
    }
    const usage = await t.get('/api/v1/usage', key)
    expect(usage.statusCode, usage.body).toBe(200)
    expectSchema(UsageResponse, usage.json())
    const report = usage.json() as Record<string, any>
    expect(report.creditsRemaining).toBe(10)
    expect(report.endpoints).toEqual([
      { endpoint: '/api/v1/search/posts', requests: list.length, billableRequests: 0, creditsUsed: 0, statusCodes: { '400': list.length } },
    ])
    t.clock.advance(1000)
  })

  it('a wrong content type is a free 400', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/search/posts',
      headers: { 'content-type': 'text/plain', 'x-api-key': t.key },
      payload: '{"query":"data"}',
    })
    expectError(res, 400, 'INVALID_PARAMETER')
    // The label is the mistake, and the message names it (not the body's fields).
    expect(res.json().error).toMatch(/content type; send application\/json/)
    expect(res.headers['x-credits-charged']).toBe('0')
  })

  it('a __proto__ or constructor.prototype key is refused naming it, free; text that is not JSON is still "not valid JSON"', async () => {
    const raw = (payload: string) =>
      t.app.inject({ method: 'POST', url: '/api/v1/search/posts', headers: { 'content-type': 'application/json', 'x-api-key': t.key }, payload })
    for (const [payload, field] of [
      ['{"query":"hiring","__proto__":{"x":1}}', '__proto__'],
      ['{"query":"hiring","constructor":{"prototype":{"x":1}}}', 'constructor'],
    ] as const) {
      const res = await raw(payload)
      const body = expectError(res, 400, 'INVALID_PARAMETER')
      expect(body.details).toEqual({ parameter: field })
      expect(body.error).toContain(`'${field}'`)
      expect(res.headers['x-credits-charged']).toBe('0')
    }
    const broken = expectError(await raw('{"query":"hiring",'), 400, 'INVALID_PARAMETER')
    expect(broken).toMatchObject({ error: 'The body is not valid JSON.', details: { parameter: 'body' } })
  })

  it('401 without a key or with an unknown key', async () => {
    expectError(await post({ query: 'data' }, null), 401, 'UNAUTHENTICATED')
    expectError(await post({ query: 'data' }, 'pk_not_a_key'), 401, 'INVALID_API_KEY')
  })

  it('402 when the account has no credits, free; a bad body is still a 400 there', async () => {
    const broke = await t.c.accounts.create({ name: 'broke', plan: 'none' })
    const key = broke.apiKey.key
    const res = await post({ query: words[0] }, key)
    const err = expectError(res, 402, 'QUOTA_EXHAUSTED')
    expect(err.details).toMatchObject({ creditsRemaining: 0 })
    expect(res.headers['x-credits-charged']).toBe('0')
    // A no-match search is billed like any other, so it is refused the same way.
    expectError(await post({ query: 'zzqxjvv' }, key), 402, 'QUOTA_EXHAUSTED')
    const bad = await post({ query: words[0], maxResults: 99 }, key)
    expect(expectError(bad, 400, 'INVALID_PARAMETER').details).toEqual({ parameter: 'maxResults' })
    const usage = (await t.get('/api/v1/usage', key)).json() as Record<string, any>
    t.clock.advance(1000)
    expect(usage.endpoints).toEqual([
      { endpoint: '/api/v1/search/posts', requests: 3, billableRequests: 0, creditsUsed: 0, statusCodes: { '402': 2, '400': 1 } },
    ])
  })

  it('property: no JSON body makes it fail other than 200 or a free 400', async () => {
    const fieldNames = [
      'query', 'sortBy', 'postedWithin', 'postedAfter', 'contentType', 'authorProfiles', 'authorCompanies',
      'mentionsCompanies', 'authorJobTitle', 'maxResults', 'cursor', 'group', 'x',
    ]
    const scalar = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc.constantFrom(...words.slice(0, 3), '#hiring', 'date', 'relevance', 'week', '24h', 'image', 'jobPost', topPerson, topCompany, mentioned, '"a b"', '(x OR y)'),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(NOW - DAY),
    )
    const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 12 }), fc.dictionary(fc.string({ maxLength: 5 }), scalar, { maxKeys: 3 }))
    // Mostly-valid bodies, so the property also runs the search itself on odd but accepted input.
    const validish = fc.record(
      {
        query: fc.oneof(fc.constantFrom(...words.slice(0, 4), broad, `"${bigram}"`, '#careers', 'C#', "O'Neil"), fc.string({ maxLength: 20 })),
        sortBy: fc.constantFrom('date', 'relevance', null),
        postedWithin: fc.constantFrom('24h', 'week', 'month', null),
        postedAfter: fc.oneof(fc.integer({ min: NOW - 365 * DAY, max: NOW }), fc.constant(null)),
        contentType: fc.oneof(fc.subarray(['image', 'video', 'liveVideo', 'jobPost', 'document'], { minLength: 1 }), fc.constant(null)),
        authorProfiles: fc.constantFrom([topPerson], [topPerson, secondPerson], null),
        authorCompanies: fc.constantFrom([topCompany], null),
        mentionsCompanies: fc.constantFrom([mentioned], null),
        authorJobTitle: fc.oneof(fc.constantFrom(titlePhrase, 'engineer', null), fc.string({ minLength: 1, maxLength: 10 })),
        maxResults: fc.integer({ min: 1, max: 50 }),
      },
      { requiredKeys: ['query'] },
    )
    const body = fc.oneof(
      { weight: 3, arbitrary: fc.dictionary(fc.constantFrom(...fieldNames), value, { maxKeys: 6 }) },
      { weight: 3, arbitrary: validish },
      { weight: 1, arbitrary: fc.jsonValue() },
    )
    let ok = 0
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await post(JSON.stringify(b) ?? 'null')
        expect([200, 400], res.body).toContain(res.statusCode)
        if (res.statusCode === 400) {
          const err = res.json() as { code: string; details?: { parameter?: unknown } }
          expect(['INVALID_PARAMETER', 'MISSING_PARAMETER', 'INVALID_URN']).toContain(err.code)
          expect(typeof err.details?.parameter).toBe('string')
          expect(res.headers['x-credits-charged']).toBe('0')
        } else {
          ok++
          expectSchema(SearchResponseSchema, res.json())
          expect(res.headers['x-credits-charged']).toBe('1')
        }
      }),
      { numRuns: 300 },
    )
    // The generator reaches valid searches as well as refusals.
    expect(ok).toBeGreaterThan(0)
  })
})

describe('billing (1 credit per call, flat) and usage', () => {
  it('bills 1 per page whatever maxResults, an empty page and a trimmed page included', async () => {
    const acct = await t.c.accounts.create({ name: 'billing', plan: 'custom', creditsLimit: 100, rpsLimit: 1000 })
    const key = acct.apiKey.key
    const as = { app: t.app, key }
    const full = await searchPage(as, { query: words[0], maxResults: 50 })
    expect(full.results).toHaveLength(50)
    const one = await searchPage(as, { query: words[0], maxResults: 1 })
    expect(one.results).toHaveLength(1)
    const none = await searchPage(as, { query: 'zzqxjvv' })
    expect(none).toEqual({ query: 'zzqxjvv', sort: null, results: [], cursor: null })
    // postedAfter trims the page after the search: choose a cut that leaves 1 to 49 of the newest 50.
    const all = model.select({ query: broad }, t.clock.now())
    const cut = model.post(all[20] as string).ms
    const trimmed = await searchPage(as, { query: broad, sortBy: 'date', postedAfter: cut, maxResults: 50 })
    const expected = model.select({ query: broad, after: cut }, t.clock.now())
    expect(expected.length).toBeGreaterThan(0)
    expect(expected.length).toBeLessThan(50)
    expect(idsOf(trimmed)).toEqual(expected)
    expect(trimmed.cursor).toBeNull()
    // Search via a second page is its own call.
    const second = await searchPage(as, { query: words[0], maxResults: 50, cursor: full.cursor })
    expect(second.results.length).toBeGreaterThan(0)

    const usage = await t.get('/api/v1/usage', key)
    t.clock.advance(1000)
    const report = usage.json() as Record<string, any>
    expect(report.creditsRemaining).toBe(95)
    expect(report.endpoints).toEqual([
      { endpoint: '/api/v1/search/posts', requests: 5, billableRequests: 5, creditsUsed: 5, statusCodes: { '200': 5 } },
    ])
  })
})

describe('pagination: signed cursors bound to the search, capped in depth', () => {
  const queries = () => {
    const [a, b, c] = words as [string, string, string]
    return [a, `${a} OR ${b}`, `${a} NOT ${b}`, `"${bigram}"`, `(${a} OR ${b}) AND ${c}`, `${b} ${c}`, `${a} OR "${bigram}"`]
  }

  it('a date walk yields every match exactly once, newest first, and ends with cursor null', async () => {
    for (const q of queries()) {
      const expected = model.select({ query: q }, t.clock.now())
      expect(expected.length, q).toBeLessThanOrEqual(DEPTH)
      for (const sizes of [[50], [7, 13, 1, 50]]) {
        const w = await walk({ query: q, sortBy: 'date' }, sizes)
        expect(w.ids, `${q} ${sizes}`).toEqual(expected)
        expect(w.pages.at(-1)?.cursor).toBeNull()
        for (const p of w.pages) expect(p.sort).toBe('date')
      }
    }
  })

  it('a query whose matches are all older than postedAfter is one empty page with cursor null, in both orders', async () => {
    const now = t.clock.now()
    // Nothing in the network is posted in the last second before the clock.
    expect(model.select({ query: broad, after: now - 1000 }, now)).toEqual([])
    for (const sortBy of [undefined, 'relevance', 'date']) {
      const page = await searchPage(t, { query: broad, postedAfter: now - 1000, maxResults: 10, ...(sortBy ? { sortBy } : {}) })
      expect(page.results, String(sortBy)).toEqual([])
      expect(page.cursor, String(sortBy)).toBeNull()
    }
  })

  it('a relevance walk yields no duplicates and exactly the matches', async () => {
    for (const q of [...queries(), '#careers', '#hiring OR #ai']) {
      const expected = model.select({ query: q }, t.clock.now())
      expect(expected.length, q).toBeLessThanOrEqual(DEPTH)
      for (const body of [{ query: q }, { query: q, sortBy: 'relevance' }]) {
        const w = await walk(body, [9, 50])
        expect(new Set(w.ids).size, q).toBe(w.ids.length)
        expect(sorted(w.ids), q).toEqual(expected)
      }
    }
  })

  it('relevance order is not date order for a common word (ranking itself: see the hand-made network)', async () => {
    const first = await page({ query: words[0], maxResults: 50 })
    const ids = idsOf(first)
    expect(ids.every((id) => model.select({ query: words[0] as string }, t.clock.now()).includes(id))).toBe(true)
    expect(ids).not.toEqual(sorted(ids))
  })

  it('stops a query with more than 500 matches after exactly 500 results', async () => {
    const expected = model.select({ query: broad }, t.clock.now())
    expect(expected.length).toBeGreaterThan(DEPTH)
    const byDate = await walk({ query: broad, sortBy: 'date' })
    expect(byDate.ids).toEqual(expected.slice(0, DEPTH))
    expect(byDate.pages).toHaveLength(10)
    expect(byDate.pages.at(-1)?.cursor).toBeNull()
    const odd = await walk({ query: broad, sortBy: 'date' }, [7])
    expect(odd.ids).toEqual(expected.slice(0, DEPTH))
    expect(odd.pages.at(-1)?.results).toHaveLength(DEPTH % 7)
    const byRelevance = await walk({ query: broad }, [50])
    expect(byRelevance.ids).toHaveLength(DEPTH)
    expect(new Set(byRelevance.ids).size).toBe(DEPTH)
    const all = new Set(expected)
    expect(byRelevance.ids.every((id) => all.has(id))).toBe(true)
    // Author-only searches have the same cap.
    const everyone = [...new Set(model.posts.filter((p) => p.authorKind === 'company').map((p) => p.authorId))].slice(0, 10)
    const authored = model.select({ companies: everyone }, t.clock.now())
    if (authored.length > DEPTH) {
      const w = await walk({ authorCompanies: everyone })
      expect(w.ids).toEqual(authored.slice(0, DEPTH))
    } else {
      const w = await walk({ authorCompanies: everyone })
      expect(w.ids).toEqual(authored)
    }
  })

  it('a cursor is refused, free, when the query or any filter changes; maxResults may change', async () => {
    const body = {
      query: `${words[0]} OR ${words[1]}`,
      sortBy: 'date',
      postedWithin: 'month',
      contentType: ['image', 'video', 'document'],
      authorJobTitle: titlePhrase,
    }
    const wide = { query: broad, sortBy: 'date' }
    const first = await page({ ...wide, maxResults: 3 })
    expect(first.cursor).not.toBeNull()
    const cursor = first.cursor as string
    // maxResults changes freely.
    const next = await page({ ...wide, maxResults: 11, cursor })
    expect(idsOf(next)).toEqual(model.select({ query: broad }, t.clock.now()).slice(3, 14))
    const changes: Record<string, unknown>[] = [
      { query: words[2] },
      { query: `${broad} OR ${words[0]}` },
      { sortBy: 'relevance' },
      { sortBy: null },
      { postedWithin: 'week' },
      { postedAfter: t.clock.now() - 100 * DAY },
      { contentType: ['image'] },
      { authorProfiles: [topPerson] },
      { authorCompanies: [topCompany] },
      { mentionsCompanies: [mentioned] },
      { authorJobTitle: 'engineer' },
    ]
    for (const change of changes) {
      const res = await post({ ...wide, ...change, cursor })
      const err = expectError(res, 400, 'INVALID_PARAMETER')
      expect(err.details, JSON.stringify(change)).toEqual({ parameter: 'cursor' })
      expect(res.headers['x-credits-charged']).toBe('0')
    }
    // A cursor of a filtered search is bound to those filters too.
    const filtered = await page({ ...body, maxResults: 1 })
    if (filtered.cursor !== null) {
      expectError(await post({ ...body, contentType: ['image'], cursor: filtered.cursor }), 400, 'INVALID_PARAMETER')
      expect((await page({ ...body, contentType: ['document', 'video', 'image'], cursor: filtered.cursor })).query).toBe(body.query)
    }
  })

  it('a tampered cursor, a cursor of another search and a feed token are refused', async () => {
    const wide = { query: broad, sortBy: 'date' }
    const cursor = (await page({ ...wide, maxResults: 2 })).cursor as string
    const dot = cursor.indexOf('.')
    expect(dot).toBeGreaterThan(0)
    // Flip a character to one whose 6 bits differ in the top bit, so the decoded bytes change even in
    // the tag's last character (whose low 4 bits carry no data; see 'cursor encoding' below).
    const flip = (s: string, i: number) => s.slice(0, i) + B64URL[B64URL.indexOf(s[i] as string) ^ 0b100000] + s.slice(i + 1)
    const bads = [flip(cursor, 3), flip(cursor, dot - 2), flip(cursor, dot + 2), flip(cursor, cursor.length - 1), `${cursor}x`, cursor.slice(1), cursor.replace('.', ''), `${cursor.slice(0, dot)}.`]
    for (const bad of bads) {
      expect(bad).not.toBe(cursor)
      const res = await post({ ...wide, cursor: bad })
      expect(expectError(res, 400, 'INVALID_PARAMETER').details).toEqual({ parameter: 'cursor' })
      expect(res.headers['x-credits-charged']).toBe('0')
    }
    const other = (await page({ query: words[0], sortBy: 'date', maxResults: 2 })).cursor as string
    expect(expectError(await post({ ...wide, cursor: other }), 400, 'INVALID_PARAMETER').details).toEqual({ parameter: 'cursor' })
    // A relevance cursor of the same query is another search.
    const rel = (await page({ query: broad, maxResults: 2 })).cursor as string
    expect(expectError(await post({ ...wide, cursor: rel }), 400, 'INVALID_PARAMETER').details).toEqual({ parameter: 'cursor' })
    // …but not for the same walk asked for with sortBy 'relevance': page 2 goes on where page 1 stopped.
    const first = (await page({ query: broad, maxResults: 2 })).results.map((r) => (r as { id: string }).id)
    const second = await page({ query: broad, sortBy: 'relevance', maxResults: 2, cursor: rel })
    const straight = (await page({ query: broad, maxResults: 4 })).results.map((r) => (r as { id: string }).id)
    expect([...first, ...second.results.map((r) => (r as { id: string }).id)]).toEqual(straight)
    expect(second.sort).toBe('relevance')
    // A posts feed token is signed by the same service but belongs to a feed.
    const feed = await t.get(`/api/v1/posts?profileUrlOrUrn=${encodeURIComponent(`urn:li:fsd_profile:${topPerson}`)}&count=1`)
    expect(feed.statusCode, feed.body).toBe(200)
    const token = feed.json().paginationToken as string
    expect(typeof token).toBe('string')
    expect(expectError(await post({ ...wide, cursor: token }), 400, 'INVALID_PARAMETER').details).toEqual({ parameter: 'cursor' })
  })
})

describe('cursor encoding', () => {
  // The 16-byte tag is 22 base64url characters whose last one carries 2 data bits and 4 unused ones;
  // a decoder ignores the unused bits, so a check on decoded bytes would accept 15 other spellings of
  // every cursor (and feed token) the service never issued, which must be refused.
  it('refuses a cursor whose last character differs only in bits the tag does not use', async () => {
    const body = { query: broad, sortBy: 'date' }
    const cursor = (await page({ ...body, maxResults: 2 })).cursor as string
    const last = B64URL.indexOf(cursor.at(-1) as string)
    const twin = cursor.slice(0, -1) + B64URL[(last & 0b110000) | ((last + 1) & 0b001111)]
    expect(twin).not.toBe(cursor)
    expect(Buffer.from(twin.slice(twin.indexOf('.') + 1), 'base64url')).toEqual(Buffer.from(cursor.slice(cursor.indexOf('.') + 1), 'base64url'))
    const res = await post({ ...body, cursor: twin })
    expect(expectError(res, 400, 'INVALID_PARAMETER').details).toEqual({ parameter: 'cursor' })
  })
})

describe('filters against the brute-force model', () => {
  const both = async (body: Record<string, unknown>, expected: string[]) => {
    expect(expected.length, JSON.stringify(body)).toBeLessThanOrEqual(DEPTH)
    const byDate = await walk({ ...body, sortBy: 'date' }, [50])
    expect(byDate.ids, JSON.stringify(body)).toEqual(expected)
    if (body.query !== undefined) {
      const byRelevance = await walk({ ...body, sortBy: 'relevance' }, [50])
      expect(new Set(byRelevance.ids).size).toBe(byRelevance.ids.length)
      expect(sorted(byRelevance.ids), JSON.stringify(body)).toEqual(expected)
    }
  }

  it('contentType: values OR together, each read from the post', async () => {
    const now = t.clock.now()
    for (const types of [['image'], ['video'], ['document'], ['liveVideo'], ['jobPost'], ['video', 'document'], ['image', 'jobPost', 'liveVideo']] as const) {
      // A word of the newest post of the first kind, so the query reaches that kind.
      const sample = model.posts.find((p) => p.kinds.has(types[0])) as SearchModel['posts'][number]
      const own = sample.tokens.find((tk) => /^[a-z]{3,}$/.test(tk) && !OPERATOR_WORDS.has(tk)) as string
      const q = `${broad} OR ${words[0]} OR ${own}`
      const expected = model.select({ query: q, contentType: types }, now)
      expect(expected, types.join()).toContain(sample.id)
      if (expected.length <= DEPTH) await both({ query: q, contentType: types }, expected)
      else {
        const w = await walk({ query: q, contentType: types, sortBy: 'date' })
        expect(w.ids).toEqual(expected.slice(0, DEPTH))
      }
      const narrow = model.select({ query: words[0], contentType: types }, now)
      await both({ query: words[0], contentType: types }, narrow)
    }
  })

  it('authorProfiles and authorCompanies: all of an author’s posts, reposts excluded; each list ORs inside, the two AND together', async () => {
    const now = t.clock.now()
    const person = model.select({ profiles: [topPerson] }, now)
    expect(person.length).toBeGreaterThan(0)
    await both({ authorProfiles: [topPerson] }, person)
    await both({ authorProfiles: [`https://www.linkedin.com/in/${topPerson}/`, `urn:li:fsd_profile:${secondPerson}`] }, model.select({ profiles: [topPerson, secondPerson] }, now))
    await both({ authorCompanies: [topCompany] }, model.select({ companies: [topCompany] }, now))
    // Two filters, and filters AND together: no post is by a member and by a page.
    expect(model.select({ profiles: [topPerson], companies: [topCompany] }, now)).toEqual([])
    await both({ authorCompanies: [`urn:li:fsd_company:${topCompany}`], authorProfiles: [topPerson] }, [])
    // AND with a query.
    await both({ authorProfiles: [topPerson, secondPerson], query: broad }, model.select({ profiles: [topPerson, secondPerson], query: broad }, now))
    await both({ authorCompanies: [topCompany], query: `${words[0]} OR ${words[1]} OR ${broad}` }, model.select({ companies: [topCompany], query: `${words[0]} OR ${words[1]} OR ${broad}` }, now))
    // No repost is ever returned.
    const authorsWithReposts = [...model.reposts].map((id) => net.find((r) => r.kind === 'post' && idOfUrn(r.data.id) === id)).filter(Boolean)
    expect(authorsWithReposts.length).toBeGreaterThan(0)
    const reposter = (authorsWithReposts[0] as { data: PostRecord }).data
    const w = await walk(reposter.authorType === 'Person' ? { authorProfiles: [reposter.authorProfileId] } : { authorCompanies: [idOfUrn(reposter.profile.urn)] })
    expect(w.ids.filter((id) => model.reposts.has(id))).toEqual([])
    // An unknown author is an empty result, not an error.
    const empty = await page({ authorProfiles: [`ACoAA${'N'.repeat(34)}`] })
    expect(empty.results).toEqual([])
    expect(empty.cursor).toBeNull()
  })

  it('mentionsCompanies: any of the listed companies', async () => {
    const now = t.clock.now()
    const others = [...new Set(model.posts.flatMap((p) => p.mentions))].filter((m) => m !== mentioned).slice(0, 2)
    await both({ query: broad, mentionsCompanies: [mentioned] }, model.select({ query: broad, mentions: [mentioned] }, now))
    await both({ query: broad, mentionsCompanies: [mentioned, ...others] }, model.select({ query: broad, mentions: [mentioned, ...others] }, now))
    await both(
      { query: `${broad} OR ${words[0]}`, mentionsCompanies: [`https://www.linkedin.com/company/${mentioned}/`] },
      model.select({ query: `${broad} OR ${words[0]}`, mentions: [mentioned] }, now),
    )
    // An author search narrowed by mentions.
    const mentioner = model.posts.find((p) => p.mentions.includes(mentioned)) as SearchModel['posts'][number]
    const author = mentioner.authorKind === 'person' ? { authorProfiles: [mentioner.authorId] } : { authorCompanies: [mentioner.authorId] }
    const modelAuthor = mentioner.authorKind === 'person' ? { profiles: [mentioner.authorId] } : { companies: [mentioner.authorId] }
    const expected = model.select({ ...modelAuthor, mentions: [mentioned] }, now)
    expect(expected).toContain(mentioner.id)
    await both({ ...author, mentionsCompanies: [mentioned] }, expected)
  })

  it("authorJobTitle: a phrase against the author's current title (company posts never match)", async () => {
    const now = t.clock.now()
    const q = `${broad} OR ${words[0]} OR ${words[1]}`
    await both({ query: q, authorJobTitle: titlePhrase }, model.select({ query: q, jobTitle: titlePhrase }, now))
    const lastWord = titlePhrase.split(' ').at(-1) as string
    await both({ query: q, authorJobTitle: lastWord.toUpperCase() }, model.select({ query: q, jobTitle: lastWord }, now))
    // The same words in the other order are not the phrase.
    const reversed = titlePhrase.split(' ').reverse().join(' ')
    await both({ query: q, authorJobTitle: reversed }, model.select({ query: q, jobTitle: reversed }, now))
    await both({ authorCompanies: [topCompany], authorJobTitle: titlePhrase }, [])
  })

  it('postedWithin: 24h and week measured back from the clock; month keeps 28 days and drops what is older than 31', async () => {
    const now = t.clock.now()
    for (const [within, ms] of Object.entries(WITHIN_MS)) {
      const expected = model.select({ query: `${broad} OR ${words[0]}`, withinMs: ms }, now)
      expect(expected.length, within).toBeGreaterThan(0)
      await both({ query: `${broad} OR ${words[0]}`, postedWithin: within }, expected)
      await both({ authorCompanies: [topCompany], postedWithin: within }, model.select({ companies: [topCompany], withinMs: ms }, now))
    }
    const month = await walk({ query: broad, sortBy: 'date', postedWithin: 'month' })
    const inside28 = model.select({ query: broad, withinMs: 28 * DAY }, now)
    const inside31 = new Set(model.select({ query: broad, withinMs: 31 * DAY }, now))
    expect(month.ids.slice(0, inside28.length)).toEqual(inside28)
    expect(month.ids.every((id) => inside31.has(id))).toBe(true)
    // The window follows the clock.
    t.clock.advance(3 * DAY)
    try {
      const later = model.select({ query: `${broad} OR ${words[0]}`, withinMs: WITHIN_MS.week }, t.clock.now())
      await both({ query: `${broad} OR ${words[0]}`, postedWithin: 'week' }, later)
    } finally {
      t.clock.set(now)
    }
  })

  it('postedAfter: a date walk ends at the cut; a relevance walk yields the matches after it', async () => {
    const now = t.clock.now()
    const q = `${words[0]} OR ${words[1]}`
    for (const daysBack of [5, 40, 200]) {
      const after = now - daysBack * DAY
      const expected = model.select({ query: q, after }, now)
      await both({ query: q, postedAfter: after }, expected)
      await both({ query: q, postedAfter: new Date(after).toISOString() }, expected)
    }
    await both({ authorProfiles: [topPerson], postedAfter: now - 300 * DAY }, model.select({ profiles: [topPerson], after: now - 300 * DAY }, now))
  })

  it('filters AND together', async () => {
    const now = t.clock.now()
    const q = `${broad} OR ${words[0]} OR ${words[1]}`
    const combos: [Record<string, unknown>, Parameters<SearchModel['select']>[0]][] = [
      [{ query: q, contentType: ['image', 'video'], postedWithin: 'week' }, { query: q, contentType: ['image', 'video'], withinMs: WITHIN_MS.week }],
      [{ query: q, mentionsCompanies: [mentioned], contentType: ['image', 'document', 'jobPost'] }, { query: q, mentions: [mentioned], contentType: ['image', 'document', 'jobPost'] }],
      [{ query: q, authorJobTitle: titlePhrase, postedAfter: now - 200 * DAY }, { query: q, jobTitle: titlePhrase, after: now - 200 * DAY }],
      [{ authorProfiles: [topPerson, secondPerson], contentType: ['image'] }, { profiles: [topPerson, secondPerson], contentType: ['image'] }],
      [{ authorCompanies: [topCompany], contentType: ['image', 'video'] }, { companies: [topCompany], contentType: ['image', 'video'] }],
      [{ authorProfiles: [topPerson], query: `${words[0]} OR ${words[1]} OR ${broad}`, postedWithin: 'week', contentType: ['video'] }, { profiles: [topPerson], query: `${words[0]} OR ${words[1]} OR ${broad}`, withinMs: WITHIN_MS.week, contentType: ['video'] }],
    ]
    let nonEmpty = 0
    for (const [body, m] of combos) {
      const expected = model.select(m, now)
      if (expected.length > 0) nonEmpty++
      await both(body, expected)
    }
    expect(nonEmpty).toBeGreaterThanOrEqual(3)
  })
})

// ---------- hand-made fixtures where exactness matters ----------

const T0 = Date.UTC(2026, 9, 1, 9, 0, 0)
const A = profileIdFor(1)
const B = profileIdFor(2)

function smallFixture(): IngestRecord[] {
  const at = (i: number) => T0 + i * 3_600_000
  const video = {
    url: 'https://media.example/v.mp4',
    duration: 61_000,
    thumbnail: 'https://media.example/v.jpg',
    progressiveStreams: [
      { url: 'https://media.example/v-720.mp4', width: 1280, height: 720, bitRate: 2_000_000 },
      { url: 'https://media.example/v-360.mp4', width: 640, height: 360, bitRate: 600_000 },
    ],
  }
  return [
    { kind: 'company', data: companyRecord() },
    { kind: 'company', data: { ...companyRecord('2040'), publicIdentifier: 'contoso-2040', url: `https://${HOST}/company/contoso-2040/` } },
    { kind: 'profile', data: profileRecord(1) },
    { kind: 'profile', data: { ...profileRecord(2), jobTitle: 'Chief Executive Officer' } },
    { kind: 'post', data: personPostRecord(A, at(1), 1, { content: 'rust rust rust rust rust' }) },
    { kind: 'post', data: personPostRecord(A, at(2), 2, { content: 'rust is one of many languages we discussed at length today in the office' }) },
    {
      kind: 'post',
      data: personPostRecord(A, at(3), 3, {
        content: 'a rust video',
        postType: 'linkedinVideo',
        video,
        videoUrl: video.url,
        isEdited: true,
        reactionsByType: { like: 3, empathy: 2, praise: 1 },
      }),
    },
    { kind: 'post', data: personPostRecord(B, at(4), 4, { content: 'rust at Contoso', mentionsCompanies: ['2040'], jobPost: true }) },
    {
      kind: 'post',
      data: personPostRecord(B, at(5), 5, {
        content: 'a rust video without renditions',
        postType: 'linkedinVideo',
        video: { ...video, progressiveStreams: [] },
        videoUrl: video.url,
        liveVideo: true,
      }),
    },
    { kind: 'post', data: { ...companyPostRecord(COMPANY_ID, at(6), 6), content: 'rust charts' } },
    { kind: 'post', data: personPostRecord(A, at(7), 7, { content: '', repostOf: activityUrn(idFromTime(at(1), 1)), reactionsByType: {} }) },
    { kind: 'post', data: personPostRecord(A, at(8), 8, { content: 'rust reshared with a comment', resharedPostUrn: activityUrn(idFromTime(at(2), 2)) }) },
  ]
}
const smallId = (i: number) => idFromTime(T0 + i * 3_600_000, i)
const SMALL_NOW = Date.UTC(2026, 9, 2)

describe('a small hand-made network', () => {
  let s: TestApp
  beforeAll(async () => {
    s = await makeTestApp({ records: smallFixture(), nowMs: SMALL_NOW })
  })
  afterAll(async () => s?.close())

  it('finds every original post and the reshare with commentary, never the bare repost', async () => {
    const p = await searchPage(s, { query: 'rust', sortBy: 'date' })
    expect(idsOf(p)).toEqual([8, 6, 5, 4, 3, 2, 1].map(smallId))
    expect(p.cursor).toBeNull()
    expect(idsOf(await searchPage(s, { authorProfiles: [A] }))).toEqual([8, 3, 2, 1].map(smallId))
  })

  it('ranks by BM25: the post saying rust five times first, the long one last of the three', async () => {
    const p = await searchPage(s, { query: 'rust', authorProfiles: [A], sortBy: 'relevance' })
    const ids = idsOf(p)
    expect(ids[0]).toBe(smallId(1))
    expect(ids.indexOf(smallId(1))).toBeLessThan(ids.indexOf(smallId(2)))
    expect(ids.indexOf(smallId(3))).toBeLessThan(ids.indexOf(smallId(2)))
  })

  it('items: isEdited, upper-case reactionTypeCounts, video width/height from the first rendition or null', async () => {
    const p = await searchPage(s, { query: 'video', sortBy: 'date' })
    const [noStreams, edited] = p.results as [Record<string, any>, Record<string, any>]
    expect(idOfUrn(edited.id)).toBe(smallId(3))
    expect(edited.isEdited).toBe(true)
    expect(edited.date).toBe(isoFromId(smallId(3)))
    expect(edited.reactionTypeCounts).toEqual({ LIKE: 3, EMPATHY: 2, PRAISE: 1 })
    expect(edited.reactionsByType).toEqual({ like: 3, empathy: 2, praise: 1 })
    expect(edited.video).toMatchObject({ width: 1280, height: 720, duration: 61_000 })
    expect(noStreams.video).toMatchObject({ width: null, height: null, progressiveStreams: [] })
    expect(noStreams.isEdited).toBe(false)
    const company = (await searchPage(s, { authorCompanies: [COMPANY_ID] })).results[0] as Record<string, any>
    expect(company.images[0]).toEqual({ url: 'https://media.example/chart.png', width: 1200, height: 627 })
    expect(company.reactionTypeCounts).toEqual({ LIKE: 4, INTEREST: 1 })
    expect(company.video).toBeNull()
    for (const item of [...p.results, company]) expectSchema(SearchResultSchema, item)
  })

  it('filters on the hand-made facts', async () => {
    const q = { query: 'rust', sortBy: 'date' }
    expect(idsOf(await searchPage(s, { ...q, contentType: ['video'] }))).toEqual([5, 3].map(smallId))
    expect(idsOf(await searchPage(s, { ...q, contentType: ['liveVideo'] }))).toEqual([smallId(5)])
    expect(idsOf(await searchPage(s, { ...q, contentType: ['jobPost'] }))).toEqual([smallId(4)])
    expect(idsOf(await searchPage(s, { ...q, contentType: ['image'] }))).toEqual([smallId(6)])
    expect(idsOf(await searchPage(s, { ...q, contentType: ['document'] }))).toEqual([])
    expect(idsOf(await searchPage(s, { ...q, mentionsCompanies: ['2040'] }))).toEqual([smallId(4)])
    expect(idsOf(await searchPage(s, { ...q, mentionsCompanies: [COMPANY_ID] }))).toEqual([])
    expect(idsOf(await searchPage(s, { ...q, authorJobTitle: 'chief executive' }))).toEqual([5, 4].map(smallId))
    expect(idsOf(await searchPage(s, { ...q, authorJobTitle: 'Data Engineer' }))).toEqual([8, 3, 2, 1].map(smallId))
    expect(idsOf(await searchPage(s, { ...q, authorJobTitle: 'engineer data' }))).toEqual([])
    expect(idsOf(await searchPage(s, { ...q, postedWithin: '24h' }))).toEqual([8, 6, 5, 4, 3, 2, 1].map(smallId))
    expect(idsOf(await searchPage(s, { ...q, postedAfter: T0 + 4 * 3_600_000 }))).toEqual([8, 6, 5, 4].map(smallId))
    // B's posts and the company's, each alone; both lists at once AND together, and no post has two authors.
    expect(idsOf(await searchPage(s, { authorProfiles: [B] })).length).toBeGreaterThan(0)
    expect(idsOf(await searchPage(s, { authorCompanies: [COMPANY_ID] })).length).toBeGreaterThan(0)
    const both = await searchPage(s, { authorProfiles: [B], authorCompanies: [COMPANY_ID] })
    expect(idsOf(both)).toEqual([])
    expect(both.cursor).toBeNull()
  })

  it('a page of maxResults 1 at a time walks all seven in order; the last page carries cursor null', async () => {
    for (const body of [{ query: 'rust', sortBy: 'date' }, { query: 'rust' }, { authorProfiles: [A, B] }]) {
      const w = await walkSearch(s, body, [1])
      const expected = body.query === undefined ? [8, 5, 4, 3, 2, 1].map(smallId) : [8, 6, 5, 4, 3, 2, 1].map(smallId)
      if (body.sortBy === 'date' || body.query === undefined) expect(w.ids).toEqual(expected)
      else expect(sorted(w.ids)).toEqual(expected)
      // Without filters the service looks one result ahead, so no empty page follows the last match.
      expect(w.pages).toHaveLength(expected.length)
    }
  })

  it('a walk is not disturbed by a newer matching post written mid-walk', async () => {
    const first = await searchPage(s, { query: 'rust', maxResults: 3 })
    const firstDate = await searchPage(s, { query: 'rust', sortBy: 'date', maxResults: 3 })
    const newer = personPostRecord(B, SMALL_NOW - 60_000, 99, { content: 'fresh rust news' })
    expect(await s.c.writer.write([{ kind: 'post', data: newer }])).toEqual([{ ok: true }])
    try {
      const rest = await walkSearch(s, { query: 'rust', cursor: first.cursor }, [2])
      const all = [...idsOf(first), ...rest.ids]
      expect(new Set(all).size).toBe(all.length)
      expect(sorted(all)).toEqual([8, 6, 5, 4, 3, 2, 1].map(smallId))
      const restDate = await walkSearch(s, { query: 'rust', sortBy: 'date', cursor: firstDate.cursor }, [2])
      expect([...idsOf(firstDate), ...restDate.ids]).toEqual([8, 6, 5, 4, 3, 2, 1].map(smallId))
      // A new walk sees it.
      expect(idsOf(await searchPage(s, { query: 'rust', sortBy: 'date', maxResults: 1 }))).toEqual([idOfUrn(newer.id)])
    } finally {
      // Put the network back as it was for the other tests: the post turns into a repost, never returned.
      expect(await s.c.writer.write([{ kind: 'post', data: { ...newer, repostOf: activityUrn(smallId(1)) } }])).toEqual([{ ok: true }])
    }
    expect(idsOf(await searchPage(s, { query: 'rust', sortBy: 'date' }))).toEqual([8, 6, 5, 4, 3, 2, 1].map(smallId))
  })

  it('the index follows re-ingest: new text, a post turned repost, a member’s new title', async () => {
    const r = await makeTestApp({ records: smallFixture(), nowMs: SMALL_NOW })
    try {
      const original = smallFixture().find((x) => x.kind === 'post' && idOfUrn(x.data.id) === smallId(2)) as { kind: 'post'; data: PostRecord }
      // Post 2's result item is served once (and so cached) before the re-ingest changes it.
      const primed = (await searchPage(r, { query: 'rust', sortBy: 'date' })).results.find((x) => idOfUrn(x.id as string) === smallId(2))
      expect((primed as { content?: string } | undefined)?.content).toBe(original.data.content)
      expect(await r.c.writer.write([{ kind: 'post', data: { ...original.data, content: 'now about kotlin only' } }])).toEqual([{ ok: true }])
      expect(idsOf(await searchPage(r, { query: 'kotlin' }))).toEqual([smallId(2)])
      expect(idsOf(await searchPage(r, { query: 'languages' }))).toEqual([])
      expect(idsOf(await searchPage(r, { query: 'rust', sortBy: 'date' }))).toEqual([8, 6, 5, 4, 3, 1].map(smallId))
      const item = (await searchPage(r, { query: 'kotlin' })).results[0] as Record<string, unknown>
      expect(item.content).toBe('now about kotlin only')
      // Turned into a repost: gone from search.
      const one = smallFixture().find((x) => x.kind === 'post' && idOfUrn(x.data.id) === smallId(1)) as { kind: 'post'; data: PostRecord }
      expect(await r.c.writer.write([{ kind: 'post', data: { ...one.data, repostOf: activityUrn(smallId(4)) } }])).toEqual([{ ok: true }])
      expect(idsOf(await searchPage(r, { query: 'rust', sortBy: 'date' }))).toEqual([8, 6, 5, 4, 3].map(smallId))
      // The filter reads the member's current title.
      expect(idsOf(await searchPage(r, { query: 'rust', authorJobTitle: 'chief executive', sortBy: 'date' }))).toEqual([5, 4].map(smallId))
      expect(await r.c.writer.write([{ kind: 'profile', data: { ...profileRecord(2), jobTitle: 'Staff Engineer' } }])).toEqual([{ ok: true }])
      expect(idsOf(await searchPage(r, { query: 'rust', authorJobTitle: 'chief executive', sortBy: 'date' }))).toEqual([])
      expect(idsOf(await searchPage(r, { query: 'rust', authorJobTitle: 'staff engineer', sortBy: 'date' }))).toEqual([5, 4].map(smallId))
    } finally {
      await r.close()
    }
  })
})

describe('a relevance walk while the set changes (the result set is live)', () => {
  // Twelve posts that score alike (ties: newest first), so the ranking is their ids, newest first.
  const at = (i: number) => T0 + i * 3_600_000
  const id = (i: number) => idFromTime(at(i), i)
  const post = (i: number, content: string): IngestRecord => ({ kind: 'post', data: personPostRecord(A, at(i), i, { content }) })
  let s: TestApp
  beforeAll(async () => {
    s = await makeTestApp({
      records: [{ kind: 'company', data: companyRecord() }, { kind: 'profile', data: profileRecord(1) }, ...Array.from({ length: 12 }, (_, i) => post(i + 1, 'alpha beta'))],
      nowMs: SMALL_NOW,
    })
  })
  afterAll(async () => s?.close())

  it('a post of an earlier page that leaves the set skips nothing: the next page goes on after the last one shown', async () => {
    const first = await searchPage(s, { query: 'alpha', maxResults: 5 })
    expect(idsOf(first)).toEqual([12, 11, 10, 9, 8].map(id))
    // The third result of page 1 is edited so it no longer matches: every later rank moves up one.
    expect(await s.c.writer.write([post(10, 'gamma delta')])).toEqual([{ ok: true }])
    const second = await searchPage(s, { query: 'alpha', maxResults: 5, cursor: first.cursor })
    expect(idsOf(second)).toEqual([7, 6, 5, 4, 3].map(id))
    const third = await searchPage(s, { query: 'alpha', maxResults: 5, cursor: second.cursor })
    expect(idsOf(third)).toEqual([2, 1].map(id))
    expect(third.cursor).toBeNull()
  })

  it('the last results of page 1 leaving the set skip nothing either, however many (the cursor keeps the ranks above it)', async () => {
    const numberOf = (postId: string) => [...Array(13).keys()].find((i) => id(i) === postId) as number
    // Page 1 ranks 0-4: the last one, the first and the last, the first two and the last, the last three.
    // Then more than three of them, up to the whole page (a paging probe: the fourth and later skipped one each).
    for (const leaving of [[4], [0, 4], [0, 1, 4], [2, 3, 4], [1, 2, 3, 4], [0, 1, 2, 3, 4]]) {
      const body = { query: 'beta', maxResults: 5 }
      const all = idsOf(await searchPage(s, { ...body, maxResults: 50 }))
      const first = await searchPage(s, body)
      expect(idsOf(first)).toEqual(all.slice(0, 5))
      const gone = leaving.map((k) => numberOf(all[k] as string))
      expect(await s.c.writer.write(gone.map((n) => post(n, 'gamma delta')))).toEqual(gone.map(() => ({ ok: true })))
      const rest: string[] = []
      for (let cursor = first.cursor; cursor !== null; ) {
        const page = await searchPage(s, { ...body, cursor })
        rest.push(...idsOf(page))
        cursor = page.cursor
      }
      // Every post still in the set that page 1 did not show comes on a later page, once.
      expect(rest, JSON.stringify(leaving)).toEqual(all.slice(5))
      expect(await s.c.writer.write(gone.map((n) => post(n, 'alpha beta')))).toEqual(gone.map(() => ({ ok: true })))
    }
  })

  it("so does a relevance walk over an author's posts, and one with a filter checked per post", async () => {
    for (const narrowing of [{ authorProfiles: [A] }, { authorJobTitle: profileRecord(1).jobTitle }]) {
      const body = { query: 'beta', maxResults: 4, ...narrowing }
      const first = await searchPage(s, body)
      const ranked = idsOf(first)
      expect(ranked, JSON.stringify(narrowing)).toHaveLength(4)
      const all = idsOf(await searchPage(s, { ...body, maxResults: 50 }))
      // The second result of page 1 leaves the set; page 2 starts right after page 1's last.
      const gone = ranked[1] as string
      const n = [...Array(13).keys()].find((i) => id(i) === gone) as number
      expect(await s.c.writer.write([post(n, 'gamma delta')])).toEqual([{ ok: true }])
      const second = await searchPage(s, { ...body, cursor: first.cursor })
      expect(idsOf(second), JSON.stringify(narrowing)).toEqual(all.slice(4, 8))
      // Put it back for the next narrowing.
      expect(await s.c.writer.write([post(n, 'alpha beta')])).toEqual([{ ok: true }])
    }
  })
})

describe('partial: cards that cannot be read are dropped and reported', () => {
  let f: SearchApp
  beforeAll(async () => {
    // The cards are damaged behind the store's back (no content epoch moves), so no cache may hide it.
    f = await makeSearchApp({ records: smallFixture(), nowMs: SMALL_NOW, file: true, cacheMb: 0 })
  })
  afterAll(async () => f?.close())

  it('drops a post whose search item is gone and says so; the page still bills 1', async () => {
    const before = await searchPage(f, { query: 'rust', sortBy: 'date' })
    expect(before.partial).toBeUndefined()
    expect(before.results).toHaveLength(7)
    const db = f.db as NonNullable<SearchApp['db']>
    expect(db.prepare('UPDATE post_docs SET doc_search = NULL WHERE id = CAST(? AS INTEGER)').run(smallId(4)).changes).toBe(1)
    const res = await postSearch(f, { query: 'rust', sortBy: 'date' })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['x-credits-charged']).toBe('1')
    const after = res.json() as SearchPage
    expectSchema(SearchResponseSchema, after)
    expect(Object.keys(after)).toEqual(['query', 'sort', 'results', 'cursor', 'partial'])
    expect(idsOf(after)).toEqual([8, 6, 5, 3, 2, 1].map(smallId))
    expect(after.partial).toEqual({ droppedResults: 1, reasons: { unreadableCard: 1 } })
    expect(after.cursor).toBeNull()
    // Two gone, one of them with its whole document row.
    db.prepare('DELETE FROM post_docs WHERE id = CAST(? AS INTEGER)').run(smallId(2))
    const twice = await searchPage(f, { query: 'rust', sortBy: 'date' })
    expect(idsOf(twice)).toEqual([8, 6, 5, 3, 1].map(smallId))
    expect(twice.partial).toEqual({ droppedResults: 2, reasons: { unreadableCard: 2 } })
    // A page without the broken posts carries no partial.
    const clean = await searchPage(f, { query: 'rust', authorCompanies: [COMPANY_ID] })
    expect(clean.partial).toBeUndefined()
    expect(Object.keys(clean)).toEqual(['query', 'sort', 'results', 'cursor'])
  })
})

describe('simultaneous searches (at most 2 × rpsLimit)', () => {
  it('over HTTP: the third search in flight on a 1-rps account is a free 429 with Retry-After 1', async () => {
    let open!: () => void
    const gate = new Promise<void>((resolve) => {
      open = resolve
    })
    const waiters: ((n: number) => void)[] = []
    let entered = 0
    const g = await makeSearchApp({
      records: smallFixture(),
      nowMs: SMALL_NOW,
      account: { name: 'slow', plan: 'custom', creditsLimit: 100, rpsLimit: 1 },
      wrapSearch: (real) => ({
        ...real,
        async run(prepared, who) {
          entered++
          for (const w of waiters.splice(0)) w(entered)
          await gate
          return real.run(prepared, who)
        },
      }),
    })
    const untilEntered = (n: number) =>
      new Promise<void>((resolve) => {
        if (entered >= n) return resolve()
        const check = (k: number) => (k >= n ? resolve() : waiters.push(check))
        waiters.push(check)
      })
    try {
      const body = { query: 'rust', sortBy: 'date' }
      const first = postSearch(g, body)
      await untilEntered(1)
      g.clock.advance(1000)
      const second = postSearch(g, body)
      await untilEntered(2)
      g.clock.advance(1000)
      const third = await postSearch(g, body)
      const err = expectError(third, 429, 'RATE_LIMITED')
      expect(third.headers['retry-after']).toBe('1')
      expect(third.headers['x-credits-charged']).toBe('0')
      expect(err.details).toEqual({ simultaneousSearches: 2 })
      expect(entered).toBe(2)
      open()
      for (const res of [await first, await second]) {
        expect(res.statusCode, res.body).toBe(200)
        expect(res.headers['x-credits-charged']).toBe('1')
      }
      // The leases are back: the next search runs.
      g.clock.advance(1000)
      const fourth = await postSearch(g, body)
      expect(fourth.statusCode, fourth.body).toBe(200)
      const usage = (await g.get('/api/v1/usage')).json() as Record<string, any>
      expect(usage.endpoints).toEqual([
        { endpoint: '/api/v1/search/posts', requests: 4, billableRequests: 3, creditsUsed: 3, statusCodes: { '200': 3, '429': 1 } },
      ])
    } finally {
      open()
      await g.close()
    }
  })

  it('a refused search (400, 402) gives its lease back', async () => {
    const g = await makeSearchApp({
      records: smallFixture(),
      nowMs: SMALL_NOW,
      account: { name: 'one', plan: 'custom', creditsLimit: 2, rpsLimit: 1 },
    })
    try {
      for (let i = 0; i < 3; i++) {
        expectError(await postSearch(g, { query: 'rust AND' }), 400, 'INVALID_PARAMETER')
        g.clock.advance(1000)
      }
      for (let i = 0; i < 2; i++) {
        expect((await postSearch(g, { query: 'rust' })).statusCode).toBe(200)
        g.clock.advance(1000)
      }
      for (let i = 0; i < 3; i++) {
        expectError(await postSearch(g, { query: 'rust' }), 402, 'QUOTA_EXHAUSTED')
        g.clock.advance(1000)
      }
      const leases = await Promise.all([
        g.c.metering.enterSearch(g.accountId, g.clock.now()),
        g.c.metering.enterSearch(g.accountId, g.clock.now()),
      ])
      await expect(g.c.metering.enterSearch(g.accountId, g.clock.now())).rejects.toBeInstanceOf(ApiError)
      for (const release of leases) await release()
    } finally {
      await g.close()
    }
  })

  it("a search's end does not wait for its lease's release to be confirmed, and the place is free at once", async () => {
    const g = await makeSearchApp({ account: { name: 'cap', plan: 'custom', creditsLimit: 10, rpsLimit: 1 } })
    try {
      // A store that takes a release at once and never confirms it (a Redis reply that does not come).
      const real = createMemoryRateLimiter()
      let unconfirmed = 0
      const limiter: RateLimiter = {
        take: (...a) => real.take(...a),
        close: () => real.close(),
        async lease(key, limit, ttlMs) {
          const release = await real.lease(key, limit, ttlMs)
          if (!release) return undefined
          return () => {
            void release()
            unconfirmed++
            return new Promise<void>(() => {})
          }
        },
      }
      const m = createMeteringService({ ledger: g.c.ledger, limiter, clock: g.clock, sleep: async () => {}, buyCreditsUrl: 'https://example.test/buy' })
      const at = g.clock.now()
      const ends = [await m.enterSearch(g.accountId, at), await m.enterSearch(g.accountId, at)]
      await expect(m.enterSearch(g.accountId, at)).rejects.toMatchObject({ code: 'RATE_LIMITED', details: { simultaneousSearches: 2 } })
      const ended = await Promise.race([ends[0]!().then(() => 'ended'), new Promise((r) => setTimeout(() => r('waited'), 1_000))])
      expect(ended).toBe('ended')
      expect(unconfirmed).toBe(1)
      ends.push(await m.enterSearch(g.accountId, at))
      await expect(m.enterSearch(g.accountId, at)).rejects.toMatchObject({ code: 'RATE_LIMITED' })
    } finally {
      await g.close()
    }
  })

  it('metering.enterSearch with the memory limiter: cap, release, double release, per account, follows rps', async () => {
    const g = await makeSearchApp({ account: { name: 'cap', plan: 'custom', creditsLimit: 10, rpsLimit: 2 } })
    try {
      const m = g.c.metering
      const at = g.clock.now()
      const held = []
      for (let i = 0; i < 4; i++) held.push(await m.enterSearch(g.accountId, at))
      let refused: unknown
      try {
        await m.enterSearch(g.accountId, at)
      } catch (e) {
        refused = e
      }
      expect(refused).toBeInstanceOf(ApiError)
      const e = refused as ApiError
      expect(e.code).toBe('RATE_LIMITED')
      expect(e.status).toBe(429)
      expect(e.headers).toEqual({ 'retry-after': '1' })
      expect(e.details).toEqual({ simultaneousSearches: 4 })
      // Another account has its own cap.
      const other = await g.c.accounts.create({ name: 'other', plan: 'custom', creditsLimit: 10, rpsLimit: 1 })
      const o1 = await m.enterSearch(other.account.id, at)
      const o2 = await m.enterSearch(other.account.id, at)
      await expect(m.enterSearch(other.account.id, at)).rejects.toMatchObject({ code: 'RATE_LIMITED' })
      await o1()
      await o2()
      // Releasing one frees exactly one place, however often it is called.
      const first = held.shift() as () => Promise<void>
      await first()
      await first()
      held.push(await m.enterSearch(g.accountId, at))
      await expect(m.enterSearch(g.accountId, at)).rejects.toMatchObject({ code: 'RATE_LIMITED' })
      for (const release of held) await release()
      // A free account (rps 5) may hold 10.
      const free = await g.c.accounts.create({ name: 'free' })
      const ten = []
      for (let i = 0; i < 10; i++) ten.push(await m.enterSearch(free.account.id, at))
      await expect(m.enterSearch(free.account.id, at)).rejects.toMatchObject({ code: 'RATE_LIMITED', details: { simultaneousSearches: 10 } })
      for (const release of ten) await release()
    } finally {
      await g.close()
    }
  })
})
