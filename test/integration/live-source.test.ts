/**
 * A live-source pronet in front of another pronet as its upstream, each a process of its own. The
 * upstream holds a small synthetic network; the live node starts empty and reads through it with a
 * key of a plan allowing few calls a second, on a budget of as many. Shown:
 * - every data endpoint answers through the live node with the upstream's body, page tokens apart,
 *   and the tokens are the live node's own (each side refuses the other's);
 * - paging a feed to its end through the live node gives the upstream's items in its order;
 * - a kept answer is served again without asking the upstream, `Cache-Control: no-cache` asks again,
 *   and a known absence is kept as well (the upstream's usage report counts what it was sent);
 * - a burst for one record costs the upstream one call, on one node and over two nodes that share
 *   PostgreSQL and Redis;
 * - customers asking far beyond the budget never make the upstream refuse: they are served, or
 *   refused by the live node with a free 503 and a Retry-After.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { randomInt } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { answered, caller, createAccount, liveEnv, LIVE_ADMIN_TOKEN, usageReader, type Answer, type Call, type CallOptions, type Usage } from '../helpers/live-pair.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'
import { REDIS_URL, redisAvailable } from '../helpers/redis.ts'
import { runCliProcess, startServer, type ServerProcess } from '../helpers/server-process.ts'

/** Profiles of the upstream's network: enough subjects for the suite, and quick to seed. */
const PROFILES = 200
const RPS = 2
const TOKEN_FIELDS = ['paginationToken', 'commentsPaginationToken', 'cursor']
const sharedStores = (await postgresAvailable()) && (await redisAvailable())

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const unique = <T>(xs: T[]): T[] => [...new Set(xs)]
const withoutTokens = (body: Record<string, unknown>) => Object.fromEntries(Object.entries(body).filter(([k]) => !TOKEN_FIELDS.includes(k)))

const dirs: string[] = []
const processes: ServerProcess[] = []
async function start(env: Record<string, string>): Promise<ServerProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'pronet-live-'))
  dirs.push(dir)
  const server = await startServer({ dataDir: dir, env: { LOG_LEVEL: 'warn', PRONET_ADMIN_TOKEN: LIVE_ADMIN_TOKEN, ...env }, timeoutMs: 120_000 })
  processes.push(server)
  return server
}

/** One request of the suite: an endpoint with its input, and where its page token goes in and comes out. */
interface Case {
  name: string
  method: 'GET' | 'POST'
  path: string
  query?: Record<string, string | number>
  body?: Record<string, unknown>
  tokenIn?: string
  tokenOut?: string
}

/** A feed paged to its end: the case of its first page, its items' list and id, and whether a page has a next. */
interface Feed extends Case {
  tokenIn: string
  tokenOut: string
  list: string
  id: string
  more(page: any): boolean
}

/** The request of `c`, on the page `token` names. */
function request(c: Case, token?: string): CallOptions {
  if (c.method === 'GET') return { query: { ...c.query, ...(token !== undefined && c.tokenIn ? { [c.tokenIn]: token } : {}) } }
  return { body: { ...c.body, ...(token !== undefined && c.tokenIn ? { [c.tokenIn]: token } : {}) } }
}

/** What the suite asks about, found on the upstream itself. */
interface Subjects {
  /** A member with a few dozen posts. */
  author: string
  /** A member with articles. */
  writer: string
  /** Two company pages, the first with the most posts. */
  companies: [string, string]
  companyPosts: number
  authorPosts: number
  /** A post with several comments. */
  discussed: string
  discussedComments: number
  /** Members not asked for before the test that takes them. */
  pool: string[]
}

