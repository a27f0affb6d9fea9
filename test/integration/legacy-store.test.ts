/**
 * A store written by the previous release (test/fixtures/legacy-store, made with that release's code)
 * opened by this one, on SQLite and on PostgreSQL: the upgrade rewrites every stored document, and the
 * API then serves today's shapes only, for every record the store holds.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import Database from 'better-sqlite3'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config/config.ts'
import { openContainer, type Container } from '../../src/container.ts'
import {
  CommentsResponse,
  CompanyResponse,
  PostReactionsResponse,
  PostsResponse,
  ProfileArticlesResponse,
} from '../../src/contract/endpoints.schemas.ts'
import { ProfileSchema } from '../../src/contract/resources.schemas.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'
import { expectSchema } from '../helpers/test-app.ts'

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'legacy-store')
/** What extra.ndjson added to the seeded network (see the fixture's README). */
const UNDATED_MEMBER = 'legacy-undated'
const GIANT = 'legacy-giant'
const COMMENTED_POST = '7522303176331190955'

interface Legacy {
  env: Record<string, string>
  /** Every profile slug, company id and article author the store holds, read before the upgrade. */
  contents: { slugs: string[]; companyIds: string[]; articleAuthors: string[]; videoAuthors: string[] }
  migrations(): Promise<number[]>
  drop(): Promise<void>
}

const VIDEO_AUTHORS_SQL = `SELECT DISTINCT p.author_id AS id FROM posts p JOIN post_docs d ON d.id = p.id
  WHERE p.author_kind = 'person' AND p.is_repost = false AND d.doc LIKE '%"postType":"platformVideo"%' ORDER BY 1 LIMIT 5`

