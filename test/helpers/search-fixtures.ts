/**
 * Helpers of the post search tests: a small synthetic network reduced to what search
 * reads (pages, members, posts), a brute-force model of which posts a search selects computed from the
 * ingest records alone (text matching through the agreed reference, tokenize/matches), HTTP helpers
 * that walk every page of a search, and app variants the stock test app cannot give (a database file
 * a test can write to behind the service's back; a search that waits at a gate).
 */
import Database from 'better-sqlite3'
import type { LightMyRequestResponse } from 'fastify'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config/config.ts'
import { createContainer, type Container } from '../../src/container.ts'
import type { IngestRecord, PostRecord, ProfileRecord } from '../../src/contract/ingest.schemas.ts'
import type { NewAccount } from '../../src/domain/accounts/accounts.service.ts'
import { parseSearchQuery } from '../../src/domain/search/query-grammar.ts'
import { matches, tokenize } from '../../src/domain/search/query-tokens.ts'
import { generateNetwork } from '../../src/synth/synthetic-network.ts'
import { ROOMY_ACCOUNT, type TestApp } from './test-app.ts'

export const SEARCH_URL = '/api/v1/search/posts'
export const SEARCH_NOW = Date.UTC(2026, 10, 1)
export const HOST = 'www.linkedin.com'
const DAY = 86_400_000

/** Unix ms of an activity id (its top bits: id >> 22), computed here rather than through the service's helper. */
export const msOfId = (id: string): number => Number(BigInt(id) >> 22n)
/** Newest first, by numeric id (ids are time ordered). */
export const newestFirst = (a: string, b: string): number => {
  const x = BigInt(a)
  const y = BigInt(b)
  return x > y ? -1 : x < y ? 1 : 0
}
export const idOfUrn = (urn: string): string => urn.slice(urn.lastIndexOf(':') + 1)

/** The synthetic network's pages, members and posts (the rest does not bear on search). */
export function searchNetwork(size = 100, seed = 3, anchorMs = SEARCH_NOW): IngestRecord[] {
  return [...generateNetwork({ seed, size, anchorMs, platformHost: HOST })].filter(
    (r) => r.kind === 'company' || r.kind === 'profile' || r.kind === 'post',
  )
}

// ---------- the brute-force model ----------

export type ContentType = 'image' | 'video' | 'liveVideo' | 'jobPost' | 'document'

/** A search in model terms: ids rather than the inputs that name them. */
export interface ModelSearch {
  query?: string
  profiles?: readonly string[]
  companies?: readonly string[]
  mentions?: readonly string[]
  contentType?: readonly ContentType[]
  jobTitle?: string
  /** Window length in ms for postedWithin, measured back from `now`. */
  withinMs?: number
  after?: number
}

export interface ModelPost {
  id: string
  ms: number
  tokens: string[]
  authorKind: 'person' | 'company'
  authorId: string
  kinds: Set<ContentType>
  mentions: readonly string[]
  /** The author's current job title (persons), '' when none. */
  authorTitle: string
  record: PostRecord
}

function containsRun(hay: readonly string[], needle: readonly string[]): boolean {
  for (let i = 0; i + needle.length <= hay.length; i++) {
    if (needle.every((t, j) => hay[i + j] === t)) return true
  }
  return false
}

export class SearchModel {
  readonly posts: ModelPost[]
  readonly profiles = new Map<string, ProfileRecord>()
  /** Every post id written, reposts included. */
  readonly allPostIds = new Set<string>()
  readonly reposts = new Set<string>()

  constructor(records: readonly IngestRecord[]) {
    const byId = new Map<string, PostRecord>()
    for (const r of records) {
      if (r.kind === 'profile') this.profiles.set(r.data.profileId, r.data)
      // Records upsert by id: the last one wins.
      if (r.kind === 'post') byId.set(idOfUrn(r.data.id), r.data)
    }
    this.posts = []
    for (const [id, p] of byId) {
      this.allPostIds.add(id)
      if (p.repostOf !== undefined) {
        this.reposts.add(id)
        continue
      }
      const person = p.authorType === 'Person'
      const kinds = new Set<ContentType>()
      if (p.postType === 'image') kinds.add('image')
      if (p.postType === 'linkedinVideo') kinds.add('video')
      if (p.postType === 'document') kinds.add('document')
      if (p.liveVideo === true) kinds.add('liveVideo')
      if (p.jobPost === true) kinds.add('jobPost')
      const authorId = person ? (p.authorProfileId as string) : idOfUrn(p.profile.urn)
      this.posts.push({
        id,
        ms: msOfId(id),
        tokens: tokenize(p.content),
        authorKind: person ? 'person' : 'company',
        authorId,
        kinds,
        mentions: p.mentionsCompanies ?? [],
        authorTitle: person ? (this.profiles.get(authorId)?.jobTitle ?? '') : '',
        record: p,
      })
    }
    this.posts.sort((a, b) => newestFirst(a.id, b.id))
  }

