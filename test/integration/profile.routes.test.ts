import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OrganizationProfileSchema, ProfileArticlesResponse, ProfileReactionsResponse } from '../../src/contract/endpoints.schemas.ts'
import { ProfileSchema } from '../../src/contract/resources.schemas.ts'
import { idFromTime } from '../../src/domain/content/ids.ts'
import {
  ARTICLE_ID,
  AUTHOR_ID,
  COMPANY_ID,
  COMPANY_POST_ID,
  FIXTURE_NOW,
  READER_ID,
  articleRecord,
  fixtureRecords,
  profileRecord,
} from '../helpers/ingest-fixtures.ts'
import { expectError, expectSchema, makeTestApp, type TestApp } from '../helpers/test-app.ts'

let t: TestApp
const q = encodeURIComponent
// Member 3 publishes 12 articles (newest = i 11) plus one whose id does not decode.
const ARTICLE_AUTHOR = profileRecord(3, { slug: 'writer-three' })
const articles = Array.from({ length: 12 }, (_, i) => articleRecord(ARTICLE_AUTHOR.profileId, Date.UTC(2024, 0, 1 + i), i))
const undecodable = {
  ...articleRecord(ARTICLE_AUTHOR.profileId, Date.UTC(2024, 0, 1), 0),
  articleId: '6512345',
  articleUrn: 'urn:li:linkedinArticle:6512345',
  publishedAt: null,
}

beforeAll(async () => {
  t = await makeTestApp({
    nowMs: FIXTURE_NOW,
    records: [
      ...fixtureRecords(),
      { kind: 'profile', data: ARTICLE_AUTHOR },
      ...articles.map((data) => ({ kind: 'article', data })),
      { kind: 'article', data: undecodable },
    ],
  })
})
afterAll(async () => t.close())

