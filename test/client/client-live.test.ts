/**
 * @pronet/client against a running pronet (the real app listening on a local port, over a synthetic
 * network): every method, the meta of an answer, the error classes, and every paged list walked by
 * its iterator to its end, compared with a walk of the raw HTTP API.
 */
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { IngestRecord } from '../../src/contract/ingest.schemas.ts'
import { MAX_DEPTH } from '../../src/domain/search/search-limits.ts'
import { generateNetwork } from '../../src/synth/index.ts'
import {
  CompanyNotFoundError,
  InvalidApiKeyError,
  InvalidParameterError,
  PostNotFoundError,
  ProfileNotFoundError,
  PronetClient,
  PronetError,
  UnauthenticatedError,
} from '../../packages/client/src/index.ts'
import { generatedPostRecord, profileIdFor, profileRecord } from '../helpers/ingest-fixtures.ts'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'

const ANCHOR = Date.UTC(2026, 10, 1)
const q = encodeURIComponent

let t: TestApp
let client: PronetClient
let baseUrl: string
const network = [...generateNetwork({ seed: 7, size: 20, anchorMs: ANCHOR, platformHost: 'www.linkedin.com' })] as IngestRecord[]

/** The subject with the most records of a kind, by a key read from each. */
function busiest(kind: string, keyOf: (data: Record<string, unknown>) => string | undefined): string {
  const counts = new Map<string, number>()
  for (const r of network) {
    if (r.kind !== kind) continue
    const k = keyOf(r.data as Record<string, unknown>)
    if (k !== undefined) counts.set(k, (counts.get(k) ?? 0) + 1)
  }
  const top = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]
  if (!top) throw new Error(`no ${kind} records`)
  return top[0]
}

/** A member with more posts than one search goes deep. */
const PROLIFIC = profileIdFor(9001)
const AUTHOR = busiest('post', (d) => d.authorProfileId as string | undefined)
const COMPANY = busiest('post', (d) => (d.authorType === 'Company' ? (d.profile as { urn: string }).urn : undefined))
const REACTOR = busiest('profileReaction', (d) => d.profileId as string)
const WRITER = busiest('article', (d) => d.authorProfileId as string)
const COMMENTED = `urn:li:activity:${busiest('comment', (d) => /activity:(\d+)/.exec(d.urn as string)?.[1])}`
const REACTED = busiest('postReaction', (d) => d.postId as string)
const profileUrn = (id: string) => `urn:li:fsd_profile:${id}`

/**
 * The network's people, pages, posts and articles, with the comments and reactions of the subjects
 * above only (the rest would slow the suite down and be walked by none of its tests), and a member
 * with more posts than one search goes deep.
 */
const records: IngestRecord[] = [
  ...network.filter((r) => {
    const d = r.data as Record<string, unknown>
    if (r.kind === 'comment') return (d.urn as string).includes(`activity:${COMMENTED.slice('urn:li:activity:'.length)},`)
    if (r.kind === 'postReaction') return d.postId === REACTED || d.postId === COMMENTED
    if (r.kind === 'profileReaction') return d.profileId === REACTOR
    return true
  }),
  { kind: 'profile', data: profileRecord(9001) },
  ...Array.from({ length: MAX_DEPTH + 60 }, (_, n): IngestRecord => ({ kind: 'post', data: generatedPostRecord(PROLIFIC, n) })),
]

beforeAll(async () => {
  t = await makeTestApp({ records, nowMs: ANCHOR + 3_600_000 })
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  client = new PronetClient({ apiKey: t.key, baseUrl, maxRetries: 0 })
}, 120_000)
afterAll(async () => t?.close())

// ---------- raw walks over the HTTP API, written against the spec, not the client ----------

async function rawGet(url: string): Promise<Record<string, unknown>> {
  const res = await t.get(url)
  expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).toBe(200)
  return res.json() as Record<string, unknown>
}

