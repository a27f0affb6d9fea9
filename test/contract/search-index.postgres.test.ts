import fc from 'fast-check'
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migratePostgres, openPostgres, postgresMigrationsDir } from '../../src/adapters/postgres/database.ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPgContentStore } from '../../src/adapters/postgres/pg-content-store.ts'
import { createPgSearchIndex } from '../../src/adapters/postgres/pg-search-index.ts'
import { indexText, toTsquery } from '../../src/adapters/postgres/pg-search-text.ts'
import { openSqlite } from '../../src/adapters/sqlite/database.ts'
import { createSqliteContentStore } from '../../src/adapters/sqlite/sqlite-content-store.ts'
import { createSqliteSearchIndex } from '../../src/adapters/sqlite/sqlite-search-index.ts'
import { parseSearchQuery, type QueryNode } from '../../src/domain/search/query-grammar.ts'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { bodyBytes } from '../../src/domain/content/content.service.ts'
import { createSearchService } from '../../src/domain/search/search.service.ts'
import { createTokenSigner } from '../../src/domain/tokens.ts'
import type { SearchIndex } from '../../src/ports/search-index.ts'
import { HOST, personRef, postIdAt, postRow, profileIdOf, profileRow } from '../helpers/content-fixtures.ts'
import { openTestDatabase, type PgTestDatabase } from '../helpers/pg-content.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'
import { generatedPosts, queryTreeArb, runSearchIndexContract } from './search-index.contract.ts'

const available = await postgresAvailable()

