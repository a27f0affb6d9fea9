/**
 * The real service's words and shapes, through the API on every backend: the field names client code
 * reads, share URNs on engagement, undated entries without a timePeriod, empty picture URLs, the
 * open-ended top size class, the additional profile sections, `fullProfile`, and ingest records in an
 * earlier release's shape read as today's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CommentsResponse,
  CompanyResponse,
  EngagementResponse,
  PostReactionsResponse,
  PostsResponse,
  ProfileArticlesResponse,
} from '../../src/contract/endpoints.schemas.ts'
import type { CompanyRecord, IngestRecord, PostRecord, ProfileRecord } from '../../src/contract/ingest.schemas.ts'
import { ProfileSchema } from '../../src/contract/resources.schemas.ts'
import { idFromTime } from '../../src/domain/content/ids.ts'
import {
  COMPANY_ID,
  FIXTURE_NOW,
  PERSON_POST_ID,
  activityUrn,
  articleRecord,
  commentRecord,
  companyRecord,
  fixtureRecords,
  personPostRecord,
  profileRecord,
  profileUrn,
} from '../helpers/ingest-fixtures.ts'
import { expectError, expectSchema, makeTestApp, type TestApp } from '../helpers/test-app.ts'

const q = encodeURIComponent
const positionUrn = (p: ProfileRecord, n: number) => `urn:li:fsd_profilePosition:(${p.profileId},${n})`

/** A member without a picture, with undated and end-only entries and every additional section filled. */
function sectionedMember(): ProfileRecord {
  const base = profileRecord(41, { slug: 'sectioned' })
  const job = base.experiences[0] as ProfileRecord['experiences'][number]
  return {
    ...base,
    profilePictureUrl: '',
    experiences: [
      job,
      { ...job, current: false, ongoing: true, dateRange: '', positionUrn: positionUrn(base, 7001), timePeriod: undefined },
      { ...job, current: false, ongoing: false, dateRange: 'Jul 2019', positionUrn: positionUrn(base, 7002), timePeriod: { endDate: { year: 2019, month: 7 } } },
    ].map(({ timePeriod, ...e }) => (timePeriod === undefined ? e : { ...e, timePeriod })),
    educations: [
      {
        name: 'University of Leeds',
        description: 'BSc, Computer Science',
        dateRange: '',
        current: false,
        educationUrn: `urn:li:fsd_profileEducation:(${base.profileId},8001)`,
        grade: '',
        details: '',
        schoolLogo: null,
        schoolUrl: 'https://www.linkedin.com/school/university-of-leeds/',
      },
    ],
    hiring: true,
    industry: 'Software Development',
    industryUrn: 'urn:li:fsd_industry:4',
    primaryLocale: { country: 'GB', language: 'en' },
    publications: [
      { name: 'Shipping data at scale', publisher: 'Data Journal', description: 'How a port counts containers.', url: 'https://journal.example/1', publishedOn: { year: 2022, month: 3 } },
      { name: 'A second paper', publisher: 'Data Journal', description: '', url: '' },
    ],
    projects: [{ title: 'Harbour index', description: 'An open index.', url: '', timePeriod: { startDate: { year: 2021 }, endDate: null } }],
    honors: [{ title: 'Best paper', issuer: 'Data Conference', description: '', issuedOn: { year: 2022 } }],
    courses: [{ name: 'Distributed systems', number: 'CS-402' }],
    organizations: [{ name: 'Data Guild', position: 'Member', description: '', timePeriod: { endDate: { year: 2020 } } }],
    patents: [{ title: 'Container counting', number: 'US 11,000,001', issuer: 'US', description: '', url: '', issuedOn: { year: 2023, month: 5 } }],
    volunteerExperiences: [{ role: 'Mentor', organization: 'Code Club', cause: 'EDUCATION', description: 'Weekly sessions.' }],
    recommendationsGiven: [{ caption: 'March 2024, Ada managed them directly', description: 'A fine engineer.', recipientFullname: 'Ada2 Okafor', recipientUrl: 'https://www.linkedin.com/in/member-2/' }],
    volunteerCauses: ['EDUCATION'],
  }
}