async function rawTokenWalk(path: string, params: string, list: string, id: (item: Record<string, unknown>) => string): Promise<string[]> {
  const ids: string[] = []
  let token: string | undefined
  for (let page = 0; page < 500; page++) {
    const body = await rawGet(`${path}?${params}${token === undefined ? '' : `&paginationToken=${q(token)}`}`)
    ids.push(...(body[list] as Record<string, unknown>[]).map(id))
    if (!body.hasMore) return ids
    token = body.paginationToken as string
  }
  throw new Error('walk did not end')
}

async function rawOffsetWalk(path: string, params: string, list: string, count: number, id: (item: Record<string, unknown>) => string): Promise<string[]> {
  const ids: string[] = []
  for (let start = 0; start < 100_000; start += count) {
    const body = await rawGet(`${path}?${params}&count=${count}&start=${start}`)
    ids.push(...(body[list] as Record<string, unknown>[]).map(id))
    if (!body.hasMore) return ids
  }
  throw new Error('walk did not end')
}

async function rawSearchWalk(body: Record<string, unknown>): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = []
  let cursor: string | null = null
  let pages = 0
  do {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/search/posts', headers: { 'x-api-key': t.key }, payload: { ...body, ...(cursor === null ? {} : { cursor }) } })
    expect(res.statusCode, res.body).toBe(200)
    const page = res.json() as { results: { id: string }[]; cursor: string | null }
    pages++
    ids.push(...page.results.map((r) => r.id))
    cursor = page.cursor
  } while (cursor !== null && pages < 100)
  return { ids, pages }
}

const idOf = (item: { id: string }) => item.id

