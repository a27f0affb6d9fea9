/**
 * Walks every resource type of the spec through the HTTP API over a synthetic network: every
 * instance matches its (closed) schema, and for every field of the spec's tables the network shows
 * each variant the spec allows — a field that may be null is seen null and non-null, a field that
 * may be omitted is seen absent and present, a field that is always present is never missing.
 */
import type { FastifyInstance } from 'fastify'
import type { TSchema } from 'typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config/config.ts'
import { createContainer, type Container } from '../../src/container.ts'
import {
  CommentsResponse,
  CompanyPostsResponse,
  EngagementResponse,
  PostsResponse,
  PostsUpdatesResponse,
  ProfileArticlesResponse,
  ProfileReactionsResponse,
} from '../../src/contract/endpoints.schemas.ts'
import { seedSynthetic } from '../../src/seed.ts'
import { generateNetwork } from '../../src/synth/index.ts'
import { SPEC_FIELDS } from '../helpers/spec-fields.ts'
import { expectSchema } from '../helpers/test-app.ts'

const ANCHOR = Date.UTC(2026, 10, 1)
const SIZE = 300
const q = encodeURIComponent

let c: Container
let app: FastifyInstance
let key: string
/** Instances of each spec resource, as received. */
const seen: Record<string, Record<string, unknown>[]> = Object.fromEntries(Object.keys(SPEC_FIELDS).map((k) => [k, []]))

async function get(url: string, schema: TSchema): Promise<Record<string, unknown>> {
  const res = await app.inject({ method: 'GET', url, headers: { 'x-api-key': key } })
  expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).toBe(200)
  const body = res.json() as Record<string, unknown>
  expectSchema(schema, body, url)
  return body
}

const add = (resource: string, items: unknown) => {
  for (const item of items as Record<string, unknown>[]) (seen[resource] as Record<string, unknown>[]).push(item)
}

beforeAll(async () => {
  const config = loadConfig({ PRONET_SEED: 'none', LOG_LEVEL: 'silent', PRONET_SECRET: 'walk', PRONET_DATA_DIR: '/nonexistent-walk' })
  c = await createContainer(config, { clock: createManualClock(ANCHOR + 3_600_000), sqlitePath: ':memory:' })
  await seedSynthetic(c, SIZE, () => {}, { anchorMs: ANCHOR, progress: false })
  // The walk reads thousands of records: a plan with room for them (metering is tested elsewhere).
  key = (await c.accounts.create({ name: 'walk', plan: 'custom', creditsLimit: 10_000_000, rpsLimit: 100_000 })).apiKey.key
  app = await buildApp(c)

  // The subjects come from the same deterministic stream that was seeded.
  const slugs: string[] = []
  const companyIds: string[] = []
  const discussed: string[] = []
  for (const r of generateNetwork({ seed: 1, size: SIZE, anchorMs: ANCHOR, platformHost: 'www.linkedin.com' })) {
    if (r.kind === 'profile') slugs.push(r.data.publicIdentifier)
    if (r.kind === 'company') companyIds.push(r.data.companyId)
    if (r.kind === 'post' && r.data.commentCount > 1 && r.data.repostOf === undefined && discussed.length < 150) discussed.push(r.data.id)
  }

  for (const slug of slugs) {
    const profile = await get(`/api/v1/profile?profileUrlOrUrn=${q(slug)}`, SPEC_FIELDS['Profile']!.schema)
    add('Profile', [profile])
    add('Experience item', profile.experiences)
    add('Education item', profile.educations)
    add('Post', (await get(`/api/v1/posts?profileUrlOrUrn=${q(slug)}&count=50`, PostsResponse)).posts)
    const reactions = (await get(`/api/v1/profile/reactions?profileUrlOrUrn=${q(slug)}&count=50`, ProfileReactionsResponse)).reactions as Record<string, unknown>[]
    add('Reaction entry', reactions)
    add('Post inside a profile reaction', reactions.map((r) => r.post))
    add('Article', (await get(`/api/v1/profile/articles?profileUrlOrUrn=${q(slug)}&count=100`, ProfileArticlesResponse)).articles)
  }
  for (let i = 0; i < slugs.length; i += 60) {
    const list = slugs.slice(i, i + 60).join(',')
    add('Post, older shape', (await get(`/api/v1/posts/updates?profileUrlsOrUrns=${q(list)}&count=5`, PostsUpdatesResponse)).posts)
  }
  for (const id of companyIds) {
    add('Company', [await get(`/api/v1/company?companyUrlOrUrn=${q(`urn:li:fsd_company:${id}`)}`, SPEC_FIELDS['Company']!.schema)])
    add('Post', (await get(`/api/v1/company/posts?companyUrlOrUrn=${q(`urn:li:fsd_company:${id}`)}&count=100`, CompanyPostsResponse)).posts)
  }
  for (const post of discussed) {
    const e = await get(`/api/v1/post/engagement?postUrlOrUrn=${q(post)}&commentCount=100&reactionCount=100`, EngagementResponse)
    const comments = e.comments as Record<string, unknown>[]
    const withReplies = [...comments, ...comments.flatMap((x) => x.replies as Record<string, unknown>[])]
    add('Comment', withReplies)
    add('Comment author', withReplies.map((x) => x.author))
    add('Post reaction', e.reactions)
    add('Post reaction actor', (e.reactions as Record<string, unknown>[]).map((x) => x.actor))
    await get(`/api/v1/post/comments?postUrlOrUrn=${q(post)}&count=10`, CommentsResponse)
  }
}, 180_000)