describe('GET /api/v1/profile', () => {
  it('answers by URN, slug, URL (any form), and matches the Profile schema', async () => {
    const forms = [
      `urn:li:fsd_profile:${AUTHOR_ID}`,
      'member-1',
      'MEMBER-1',
      'https://www.linkedin.com/in/member-1/',
      'linkedin.com/in/member-1?trk=abc#x',
      'http://uk.linkedin.com/in/member-1',
    ]
    for (const form of forms) {
      const res = await t.get(`/api/v1/profile?profileUrlOrUrn=${q(form)}`)
      expect(res.statusCode, form).toBe(200)
      const body = res.json()
      expectSchema(ProfileSchema, body)
      expect(body.profileId).toBe(AUTHOR_ID)
      expect(body.id).toBe(`urn:li:fsd_profile:${AUTHOR_ID}`)
    }
  })

  it('derives the duration label from today: both ends counted, ongoing runs to today', async () => {
    // Jan 2021 to June 2025 inclusive = 54 months.
    const body = (await t.get(`/api/v1/profile?profileUrlOrUrn=member-1`)).json()
    expect(body.experiences[0].totalDuration).toBe('4 yrs 6 mos')
    t.clock.set(Date.UTC(2025, 6, 15))
    const later = (await t.get(`/api/v1/profile?profileUrlOrUrn=member-1`)).json()
    expect(later.experiences[0].totalDuration).toBe('4 yrs 7 mos')
    t.clock.set(FIXTURE_NOW)
  })

  it('an upsert is visible at once: cached bodies never outlive a write', async () => {
    const first = (await t.get('/api/v1/profile?profileUrlOrUrn=writer-three')).json()
    expect((await t.get('/api/v1/profile?profileUrlOrUrn=writer-three')).json()).toEqual(first)
    const updated = { ...ARTICLE_AUTHOR, title: 'Now writing about ports and adapters' }
    expect(await t.c.writer.write([{ kind: 'profile', data: updated }])).toEqual([{ ok: true }])
    const after = (await t.get('/api/v1/profile?profileUrlOrUrn=writer-three')).json()
    expect(after.title).toBe('Now writing about ports and adapters')
    expect(await t.c.writer.write([{ kind: 'profile', data: ARTICLE_AUTHOR }])).toEqual([{ ok: true }])
  })

  it('a company page gives the organisation in profile form', async () => {
    const res = await t.get(`/api/v1/profile?profileUrlOrUrn=${q('https://www.linkedin.com/company/northwind-1035/')}`)
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expectSchema(OrganizationProfileSchema, body)
    expect(body.firstName).toBe('Northwind Analytics')
    expect(body.title).toBe('Analytics for shipping companies.')
    // The headquarters' country code, named as a member's country is.
    expect(body).toMatchObject({ location: 'Leeds, England, United Kingdom', geoLocationName: 'Leeds', geoCountryName: 'United Kingdom', countryCode: 'GB' })
    expect(body.experiences).toEqual([])
    expect(body.educations).toEqual([])
    // A bare slug that no member has names the page, as on /api/v1/posts; a member URL never does.
    const bare = await t.get('/api/v1/profile?profileUrlOrUrn=northwind-1035')
    expect(bare.statusCode).toBe(200)
    expect(bare.json()).toEqual(body)
    expect(bare.headers['x-credits-charged']).toBe('1')
    expectError(await t.get(`/api/v1/profile?profileUrlOrUrn=${q('https://www.linkedin.com/in/northwind-1035')}`), 404, 'PROFILE_NOT_FOUND')
  })

  it('refusals: missing, unusable URN, /in/ alone, unknown profile', async () => {
    expectError(await t.get('/api/v1/profile'), 400, 'MISSING_PARAMETER')
    expectError(await t.get('/api/v1/profile?profileUrlOrUrn='), 400, 'MISSING_PARAMETER')
    expectError(await t.get('/api/v1/profile?profileUrlOrUrn=%20%20'), 400, 'MISSING_PARAMETER')
    expectError(await t.get(`/api/v1/profile?profileUrlOrUrn=${q('urn:li:fsd_profile:nope')}`), 400, 'INVALID_URN')
    expectError(await t.get(`/api/v1/profile?profileUrlOrUrn=${q('urn:li:activity:7000000000000000000')}`), 400, 'INVALID_URN')
    expectError(await t.get(`/api/v1/profile?profileUrlOrUrn=${q('https://www.linkedin.com/in/')}`), 400, 'INVALID_URN')
    expectError(await t.get(`/api/v1/profile?profileUrlOrUrn=${q('https://example.com/in/member-1')}`), 400, 'INVALID_URN')
    expectError(await t.get('/api/v1/profile?profileUrlOrUrn=no-such-member'), 404, 'PROFILE_NOT_FOUND')
    // A company page that does not exist: 4.3's one not-found code, billed 1 like any missing record.
    for (const input of ['urn:li:fsd_company:999999', 'https://www.linkedin.com/company/no-such-page/']) {
      const res = await t.get(`/api/v1/profile?profileUrlOrUrn=${q(input)}`)
      expectError(res, 404, 'PROFILE_NOT_FOUND')
      expect(res.headers['x-credits-charged'], input).toBe('1')
    }
  })
})

