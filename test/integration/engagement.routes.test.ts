import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CommentsResponse, EngagementResponse, PostReactionsResponse } from '../../src/contract/endpoints.schemas.ts'
import type { IngestRecord } from '../../src/contract/ingest.schemas.ts'
import { idFromTime } from '../../src/domain/content/ids.ts'
import {
  AUTHOR_ID,
  COMMENT_ID,
  COMPANY_ID,
  FIXTURE_NOW,
  PERSON_POST_ID,
  READER_ID,
  REPLY_ID,
  commentRecord,
  companyUrn,
  fixtureRecords,
  profileRecord,
  profileUrn,
} from '../helpers/ingest-fixtures.ts'
import { expectError, expectSchema, makeTestApp, type TestApp } from '../helpers/test-app.ts'

let t: TestApp
const q = encodeURIComponent
const POST = `urn:li:activity:${PERSON_POST_ID}`
// 7 more top-level comments with distinct reaction counts, and 9 more reactors.
const extraProfiles = Array.from({ length: 9 }, (_, i) => profileRecord(20 + i, { slug: `reactor-${i}` }))
const extra: IngestRecord[] = [
  ...extraProfiles.map((data) => ({ kind: 'profile' as const, data })),
  ...Array.from({ length: 7 }, (_, i) => ({
    kind: 'comment' as const,
    data: commentRecord(PERSON_POST_ID, idFromTime(Date.UTC(2025, 0, 11, i), 50 + i), profileUrn(extraProfiles[i]!.profileId), { reactionCount: 10 + i }),
  })),
  ...extraProfiles.map((p, i) => ({
    kind: 'postReaction' as const,
    data: { postId: POST, reactionType: i % 2 ? ('LIKE' as const) : ('EMPATHY' as const), actor: { urn: profileUrn(p.profileId) } },
  })),
]

beforeAll(async () => {
  t = await makeTestApp({ nowMs: FIXTURE_NOW, records: [...fixtureRecords(), ...extra] })
})
afterAll(async () => t.close())