/** A member in an earlier release's shape: neutral field name, null start dates, no newer sections. */
function legacyMember(): Record<string, unknown> {
  const { companyLinkedinUrl, hiring, industry, industryUrn, primaryLocale, publications, projects, honors, courses, organizations, patents, volunteerExperiences, recommendationsGiven, ...rest } =
    profileRecord(42, { slug: 'legacy-shape' })
  const job = rest.experiences[0] as ProfileRecord['experiences'][number]
  return {
    ...rest,
    companyPlatformUrl: companyLinkedinUrl,
    experiences: [
      job,
      { ...job, current: false, ongoing: true, dateRange: '', positionUrn: positionUrn(rest as ProfileRecord, 7101), timePeriod: { startDate: null, endDate: null } },
      { ...job, current: false, ongoing: false, dateRange: 'Jul 2019', positionUrn: positionUrn(rest as ProfileRecord, 7102), timePeriod: { startDate: null, endDate: { year: 2019, month: 7 } } },
    ],
  }
}

const GIANT = '5550001'
const LEGACY_GIANT = '5550002'
const giant = (companyId: string, range: Record<string, number>): Record<string, unknown> => ({
  ...companyRecord(companyId),
  employeeCount: 120_000,
  employeeCountRange: range,
})

const T_VIDEO = Date.UTC(2025, 3, 2)
const VIDEO_ID = idFromTime(T_VIDEO, 31)
const LEGACY_VIDEO_ID = idFromTime(T_VIDEO, 32)
const video = { url: 'https://media.example/v.mp4', duration: 5000, thumbnail: 'https://media.example/v.jpg', progressiveStreams: [] }
const videoPost = (id: number, postType: string): Record<string, unknown> => ({
  ...personPostRecord(profileRecord(1).profileId, T_VIDEO, id),
  postType,
  video,
  videoUrl: video.url,
})

const MEMBER = sectionedMember()
const WRITER = profileRecord(43, { slug: 'writer' })
const NEW_ARTICLE = articleRecord(WRITER.profileId, Date.UTC(2024, 5, 1), 1)
const OLD_ARTICLE = { ...articleRecord(WRITER.profileId, Date.UTC(2024, 4, 1), 2), articleUrn: '' }
OLD_ARTICLE.articleUrn = `urn:li:platformArticle:${OLD_ARTICLE.articleId}`
const COMMENT_ID = idFromTime(Date.UTC(2025, 4, 1), 33)

let t: TestApp

beforeAll(async () => {
  const records: unknown[] = [
    ...fixtureRecords(),
    { kind: 'company', data: giant(GIANT, { start: 10_001 }) },
    { kind: 'company', data: giant(LEGACY_GIANT, { start: 10_001, end: 1_000_000 }) },
    { kind: 'profile', data: MEMBER },
    { kind: 'profile', data: legacyMember() },
    { kind: 'profile', data: WRITER },
    { kind: 'post', data: videoPost(31, 'linkedinVideo') },
    { kind: 'post', data: videoPost(32, 'platformVideo') },
    { kind: 'article', data: NEW_ARTICLE },
    { kind: 'article', data: OLD_ARTICLE },
    { kind: 'comment', data: commentRecord(PERSON_POST_ID, COMMENT_ID, profileUrn(MEMBER.profileId)) },
    { kind: 'postReaction', data: { postId: activityUrn(PERSON_POST_ID), reactionType: 'PRAISE', actor: { urn: profileUrn(MEMBER.profileId) } } },
  ]
  t = await makeTestApp({ nowMs: FIXTURE_NOW, records })
})
afterAll(async () => t?.close())

const profileOf = async (slug: string, extra = '') => {
  const res = await t.get(`/api/v1/profile?profileUrlOrUrn=${slug}${extra}`)
  expect(res.statusCode, res.body).toBe(200)
  return res
}