describe('every method against a running pronet', () => {
  it('answers each endpoint with its data and the meta of its headers', async () => {
    const profile = await client.getProfile({ profileUrlOrUrn: profileUrn(AUTHOR) })
    expect(profile.data.profileId).toBe(AUTHOR)
    expect(profile.meta.status).toBe(200)
    expect(profile.meta.creditsCharged).toBe(1)
    expect(profile.meta.requestId).toMatch(/\S/)
    expect(profile.meta.rateLimit).toEqual({ limit: 100_000, remaining: expect.any(Number), reset: expect.any(Number), cost: 1 })
    expect(profile.meta.replayed).toBe(false)
    expect(profile.meta.attempts).toBe(1)
    expect(profile.meta.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/)

    const reactions = await client.getProfileReactions({ profileUrlOrUrn: profileUrn(REACTOR), count: 2 })
    expect(reactions.data.reactions).toHaveLength(2)
    expect(reactions.data.hasMore).toBe(true)

    const articles = await client.getProfileArticles({ profileUrlOrUrn: profileUrn(WRITER), count: 1 })
    expect(articles.data.articles).toHaveLength(1)

    const posts = await client.getPosts({ profileUrlOrUrn: profileUrn(AUTHOR), count: 3 })
    expect(posts.data.posts.length).toBeGreaterThan(0)
    expect(posts.data.posts.every((p) => p.authorProfileId === AUTHOR)).toBe(true)

    const updates = await client.getPostsUpdates({ profileUrlsOrUrns: `${profileUrn(AUTHOR)},${profileUrn(REACTOR)}`, count: 2 })
    expect(updates.data.posts.length).toBeGreaterThan(0)
    expect(updates.meta.creditsCharged).toBe(1)

    const company = await client.getCompany({ companyUrlOrUrn: COMPANY })
    expect(company.data.id).toBe(COMPANY)

    const batch = await client.getCompanyBatch({ companies: [COMPANY, 'no-such-company-anywhere'] })
    expect(batch.data.found).toBe(1)
    expect(batch.data.notFound).toBe(1)
    expect(batch.meta.creditsCharged).toBe(1)

    const companyPosts = await client.getCompanyPosts({ companyUrlOrUrn: COMPANY, count: 2 })
    expect(companyPosts.data.posts.every((p) => p.authorType === 'Company')).toBe(true)

    const engagement = await client.getPostEngagement({ postUrlOrUrn: COMMENTED, commentCount: 2, reactionCount: 2 })
    expect(engagement.data.post).toBe(COMMENTED)
    expect(engagement.meta.creditsCharged).toBe(2)
    expect(engagement.meta.rateLimit?.cost).toBe(2)

    const comments = await client.getPostComments({ postUrlOrUrn: COMMENTED, count: 2 })
    expect(comments.data.comments).toHaveLength(2)

    const postReactions = await client.getPostReactions({ postUrlOrUrn: REACTED, count: 2 })
    expect(postReactions.data.reactions).toHaveLength(2)

    const search = await client.searchPosts({ authorProfiles: [AUTHOR], maxResults: 3 })
    expect(search.data.results).toHaveLength(3)
    expect(search.meta.creditsCharged).toBe(1)

    const usage = await client.getUsage({})
    expect(usage.data.billableRequests).toBeGreaterThan(0)
    expect(usage.meta.creditsCharged).toBe(0)
    expect(usage.meta.idempotencyKey).toBeUndefined()
    const subscription = await client.getSubscription()
    expect(subscription.data.plan).toBe('custom')
    // The account endpoints have a budget of their own: no Remaining or Reset.
    expect(subscription.meta.rateLimit).toEqual({ limit: 100_000, remaining: undefined, reset: undefined, cost: 0 })
  })

  it('call(operationId, input) is what the methods send', async () => {
    const viaCall = await client.call('getCompany', { companyUrlOrUrn: COMPANY })
    const viaMethod = await client.getCompany({ companyUrlOrUrn: COMPANY })
    expect(viaCall.data).toEqual(viaMethod.data)
  })

  it('sends the same request again with its Idempotency-Key: the first answer back, unbilled', async () => {
    const first = await client.getProfile({ profileUrlOrUrn: profileUrn(WRITER) }, { idempotencyKey: 'client-live-replay-1' })
    const again = await client.getProfile({ profileUrlOrUrn: profileUrn(WRITER) }, { idempotencyKey: 'client-live-replay-1' })
    expect(first.meta.creditsCharged).toBe(1)
    expect(again.meta).toMatchObject({ replayed: true, creditsCharged: 0, idempotencyKey: 'client-live-replay-1' })
    expect(again.data).toEqual(first.data)
  })

  it('throws the class of each error code, with its status, code, request id and credits', async () => {
    const missing = await client.getProfile({ profileUrlOrUrn: 'no-such-member-here' }).catch((e: unknown) => e)
    expect(missing).toBeInstanceOf(ProfileNotFoundError)
    expect(missing).toBeInstanceOf(PronetError)
    expect(missing).toMatchObject({ status: 404, code: 'PROFILE_NOT_FOUND', creditsCharged: 1, attempts: 1 })
    expect((missing as PronetError).requestId).toMatch(/\S/)

    await expect(client.getCompany({ companyUrlOrUrn: 'no-such-company-here' })).rejects.toBeInstanceOf(CompanyNotFoundError)
    await expect(client.getPostComments({ postUrlOrUrn: 'urn:li:activity:7000000000000000001' })).rejects.toBeInstanceOf(PostNotFoundError)
    const bad = await client.getPosts({ profileUrlOrUrn: profileUrn(AUTHOR), count: 500 }).catch((e: unknown) => e)
    expect(bad).toBeInstanceOf(InvalidParameterError)
    expect(bad).toMatchObject({ status: 400, creditsCharged: 0, details: { parameter: 'count' } })

    const wrongKey = new PronetClient({ apiKey: 'not-a-key', baseUrl })
    await expect(wrongKey.getProfile({ profileUrlOrUrn: profileUrn(AUTHOR) })).rejects.toBeInstanceOf(InvalidApiKeyError)
    // A key of whitespace is sent as a header with no key in it.
    const blank = new PronetClient({ apiKey: ' ', baseUrl })
    await expect(blank.getProfile({ profileUrlOrUrn: profileUrn(AUTHOR) })).rejects.toBeInstanceOf(UnauthenticatedError)
  })
})

