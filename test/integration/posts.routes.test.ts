import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CompanyPostsResponse, PostsResponse, PostsUpdatesResponse } from '../../src/contract/endpoints.schemas.ts'
import type { PostRecord } from '../../src/contract/ingest.schemas.ts'
import {
  AUTHOR_ID,
  COMPANY_ID,
  COMPANY_POST_ID,
  FIXTURE_NOW,
  PERSON_POST_ID,
  REPOST_ID,
  activityUrn,
  companyPostRecord,
  fixtureRecords,
  generatedPostRecord,
  profileRecord,
} from '../helpers/ingest-fixtures.ts'
import { expectError, expectSchema, makeTestApp, type TestApp } from '../helpers/test-app.ts'

let t: TestApp
const q = encodeURIComponent
const PROLIFIC = profileRecord(5, { slug: 'prolific' })
// 30 posts, one a minute; every 4th is a repost without commentary.
const prolificPosts: PostRecord[] = Array.from({ length: 30 }, (_, n) => {
  const p = generatedPostRecord(PROLIFIC.profileId, n)
  return n % 4 === 3 ? { ...p, content: '', reactionsByType: {}, reactionCount: 0, repostOf: activityUrn(PERSON_POST_ID) } : p
})
const companyPosts = Array.from({ length: 12 }, (_, n) => companyPostRecord(COMPANY_ID, Date.UTC(2024, 5, 1) + n * 3_600_000, 100 + n))

beforeAll(async () => {
  t = await makeTestApp({
    nowMs: FIXTURE_NOW,
    records: [
      ...fixtureRecords(),
      { kind: 'profile', data: PROLIFIC },
      ...prolificPosts.map((data) => ({ kind: 'post', data })),
      ...companyPosts.map((data) => ({ kind: 'post', data })),
    ],
  })
})
afterAll(async () => t.close())

/** Walks a cursor feed to its end; returns every page. */
async function walk(first: string, next: (token: string) => string) {
  const pages = []
  let res = (await t.get(first)).json()
  pages.push(res)
  while (res.hasMore) {
    res = (await t.get(next(res.paginationToken))).json()
    pages.push(res)
    if (pages.length > 50) throw new Error('runaway feed')
  }
  return pages
}

