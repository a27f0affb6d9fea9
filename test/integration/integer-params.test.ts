/**
 * Query parameters read as written.
 *
 * A parameter given twice (`count=5&count=5`, or two different values) is a free 400 INVALID_PARAMETER
 * naming it and saying so: the validator saw a list there and answered "must be string", which told a
 * client nothing about what to change.
 *
 * Integer query parameters (count, start, commentCount, commentStart, reactionCount, reactionStart)
 * are whole numbers in decimal digits. Text the schema validator's Number() coercion would take
 * (Infinity, -Infinity, 1e400, 0x10, 1e1, ' 10') is a free 400 naming the parameter (INVALID_PARAMETER,
 * as for any bad value); more digits than any offset can mean never reach the store as a float
 * (they were a 500 from SQLite) and are answered like any large value.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMPANY_ID, PERSON_POST_ID, fixtureRecords } from '../helpers/ingest-fixtures.ts'
import { expectError, makeTestApp, type TestApp } from '../helpers/test-app.ts'

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0)
const q = encodeURIComponent
let t: TestApp
let key: string
let accountId: string

beforeAll(async () => {
  t = await makeTestApp({ nowMs: NOW, records: fixtureRecords() })
  const acct = await t.c.accounts.create({ name: 'query-params', plan: 'custom', creditsLimit: 100_000, rpsLimit: 100_000 })
  key = acct.apiKey.key
  accountId = acct.account.id
})
afterAll(async () => t.close())

const debits = async () => (await t.c.ledger.entries(accountId)).filter((e) => e.kind === 'debit').length

/** Every integer parameter of every data route, with a request that is otherwise valid. */
const PARAMS: [path: string, param: string][] = [
  ['/api/v1/profile/reactions?profileUrlOrUrn=member-1', 'count'],
  ['/api/v1/profile/reactions?profileUrlOrUrn=member-1', 'start'],
  ['/api/v1/profile/articles?profileUrlOrUrn=member-1', 'count'],
  ['/api/v1/profile/articles?profileUrlOrUrn=member-1', 'start'],
  ['/api/v1/posts?profileUrlOrUrn=member-1', 'count'],
  ['/api/v1/posts?profileUrlOrUrn=member-1', 'start'],
  ['/api/v1/posts/updates?profileUrlsOrUrns=member-1', 'count'],
  [`/api/v1/company/posts?companyUrlOrUrn=${COMPANY_ID}`, 'count'],
  [`/api/v1/company/posts?companyUrlOrUrn=${COMPANY_ID}`, 'start'],
  [`/api/v1/post/engagement?postUrlOrUrn=${q(PERSON_POST_ID)}`, 'commentCount'],
  [`/api/v1/post/engagement?postUrlOrUrn=${q(PERSON_POST_ID)}`, 'commentStart'],
  [`/api/v1/post/engagement?postUrlOrUrn=${q(PERSON_POST_ID)}`, 'reactionCount'],
  [`/api/v1/post/engagement?postUrlOrUrn=${q(PERSON_POST_ID)}`, 'reactionStart'],
  [`/api/v1/post/comments?postUrlOrUrn=${q(PERSON_POST_ID)}`, 'count'],
  [`/api/v1/post/comments?postUrlOrUrn=${q(PERSON_POST_ID)}`, 'start'],
  [`/api/v1/post/reactions?postUrlOrUrn=${q(PERSON_POST_ID)}`, 'count'],
  [`/api/v1/post/reactions?postUrlOrUrn=${q(PERSON_POST_ID)}`, 'start'],
]