describe.skipIf(!available)('postgres search index', () => {
  let db: PgTestDatabase
  beforeAll(async () => {
    db = await openTestDatabase()
  })
  afterAll(async () => {
    await db?.close()
  })

  runSearchIndexContract('postgres', async () => {
    await db.emptyContent()
    const store = createPgContentStore(db.pool)
    return {
      store,
      index: createPgSearchIndex(db.pool),
      async dispose() {
        await store.close()
      },
    }
  })

  describe('BM25 as FTS5 computes it', () => {
    const posts = generatedPosts(400, 2_026)
    let sqlite: SearchIndex
    let postgres: SearchIndex
    let closeSqlite: () => void
    beforeAll(async () => {
      await db.emptyContent()
      const rows = [profileRow(1), ...posts.map((p) => postRow(p.id, personRef(1), { text: p.text, isRepost: p.isRepost }))]
      const sdb = openSqlite(':memory:')
      await createSqliteContentStore(sdb).write(rows)
      sqlite = createSqliteSearchIndex(sdb)
      closeSqlite = () => sdb.close()
      const store = createPgContentStore(db.pool)
      await store.write(rows)
      await store.close()
      postgres = createPgSearchIndex(db.pool)
    })
    afterAll(() => closeSqlite?.())

    /**
     * Whether FTS5's term counts for this query depend on how it walks the index: a NOT under an OR can
     * fail on a row the OR still matches, and FTS5 then reports the excluded term's occurrences in that
     * row when its cursor happens to rest there (seen: `#hiring OR ("r d cafe" NOT #hiring)` counts
     * #hiring twice on a row holding only #hiring). This adapter never counts an excluded term.
     */
    const walkDependent = (node: QueryNode, underOr = false): boolean => {
      switch (node.kind) {
        case 'not':
          return underOr || walkDependent(node.include, underOr) || walkDependent(node.exclude, underOr)
        case 'and':
          return node.children.some((c) => walkDependent(c, underOr))
        case 'or':
          return node.children.some((c) => walkDependent(c, true))
        default:
          return false
      }
    }

    it('gives every match the score SQLite FTS5 bm25() gives it, for generated boolean queries', async () => {
      let compared = 0
      await fc.assert(
        fc.asyncProperty(queryTreeArb, async (tree) => {
          const want = await sqlite.scoredMatches(tree, {}, 1000)
          const got = await postgres.scoredMatches(tree, {}, 1000)
          expect(got.map((s) => s.id)).toEqual(want.map((s) => s.id))
          if (walkDependent(tree)) return
          compared++
          got.forEach((s, i) => expect(s.score).toBeCloseTo(want[i]!.score, 9))
        }),
        { numRuns: 400, seed: 7 },
      )
      expect(compared).toBeGreaterThan(250)
    })

    it('the search service answers byte for byte the same over either index, page after page', async () => {
      const service = (index: SearchIndex) =>
        createSearchService({ index, tokens: createTokenSigner('search-secret'), clock: createManualClock(Date.UTC(2025, 0, 2)), platformHost: HOST })
      const overSqlite = service(sqlite)
      const overPostgres = service(postgres)
      const admit = async () => {}
      const bodies = [
        { query: 'python' },
        { query: 'python', sortBy: 'date' },
        { query: 'remote OR hiring', maxResults: 7 },
        { query: '"machine learning" NOT data', sortBy: 'date', maxResults: 5 },
        { query: "O'Neil cafe" },
        { query: '#hiring OR #remote', maxResults: 10 },
        { query: 'data', authorProfiles: [profileIdOf(1)], maxResults: 10 },
        { authorProfiles: [profileIdOf(1)], maxResults: 25, postedWithin: 'week' },
        // The title's holder's posts drive these (search.service.ts).
        { query: 'data OR python', authorJobTitle: 'Title 1', maxResults: 10 },
        { query: 'remote', authorJobTitle: 'title 1', sortBy: 'date', maxResults: 10 },
      ]
      for (const first of bodies) {
        let body: Record<string, unknown> | null = first
        for (let page = 0; body !== null && page < 4; page++) {
          const want: string = bodyBytes(await overSqlite.search(body, admit)).toString()
          const got = bodyBytes(await overPostgres.search(body, admit)).toString()
          expect(got).toBe(want)
          const cursor: string | null = (JSON.parse(want) as { cursor: string | null }).cursor
          body = cursor === null ? null : { ...first, cursor }
          if (page === 0) expect((JSON.parse(want) as { results: unknown[] }).results.length).toBeGreaterThan(0)
        }
      }
    })

    it('estimates the document frequency of a common term from the planner statistics, close to the count', async () => {
      // What seeding and `pronet ingest` do after a bulk load.
      await createPgContentStore(db.pool).analyze()
      // Every term counts as common here: statistics, not counts, give the frequencies.
      const estimating = createPgSearchIndex(db.pool, { exactCountLimit: 1 })
      const tree = parseSearchQuery('python OR remote OR hiring').tree
      const exact = await postgres.scoredMatches(tree, {}, 1000)
      const estimated = await estimating.scoredMatches(tree, {}, 1000)
      expect(estimated.map((s) => s.id)).toEqual(exact.map((s) => s.id))
      // ANALYZE reads every row of a table this small, so the shares are exact up to rounding.
      estimated.forEach((s, i) => expect(s.score).toBeCloseTo(exact[i]!.score, 2))
    })
  })

  describe('migration 007: title vectors', () => {
    it('the node that migrates fills the title of each member written before it, or since without one', async () => {
      const fresh = await createTestDatabase('pronet_t007')
      const pool = openPostgres(fresh.url, { max: 2 })
      try {
        const upTo6 = mkdtempSync(join(tmpdir(), 'pronet-pgmig-'))
        for (const f of readdirSync(postgresMigrationsDir())) if (/^00[1-6]_/.test(f)) copyFileSync(join(postgresMigrationsDir(), f), join(upTo6, f))
        await migratePostgres(pool, upTo6)
        rmSync(upTo6, { recursive: true })
        const insert = `INSERT INTO profiles (profile_id, member_id, slug, name, headline, url, doc, job_title)
                        VALUES ($1, $1, $1, 'n', 'h', 'u', '{}', $2)`
        await pool.query(insert, ['p1', 'Directeur Général'])
        await pool.query(insert, ['p2', 'Senior Data Engineer'])
        await pool.query(insert, ['p3', null])
        expect((await migratePostgres(pool))[0]).toBe('007_profile_titles.sql')
        const index = createPgSearchIndex(pool)
        expect(await index.titleHolders(['directeur', 'general'], 10)).toEqual(['p1'])
        expect(await index.titleHolders(['data', 'engineer'], 10)).toEqual(['p2'])
        const unfilled = 'SELECT count(*)::int AS n FROM profiles WHERE title_vector IS NULL AND job_title IS NOT NULL'
        expect((await pool.query<{ n: number }>(unfilled)).rows[0]?.n).toBe(0)
        // Rows written by a node older than the migration (a rolling upgrade): a new member, and a title
        // changed, whose vector was the old title's. Read as text until the next start fills them.
        await pool.query(insert, ['p4', 'Data Engineer'])
        await pool.query('UPDATE profiles SET job_title = $2 WHERE profile_id = $1', ['p1', 'Data Engineer, Paris'])
        expect((await pool.query<{ n: number }>(unfilled)).rows[0]?.n).toBe(2)
        expect((await index.titleHolders(['data', 'engineer'], 10))?.sort()).toEqual(['p1', 'p2', 'p4'])
        expect(await index.titleHolders(['directeur', 'general'], 10)).toEqual([])
        expect(await index.titleHolders(['data', 'engineer'], 2)).toBeNull()
        expect(await migratePostgres(pool)).toEqual([])
        expect((await pool.query<{ n: number }>(unfilled)).rows[0]?.n).toBe(0)
        expect((await index.titleHolders(['data', 'engineer'], 10))?.sort()).toEqual(['p1', 'p2', 'p4'])
        expect(await index.titleHolders(['directeur', 'general'], 10)).toEqual([])
        // This build's writer changes the vector with the title.
        const store = createPgContentStore(pool)
        await store.write([profileRow(9, { profileId: 'p2', jobTitle: 'Chief Data Officer' })])
        await store.close()
        expect((await pool.query<{ n: number }>(unfilled)).rows[0]?.n).toBe(0)
        expect((await index.titleHolders(['data', 'engineer'], 10))?.sort()).toEqual(['p1', 'p4'])
        expect(await index.titleHolders(['chief', 'data'], 10)).toEqual(['p2'])
      } finally {
        await pool.end()
        await fresh.drop()
      }
    })
  })

  describe('tsvector and tsquery literals', () => {
    it('PostgreSQL reads the literals as built: positions, #, quotes, and lexemes at the length limit', async () => {
      const text = "#Hiring o'neil O'Neil \\ back'slash " + 'x'.repeat(2047) + ' y ' + 'z'.repeat(2048) + ' w'
      const { vector, length } = indexText(text)
      expect(length).toBe(11)
      const { rows } = await db.pool.query<{ v: string; hit: boolean; miss: boolean; gap: boolean }>(
        `SELECT $1::tsvector::text AS v, $1::tsvector @@ $2::tsquery AS hit, $1::tsvector @@ $3::tsquery AS miss,
                $1::tsvector @@ $4::tsquery AS gap`,
        [
          vector,
          toTsquery(parseSearchQuery("#hiring O'Neil \"back slash\"").tree),
          toTsquery(parseSearchQuery('"hiring o"').tree),
          // y and w are two positions apart: the over-long token between them still takes its place.
          "'y' <2> 'w'",
        ],
      )
      expect(rows[0]).toMatchObject({ hit: true, miss: false, gap: true })
      expect(rows[0]!.v).toContain("'#hiring':1")
      expect(rows[0]!.v).toContain("'o':2,4")
      expect(rows[0]!.v).toContain(`'${'x'.repeat(2047)}':8`)
      expect(rows[0]!.v).not.toContain('zzz')
    })

    it('a term PostgreSQL cannot index matches nothing, and the query around it still works', () => {
      // 2 bytes each in UTF-8: past the 2047-byte lexeme limit (no parsed query gets here: 500 characters
      // of at most 4 bytes fit, but the index takes any tree).
      const long: QueryNode = { kind: 'word', text: 'ǆ'.repeat(1100), tokens: ['ǆ'.repeat(1100)] }
      const a: QueryNode = { kind: 'word', text: 'a', tokens: ['a'] }
      expect(toTsquery({ kind: 'or', children: [a, long] })).toBe("'a'")
      expect(toTsquery(long)).toBeNull()
      expect(toTsquery({ kind: 'not', include: a, exclude: long })).toBe("'a'")
      expect(toTsquery({ kind: 'not', include: long, exclude: a })).toBeNull()
      expect(toTsquery({ kind: 'and', children: [a, long] })).toBeNull()
    })
  })
})