describe('GET /api/v1/posts', () => {
  it('pages newest first by token, filters reposts, pageSize = requested count, never loses or repeats a post', async () => {
    const pages = await walk('/api/v1/posts?profileUrlOrUrn=prolific&count=8', (tok) => `/api/v1/posts?profileUrlOrUrn=prolific&count=8&paginationToken=${q(tok)}`)
    for (const page of pages) {
      expectSchema(PostsResponse, page)
      expect(page.pageSize).toBe(8)
      expect(typeof page.paginationToken).toBe('string')
    }
    const ids = pages.flatMap((p) => p.posts.map((x: { id: string }) => x.id))
    const expected = prolificPosts.filter((p) => p.repostOf === undefined).map((p) => p.id).reverse()
    expect(ids).toEqual(expected)
    // 30 rows / 8 per page: pages of 8 rows hold 6 posts once reposts are removed.
    expect(pages[0].posts).toHaveLength(6)
    expect(pages.at(-1).hasMore).toBe(false)
  })

  it('accepts a member URN and a company page', async () => {
    const byMember = (await t.get(`/api/v1/posts?profileUrlOrUrn=${q('urn:li:member:90005')}&count=2`)).json()
    expect(byMember.posts[0].authorProfileId).toBe(PROLIFIC.profileId)
    const byCompany = (await t.get(`/api/v1/posts?profileUrlOrUrn=${q('https://www.linkedin.com/company/northwind-1035/')}&count=50`)).json()
    expectSchema(PostsResponse, byCompany)
    expect(byCompany.posts.every((p: { authorType: string }) => p.authorType === 'Company')).toBe(true)
    expect(byCompany.posts).toHaveLength(13)
    // A bare slug no member has may be a page's: the same posts, paged as the page's feed.
    const bySlug = await t.get('/api/v1/posts?profileUrlOrUrn=Northwind-1035&count=50')
    expect(bySlug.statusCode, bySlug.body).toBe(200)
    expect(bySlug.json().posts).toEqual(byCompany.posts)
    const page1 = (await t.get('/api/v1/posts?profileUrlOrUrn=northwind-1035&count=5')).json()
    const page2 = (await t.get(`/api/v1/posts?profileUrlOrUrn=northwind-1035&count=5&paginationToken=${q(page1.paginationToken)}`)).json()
    expect([...page1.posts, ...page2.posts]).toEqual(byCompany.posts.slice(0, 10))
    // A member's slug comes first, and a page slug in a /in/ URL names no one.
    expect((await t.get('/api/v1/posts?profileUrlOrUrn=member-1')).json().posts[0].authorType).toBe('Person')
    expectError(await t.get(`/api/v1/posts?profileUrlOrUrn=${q('https://www.linkedin.com/in/northwind-1035/')}`), 404, 'COMPANY_NOT_FOUND')
  })

  it('never returns reposts without commentary', async () => {
    const body = (await t.get(`/api/v1/posts?profileUrlOrUrn=member-1&count=50`)).json()
    expect(body.posts.map((p: { id: string }) => p.id)).toEqual([activityUrn(PERSON_POST_ID)])
    expect(JSON.stringify(body)).not.toContain(REPOST_ID)
  })

  it('refusals', async () => {
    expectError(await t.get('/api/v1/posts'), 400, 'MISSING_PARAMETER')
    expectError(await t.get('/api/v1/posts?profileUrlOrUrn=prolific&start=5'), 400, 'INVALID_PARAMETER')
    expectError(await t.get('/api/v1/posts?profileUrlOrUrn=prolific&count=51'), 400, 'INVALID_PARAMETER')
    expectError(await t.get('/api/v1/posts?profileUrlOrUrn=prolific&count=0'), 400, 'INVALID_PARAMETER')
    expectError(await t.get('/api/v1/posts?profileUrlOrUrn=prolific&paginationToken=abc'), 400, 'INVALID_PARAMETER')
    const tok = (await t.get('/api/v1/posts?profileUrlOrUrn=member-1')).json().paginationToken as string
    expectError(await t.get(`/api/v1/posts?profileUrlOrUrn=prolific&paginationToken=${q(tok)}`), 400, 'INVALID_PARAMETER')
    const tampered = `${tok.slice(0, -2)}${tok.endsWith('A') ? 'B' : 'A'}A`
    expectError(await t.get(`/api/v1/posts?profileUrlOrUrn=member-1&paginationToken=${q(tampered)}`), 400, 'INVALID_PARAMETER')
    expectError(await t.get(`/api/v1/posts?profileUrlOrUrn=${q('urn:li:ugcPost:123')}`), 400, 'INVALID_URN')
    // 4.6 lists COMPANY_NOT_FOUND as its one not-found code: a missing member answers it too.
    expectError(await t.get('/api/v1/posts?profileUrlOrUrn=nobody'), 404, 'COMPANY_NOT_FOUND')
    expectError(await t.get(`/api/v1/posts?profileUrlOrUrn=${q(`urn:li:fsd_profile:ACoAA${'z'.repeat(34)}`)}`), 404, 'COMPANY_NOT_FOUND')
    expectError(await t.get(`/api/v1/posts?profileUrlOrUrn=${q('urn:li:fsd_company:42')}`), 404, 'COMPANY_NOT_FOUND')
  })
})