afterAll(async () => {
  await app?.close()
  await c?.close()
})

describe.each(Object.entries(SPEC_FIELDS))('%s over the synthetic network', (resource, { fields }) => {
  it('occurs in responses', () => {
    expect((seen[resource] as unknown[]).length).toBeGreaterThan(5)
  })

  it.each(Object.entries(fields))('%s (%s) shows every variant the spec allows', (field, presence) => {
    const items = seen[resource] as Record<string, unknown>[]
    const absent = items.filter((x) => !(field in x)).length
    const nulls = items.filter((x) => field in x && x[field] === null).length
    const values = items.length - absent - nulls
    const variants = { absent, nulls, values }
    if (presence === 'R') expect(variants).toEqual({ absent: 0, nulls: 0, values: items.length })
    if (presence === 'N') {
      expect(absent, `${field} is never omitted`).toBe(0)
      expect(nulls, `${field} is null somewhere`).toBeGreaterThan(0)
      expect(values, `${field} has a value somewhere`).toBeGreaterThan(0)
    }
    if (presence === 'O') {
      expect(nulls, `${field} is omitted, never null`).toBe(0)
      expect(absent, `${field} is omitted somewhere`).toBeGreaterThan(0)
      expect(values, `${field} is present somewhere`).toBeGreaterThan(0)
    }
  })
})