async function sqliteLegacy(): Promise<Legacy> {
  const dir = mkdtempSync(join(tmpdir(), 'pronet-legacy-'))
  const file = join(dir, 'pronet.db')
  writeFileSync(file, gunzipSync(readFileSync(join(FIXTURES, 'sqlite.db.gz'))), { mode: 0o600 })
  const db = new Database(file, { readonly: true })
  const column = (sql: string) => db.prepare(sql).pluck().all() as string[]
  const contents = {
    slugs: column('SELECT slug FROM profiles ORDER BY slug'),
    companyIds: column('SELECT company_id FROM companies ORDER BY company_id'),
    articleAuthors: column('SELECT DISTINCT author_profile_id FROM articles'),
    videoAuthors: column(VIDEO_AUTHORS_SQL.replace('is_repost = false', 'is_repost = 0')),
  }
  db.close()
  return {
    env: { PRONET_DATA_DIR: dir },
    contents,
    async migrations() {
      const d = new Database(file, { readonly: true })
      try {
        return d.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all() as number[]
      } finally {
        d.close()
      }
    },
    async drop() {
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

async function postgresLegacy(): Promise<Legacy> {
  const db = await createTestDatabase('pronet_legacy')
  const client = new pg.Client({ connectionString: db.url })
  await client.connect()
  const column = async (sql: string) => (await client.query<{ v: string }>(sql.replace(/^SELECT (DISTINCT )?([\w.]+)( AS \w+)?/, 'SELECT $1$2 AS v'))).rows.map((r) => r.v)
  try {
    await client.query(gunzipSync(readFileSync(join(FIXTURES, 'pg.sql.gz'))).toString())
    // The dump empties the search path for its own session; the service's sessions are new ones.
    const contents = {
      slugs: await column('SELECT slug FROM public.profiles ORDER BY slug'),
      companyIds: await column('SELECT company_id FROM public.companies ORDER BY company_id'),
      articleAuthors: await column('SELECT DISTINCT author_profile_id FROM public.articles'),
      videoAuthors: await column(VIDEO_AUTHORS_SQL.replace('FROM posts', 'FROM public.posts').replace('JOIN post_docs', 'JOIN public.post_docs')),
    }
    const dir = mkdtempSync(join(tmpdir(), 'pronet-legacy-pg-'))
    return {
      env: { DATABASE_URL: db.url, PRONET_DATA_DIR: dir },
      contents,
      async migrations() {
        const c = new pg.Client({ connectionString: db.url })
        await c.connect()
        try {
          return (await c.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows.map((r) => r.version)
        } finally {
          await c.end()
        }
      },
      async drop() {
        await db.drop()
        rmSync(dir, { recursive: true, force: true })
      },
    }
  } finally {
    await client.end()
  }
}

const BACKENDS: [string, () => Promise<Legacy | undefined>, number][] = [
  ['SQLite', sqliteLegacy, 10],
  ['PostgreSQL', async () => ((await postgresAvailable()) ? postgresLegacy() : undefined), 8],
]

const opened: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const close of opened.reverse()) await close()
})

describe.each(BACKENDS)('a store of the previous release on %s', (_name, make, upgrade) => {
  let legacy: Legacy | undefined
  let c: Container
  let app: FastifyInstance
  let key: string
  const get = (url: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } })
  const q = encodeURIComponent

  const open = async () => {
    const config = loadConfig({ PRONET_SEED: 'none', LOG_LEVEL: 'silent', PRONET_SECRET: 'legacy-store-secret', ...legacy?.env })
    return openContainer(config, { commitInWorker: false, notice: () => {} })
  }

  it('opens, recording the upgrade, and serves', async () => {
    legacy = await make()
    if (legacy === undefined) return
    opened.push(() => legacy?.drop() ?? Promise.resolve())
    expect(await legacy.migrations()).not.toContain(upgrade)
    c = await open()
    opened.push(() => c.close())
    expect(await legacy.migrations()).toContain(upgrade)
    key = (await c.accounts.create({ name: 'legacy', plan: 'custom', creditsLimit: 1_000_000, rpsLimit: 100_000 })).apiKey.key
    app = await buildApp(c)
    opened.push(() => app.close())
  })

  it('every profile matches today’s schema: real names, no null start, every section', async () => {
    if (legacy === undefined) return
    expect(legacy.contents.slugs.length).toBeGreaterThan(30)
    for (const slug of legacy.contents.slugs) {
      const res = await get(`/api/v1/profile?profileUrlOrUrn=${q(slug)}`)
      expect(res.statusCode, slug).toBe(200)
      expectSchema(ProfileSchema, res.json(), slug)
      expect(res.body).not.toMatch(/companyPlatformUrl|"startDate":null|\\u0001/)
    }
  })

  it('keeps each dated position’s duration label and drops undated periods', async () => {
    if (legacy === undefined) return
    const body = (await get(`/api/v1/profile?profileUrlOrUrn=${UNDATED_MEMBER}`)).json()
    expect(body.profilePictureUrl).toBe('')
    expect(body.companyLinkedinUrl).toMatch(/^https:\/\/www\.linkedin\.com\/company\//)
    const periods = body.experiences.map((e: { timePeriod?: unknown; totalDuration?: string }) => [e.timePeriod ?? 'none', e.totalDuration ?? 'none'])
    expect(periods[0]).toEqual([{ startDate: { year: 2025, month: 3 }, endDate: null }, expect.stringMatching(/^(\d+ yrs?)?( ?\d+ mos?)?$/)])
    expect(periods[2]).toEqual([{ endDate: { year: 2022, month: 7 } }, 'none'])
    expect(periods.at(-1)).toEqual(['none', 'none'])
    expect(body.educations[0]).not.toHaveProperty('timePeriod')
    expect(body.hiring).toBe(false)
    expect(body.recommendationsGiven).toEqual([])
  })

  it('every company matches today’s schema; the top size class has no end', async () => {
    if (legacy === undefined) return
    for (const id of legacy.contents.companyIds) {
      const res = await get(`/api/v1/company?companyUrlOrUrn=urn:li:fsd_company:${id}`)
      expect(res.statusCode, id).toBe(200)
      expectSchema(CompanyResponse, res.json(), id)
    }
    expect((await get(`/api/v1/company?companyUrlOrUrn=${GIANT}`)).json().employeeCountRange).toEqual({ start: 10_001 })
  })

  it('videos are linkedinVideo in feeds and in search; articles carry linkedinArticle URNs', async () => {
    if (legacy === undefined) return
    expect(legacy.contents.videoAuthors.length).toBeGreaterThan(0)
    let videos = 0
    for (const author of legacy.contents.videoAuthors) {
      const res = await get(`/api/v1/posts?profileUrlOrUrn=urn:li:fsd_profile:${author}&count=50`)
      expectSchema(PostsResponse, res.json())
      expect(res.body).not.toContain('platformVideo')
      videos += (res.json().posts as { postType: string }[]).filter((p) => p.postType === 'linkedinVideo').length
    }
    expect(videos).toBeGreaterThan(0)
    const search = await app.inject({
      method: 'POST',
      url: '/api/v1/search/posts',
      headers: { 'x-api-key': key },
      payload: { query: 'the', contentType: ['video'], sortBy: 'date' },
    })
    expect(search.statusCode, search.body).toBe(200)
    const types = (search.json().results as { postType: string }[]).map((r) => r.postType)
    expect(types.length).toBeGreaterThan(0)
    expect(new Set(types)).toEqual(new Set(['linkedinVideo']))
    expect(legacy.contents.articleAuthors.length).toBeGreaterThan(0)
    for (const author of legacy.contents.articleAuthors) {
      const res = await get(`/api/v1/profile/articles?profileUrlOrUrn=urn:li:fsd_profile:${author}`)
      expectSchema(ProfileArticlesResponse, res.json())
      for (const a of res.json().articles as { articleUrn: string; articleId: string }[]) expect(a.articleUrn).toBe(`urn:li:linkedinArticle:${a.articleId}`)
    }
  })

  it('a comment author and a reaction actor without a picture read ""', async () => {
    if (legacy === undefined) return
    const comments = await get(`/api/v1/post/comments?postUrlOrUrn=urn:li:activity:${COMMENTED_POST}`)
    expectSchema(CommentsResponse, comments.json())
    expect(comments.body).toContain('"profilePictureUrl":""')
    const reactions = await get(`/api/v1/post/reactions?postUrlOrUrn=urn:li:activity:${COMMENTED_POST}`)
    expectSchema(PostReactionsResponse, reactions.json())
    expect(reactions.body).not.toContain('"profilePictureUrl":null')
  })

  it('opens again with nothing left to do, and takes new records', async () => {
    if (legacy === undefined) return
    await app.close()
    await c.close()
    c = await open()
    app = await buildApp(c)
    expect((await get(`/api/v1/profile?profileUrlOrUrn=${UNDATED_MEMBER}`)).statusCode).toBe(200)
  })
})