describe('profile', () => {
  it('names the current company page companyLinkedinUrl, never companyPlatformUrl', async () => {
    const body = (await profileOf('member-1')).json()
    expectSchema(ProfileSchema, body)
    expect(body.companyLinkedinUrl).toBe(companyRecord(COMPANY_ID).url)
    expect(body).not.toHaveProperty('companyPlatformUrl')
  })

  it('omits timePeriod on an undated entry and keeps an end-only one as {endDate}', async () => {
    const body = (await profileOf('sectioned')).json()
    expectSchema(ProfileSchema, body)
    const [dated, undated, endOnly] = body.experiences
    expect(dated.timePeriod).toEqual({ startDate: { year: 2021, month: 1 }, endDate: null })
    expect(dated.totalDuration).toMatch(/yrs?|mos?/)
    expect(undated).not.toHaveProperty('timePeriod')
    expect(undated).not.toHaveProperty('totalDuration')
    expect(endOnly.timePeriod).toEqual({ endDate: { year: 2019, month: 7 } })
    expect(body.educations[0]).not.toHaveProperty('timePeriod')
    expect(JSON.stringify(body)).not.toContain('"startDate":null')
  })

  it('sends every additional section as ingested', async () => {
    const body = (await profileOf('sectioned')).json()
    for (const field of ['hiring', 'industry', 'industryUrn', 'primaryLocale', 'publications', 'projects', 'honors', 'courses', 'organizations', 'patents', 'volunteerExperiences', 'recommendationsGiven'] as const) {
      expect(body[field], field).toEqual(MEMBER[field])
    }
    expect(body.profilePictureUrl).toBe('')
  })

  it('reads a record in the earlier shape as today’s', async () => {
    const body = (await profileOf('legacy-shape')).json()
    expectSchema(ProfileSchema, body)
    expect(body.companyLinkedinUrl).toBe(companyRecord(COMPANY_ID).url)
    expect(body.experiences[1]).not.toHaveProperty('timePeriod')
    expect(body.experiences[2].timePeriod).toEqual({ endDate: { year: 2019, month: 7 } })
    expect(body.hiring).toBe(false)
    expect(body.primaryLocale).toEqual({ country: 'US', language: 'en' })
    for (const section of ['publications', 'projects', 'honors', 'courses', 'organizations', 'patents', 'volunteerExperiences', 'recommendationsGiven']) {
      expect(body[section], section).toEqual([])
    }
  })

  it('a company page as a profile carries the sections too, with the page’s industry', async () => {
    const body = (await profileOf(`urn:li:fsd_company:${COMPANY_ID}`)).json()
    expect(body.companyLinkedinUrl).toBe('')
    expect(body.industry).toBe(companyRecord(COMPANY_ID).industry)
    expect(body.publications).toEqual([])
  })

  it('takes fullProfile=true at the same price with the same body; a bad value is a free 400', async () => {
    const plain = await profileOf('sectioned')
    const full = await profileOf('sectioned', '&fullProfile=true')
    expect(full.body).toBe(plain.body)
    expect(full.headers['x-credits-charged']).toBe('1')
    expect(plain.headers['x-credits-charged']).toBe('1')
    expect((await profileOf('sectioned', '&fullProfile=false')).body).toBe(plain.body)
    const bad = await t.get('/api/v1/profile?profileUrlOrUrn=sectioned&fullProfile=maybe')
    expectError(bad, 400, 'INVALID_PARAMETER')
    expect(bad.headers['x-credits-charged']).toBe('0')
    // Parameters the service does not know are ignored.
    expect((await profileOf('sectioned', '&includeSkills=true&locale=en_US')).body).toBe(plain.body)
  })
})

describe('company', () => {
  it('the top size class has no end, whether ingested with one or without', async () => {
    for (const id of [GIANT, LEGACY_GIANT]) {
      const res = await t.get(`/api/v1/company?companyUrlOrUrn=urn:li:fsd_company:${id}`)
      expect(res.statusCode, res.body).toBe(200)
      expectSchema(CompanyResponse, res.json())
      expect(res.json().employeeCountRange).toEqual({ start: 10_001 })
    }
    const small = (await t.get(`/api/v1/company?companyUrlOrUrn=urn:li:fsd_company:${COMPANY_ID}`)).json()
    expect(small.employeeCountRange).toEqual({ start: 201, end: 500 })
  })
})

