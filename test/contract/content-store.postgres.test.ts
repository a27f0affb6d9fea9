import fc from 'fast-check'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { VERSION_CHECK_MS, createPgContentStore } from '../../src/adapters/postgres/pg-content-store.ts'
import { openSqlite } from '../../src/adapters/sqlite/database.ts'
import { createSqliteContentStore } from '../../src/adapters/sqlite/sqlite-content-store.ts'
import type { AuthorRef, ContentRow, ContentStore } from '../../src/ports/content-store.ts'
import { openTestDatabase, type PgTestDatabase } from '../helpers/pg-content.ts'
import { postgresAvailable } from '../helpers/postgres.ts'
import {
  commentRow,
  companyRef,
  companyRow,
  personRef,
  postIdAt,
  postReactionRow,
  postRow,
  profileIdOf,
  profileReactionRow,
  profileRow,
} from '../helpers/content-fixtures.ts'
import { runContentStoreContract } from './content-store.contract.ts'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { createContentWriter } from '../../src/domain/content/content-writer.ts'
import { idFromTime } from '../../src/domain/content/ids.ts'
import { COMPANY_ID, FIXTURE_NOW, PERSON_POST_ID, commentRecord, companyRecord, companyUrn, fixtureRecords } from '../helpers/ingest-fixtures.ts'