async function pageCount(direct: Call, path: string, query: Record<string, string | number>, list: string, tokenIn = 'paginationToken'): Promise<number> {
  let n = 0
  let token: string | undefined
  for (;;) {
    const r = await direct('GET', path, { query: { ...query, ...(token ? { [tokenIn]: token } : {}) } })
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text.slice(0, 200)}`)
    n += (r.json[list] as unknown[]).length
    if (!r.json.hasMore || !r.json.paginationToken) return n
    token = r.json.paginationToken
  }
}

async function findSubjects(direct: Call): Promise<Subjects> {
  const results: any[] = []
  for (const query of ['data', 'hiring', 'team', 'the']) {
    const r = await direct('POST', '/api/v1/search/posts', { body: { query, maxResults: 50 } })
    if (r.status !== 200) throw new Error(`search: ${r.status} ${r.text.slice(0, 200)}`)
    results.push(...r.json.results)
  }
  const people: string[] = unique(results.filter((p) => p.authorType === 'Person').map((p) => p.authorProfileId as string))
  // An author of a few pages' worth: the first of a few dozen posts, else the least prolific of more.
  let author: string | undefined
  let authorPosts = Infinity
  for (const id of people) {
    const n = await pageCount(direct, '/api/v1/posts', { profileUrlOrUrn: id, count: 50 }, 'posts')
    if (n >= 25 && n < authorPosts) {
      author = id
      authorPosts = n
    }
    if (authorPosts <= 100) break
  }
  let writer: string | undefined
  for (const id of people) {
    const r = await direct('GET', '/api/v1/profile/articles', { query: { profileUrlOrUrn: id } })
    if (id !== author && r.json.articles.length > 0) {
      writer = id
      break
    }
  }
  const companies: { urn: string; posts: number }[] = []
  for (const urn of unique(results.filter((p) => p.authorType === 'Company').map((p) => p.profile.urn as string))) {
    companies.push({ urn, posts: await pageCount(direct, '/api/v1/company/posts', { companyUrlOrUrn: urn, count: 100 }, 'posts') })
  }
  companies.sort((a, b) => b.posts - a.posts)
  const discussed: { id: string; comments: number }[] = []
  for (const post of [...results].sort((a, b) => b.commentCount - a.commentCount).slice(0, 10)) {
    discussed.push({ id: post.id, comments: await pageCount(direct, '/api/v1/post/comments', { postUrlOrUrn: post.id, count: 100 }, 'comments') })
  }
  discussed.sort((a, b) => b.comments - a.comments)
  const actors: string[] = []
  for (const post of [...results].sort((a, b) => b.reactionCount - a.reactionCount).slice(0, 4)) {
    const r = await direct('GET', '/api/v1/post/reactions', { query: { postUrlOrUrn: post.id, count: 100 } })
    actors.push(...r.json.reactions.map((x: any) => x.actor.profileId).filter((id: unknown) => typeof id === 'string'))
  }
  const pool = unique([...people, ...actors]).filter((id) => id !== author && id !== writer)
  if (!author || !writer || companies.length < 2 || companies[0]!.posts < 6 || discussed[0]!.comments < 4 || pool.length < 70) {
    throw new Error(`the network lacks a subject: ${JSON.stringify({ author, writer, companies, discussed: discussed[0], pool: pool.length })}`)
  }
  return {
    author,
    writer,
    authorPosts,
    companies: [companies[0]!.urn, companies[1]!.urn],
    companyPosts: companies[0]!.posts,
    discussed: discussed[0]!.id,
    discussedComments: discussed[0]!.comments,
    pool,
  }
}

/** A few pages of each feed, whatever its length: paging is shown without spending the budget on it. */
const third = (n: number, max: number) => Math.min(max, Math.max(1, Math.ceil(n / 3)))

function feeds(s: Subjects): Feed[] {
  const page = { tokenIn: 'paginationToken', tokenOut: 'paginationToken', more: (b: any) => b.hasMore === true }
  return [
    { name: 'posts of a profile', method: 'GET', path: '/api/v1/posts', query: { profileUrlOrUrn: s.author, count: third(s.authorPosts, 50) }, list: 'posts', id: 'id', ...page },
    { name: 'posts of a company', method: 'GET', path: '/api/v1/company/posts', query: { companyUrlOrUrn: s.companies[0], count: third(s.companyPosts, 100) }, list: 'posts', id: 'id', ...page },
    { name: 'comments of a post', method: 'GET', path: '/api/v1/post/comments', query: { postUrlOrUrn: s.discussed, count: third(s.discussedComments, 100) }, list: 'comments', id: 'urn', ...page },
    {
      name: "a search's cursor",
      method: 'POST',
      path: '/api/v1/search/posts',
      body: { authorProfiles: [s.author], maxResults: third(s.authorPosts, 50) },
      list: 'results',
      id: 'id',
      tokenIn: 'cursor',
      tokenOut: 'cursor',
      more: (b: any) => b.cursor !== null,
    },
  ]
}

function cases(s: Subjects): Case[] {
  const [posts, companyPosts, comments] = feeds(s)
  return [
    { name: 'GET /profile', method: 'GET', path: '/api/v1/profile', query: { profileUrlOrUrn: s.author } },
    { name: 'GET /profile/reactions', method: 'GET', path: '/api/v1/profile/reactions', query: { profileUrlOrUrn: s.author, count: 2 }, tokenIn: 'paginationToken', tokenOut: 'paginationToken' },
    { name: 'GET /profile/articles', method: 'GET', path: '/api/v1/profile/articles', query: { profileUrlOrUrn: s.writer } },
    { ...posts!, name: 'GET /posts' },
    { name: 'GET /posts/updates', method: 'GET', path: '/api/v1/posts/updates', query: { profileUrlsOrUrns: `${s.author},${s.writer}`, count: 3 } },
    { name: 'GET /company', method: 'GET', path: '/api/v1/company', query: { companyUrlOrUrn: s.companies[0] } },
    { name: 'POST /company/batch', method: 'POST', path: '/api/v1/company/batch', body: { companies: [s.companies[0], s.companies[1], 'no-such-company-7f3e9'] } },
    { ...companyPosts!, name: 'GET /company/posts' },
    {
      name: 'GET /post/engagement',
      method: 'GET',
      path: '/api/v1/post/engagement',
      query: { postUrlOrUrn: s.discussed, commentCount: 1, reactionCount: 3 },
      tokenIn: 'commentPaginationToken',
      tokenOut: 'commentsPaginationToken',
    },
    { ...comments!, name: 'GET /post/comments' },
    { name: 'GET /post/reactions', method: 'GET', path: '/api/v1/post/reactions', query: { postUrlOrUrn: s.discussed, count: 5 } },
    { name: 'POST /search/posts', method: 'POST', path: '/api/v1/search/posts', body: { query: 'hiring', maxResults: 10 }, tokenIn: 'cursor', tokenOut: 'cursor' },
  ]
}

/** Every page of `feed` through `call`, following its page tokens to the end. */
async function pageThrough(call: Call, feed: Feed): Promise<{ ids: string[]; pages: any[] }> {
  const ids: string[] = []
  const pages: any[] = []
  let token: string | undefined
  for (let n = 0; n < 20; n++) {
    const r = await call(feed.method, feed.path, request(feed, token))
    expect(r.status, `${feed.name}, page ${n + 1}: ${r.text.slice(0, 300)}`).toBe(200)
    pages.push(r.json)
    ids.push(...r.json[feed.list].map((x: any) => x[feed.id]))
    const next = r.json[feed.tokenOut]
    if (!feed.more(r.json) || typeof next !== 'string' || next === '') return { ids, pages }
    token = next
  }
  throw new Error(`${feed.name}: more than 20 pages`)
}

const profile = (call: Call, id: string, headers?: Record<string, string>): Promise<Answer> =>
  call('GET', '/api/v1/profile', { query: { profileUrlOrUrn: id }, ...(headers ? { headers } : {}) })

describe('a live-source node in front of another pronet', () => {
  let upstream: ServerProcess
  let live: ServerProcess
  /** A customer of the upstream, calling it directly. */
  let direct: Call
  /** A customer of the live node. */
  let viaLive: Call
  /** The upstream's usage report for the live node's key. */
  let usage: () => Promise<Usage>
  let s: Subjects
  /** The live node's settings and data directory, for the CLI run beside it. */
  let settings: Record<string, string>
  let liveDir: string

  beforeAll(async () => {
    upstream = await start({ PRONET_SEED: String(PROFILES) })
    direct = caller(upstream, (await createAccount(upstream, { plan: 'custom', creditsLimit: 10_000_000, rpsLimit: 100_000 })).key)
    const upstreamKey = (await createAccount(upstream, { plan: 'custom', creditsLimit: 1_000_000, rpsLimit: RPS })).key
    usage = usageReader(upstream, upstreamKey)
    settings = liveEnv(upstream, upstreamKey, RPS)
    const [node, subjects] = await Promise.all([start(settings), findSubjects(direct)])
    live = node
    liveDir = dirs.at(-1)!
    s = subjects
    viaLive = caller(live, (await createAccount(live, { plan: 'custom', creditsLimit: 10_000_000, rpsLimit: 100_000 })).key)
  }, 120_000)

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.kill()))
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  }, 30_000)

  it("answers every data endpoint with the upstream's body; its page tokens are its own", async () => {
    const tokensChecked: string[] = []
    for (const c of cases(s)) {
      const up = await direct(c.method, c.path, request(c))
      const lv = await viaLive(c.method, c.path, request(c))
      expect(up.status, `${c.name} upstream: ${up.text.slice(0, 300)}`).toBe(200)
      expect(lv.status, `${c.name} live: ${lv.text.slice(0, 300)}`).toBe(200)
      expect(['upstream', 'cache'], c.name).toContain(lv.headers.get('x-data-source'))
      expect(lv.headers.get('age'), c.name).toMatch(/^\d+$/)
      expect(withoutTokens(lv.json), c.name).toEqual(withoutTokens(up.json))
      const upToken = c.tokenOut ? up.json[c.tokenOut] : undefined
      const lvToken = c.tokenOut ? lv.json[c.tokenOut] : undefined
      // Byte for byte too, once the live token is put back as the upstream's.
      const asUpstream = typeof lvToken === 'string' && lvToken !== '' ? lv.text.replace(JSON.stringify(lvToken), JSON.stringify(upToken)) : lv.text
      expect(asUpstream, c.name).toBe(up.text)
      if (!c.tokenOut) continue
      if (typeof upToken !== 'string' || upToken === '') {
        expect(lvToken, `${c.name}: no token upstream, none here`).toEqual(upToken)
        continue
      }
      expect(lvToken, c.name).toEqual(expect.any(String))
      expect(lvToken, c.name).not.toBe('')
      expect(lvToken, c.name).not.toBe(upToken)
      // Each side refuses the other's token: a customer never holds an upstream token, nor can use one.
      const liveRefuses = await viaLive(c.method, c.path, request(c, upToken))
      expect(liveRefuses.status, `${c.name}: ${liveRefuses.text}`).toBe(400)
      expect(liveRefuses.json.code).toBe('INVALID_PARAMETER')
      expect(liveRefuses.headers.get('x-credits-charged')).toBe('0')
      const upstreamRefuses = await direct(c.method, c.path, request(c, lvToken))
      expect(upstreamRefuses.status, `${c.name}: ${upstreamRefuses.text}`).toBe(400)
      tokensChecked.push(c.name)
    }
    // The subjects were chosen so that these have a next page, hence a token.
    expect(tokensChecked).toEqual(expect.arrayContaining(['GET /posts', 'GET /company/posts', 'GET /post/engagement', 'GET /post/comments', 'POST /search/posts']))
    // The unknown company of the batch is an entry of its own, as upstream.
    const batch = await viaLive('POST', '/api/v1/company/batch', request(cases(s).find((c) => c.name === 'POST /company/batch')!))
    expect(batch.json).toMatchObject({ found: 2, notFound: 1, failed: 0 })
    expect(batch.json.results[2].error).toMatchObject({ code: 'COMPANY_NOT_FOUND', status: 404 })
  }, 60_000)

  it("a page token holds the upstream's sealed, and is refused for another subject without asking the upstream", async () => {
    const query = { profileUrlOrUrn: s.author, count: 5 }
    const up = await direct('GET', '/api/v1/posts', { query })
    const lv = await viaLive('GET', '/api/v1/posts', { query })
    const upToken = up.json.paginationToken as string
    const lvToken = lv.json.paginationToken as string
    expect(upToken).not.toBe('')
    // Signed and sealed: nothing in our token reads as the upstream's.
    const payload = Buffer.from(lvToken.split('.')[0] as string, 'base64url').toString('utf8')
    expect(payload).not.toContain(upToken)
    expect(payload).not.toContain(upToken.split('.')[0])
    const u0 = await usage()
    const other = s.pool.shift()!
    const reused = await viaLive('GET', '/api/v1/posts', { query: { profileUrlOrUrn: other, count: 5, paginationToken: lvToken } })
    expect(reused.status, reused.text).toBe(400)
    expect(reused.json.code).toBe('INVALID_PARAMETER')
    expect(reused.headers.get('x-credits-charged')).toBe('0')
    // Another page size is the same feed: the token still opens.
    const resized = await viaLive('GET', '/api/v1/posts', { query: { ...query, count: 7, paginationToken: lvToken } })
    expect(resized.status, resized.text).toBe(200)
    const u1 = await usage()
    expect(u1.requests - u0.requests, 'only the resized page went upstream').toBe(1)
  }, 30_000)

  it("an absent record is our 404 in the words a store node uses, as the upstream's", async () => {
    for (const [path, param] of [['/api/v1/profile', 'profileUrlOrUrn'], ['/api/v1/posts', 'profileUrlOrUrn'], ['/api/v1/company', 'companyUrlOrUrn']] as const) {
      const query = { [param]: `zz-nobody-${path.length}-a1b2c3` }
      const up = await direct('GET', path, { query })
      const lv = await viaLive('GET', path, { query })
      expect(up.status, path).toBe(404)
      expect(lv.status, path).toBe(404)
      expect(lv.json, path).toEqual(up.json)
    }
  }, 30_000)

  it.each(['posts of a profile', 'posts of a company', 'comments of a post', "a search's cursor"])(
    'pages %s to its end with the upstream’s items in its order, none twice',
    async (name) => {
      const feed = feeds(s).find((f) => f.name === name)!
      const up = await pageThrough(direct, feed)
      const lv = await pageThrough(viaLive, feed)
      expect(up.pages.length, 'the feed spans several pages').toBeGreaterThanOrEqual(2)
      expect(lv.ids).toEqual(up.ids)
      expect(new Set(lv.ids).size).toBe(lv.ids.length)
      expect(lv.pages.map(withoutTokens)).toEqual(up.pages.map(withoutTokens))
    },
    30_000,
  )

  it('serves a kept answer without asking again, asks again on no-cache, and keeps a known absence', async () => {
    const id = s.pool.shift()!
    const first = await profile(viaLive, id)
    expect(first.status).toBe(200)
    expect(first.headers.get('x-data-source')).toBe('upstream')
    expect(first.headers.get('age')).toBe('0')

    const u0 = await usage()
    const again = await profile(viaLive, id)
    expect(again.status).toBe(200)
    expect(again.headers.get('x-data-source')).toBe('cache')
    expect(again.headers.get('age')).toMatch(/^\d+$/)
    expect(again.headers.get('x-credits-charged')).toBe('1')
    expect(again.json).toEqual(first.json)
    // A copy younger than the client's limit is fresh enough for it too.
    const young = await profile(viaLive, id, { 'cache-control': 'max-age=3600' })
    expect(young.headers.get('x-data-source')).toBe('cache')
    const unknown = `no-such-member-${randomInt(1e9)}`
    const absent = [await profile(viaLive, unknown), await profile(viaLive, unknown)]
    for (const a of absent) {
      expect(a.status).toBe(404)
      expect(a.json.code).toBe('PROFILE_NOT_FOUND')
      expect(a.headers.get('x-credits-charged')).toBe('1')
    }
    expect(absent.map((a) => a.headers.get('x-data-source'))).toEqual(['upstream', 'cache'])
    const u1 = await usage()
    // The upstream was asked once since: for the unknown member, the first time.
    expect(u1.requests - u0.requests).toBe(1)
    expect(answered(u1, '/api/v1/profile', 404) - answered(u0, '/api/v1/profile', 404)).toBe(1)
    expect(answered(u1, '/api/v1/profile', 200)).toBe(answered(u0, '/api/v1/profile', 200))

    const fresh = await profile(viaLive, id, { 'cache-control': 'no-cache' })
    expect(fresh.status).toBe(200)
    expect(fresh.headers.get('x-data-source')).toBe('upstream')
    expect(fresh.json).toEqual(first.json)
    const u2 = await usage()
    expect(u2.requests - u1.requests).toBe(1)
    expect(answered(u2, '/api/v1/profile', 200) - answered(u1, '/api/v1/profile', 200)).toBe(1)
  }, 30_000)

  it('100 concurrent requests for one record not yet fetched cost the upstream one call', async () => {
    const id = s.pool.shift()!
    const u0 = await usage()
    const answers = await Promise.all(Array.from({ length: 100 }, () => profile(viaLive, id)))
    expect(answers.map((a) => a.status)).toEqual(Array(100).fill(200))
    expect(unique(answers.map((a) => a.text))).toHaveLength(1)
    const u1 = await usage()
    expect(u1.requests - u0.requests).toBe(1)
  }, 30_000)

  it('customers asking 20 a second against a budget of 2 get answers or free 503s; the upstream refuses nothing', async () => {
    const ids = s.pool.splice(0, 60)
    expect(ids).toHaveLength(60)
    const u0 = await usage()
    // Sent on the client's own clock whatever the answers, ten times the budget's rate for a few seconds.
    const started = Date.now()
    const calls: Promise<Answer>[] = []
    for (const [i, id] of ids.entries()) {
      const wait = started + i * 50 - Date.now()
      if (wait > 0) await sleep(wait)
      calls.push(profile(viaLive, id))
    }
    const answers = await Promise.all(calls)
    const served = answers.filter((a) => a.status === 200)
    const refused = answers.filter((a) => a.status === 503)
    expect(answers.filter((a) => a.status !== 200 && a.status !== 503).map((a) => `${a.status} ${a.text}`)).toEqual([])
    for (const a of served) {
      expect(a.headers.get('x-data-source')).toBe('upstream')
      expect(a.headers.get('x-credits-charged')).toBe('1')
    }
    for (const a of refused) {
      expect(a.json.code).toBe('SERVICE_UNAVAILABLE')
      expect(a.headers.get('x-credits-charged')).toBe('0')
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    }
    // The budget was spent, and more was asked than it allows.
    expect(served.length).toBeGreaterThanOrEqual(4)
    expect(refused.length).toBeGreaterThanOrEqual(1)
    const u1 = await usage()
    // Each answer served was one upstream call, each refusal none, and the upstream refused none of
    // them. (Earlier tests' searches may have met the upstream's own search queue, a limit of its
    // load rather than of the budget, so the count is of this test's calls.)
    const refusedByUpstream = (u: Usage) => u.endpoints.reduce((n, e) => n + Number(e.statusCodes['429'] ?? 0), 0)
    expect(refusedByUpstream(u1) - refusedByUpstream(u0)).toBe(0)
    expect(u1.requests - u0.requests).toBe(served.length)
  }, 30_000)

  it('pronet upstream status shows the upstream subscription, the budget, the hit ratio and the answers kept, never the key', async () => {
    const r = await runCliProcess(['upstream', 'status', '--json'], { ...settings, PRONET_DATA_DIR: liveDir, PRONET_PUBLIC_URL: live.baseUrl, LOG_LEVEL: 'warn' })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout) as Record<string, any>
    expect(out.mode).toBe('upstream')
    expect(out.subscription).toMatchObject({ plan: 'custom', rpsLimit: RPS })
    expect(out.budget.rps).toBe(RPS)
    // The node's own figures, from its admin API: the earlier tests were served from cache and from the upstream.
    expect(out.node.answers.cache).toBeGreaterThan(0)
    expect(out.node.answers.upstream).toBeGreaterThan(0)
    expect(out.node.hitRatio).toBeGreaterThan(0)
    expect(out.node.calls.profile.ok).toBeGreaterThan(0)
    expect(out.node.creditsSpent).toBeGreaterThan(0)
    // A lone node on its own store shares fetches only within itself.
    expect(out.node.coalesced).toEqual({ node: expect.any(Number), cluster: 0 })
    expect(out.kept.profile).toBeGreaterThan(0)
    expect(r.stdout).not.toContain(settings.PRONET_UPSTREAM_KEY)
    const human = await runCliProcess(['upstream', 'status'], { ...settings, PRONET_DATA_DIR: liveDir, PRONET_PUBLIC_URL: live.baseUrl, LOG_LEVEL: 'warn' })
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/^mode: upstream$/m)
    expect(human.stdout).toMatch(/^this node: hit ratio \d+\.\d%/m)
  }, 30_000)

  describe.skipIf(!sharedStores)('two live nodes sharing PostgreSQL and Redis', () => {
    let db: { url: string; drop(): Promise<void> }
    let nodes: ServerProcess[]
    let pairUsage: () => Promise<Usage>
    let customerKey: string

    beforeAll(async () => {
      db = await createTestDatabase('pronet_live')
      // Their own key on the upstream: their budget and count are theirs alone.
      const key = (await createAccount(upstream, { plan: 'custom', creditsLimit: 1_000_000, rpsLimit: RPS })).key
      pairUsage = usageReader(upstream, key)
      // A Redis database of their own: the budget's and the fetch locks' keys have fixed names, and
      // this keeps them apart from other suites' without flushing anything.
      const redis = new URL(REDIS_URL)
      redis.pathname = `/${randomInt(1, 16)}`
      const env = { ...liveEnv(upstream, key, RPS), DATABASE_URL: db.url, REDIS_URL: redis.toString(), PRONET_SECRET: 'live-pair-shared-secret' }
      nodes = await Promise.all([start(env), start(env)])
      customerKey = (await createAccount(nodes[0]!, { plan: 'custom', creditsLimit: 10_000_000, rpsLimit: 100_000 })).key
    }, 120_000)

    afterAll(async () => {
      await Promise.all((nodes ?? []).map((n) => n.kill()))
      await db?.drop()
    }, 30_000)

    it('100 concurrent requests for one record over both nodes cost the upstream one call', async () => {
      const id = s.pool.shift()!
      const calls = nodes.map((n) => caller(n, customerKey))
      const u0 = await pairUsage()
      const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => profile(calls[i % 2]!, id)))
      expect(answers.map((a) => a.status)).toEqual(Array(100).fill(200))
      expect(unique(answers.map((a) => a.text))).toHaveLength(1)
      const u1 = await pairUsage()
      expect(u1.requests - u0.requests).toBe(1)
      expect(answered(u1, '/api/v1/profile', 200) - answered(u0, '/api/v1/profile', 200)).toBe(1)
    }, 30_000)
  })
})