describe('posts and articles', () => {
  it('a video post is linkedinVideo, also when ingested as platformVideo', async () => {
    const res = await t.get(`/api/v1/posts?profileUrlOrUrn=member-1&count=50`)
    expectSchema(PostsResponse, res.json())
    const byId = new Map((res.json().posts as PostRecord[]).map((p) => [p.id, p.postType]))
    expect(byId.get(activityUrn(VIDEO_ID))).toBe('linkedinVideo')
    expect(byId.get(activityUrn(LEGACY_VIDEO_ID))).toBe('linkedinVideo')
    const search = await t.app.inject({
      method: 'POST',
      url: '/api/v1/search/posts',
      headers: { 'x-api-key': t.key },
      payload: { query: 'shipping', contentType: ['video'], sortBy: 'date' },
    })
    expect(search.statusCode, search.body).toBe(200)
    const found = (search.json().results as { id: string; postType: string }[]).map((r) => [r.id, r.postType])
    expect(found).toEqual(expect.arrayContaining([[activityUrn(VIDEO_ID), 'linkedinVideo'], [activityUrn(LEGACY_VIDEO_ID), 'linkedinVideo']]))
  })

  it('articles carry linkedinArticle URNs; a platformArticle URN ingests as the same record', async () => {
    const res = await t.get('/api/v1/profile/articles?profileUrlOrUrn=writer')
    expect(res.statusCode, res.body).toBe(200)
    expectSchema(ProfileArticlesResponse, res.json())
    const urns = (res.json().articles as { articleUrn: string }[]).map((a) => a.articleUrn)
    expect(urns).toEqual([`urn:li:linkedinArticle:${NEW_ARTICLE.articleId}`, `urn:li:linkedinArticle:${OLD_ARTICLE.articleId}`])
    // The same article ingested again under today's URN is an upsert of one record, not a second.
    const outcomes = await t.c.writer.write([{ kind: 'article', data: { ...OLD_ARTICLE, articleUrn: `urn:li:linkedinArticle:${OLD_ARTICLE.articleId}`, title: 'Retitled' } }])
    expect(outcomes).toEqual([{ ok: true }])
    const again = (await t.get('/api/v1/profile/articles?profileUrlOrUrn=writer')).json().articles as { title: string }[]
    expect(again.map((a) => a.title)).toEqual([NEW_ARTICLE.title, 'Retitled'])
  })

  it('an article URN of another kind or id is refused with the reason', async () => {
    const [kind, id] = await t.c.writer.write([
      { kind: 'article', data: { ...NEW_ARTICLE, articleUrn: `urn:li:article:${NEW_ARTICLE.articleId}` } },
      { kind: 'article', data: { ...NEW_ARTICLE, articleUrn: 'urn:li:platformArticle:123' } },
    ])
    expect(kind).toEqual({ ok: false, reason: expect.stringContaining('data.articleUrn must match pattern "^urn:li:linkedinArticle:') })
    expect(id).toEqual({ ok: false, reason: expect.stringContaining('data.articleUrn must be urn:li:linkedinArticle:<articleId>') })
  })
})

describe('comments, reactions and engagement', () => {
  const byShare = `urn:li:share:${PERSON_POST_ID}`

  it('engagement takes a share URN and answers as for the activity URN', async () => {
    const share = await t.get(`/api/v1/post/engagement?postUrlOrUrn=${q(byShare)}`)
    expect(share.statusCode, share.body).toBe(200)
    expectSchema(EngagementResponse, share.json())
    expect(share.headers['x-credits-charged']).toBe('2')
    expect(share.json()).toEqual((await t.get(`/api/v1/post/engagement?postUrlOrUrn=${q(activityUrn(PERSON_POST_ID))}`)).json())
  })

  it('a missing picture is "" on a comment author, a reaction actor and in engagement', async () => {
    const comments = (await t.get(`/api/v1/post/comments?postUrlOrUrn=${q(byShare)}`)).json()
    expectSchema(CommentsResponse, comments)
    const mine = (comments.comments as { author: { profileId: string; profilePictureUrl: unknown } }[]).find((c) => c.author.profileId === MEMBER.profileId)
    expect(mine?.author.profilePictureUrl).toBe('')
    const reactions = (await t.get(`/api/v1/post/reactions?postUrlOrUrn=${q(byShare)}`)).json()
    expectSchema(PostReactionsResponse, reactions)
    const actor = (reactions.reactions as { actor: { profileId: string; profilePictureUrl: unknown } }[]).find((r) => r.actor.profileId === MEMBER.profileId)
    expect(actor?.actor.profilePictureUrl).toBe('')
    const engagement = (await t.get(`/api/v1/post/engagement?postUrlOrUrn=${q(byShare)}`)).body
    expect(engagement).not.toContain('"profilePictureUrl":null')
    expect(engagement).toContain('"profilePictureUrl":""')
  })
})

describe('ingest of records in the earlier shape', () => {
  it('accepts each, and refuses what is wrong in today’s terms', async () => {
    const legacy = legacyMember()
    const records: IngestRecord[] = [
      { kind: 'profile', data: { ...legacy, id: profileUrn(profileRecord(44).profileId), profileId: profileRecord(44).profileId, memberId: '90044', publicIdentifier: 'legacy-two', url: 'https://www.linkedin.com/in/legacy-two/', experiences: [] , currentPosition: null } as unknown as ProfileRecord },
      { kind: 'company', data: giant('5550003', { start: 10_001, end: 1_000_000 }) as unknown as CompanyRecord },
    ]
    expect(await t.c.writer.write(records)).toEqual([{ ok: true }, { ok: true }])
    // An undated position that says it has ended has nothing to have ended by.
    const ended = { ...legacy, experiences: [{ ...(legacy.experiences as object[])[1], ongoing: false }], currentPosition: null }
    const [refused] = await t.c.writer.write([{ kind: 'profile', data: ended }])
    expect(refused).toEqual({ ok: false, reason: expect.stringContaining('data.experiences[0].ongoing must be true') })
  })
})