describe('every feed walked by its iterator gives exactly the raw walk', () => {
  it('posts of a member, by token', async () => {
    const raw = await rawTokenWalk('/api/v1/posts', `profileUrlOrUrn=${q(profileUrn(AUTHOR))}&count=7`, 'posts', idOf as never)
    const walk = client.iteratePosts({ profileUrlOrUrn: profileUrn(AUTHOR), count: 7 })
    const ids = (await walk.toArray()).map(idOf)
    expect(raw.length).toBeGreaterThan(14)
    expect(ids).toEqual(raw)
    expect(new Set(ids).size).toBe(ids.length)
    expect(walk.stopped).toBe('end')
    expect(walk.creditsSpent).toBe(walk.calls)
  })

  it('posts of a company page, by token', async () => {
    const raw = await rawTokenWalk('/api/v1/company/posts', `companyUrlOrUrn=${q(COMPANY)}&count=3`, 'posts', idOf as never)
    const ids = (await client.iterateCompanyPosts({ companyUrlOrUrn: COMPANY, count: 3 }).toArray()).map(idOf)
    expect(raw.length).toBeGreaterThan(6)
    expect(ids).toEqual(raw)
  })

  it('reactions of a member, by token', async () => {
    const id = (r: { post: { id: string }; reactionType: string }) => `${r.reactionType} ${r.post.id}`
    const raw = await rawTokenWalk('/api/v1/profile/reactions', `profileUrlOrUrn=${q(profileUrn(REACTOR))}&count=9`, 'reactions', id as never)
    const ids = (await client.iterateProfileReactions({ profileUrlOrUrn: profileUrn(REACTOR), count: 9 }).toArray()).map(id)
    expect(raw.length).toBeGreaterThan(18)
    expect(ids).toEqual(raw)
  })

  it('articles of a member, by offset to the empty page', async () => {
    const id = (a: { articleUrn: string }) => a.articleUrn
    const raw = await rawOffsetWalk('/api/v1/profile/articles', `profileUrlOrUrn=${q(profileUrn(WRITER))}`, 'articles', 1, id as never)
    const walk = client.iterateProfileArticles({ profileUrlOrUrn: profileUrn(WRITER), count: 1 })
    const ids = (await walk.toArray()).map(id)
    expect(raw.length).toBeGreaterThan(0)
    expect(ids).toEqual(raw)
    // One call per article and the empty page that ends the feed.
    expect(walk.calls).toBe(raw.length + 1)
  })

  it('comments of a post, by token', async () => {
    const id = (c: { urn: string }) => c.urn
    const raw = await rawTokenWalk('/api/v1/post/comments', `postUrlOrUrn=${q(COMMENTED)}&count=2`, 'comments', id as never)
    const ids = (await client.iteratePostComments({ postUrlOrUrn: COMMENTED, count: 2 }).toArray()).map(id)
    expect(raw.length).toBeGreaterThan(4)
    expect(ids).toEqual(raw)
  })

  it('reactions to a post, by offset', async () => {
    const id = (r: { actor: { urn: string } }) => r.actor.urn
    const raw = await rawOffsetWalk('/api/v1/post/reactions', `postUrlOrUrn=${q(REACTED)}`, 'reactions', 4, id as never)
    const ids = (await client.iteratePostReactions({ postUrlOrUrn: REACTED, count: 4 }).toArray()).map(id)
    expect(raw.length).toBeGreaterThan(8)
    expect(ids).toEqual(raw)
  })

  it('the engagement view: its comments by token and its reactions by offset, each to its end', async () => {
    const comments = await rawTokenWalk('/api/v1/post/comments', `postUrlOrUrn=${q(COMMENTED)}&count=100`, 'comments', ((c: { urn: string }) => c.urn) as never)
    const reactions = await rawOffsetWalk('/api/v1/post/reactions', `postUrlOrUrn=${q(COMMENTED)}`, 'reactions', 100, ((r: { actor: { urn: string } }) => r.actor.urn) as never)
    // Pages of different sizes, so that one half ends calls before the other.
    for (const [commentCount, reactionCount] of [[2, 5], [7, 1]] as const) {
      const walk = client.iterateEngagement({ postUrlOrUrn: COMMENTED, commentCount, reactionCount })
      const items = await walk.toArray()
      expect(items.flatMap((i) => (i.type === 'comment' ? [i.comment.urn] : []))).toEqual(comments)
      expect(items.flatMap((i) => (i.type === 'reaction' ? [i.reaction.actor.urn] : []))).toEqual(reactions)
      // Both halves say whether more follow their page: the walk lasts as long as the longer half.
      expect(walk.calls).toBe(Math.max(Math.ceil(comments.length / commentCount), Math.ceil(reactions.length / reactionCount)))
      expect(walk.creditsSpent).toBe(2 * walk.calls)
    }
    expect(comments.length).toBeGreaterThan(4)
    expect(reactions.length).toBeGreaterThan(2)
  })

  it('a search, cursor by cursor to its depth', async () => {
    const body = { authorProfiles: [AUTHOR], maxResults: 6 }
    const raw = await rawSearchWalk(body)
    const walk = client.iterateSearch(body)
    const ids = (await walk.toArray()).map(idOf)
    expect(raw.pages).toBeGreaterThan(3)
    expect(ids).toEqual([...new Set(raw.ids)])
    expect(walk.calls).toBe(raw.pages)
    expect(walk.stopped).toBe('end')
  })

  it('a search matching more than its depth, walked until the service ends it', async () => {
    const body = { query: 'generated', sortBy: 'date' as const, maxResults: 50 }
    const raw = await rawSearchWalk(body)
    const walk = client.iterateSearch(body)
    const ids = (await walk.toArray()).map(idOf)
    expect(ids).toEqual([...new Set(raw.ids)])
    expect(ids).toHaveLength(MAX_DEPTH)
    expect(walk.calls).toBe(raw.pages)
    expect(walk.stopped).toBe('end')
  })
})