describe('GET /api/v1/post/engagement', () => {
  it('returns comments (pinned first, replies nested) and reactions with the same item shapes as their own endpoints', async () => {
    const res = await t.get(`/api/v1/post/engagement?postUrlOrUrn=${q(POST)}`)
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expectSchema(EngagementResponse, body)
    expect(body.post).toBe(POST)
    expect(body.comments).toHaveLength(8)
    expect(body.comments[0]).toMatchObject({ urn: `urn:li:comment:(activity:${PERSON_POST_ID},${COMMENT_ID})`, pinned: true })
    expect(body.comments[0].replies).toHaveLength(1)
    expect(body.comments[0].replies[0]).toMatchObject({ urn: `urn:li:comment:(activity:${PERSON_POST_ID},${REPLY_ID})`, replies: [] })
    expect(body.comments[0].author).toMatchObject({ id: profileUrn(READER_ID), profileId: READER_ID, publicId: 'member-2' })
    const counts = body.comments.slice(1).map((c: { reactionCount: number }) => c.reactionCount)
    expect(counts).toEqual([...counts].sort((a, b) => b - a))
    expect(body.reactions).toHaveLength(11)
    const company = body.reactions.find((r: { actor: { urn: string } }) => r.actor.urn === companyUrn(COMPANY_ID))
    expect(company.actor.profileId).toBeNull()
    expect(body.commentsHasMore).toBe(false)
    expect(body.commentsPaginationToken).toBeUndefined()
    expect(body.reactionsHasMore).toBe(false)
  })

  it('comments page by token, reactions by offset, until the HasMore flags are false', async () => {
    const seen: string[] = []
    let url = `/api/v1/post/engagement?postUrlOrUrn=${q(POST)}&commentCount=3&reactionCount=4`
    for (let page = 0; page < 10; page++) {
      const body = (await t.get(url)).json()
      expectSchema(EngagementResponse, body)
      seen.push(...body.comments.map((c: { urn: string }) => c.urn))
      if (!body.commentsHasMore) break
      url = `/api/v1/post/engagement?postUrlOrUrn=${q(POST)}&commentCount=3&commentPaginationToken=${q(body.commentsPaginationToken)}`
    }
    expect(seen).toHaveLength(8)
    expect(new Set(seen).size).toBe(8)
    const actors: string[] = []
    for (let start = 0; ; start += 4) {
      const body = (await t.get(`/api/v1/post/engagement?postUrlOrUrn=${q(POST)}&reactionCount=4&reactionStart=${start}`)).json()
      actors.push(...body.reactions.map((r: { actor: { urn: string } }) => r.actor.urn))
      if (!body.reactionsHasMore) break
    }
    expect(actors).toHaveLength(11)
    expect(new Set(actors).size).toBe(11)
  })

  it('accepts post URLs and the ugcPost/share URN of the same post', async () => {
    expect((await t.get(`/api/v1/post/engagement?postUrlOrUrn=${q(`https://www.linkedin.com/feed/update/${POST}/`)}`)).statusCode).toBe(200)
    expect((await t.get(`/api/v1/post/engagement?postUrlOrUrn=${q(`https://www.linkedin.com/posts/ada_shipping-activity-${PERSON_POST_ID}-abcd`)}`)).statusCode).toBe(200)
    // A bare share URN names the post on engagement as on comments and reactions.
    const byShare = await t.get(`/api/v1/post/engagement?postUrlOrUrn=${q(`urn:li:share:${PERSON_POST_ID}`)}`)
    expect(byShare.statusCode, byShare.body).toBe(200)
    expect(byShare.json()).toEqual((await t.get(`/api/v1/post/engagement?postUrlOrUrn=${q(POST)}`)).json())
    const viaShare = await t.get(`/api/v1/post/comments?postUrlOrUrn=${q(`urn:li:share:${PERSON_POST_ID}`)}`)
    expect(viaShare.statusCode).toBe(200)
    // A post URL holding the share URN is a post URL: engagement takes it as comments does.
    const shareUrl = q(`https://www.linkedin.com/feed/update/urn:li:share:${PERSON_POST_ID}/`)
    const engagement = await t.get(`/api/v1/post/engagement?postUrlOrUrn=${shareUrl}`)
    expect(engagement.statusCode, engagement.body).toBe(200)
    expect(engagement.json().comments).toEqual((await t.get(`/api/v1/post/comments?postUrlOrUrn=${shareUrl}`)).json().comments)
  })

  it('refusals', async () => {
    expectError(await t.get('/api/v1/post/engagement'), 400, 'MISSING_PARAMETER')
    expectError(await t.get(`/api/v1/post/engagement?postUrlOrUrn=${q(`urn:li:fsd_profile:${AUTHOR_ID}`)}`), 400, 'INVALID_URN')
    expectError(await t.get(`/api/v1/post/engagement?postUrlOrUrn=${q(POST)}&commentCount=101`), 400, 'INVALID_PARAMETER')
    expectError(await t.get(`/api/v1/post/engagement?postUrlOrUrn=${q(POST)}&reactionStart=-1`), 400, 'INVALID_PARAMETER')
    expectError(await t.get(`/api/v1/post/engagement?postUrlOrUrn=${q(POST)}&commentPaginationToken=zzz`), 400, 'INVALID_PARAMETER')
    expectError(await t.get(`/api/v1/post/engagement?postUrlOrUrn=${q('urn:li:activity:7000000000000000001')}`), 404, 'POST_NOT_FOUND')
  })
})

describe('GET /api/v1/post/comments and /api/v1/post/reactions', () => {
  it('comments: {comments, paginationToken?, hasMore}', async () => {
    const first = (await t.get(`/api/v1/post/comments?postUrlOrUrn=${q(POST)}&count=5`)).json()
    expectSchema(CommentsResponse, first)
    expect(first).toMatchObject({ hasMore: true })
    const second = (await t.get(`/api/v1/post/comments?postUrlOrUrn=${q(POST)}&count=5&paginationToken=${q(first.paginationToken)}`)).json()
    expectSchema(CommentsResponse, second)
    expect(second.comments).toHaveLength(3)
    expect(second.hasMore).toBe(false)
    expect(second.paginationToken).toBeUndefined()
    const byOffset = (await t.get(`/api/v1/post/comments?postUrlOrUrn=${q(POST)}&count=5&start=5`)).json()
    expect(byOffset.comments).toEqual(second.comments)
  })

  it('a comment shown on page 1 that falls to the bottom meanwhile makes page 2 skip none (the token holds its place, not an offset)', async () => {
    const first = (await t.get(`/api/v1/post/comments?postUrlOrUrn=${q(POST)}&count=3`)).json()
    const all = (await t.get(`/api/v1/post/comments?postUrlOrUrn=${q(POST)}&count=50`)).json().comments.map((c: { urn: string }) => c.urn)
    expect(first.comments.map((c: { urn: string }) => c.urn)).toEqual(all.slice(0, 3))
    // The best-liked comment of the extra ones (on page 1) loses its reactions.
    const best = extra.filter((r) => r.kind === 'comment').at(-1) as { kind: 'comment'; data: ReturnType<typeof commentRecord> }
    expect(all.slice(0, 3)).toContain(best.data.urn)
    expect(await t.c.writer.write([{ kind: 'comment', data: { ...best.data, reactionCount: 0 } }])).toEqual([{ ok: true }])
    try {
      const rest: string[] = []
      for (let token = first.paginationToken as string | undefined; token !== undefined; ) {
        const page = (await t.get(`/api/v1/post/comments?postUrlOrUrn=${q(POST)}&count=3&paginationToken=${q(token)}`)).json()
        rest.push(...page.comments.map((c: { urn: string }) => c.urn))
        token = page.paginationToken
      }
      // Every comment page 1 did not show comes once; the one that fell comes again, at the end.
      expect(rest).toEqual([...all.slice(3).filter((u: string) => u !== best.data.urn), best.data.urn].filter((u, i, a) => a.indexOf(u) === i))
    } finally {
      expect(await t.c.writer.write([{ kind: 'comment', data: best.data }])).toEqual([{ ok: true }])
    }
    // A token issued before (an offset) still opens, at that offset.
    const older = t.c.tokens.issue(`comments:${PERSON_POST_ID}`, 3)
    const fromOffset = (await t.get(`/api/v1/post/comments?postUrlOrUrn=${q(POST)}&count=3&paginationToken=${q(older)}`)).json()
    expect(fromOffset.comments.map((c: { urn: string }) => c.urn)).toEqual(all.slice(3, 6))
    // A place that is not one is refused.
    const bad = t.c.tokens.issue(`comments:${PERSON_POST_ID}`, [2, 1, 0, 'x'])
    expectError(await t.get(`/api/v1/post/comments?postUrlOrUrn=${q(POST)}&paginationToken=${q(bad)}`), 400, 'INVALID_PARAMETER')
  })

  it('reactions: {reactions, hasMore}, offset paging, no date', async () => {
    const body = (await t.get(`/api/v1/post/reactions?postUrlOrUrn=${q(POST)}&count=10`)).json()
    expectSchema(PostReactionsResponse, body)
    expect(body.reactions).toHaveLength(10)
    expect(body.hasMore).toBe(true)
    const rest = (await t.get(`/api/v1/post/reactions?postUrlOrUrn=${q(POST)}&count=10&start=10`)).json()
    expect(rest).toMatchObject({ hasMore: false })
    expect(rest.reactions).toHaveLength(1)
    expectError(await t.get(`/api/v1/post/reactions?postUrlOrUrn=${q(POST)}&count=0`), 400, 'INVALID_PARAMETER')
    expectError(await t.get(`/api/v1/post/reactions?postUrlOrUrn=${q('urn:li:ugcPost:999')}`), 404, 'POST_NOT_FOUND')
  })
})