const available = await postgresAvailable()
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.skipIf(!available)('postgres content store', () => {
  let db: PgTestDatabase
  beforeAll(async () => {
    db = await openTestDatabase()
  })
  afterAll(async () => {
    await db?.close()
  })

  runContentStoreContract('postgres', async () => {
    await db.emptyContent()
    const store = createPgContentStore(db.pool)
    return {
      store,
      async dispose() {
        await store.close()
      },
    }
  })

  describe('postgres content store', () => {
    const stores: ContentStore[] = []
    const open = () => {
      const s = createPgContentStore(db.pool)
      stores.push(s)
      return s
    }
    beforeEach(async () => {
      await Promise.all(stores.splice(0).map((s) => s.close()))
      await db.emptyContent()
    })

    /** The search totals kept on the epoch row, and what they should be. */
    const totals = async () => {
      const { rows } = await db.pool.query<{ kept: string; actual: string }>(
        `SELECT (SELECT search_docs || '/' || search_tokens FROM content_epoch) AS kept,
                (SELECT count(*) || '/' || coalesce(sum(search_len), 0) FROM posts WHERE NOT is_repost) AS actual`,
      )
      return rows[0]!
    }

    it("moves version() after another node's commit (checked every VERSION_CHECK_MS), and only then", async () => {
      const server = open()
      const other = open()
      server.version()
      await sleep(VERSION_CHECK_MS * 6)
      const before = server.version()
      await sleep(VERSION_CHECK_MS * 3)
      expect(server.version()).toBe(before)
      await other.write([profileRow(1)])
      // Polled rather than timed: a loaded machine may run the check late.
      await vi.waitFor(() => expect(server.version()).not.toBe(before), { timeout: 5_000, interval: VERSION_CHECK_MS / 5 })
    })

    it('a value PostgreSQL refuses (a check constraint, a NUL character) fails its row alone', async () => {
      const store = open()
      const out = await store.write([
        profileRow(1),
        postRow(postIdAt(1), personRef(1), { shareKind: 'bad' as 'share' }),
        profileRow(2, { name: 'nul \u0000 inside' }),
        postRow(postIdAt(2), personRef(1)),
        postReactionRow(postIdAt(2), personRef(1)),
      ])
      expect(out.map((o) => o.ok)).toEqual([true, false, false, true, true])
      expect(out[1]).toMatchObject({ reason: expect.stringMatching(/check constraint/) })
      expect(await store.counts()).toMatchObject({ profiles: 1, posts: 1, postReactions: 1 })
      expect(await totals()).toMatchObject({ kept: '1/3' })
    })

    it('a value past a PostgreSQL limit (a text whose tsvector passes 1 MB) fails its row alone, not the batch', async () => {
      const store = open()
      // 160,000 distinct words: about 1.2 MB of lexemes. The writer refuses such a post before (MAX_POST_CONTENT).
      const huge = Array.from({ length: 160_000 }, (_, i) => `w${i.toString(36)}x`).join(' ')
      const out = await store.write([profileRow(1), postRow(postIdAt(1), personRef(1)), postRow(postIdAt(2), personRef(1), { text: huge }), postRow(postIdAt(3), personRef(1))])
      expect(out.map((o) => o.ok)).toEqual([true, true, false, true])
      expect(out[2]).toMatchObject({ reason: expect.stringMatching(/too long for tsvector/) })
      expect(await store.counts()).toMatchObject({ profiles: 1, posts: 2 })
      expect(await totals()).toMatchObject({ kept: '2/6' })
    })

    it('a slug another transaction takes between check and write is refused with the readable reason', async () => {
      const store = open()
      await store.write([profileRow(9)])
      const blocker = await db.pool.connect()
      try {
        await blocker.query('BEGIN')
        await blocker.query(
          `INSERT INTO profiles (profile_id, member_id, slug, name, headline, url, doc) VALUES ($1, '1', 'taken', 'n', 'h', 'u', '{}')`,
          [profileIdOf(1)],
        )
        const writing = store.write([profileRow(2), profileRow(3, { slug: 'taken' }), profileRow(4)])
        // The write waits on the uncommitted slug in the unique index, then fails and runs guarded.
        await sleep(200)
        await blocker.query('COMMIT')
        const out = await writing
        expect(out.map((o) => o.ok)).toEqual([true, false, true])
        expect(out[1]).toEqual({ ok: false, reason: `publicIdentifier 'taken' is already used by profile ${profileIdOf(1)}` })
      } finally {
        blocker.release()
      }
      expect((await store.counts()).profiles).toBe(4)
    })

    it('nodes writing the same rows at once all succeed, and reactions never collide', async () => {
      const a = open()
      const b = open()
      await a.write([profileRow(1), profileRow(2), profileRow(3), companyRow(1), postRow(postIdAt(1), personRef(1))])
      const batch = (first: number) => [
        postRow(postIdAt(2), personRef(2)),
        ...[1, 2, 3].map((n) => postReactionRow(postIdAt(1), personRef(((n + first) % 3) + 1))),
        postReactionRow(postIdAt(1), companyRef(1)),
        postRow(postIdAt(1), personRef(1), { text: `rewritten ${first} times over` }),
      ]
      const results = await Promise.all([0, 1, 2, 3].map((i) => (i % 2 === 0 ? a : b).write(batch(i))))
      for (const out of results) expect(out.every((o) => o.ok)).toBe(true)
      expect(await a.counts()).toMatchObject({ posts: 2, postReactions: 4 })
      expect((await a.listPostReactions(postIdAt(1), 0, 10)).reactions).toHaveLength(4)
      const t = await totals()
      expect(t.kept).toBe(t.actual)
    })

    it('reads text with a lone surrogate, and a page headline cut beside an emoji, as SQLite does (well-formed on both)', async () => {
      const store = open()
      const sqliteDb = openSqlite(':memory:')
      const reference = createSqliteContentStore(sqliteDb)
      try {
        const records = fixtureRecords()
        // The page headline is the description's first 120 characters: here the 120th is an emoji.
        const description = `${'x'.repeat(119)}\u{1F680} and on`
        const company = { kind: 'company', data: { ...companyRecord(), description, name: 'North\ud800wind' } }
        const byPage = commentRecord(PERSON_POST_ID, idFromTime(Date.UTC(2025, 0, 10, 12), 7), companyUrn(COMPANY_ID), { text: 'lone \udc00 half' })
        const input = [company, ...records.filter((r) => r.kind !== 'company'), { kind: 'comment', data: byPage }]
        const write = (s: ContentStore) => createContentWriter({ store: s, clock: createManualClock(FIXTURE_NOW), platformHost: 'www.linkedin.com' }).write(input)
        expect((await write(store)).every((o) => o.ok)).toBe(true)
        expect((await write(reference)).every((o) => o.ok)).toBe(true)
        const read = async (s: ContentStore) => (await s.listComments(PERSON_POST_ID, 0, 10)).comments
        const comments = await read(store)
        expect(comments).toEqual(await read(reference))
        const mine = comments.find((c) => c.text.startsWith('lone'))!
        expect(mine.text).toBe('lone \uFFFD half')
        expect(mine.author).toMatchObject({ name: 'North\uFFFDwind', headline: `${'x'.repeat(119)}\u{1F680}` })
      } finally {
        sqliteDb.close()
      }
    })

    it('writes runs of reactions in one statement with the outcomes and order of writing them one by one (as SQLite does)', async () => {
      const store = open()
      const setup: ContentRow[] = [profileRow(1), profileRow(2), profileRow(3), companyRow(1), ...[1, 2, 3].map((m) => postRow(postIdAt(m), personRef(1)))]
      const actor: fc.Arbitrary<AuthorRef> = fc.oneof(
        fc.integer({ min: 1, max: 4 }).map(personRef),
        fc.integer({ min: 1, max: 2 }).map(companyRef),
        fc.constant({ kind: 'robot', id: '1' } as unknown as AuthorRef),
      )
      // Mostly one post, so one run often names an actor twice with others between.
      const postId = fc.oneof(
        { weight: 8, arbitrary: fc.constant(postIdAt(1)) },
        { weight: 3, arbitrary: fc.integer({ min: 2, max: 4 }).map((m) => postIdAt(m)) },
        { weight: 1, arbitrary: fc.constant('0123') },
      )
      const type = fc.constantFrom('LIKE', 'PRAISE', 'EMPATHY')
      const reaction: fc.Arbitrary<ContentRow> = fc.oneof(
        fc.tuple(postId, actor, type).map(([p, a, t]) => postReactionRow(p, a, t)),
        fc
          .tuple(fc.integer({ min: 1, max: 4 }), postId, fc.oneof(fc.integer({ min: 1, max: 5 }), fc.constant(1.5)), type)
          .map(([n, p, at, t]) => profileReactionRow(profileIdOf(n), p, at, t)),
      )
      await fc.assert(
        fc.asyncProperty(fc.array(fc.array(reaction, { maxLength: 12 }), { minLength: 1, maxLength: 3 }), async (batches) => {
          await db.emptyContent()
          const sqliteDb = openSqlite(':memory:')
          const reference = createSqliteContentStore(sqliteDb)
          try {
            await reference.write(setup)
            await store.write(setup)
            for (const batch of batches) expect(await store.write(batch)).toEqual(await reference.write(batch))
            for (const m of [1, 2, 3]) {
              const listed = async (s: ContentStore) => (await s.listPostReactions(postIdAt(m), 0, 100)).reactions
              expect(await listed(store)).toEqual(await listed(reference))
            }
            for (const n of [1, 2, 3, 4]) {
              const listed = async (s: ContentStore) => (await s.listProfileReactions(profileIdOf(n), null, 100)).rows.map(({ postDoc: _, ...r }) => r)
              expect(await listed(store)).toEqual(await listed(reference))
            }
          } finally {
            sqliteDb.close()
          }
        }),
        { numRuns: 80, seed: 99 },
      )
    })

    it('checks and writes each comment in one statement with the outcomes of the SQLite adapter', async () => {
      const store = open()
      // Threads to start from: comment 10 on post 1 with reply 11, and comment 12.
      const setup: ContentRow[] = [
        profileRow(1),
        profileRow(2),
        companyRow(1),
        ...[1, 2].map((m) => postRow(postIdAt(m), personRef(1))),
        commentRow(postIdAt(10), postIdAt(1), personRef(1)),
        commentRow(postIdAt(11), postIdAt(1), personRef(2), { parentId: postIdAt(10) }),
        commentRow(postIdAt(12), postIdAt(1), personRef(2)),
      ]
      const commentId = fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 10, max: 15 }).map((m) => postIdAt(m)) }, { weight: 1, arbitrary: fc.constant('0012') })
      const comment: fc.Arbitrary<ContentRow> = fc
        .record({
          id: commentId,
          post: fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 1, max: 2 }).map((m) => postIdAt(m)) }, { weight: 1, arbitrary: fc.constant(postIdAt(9)) }),
          parent: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: commentId }),
          author: fc.oneof(
            fc.integer({ min: 1, max: 3 }).map(personRef),
            fc.integer({ min: 1, max: 2 }).map(companyRef),
            fc.constant({ kind: 'robot', id: '1' } as unknown as AuthorRef),
          ),
          createdAt: fc.constantFrom('2025-02-01T10:00:00.000Z', '2025-02-01T09:00:00+02:00', 'yesterday'),
          reactionCount: fc.integer({ min: 0, max: 3 }),
          pinned: fc.boolean(),
        })
        .map((c) => commentRow(c.id, c.post, c.author, { parentId: c.parent, createdAt: c.createdAt, reactionCount: c.reactionCount, pinned: c.pinned }))
      await fc.assert(
        fc.asyncProperty(fc.array(fc.array(comment, { maxLength: 10 }), { minLength: 1, maxLength: 3 }), async (batches) => {
          await db.emptyContent()
          const sqliteDb = openSqlite(':memory:')
          const reference = createSqliteContentStore(sqliteDb)
          try {
            await reference.write(setup)
            await store.write(setup)
            for (const batch of batches) expect(await store.write(batch)).toEqual(await reference.write(batch))
            for (const m of [1, 2]) expect(await store.listComments(postIdAt(m), 0, 100)).toEqual(await reference.listComments(postIdAt(m), 0, 100))
          } finally {
            sqliteDb.close()
          }
        }),
        { numRuns: 100, seed: 7 },
      )
    })

    it('keeps the search totals exact through rewrites and repost flips', async () => {
      const store = open()
      await store.write([profileRow(1), postRow(postIdAt(1), personRef(1), { text: 'one two three' })])
      expect(await totals()).toEqual({ kept: '1/3', actual: '1/3' })
      await store.write([postRow(postIdAt(1), personRef(1), { text: 'one two' }), postRow(postIdAt(2), personRef(1), { text: '' })])
      expect(await totals()).toEqual({ kept: '2/2', actual: '2/2' })
      await store.write([postRow(postIdAt(1), personRef(1), { isRepost: true })])
      expect(await totals()).toEqual({ kept: '1/0', actual: '1/0' })
      await store.write([postRow(postIdAt(1), personRef(1), { text: 'a b c d' }), postRow(postIdAt(3), personRef(1), { text: 'x' })])
      expect(await totals()).toEqual({ kept: '3/5', actual: '3/5' })
    })
  })
})