  /** Ids of the posts the search selects, newest first. */
  select(s: ModelSearch, now: number): string[] {
    const tree = s.query === undefined ? undefined : parseSearchQuery(s.query).tree
    const title = s.jobTitle === undefined ? undefined : tokenize(s.jobTitle)
    // Two filters, ANDed like every other: a post by a listed member, and by a listed page.
    const profiles = s.profiles === undefined ? undefined : new Set(s.profiles)
    const companies = s.companies === undefined ? undefined : new Set(s.companies)
    return this.posts
      .filter((p) => {
        if (tree && !matches(tree, p.tokens)) return false
        if (profiles && !(p.authorKind === 'person' && profiles.has(p.authorId))) return false
        if (companies && !(p.authorKind === 'company' && companies.has(p.authorId))) return false
        if (s.contentType && !s.contentType.some((k) => p.kinds.has(k))) return false
        if (s.mentions && !s.mentions.some((m) => p.mentions.includes(m))) return false
        if (title && !(p.authorKind === 'person' && containsRun(tokenize(p.authorTitle), title))) return false
        if (s.withinMs !== undefined && p.ms < now - s.withinMs) return false
        if (s.after !== undefined && p.ms < s.after) return false
        return true
      })
      .map((p) => p.id)
  }

  post(id: string): ModelPost {
    const p = this.posts.find((x) => x.id === id)
    if (!p) throw new Error(`no searchable post ${id}`)
    return p
  }
}

export const WITHIN_MS = { '24h': DAY, week: 7 * DAY } as const

// ---------- HTTP ----------

export interface SearchPage {
  query: string | null
  sort: 'relevance' | 'date' | null
  results: Array<Record<string, any>>
  cursor: string | null
  partial?: { droppedResults: number; reasons: Record<string, number> }
}

export function postSearch(t: Pick<TestApp, 'app' | 'key'>, body: unknown, key: string | null = t.key): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url: SEARCH_URL,
    headers: { 'content-type': 'application/json', ...(key === null ? {} : { 'x-api-key': key }) },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

/** A 200 page charged 1 credit. */
export async function searchPage(t: Pick<TestApp, 'app' | 'key'>, body: unknown): Promise<SearchPage> {
  const res = await postSearch(t, body)
  expect(res.statusCode, res.body).toBe(200)
  expect(res.headers['x-credits-charged']).toBe('1')
  return res.json() as SearchPage
}

export interface Walk {
  pages: SearchPage[]
  /** Every result id, in the order received. */
  ids: string[]
}

/**
 * Follows cursors from the first page until the cursor is null; `sizes` gives maxResults page by page
 * (the last one repeats). Fails after `maxPages` pages.
 */
export async function walkSearch(
  t: Pick<TestApp, 'app' | 'key'>,
  body: Record<string, unknown>,
  sizes: readonly number[] = [50],
  maxPages = 200,
): Promise<Walk> {
  const pages: SearchPage[] = []
  let cursor: string | null = null
  do {
    const size = sizes[Math.min(pages.length, sizes.length - 1)] as number
    const page: SearchPage = await searchPage(t, { ...body, maxResults: size, ...(cursor === null ? {} : { cursor }) })
    expect(page.results.length).toBeLessThanOrEqual(size)
    pages.push(page)
    cursor = page.cursor
    if (pages.length > maxPages) throw new Error(`search did not end within ${maxPages} pages`)
  } while (cursor !== null)
  return { pages, ids: pages.flatMap((p) => p.results.map((r) => idOfUrn(r.id as string))) }
}

// ---------- app variants ----------

export interface SearchApp extends TestApp {
  /** A second connection to the service's database file (only with `file: true`). */
  db: Database.Database | null
}

/**
 * The real app as makeTestApp builds it, with two options the stock helper lacks: `file` puts the
 * database in a temporary file so the test can open it too, and `wrapSearch` lets a test put a gate in
 * front of the real search service (what the route calls once it holds its simultaneous-search lease).
 */
export async function makeSearchApp(
  opts: {
    records?: readonly unknown[]
    nowMs?: number
    account?: NewAccount
    file?: boolean
    /** PRONET_CACHE_MB (default: the server's); 0 reads every result item from the store. */
    cacheMb?: number
    wrapSearch?: (real: Container['search']) => Container['search']
  } = {},
): Promise<SearchApp> {
  const dir = opts.file ? mkdtempSync(join(tmpdir(), 'pronet-search-')) : null
  const config = loadConfig({
    PRONET_SEED: 'none',
    LOG_LEVEL: 'silent',
    PRONET_SECRET: 'test-secret',
    PRONET_DATA_DIR: dir ?? '/nonexistent-test-dir',
    ...(opts.cacheMb !== undefined ? { PRONET_CACHE_MB: String(opts.cacheMb) } : {}),
  })
  const clock = createManualClock(opts.nowMs ?? SEARCH_NOW)
  const sqlitePath = dir ? join(dir, 'pronet.db') : ':memory:'
  const c = await createContainer(config, { clock, sqlitePath, commitInWorker: false, sleep: async (ms) => clock.advance(ms) })
  if (opts.records && opts.records.length > 0) {
    const outcomes = await c.writer.write(opts.records)
    expect(outcomes.filter((o) => !o.ok)).toEqual([])
  }
  const created = await c.accounts.create(opts.account ?? ROOMY_ACCOUNT)
  const served: Container = opts.wrapSearch ? { ...c, search: opts.wrapSearch(c.search) } : c
  const app = await buildApp(served)
  const db = dir ? new Database(sqlitePath) : null
  const key = created.apiKey.key
  return {
    app,
    c,
    clock,
    key,
    keyId: created.apiKey.id,
    accountId: created.account.id,
    sqliteFile: dir ? sqlitePath : null,
    db,
    get: (url, k = key) => app.inject({ method: 'GET', url, headers: k === null ? {} : { 'x-api-key': k } }),
    async close() {
      db?.close()
      await app.close()
      await c.close()
      if (dir) rmSync(dir, { recursive: true, force: true })
    },
  }
}