/** The spec's rules that relate a resource's fields to each other, over every instance the walk received. */
describe('cross-field rules of the resources over the synthetic network', () => {
  type Obj = Record<string, any>
  const all = (resource: string) => seen[resource] as Obj[]
  const idTime = (urn: string) => Number(BigInt(urn.split(':').at(-1) as string) >> 22n)

  it('posts: reactionsByType holds only received types and sums to reactionCount; media fields agree', () => {
    for (const p of [...all('Post'), ...all('Post inside a profile reaction')]) {
      const counts = Object.values(p.reactionsByType as Record<string, number>)
      expect(counts.every((n) => n > 0), p.id).toBe(true)
      expect(counts.reduce((a, b) => a + b, 0), p.id).toBe(p.reactionCount)
      expect(Date.parse(p.date), `${p.id}: date is the id's time`).toBe(idTime(p.id))
      expect(p.content === '' && p.resharedPostUrn === undefined && p.reactionCount === 0 && p.commentCount === 0, `${p.id} looks like a repost without commentary`).toBe(false)
    }
    for (const p of all('Post')) {
      expect(p.imageUrl, p.id).toBe(p.images[0]?.url ?? null)
      expect(p.videoUrl, p.id).toBe(p.video?.url ?? null)
      expect(p.permissions.rootShare, `${p.id}: rootShare is false exactly when it quotes a post`).toBe(p.resharedPostUrn === undefined)
      expect('authorProfileId' in p, `${p.id}: authorProfileId on member posts only`).toBe(p.authorType === 'Person')
      if (p.authorType === 'Person') expect(p.profile.urn).toBe(`urn:li:fsd_profile:${p.authorProfileId}`)
    }
  })

  it('profiles: ids agree; current position and school point into the lists; experiences most recent first', () => {
    for (const p of all('Profile')) {
      expect(p.id).toBe(`urn:li:fsd_profile:${p.profileId}`)
      expect(p.memberId).not.toBe(p.profileId)
      const current = (p.experiences as Obj[]).filter((e) => e.current)
      expect(current.length, p.publicIdentifier).toBeLessThanOrEqual(1)
      expect(current.every((e) => e.ongoing), `${p.publicIdentifier}: current implies ongoing`).toBe(true)
      if (p.currentPosition !== null) {
        expect((p.experiences as Obj[]).some((e) => e.positionUrn === p.currentPosition.positionUrn), p.publicIdentifier).toBe(true)
      }
      if (p.currentSchool !== null) {
        expect((p.educations as Obj[]).some((e) => e.educationUrn === p.currentSchool.educationUrn), p.publicIdentifier).toBe(true)
      }
      // Most recent first by start; a year-only start is only ordered against other years.
      const starts = (p.experiences as Obj[]).map((e) => e.timePeriod?.startDate).filter((d) => d !== undefined)
      starts.slice(1).forEach((later, i) => {
        const earlier = starts[i]
        const ordered =
          earlier.year > later.year ||
          (earlier.year === later.year && (earlier.month === undefined || later.month === undefined || earlier.month >= later.month))
        expect(ordered, `${p.publicIdentifier}: most recent first`).toBe(true)
      })
      for (const e of p.experiences as Obj[]) {
        const dated = e.timePeriod !== undefined && 'startDate' in e.timePeriod
        expect('totalDuration' in e, `${p.publicIdentifier}: a duration exactly when a start date exists`).toBe(dated)
      }
    }
    // The spec's named case: no displayed position while an ongoing one exists.
    expect(all('Profile').some((p) => p.currentPosition === null && (p.experiences as Obj[]).some((e) => e.ongoing))).toBe(true)
  })

  it('companies: domain is the website without www.; the employee range holds the count', () => {
    for (const c of all('Company')) {
      expect(c.id).toBe(`urn:li:fsd_company:${c.companyId}`)
      if (c.domain !== undefined && c.websiteUrl !== undefined) {
        expect(new URL(c.websiteUrl).hostname.replace(/^www\./, ''), c.companyId).toBe(c.domain)
      }
      const { start, end } = c.employeeCountRange
      // The top size class has no end; every other class holds its count.
      if (end === undefined) expect(start, c.companyId).toBe(10_001)
      else expect(start, c.companyId).toBeLessThanOrEqual(end)
      expect(c.employeeCount, c.companyId).toBeGreaterThanOrEqual(start)
    }
  })

  it('articles: publishedAt is the id decoded, or null when it does not decode; never a guess', () => {
    for (const a of all('Article')) {
      expect(a.articleUrn).toBe(`urn:li:linkedinArticle:${a.articleId}`)
      const t = idTime(a.articleUrn)
      const decodes = t >= Date.UTC(2003, 0, 1) && t <= ANCHOR + 3_600_000
      expect(a.publishedAt, a.articleId).toBe(decodes ? new Date(t).toISOString() : null)
    }
    expect(all('Article').some((a) => a.publishedAt === null)).toBe(true)
  })

  it('comments: replies are one level deep; a company author has no profile id', () => {
    for (const c of all('Comment')) {
      for (const r of c.replies as Obj[]) expect(r.replies).toEqual([])
      expect(c.author.profileId === null, c.urn).toBe(c.author.id.startsWith('urn:li:fsd_company:'))
    }
  })
})

describe('cursor paging over HTTP on the synthetic network: tokens followed while hasMore', () => {
  /** Every post id of a member's reactions feed, following tokens while hasMore, `count` a page. */
  async function walkReactions(slug: string, count: number): Promise<string[]> {
    const ids: string[] = []
    let url = `/api/v1/profile/reactions?profileUrlOrUrn=${slug}&count=${count}`
    for (let guard = 0; guard < 500; guard++) {
      const page = await get(url, ProfileReactionsResponse)
      ids.push(...(page.reactions as { post: { id: string } }[]).map((r) => r.post.id))
      if (!page.hasMore) return ids
      url = `/api/v1/profile/reactions?profileUrlOrUrn=${slug}&count=${count}&paginationToken=${q(page.paginationToken as string)}`
    }
    throw new Error('runaway feed')
  }

  it('profile reactions: pages of 7 and pages of 50, followed by token, give the same complete list', async () => {
    const members = (seen['Profile'] as Record<string, unknown>[]).slice(0, 5)
    let longest = 0
    for (const profile of members) {
      const slug = q(profile.publicIdentifier as string)
      const small = await walkReactions(slug, 7)
      expect(small).toEqual(await walkReactions(slug, 50))
      expect(new Set(small).size).toBe(small.length)
      longest = Math.max(longest, small.length)
    }
    expect(longest).toBeGreaterThan(50)
  })
})