describe('GET /api/v1/posts/updates', () => {
  it('aggregates newest first in the older shape, count per profile, formats mixed', async () => {
    const list = ['prolific', `urn:li:fsd_profile:${AUTHOR_ID}`, 'https://www.linkedin.com/in/member-2/'].join(',')
    const body = (await t.get(`/api/v1/posts/updates?profileUrlsOrUrns=${q(list)}&count=3`)).json()
    expectSchema(PostsUpdatesResponse, body)
    // prolific: its 3 newest non-reposts; member-1: its one post; member-2: none.
    expect(body.posts).toHaveLength(4)
    const times = body.posts.map((p: { date: string }) => Date.parse(p.date))
    expect([...times].sort((a, b) => b - a)).toEqual(times)
  })

  it('one profile named in several forms gives its posts once; ids differing only in case are two profiles', async () => {
    const prolificId = PROLIFIC.profileId
    const once = (await t.get(`/api/v1/posts/updates?profileUrlsOrUrns=prolific&count=3`)).json().posts.map((p: { id: string }) => p.id)
    expect(once).toHaveLength(3)
    expect(new Set(once).size).toBe(3)
    expect(once.every((id: unknown) => typeof id === 'string')).toBe(true)
    for (const list of [
      ['prolific', 'PROLIFIC', `urn:li:fsd_profile:${prolificId}`, prolificId],
      [prolificId, 'https://www.linkedin.com/in/prolific/'],
    ]) {
      const res = await t.get(`/api/v1/posts/updates?profileUrlsOrUrns=${q(list.join(','))}&count=3`)
      expect(res.statusCode, res.body).toBe(200)
      expect(res.json().posts.map((p: { id: string }) => p.id)).toEqual(once)
    }
    // Profile ids are case-sensitive. The same id with one letter's case flipped names another
    // (here missing) profile; it neither hides the real one nor takes its place, in either order.
    const letter = prolificId.slice(5).search(/[A-Za-z]/) + 5
    const c = prolificId[letter] as string
    const flipped = prolificId.slice(0, letter) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + prolificId.slice(letter + 1)
    expect(flipped).not.toBe(prolificId)
    for (const list of [[prolificId, flipped], [flipped, prolificId]]) {
      const res = await t.get(`/api/v1/posts/updates?profileUrlsOrUrns=${q(list.join(','))}&count=3`)
      expect(res.statusCode, res.body).toBe(200)
      expect(res.json().posts.map((p: { id: string }) => p.id)).toEqual(once)
    }
  })

  it('refusals: missing, more than 60 profiles, count out of range', async () => {
    expectError(await t.get('/api/v1/posts/updates'), 400, 'MISSING_PARAMETER')
    expectError(await t.get('/api/v1/posts/updates?profileUrlsOrUrns=,,'), 400, 'MISSING_PARAMETER')
    const many = Array.from({ length: 61 }, (_, i) => `m-${i}`).join(',')
    expectError(await t.get(`/api/v1/posts/updates?profileUrlsOrUrns=${many}`), 400, 'INVALID_PARAMETER')
    expectError(await t.get('/api/v1/posts/updates?profileUrlsOrUrns=prolific&count=101'), 400, 'INVALID_PARAMETER')
    expectError(await t.get(`/api/v1/posts/updates?profileUrlsOrUrns=${q('prolific,urn:li:bad:1')}`), 400, 'INVALID_URN')
    expectError(await t.get('/api/v1/posts/updates?profileUrlsOrUrns=ghost-a,ghost-b'), 404, 'PROFILE_NOT_FOUND')
  })
})

describe('GET /api/v1/company/posts', () => {
  it('pageSize counts rows before repost removal; the token is present only while more remain', async () => {
    const first = (await t.get(`/api/v1/company/posts?companyUrlOrUrn=northwind-1035&count=10`)).json()
    expectSchema(CompanyPostsResponse, first)
    expect(first).toMatchObject({ hasMore: true, pageSize: 10 })
    expect(first.posts[0].id).toBe(activityUrn(COMPANY_POST_ID))
    const second = (await t.get(`/api/v1/company/posts?companyUrlOrUrn=northwind-1035&count=10&paginationToken=${q(first.paginationToken)}`)).json()
    expectSchema(CompanyPostsResponse, second)
    expect(second).toMatchObject({ hasMore: false, pageSize: 3 })
    expect(second.paginationToken).toBeUndefined()
    expect(second.posts.at(-1).id).toBe(companyPosts[0]!.id)
  })

  it('count above 100 is clamped; the profileUrlOrUrn alias works; companyUrlOrUrn wins', async () => {
    const body = (await t.get('/api/v1/company/posts?profileUrlOrUrn=northwind-1035&count=1000')).json()
    expect(body.pageSize).toBe(13)
    const both = await t.get('/api/v1/company/posts?companyUrlOrUrn=northwind-1035&profileUrlOrUrn=ghost-co')
    expect(both.statusCode).toBe(200)
    expect((await t.get(`/api/v1/company/posts?companyUrlOrUrn=${q('urn:li:fsd_organizationalPage:1035')}`)).statusCode).toBe(200)
  })

  it('refusals: member input, count 0, start, unknown page', async () => {
    expectError(await t.get('/api/v1/company/posts'), 400, 'MISSING_PARAMETER')
    expectError(await t.get(`/api/v1/company/posts?companyUrlOrUrn=${q('https://www.linkedin.com/in/member-1')}`), 400, 'INVALID_PARAMETER')
    expectError(await t.get(`/api/v1/company/posts?companyUrlOrUrn=${q(`urn:li:fsd_profile:${AUTHOR_ID}`)}`), 400, 'INVALID_PARAMETER')
    expectError(await t.get('/api/v1/company/posts?companyUrlOrUrn=northwind-1035&count=0'), 400, 'INVALID_PARAMETER')
    expectError(await t.get('/api/v1/company/posts?companyUrlOrUrn=northwind-1035&count=-1'), 400, 'INVALID_PARAMETER')
    expectError(await t.get('/api/v1/company/posts?companyUrlOrUrn=northwind-1035&start=1'), 400, 'INVALID_PARAMETER')
    expectError(await t.get('/api/v1/company/posts?companyUrlOrUrn=no-such-co'), 404, 'COMPANY_NOT_FOUND')
  })
})