describe('integer query parameters', () => {
  it('refuse non-decimal text, infinities and exponents: free 400 INVALID_PARAMETER naming the parameter', async () => {
    for (const [path, param] of PARAMS) {
      for (const value of ['Infinity', '-Infinity', '1e400', '0x10', '0b11', '1e1', '10.0', '+5', ' 10', '5 ', 'NaN', 'ten']) {
        const res = await t.get(`${path}&${param}=${q(value)}`, key)
        const body = expectError(res, 400, 'INVALID_PARAMETER')
        expect(body.details, `${path} ${param}=${value}`).toEqual({ parameter: param })
        expect(res.headers['x-credits-charged']).toBe('0')
      }
    }
    expect(await debits()).toBe(0)
  })

  it('refuse an empty value as any other text, in the same words', async () => {
    for (const [path, param] of PARAMS) {
      const body = expectError(await t.get(`${path}&${param}=`, key), 400, 'INVALID_PARAMETER')
      expect(body.error, `${path} ${param}=`).toBe(`Invalid parameter '${param}': must be a whole number written in decimal digits.`)
      expect(body.details).toEqual({ parameter: param })
    }
    expect(await debits()).toBe(0)
  })

  it('offsets with more digits than an integer holds give an empty page, never a 500', async () => {
    for (const value of ['10000000000000000000', '9223372036854775807', '123456789012345678901234567890']) {
      const comments = await t.get(`/api/v1/post/comments?postUrlOrUrn=${q(PERSON_POST_ID)}&start=${value}`, key)
      expect(comments.statusCode, comments.body).toBe(200)
      const reactions = await t.get(`/api/v1/post/reactions?postUrlOrUrn=${q(PERSON_POST_ID)}&start=${value}&count=5`, key)
      expect(reactions.statusCode, reactions.body).toBe(200)
      const engagement = await t.get(
        `/api/v1/post/engagement?postUrlOrUrn=${q(PERSON_POST_ID)}&commentStart=${value}&reactionStart=${value}&commentCount=5&reactionCount=5`,
        key,
      )
      expect(engagement.statusCode, engagement.body).toBe(200)
      expect(engagement.json()).toMatchObject({ commentsHasMore: false, reactionsHasMore: false })
      // Articles cap their offset: still a page, not an error.
      const articles = await t.get(`/api/v1/profile/articles?profileUrlOrUrn=member-1&start=${value}`, key)
      expect(articles.statusCode, articles.body).toBe(200)
    }
  })

  it('counts keep their rules: a huge count is over the maximum or clamped, a negative one refused, a plain one served', async () => {
    expectError(await t.get('/api/v1/posts?profileUrlOrUrn=member-1&count=99999999999999999999', key), 400, 'INVALID_PARAMETER')
    const clamped = await t.get('/api/v1/profile/articles?profileUrlOrUrn=member-1&count=99999999999999999999', key)
    expect(clamped.statusCode, clamped.body).toBe(200)
    // Clamped to 100: billed as 100 (1 credit per started block of 50: 51–100 → 2).
    expect(clamped.headers['x-credits-charged']).toBe('2')
    expectError(await t.get('/api/v1/posts?profileUrlOrUrn=member-1&count=-5', key), 400, 'INVALID_PARAMETER')
    expectError(await t.get('/api/v1/posts?profileUrlOrUrn=member-1&count=-99999999999999999999', key), 400, 'INVALID_PARAMETER')
    const plain = await t.get('/api/v1/posts?profileUrlOrUrn=member-1&count=007', key)
    expect(plain.statusCode, plain.body).toBe(200)
    expect(plain.json().pageSize).toBe(7)
  })
})

describe('repeated query parameters', () => {
  it('are a free 400 naming the parameter, on data and account routes alike', async () => {
    const before = await debits()
    const cases: [path: string, param: string][] = [
      ['/api/v1/profile?profileUrlOrUrn=member-1&profileUrlOrUrn=member-1', 'profileUrlOrUrn'],
      ['/api/v1/posts?profileUrlOrUrn=member-1&count=5&count=5', 'count'],
      ['/api/v1/posts?profileUrlOrUrn=member-1&count=5&count=7', 'count'],
      ['/api/v1/posts/updates?profileUrlsOrUrns=member-1&profileUrlsOrUrns=member-2', 'profileUrlsOrUrns'],
      [`/api/v1/company?companyUrlOrUrn=${COMPANY_ID}&companyUrlOrUrn=${COMPANY_ID}`, 'companyUrlOrUrn'],
      [`/api/v1/post/engagement?postUrlOrUrn=${q(PERSON_POST_ID)}&reactionStart=0&reactionStart=5`, 'reactionStart'],
      ['/api/v1/usage?from=2026-11-01&from=2026-11-02', 'from'],
    ]
    for (const [path, param] of cases) {
      const res = await t.get(path, key)
      const body = expectError(res, 400, 'INVALID_PARAMETER')
      expect(body.details, path).toEqual({ parameter: param })
      expect(body.error, path).toContain('more than once')
      expect(res.headers['x-credits-charged'], path).toBe('0')
    }
    expect(await debits()).toBe(before)
  })

  it('a parameter given once is served as before', async () => {
    const res = await t.get('/api/v1/posts?profileUrlOrUrn=member-1&count=5', key)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().pageSize).toBe(5)
  })
})