describe('a credit budget', () => {
  it('stops a walk before the call that would pass it', async () => {
    const all = await rawTokenWalk('/api/v1/posts', `profileUrlOrUrn=${q(profileUrn(AUTHOR))}&count=5`, 'posts', idOf as never)
    const walk = client.iteratePosts({ profileUrlOrUrn: profileUrn(AUTHOR), count: 5 }, { maxCredits: 3 })
    const pages = []
    for await (const page of walk.pages()) pages.push(page)
    expect(pages).toHaveLength(3)
    expect(walk.creditsSpent).toBe(3)
    expect(walk.stopped).toBe('budget')
    expect(pages.flatMap((p) => p.data.posts.map(idOf))).toEqual(all.slice(0, pages.reduce((n, p) => n + p.data.posts.length, 0)))
  })

  it('counts the price of each call: engagement pages cost two', async () => {
    const walk = client.iterateEngagement({ postUrlOrUrn: COMMENTED, commentCount: 1, reactionCount: 1 }, { maxCredits: 5 })
    await walk.toArray()
    expect(walk.calls).toBe(2)
    expect(walk.creditsSpent).toBe(4)
    expect(walk.stopped).toBe('budget')
  })

  it('a budget below the first price makes no call', async () => {
    const walk = client.iterateProfileArticles({ profileUrlOrUrn: profileUrn(WRITER), count: 60 }, { maxCredits: 1 })
    expect(await walk.toArray()).toEqual([])
    expect(walk.calls).toBe(0)
    expect(walk.stopped).toBe('budget')
  })
})
