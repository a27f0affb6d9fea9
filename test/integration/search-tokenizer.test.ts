/**
 * The post index's tokenizer (src/adapters/sqlite/fts5-tokenizer.ts) reads text as the search model
 * does, which the PostgreSQL index and the query parser use: over every code point, SQLite and the
 * model agree on which characters make tokens (only the case folding of letters SQLite's tables do
 * not fold may differ). A store whose post_search was made with another tokenizer gets it rebuilt when
 * it is opened, every post still indexed.
 */
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openSqlite } from '../../src/adapters/sqlite/database.ts'
import { BASE_TOKENIZER, POST_SEARCH_TOKENIZER } from '../../src/adapters/sqlite/fts5-tokenizer.ts'
import { createSqliteContentStore } from '../../src/adapters/sqlite/sqlite-content-store.ts'
import { createSqliteSearchIndex } from '../../src/adapters/sqlite/sqlite-search-index.ts'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { createContentWriter } from '../../src/domain/content/content-writer.ts'
import { parseSearchQuery } from '../../src/domain/search/query-grammar.ts'
import { tokenize } from '../../src/domain/search/query-tokens.ts'
import { FIXTURE_NOW, companyRecord, personPostRecord, profileRecord } from '../helpers/ingest-fixtures.ts'
import { scanTokenizer } from '../helpers/fts5-scan.ts'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