describe('GET /api/v1/profile/reactions', () => {
  it('lists the posts a member reacted to, trimmed post shape, with a token', async () => {
    const res = await t.get(`/api/v1/profile/reactions?profileUrlOrUrn=${q(`urn:li:fsd_profile:${READER_ID}`)}`)
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expectSchema(ProfileReactionsResponse, body)
    expect(body.reactions).toHaveLength(1)
    expect(body.reactions[0].reactionType).toBe('INTEREST')
    expect(body.reactions[0].post.id).toBe(`urn:li:activity:${COMPANY_POST_ID}`)
    expect(body.hasMore).toBe(false)
    const next = await t.get(`/api/v1/profile/reactions?profileUrlOrUrn=member-2&paginationToken=${q(body.paginationToken)}`)
    expect(next.json()).toMatchObject({ reactions: [], hasMore: false })
  })

  it('refusals: start, count range, foreign token, company page', async () => {
    expectError(await t.get('/api/v1/profile/reactions?profileUrlOrUrn=member-2&start=10'), 400, 'INVALID_PARAMETER')
    expectError(await t.get('/api/v1/profile/reactions?profileUrlOrUrn=member-2&count=0'), 400, 'INVALID_PARAMETER')
    expectError(await t.get('/api/v1/profile/reactions?profileUrlOrUrn=member-2&count=51'), 400, 'INVALID_PARAMETER')
    expectError(await t.get('/api/v1/profile/reactions?profileUrlOrUrn=member-2&paginationToken=forged.token'), 400, 'INVALID_PARAMETER')
    const other = (await t.get('/api/v1/profile/reactions?profileUrlOrUrn=member-1')).json()
    expectError(await t.get(`/api/v1/profile/reactions?profileUrlOrUrn=member-2&paginationToken=${q(other.paginationToken)}`), 400, 'INVALID_PARAMETER')
    expectError(await t.get(`/api/v1/profile/reactions?profileUrlOrUrn=${q('urn:li:fsd_company:' + COMPANY_ID)}`), 400, 'INVALID_PARAMETER')
    expectError(await t.get('/api/v1/profile/reactions?profileUrlOrUrn=ghost'), 404, 'PROFILE_NOT_FOUND')
  })

  it('a bare slug that no member has but a page has is that page: the free 400 of its URL or URN, not a 404 billed 1', async () => {
    for (const feed of ['reactions', 'articles']) {
      const res = await t.get(`/api/v1/profile/${feed}?profileUrlOrUrn=northwind-1035`)
      expectError(res, 400, 'INVALID_PARAMETER')
      expect(res.json().details).toMatchObject({ parameter: 'profileUrlOrUrn' })
      expect(res.headers['x-credits-charged']).toBe('0')
      // A slug nobody has stays a missing member: a 404 of a record bills 1.
      const ghost = await t.get(`/api/v1/profile/${feed}?profileUrlOrUrn=ghost`)
      expectError(ghost, 404, 'PROFILE_NOT_FOUND')
      expect(ghost.headers['x-credits-charged']).toBe('1')
    }
  })
})

describe('GET /api/v1/profile/articles', () => {
  const url = (params: string) => `/api/v1/profile/articles?profileUrlOrUrn=writer-three${params}`

  it('pages by offset: nextStart = start + count, the last populated page still hasMore, then an empty page ends', async () => {
    const first = (await t.get(url('&count=5'))).json()
    expectSchema(ProfileArticlesResponse, first)
    expect(first.articles.map((a: { articleId: string }) => a.articleId)).toEqual(
      articles.slice(7).reverse().map((a) => a.articleId),
    )
    expect(first).toMatchObject({ hasMore: true, nextStart: 5 })
    const third = (await t.get(url('&count=5&start=10'))).json()
    expect(third.articles).toHaveLength(3) // 2 dated + the undecodable one (smallest id, oldest)
    expect(third).toMatchObject({ hasMore: true, nextStart: 15 })
    expect(third.articles[2]).toMatchObject({ articleId: '6512345', publishedAt: null })
    const end = (await t.get(url('&count=5&start=15'))).json()
    expect(end).toEqual({ articles: [], hasMore: false })
  })

  it('clamps count above 100 and caps start above 100,000', async () => {
    const all = (await t.get(url('&count=500'))).json()
    expect(all.articles).toHaveLength(13)
    expect(all.nextStart).toBe(100)
    expect((await t.get(url('&start=200000'))).json()).toEqual({ articles: [], hasMore: false })
  })

  it('decodes publishedAt from the id', async () => {
    const body = (await t.get(`/api/v1/profile/articles?profileUrlOrUrn=member-1`)).json()
    expect(body.articles[0]).toMatchObject({ articleId: ARTICLE_ID, publishedAt: new Date(Number(BigInt(ARTICLE_ID) >> 22n)).toISOString() })
    expect(idFromTime(Date.parse(body.articles[0].publishedAt), 4)).toBe(ARTICLE_ID)
  })

  it('refusals: count 0 or negative, negative start, a company page', async () => {
    expectError(await t.get(url('&count=0')), 400, 'INVALID_PARAMETER')
    expectError(await t.get(url('&count=-3')), 400, 'INVALID_PARAMETER')
    expectError(await t.get(url('&start=-1')), 400, 'INVALID_PARAMETER')
    expectError(await t.get(url('&count=abc')), 400, 'INVALID_PARAMETER')
    expectError(await t.get(`/api/v1/profile/articles?profileUrlOrUrn=${q('https://www.linkedin.com/company/northwind-1035')}`), 400, 'INVALID_PARAMETER')
    expectError(await t.get('/api/v1/profile/articles'), 400, 'MISSING_PARAMETER')
  })
})