describe('the post index tokenizes as the search model does', () => {
  it('over every code point: the same token characters (folding of some letters aside)', () => {
    // Without its exceptions SQLite's unicode61 does not: it reads 🤝 (Unicode 9) as part of a word.
    const plain = new Database(':memory:')
    plain.exec(`CREATE VIRTUAL TABLE t USING fts5(text, tokenize = "${BASE_TOKENIZER}")`)
    plain.exec(`CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')`)
    plain.prepare('INSERT INTO t (rowid, text) VALUES (1, ?)').run('great🤝day')
    expect(plain.prepare('SELECT term FROM v ORDER BY offset').pluck().all()).toEqual(['great🤝day'])
    plain.close()
    const scan = scanTokenizer(POST_SEARCH_TOKENIZER)
    expect(scan.sqliteOnlyToken.map((c) => c.toString(16))).toEqual([])
    expect(scan.modelOnlyToken.map((c) => c.toString(16))).toEqual([])
    expect(scan.foldDiffers.filter((c) => !/\p{L}/u.test(String.fromCodePoint(c))).map((c) => c.toString(16))).toEqual([])
  }, 60_000)

  it('a store made with the old tokenizer is rebuilt when opened, every post still indexed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pronet-tokenizer-'))
    dirs.push(dir)
    const path = join(dir, 'pronet.db')
    const at = (i: number) => Date.UTC(2025, 2, 1) + i * 60_000
    const author = profileRecord(1)
    const contents = ['A great🤝day at the conference', 'great news: we shipped', 'live now 🤝 with the team']
    {
      const db = openSqlite(path)
      const writer = createContentWriter({ store: createSqliteContentStore(db), clock: createManualClock(FIXTURE_NOW), platformHost: 'www.linkedin.com' })
      const outcomes = await writer.write([
        { kind: 'company', data: companyRecord() },
        { kind: 'profile', data: author },
        ...contents.map((content, i) => ({ kind: 'post', data: personPostRecord(author.profileId, at(i), i + 1, { content }) })),
      ])
      expect(outcomes.every((o) => o.ok)).toBe(true)
      db.close()
    }
    // As a store from before: post_search as migration 006 made it.
    {
      const raw = new Database(path)
      raw.exec('DROP TABLE post_search')
      raw.exec(`CREATE VIRTUAL TABLE post_search USING fts5(text, content = '', contentless_delete = 1, tokenize = "${BASE_TOKENIZER}")`)
      raw.exec('INSERT INTO post_search (rowid, text) SELECT d.id, d.text FROM post_docs d JOIN posts p ON p.id = d.id WHERE p.is_repost = 0')
      expect(raw.prepare("SELECT count(*) FROM post_search WHERE post_search MATCH 'great'").pluck().get()).toBe(1)
      raw.close()
    }
    const notices: string[] = []
    const db = openSqlite(path, { notice: (line) => notices.push(line) })
    try {
      // Said before and after: on a large store the rebuild takes minutes, which passed in silence.
      expect(notices).toEqual([
        `rebuilding the post search index for this build's tokenizer (${contents.length} posts; searches and writes wait for it)…`,
        expect.stringMatching(/^post search index rebuilt in \d+\.\d s$/),
      ])
      const sql = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'post_search'").pluck().get() as string
      expect(sql).toContain(POST_SEARCH_TOKENIZER)
      expect(sql).not.toContain('contentless_delete')
      expect(db.prepare('SELECT count(*) FROM post_search').pluck().get()).toBe(contents.length)
      const index = createSqliteSearchIndex(db)
      // `great🤝day` is three words, as the model and the PostgreSQL index read it.
      expect(tokenize(contents[0] as string)).toEqual(['a', 'great', 'day', 'at', 'the', 'conference'])
      const newest = async (q: string) => (await index.newestMatches(parseSearchQuery(q).tree, {}, 10)).length
      expect(await newest('great')).toBe(2)
      expect(await newest('day')).toBe(1)
      expect(await newest('"live now with"')).toBe(1)
      // A second open finds it done and leaves it alone.
      const again = openSqlite(path, { notice: (line) => notices.push(line) })
      expect(again.prepare("SELECT sql FROM sqlite_master WHERE name = 'post_search'").pluck().get()).toBe(sql)
      expect(notices).toHaveLength(2)
      again.close()
    } finally {
      db.close()
    }
  })

  it('a store whose index was made as contentless_delete (which left deleted posts in the totals) is rebuilt, totals right', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pronet-tokenizer-'))
    dirs.push(dir)
    const path = join(dir, 'pronet.db')
    const author = profileRecord(1)
    const posts = ['alpha beta', 'alpha gamma delta', 'beta'].map((content, i) => ({ kind: 'post' as const, data: personPostRecord(author.profileId, Date.UTC(2025, 2, 1) + i * 60_000, i + 1, { content }) }))
    {
      const db = openSqlite(path)
      const writer = createContentWriter({ store: createSqliteContentStore(db), clock: createManualClock(FIXTURE_NOW), platformHost: 'www.linkedin.com' })
      expect((await writer.write([{ kind: 'company', data: companyRecord() }, { kind: 'profile', data: author }, ...posts])).every((o) => o.ok)).toBe(true)
      db.close()
    }
    // As a store from before: the current tokenizer, contentless_delete, and a post re-written three times.
    {
      const raw = new Database(path)
      raw.exec('DROP TABLE post_search')
      raw.exec(`CREATE VIRTUAL TABLE post_search USING fts5(text, content = '', contentless_delete = 1, tokenize = "${POST_SEARCH_TOKENIZER}")`)
      raw.exec('INSERT INTO post_search (rowid, text) SELECT d.id, d.text FROM post_docs d JOIN posts p ON p.id = d.id WHERE p.is_repost = 0')
      for (let i = 0; i < 3; i++) {
        raw.exec('DELETE FROM post_search WHERE rowid = (SELECT min(id) FROM posts)')
        raw.exec('INSERT INTO post_search (rowid, text) SELECT id, text FROM post_docs WHERE id = (SELECT min(id) FROM posts)')
      }
      await expect(createSqliteSearchIndex(raw as never).termFrequencies(['alpha']).then((f) => f.posts)).resolves.toBe(6)
      raw.close()
    }
    const db = openSqlite(path)
    try {
      expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'post_search'").pluck().get()).not.toContain('contentless_delete')
      expect((await createSqliteSearchIndex(db).termFrequencies(['alpha'])).posts).toBe(3)
    } finally {
      db.close()
    }
  })
})
