/**
 * The PostgreSQL content store judges a batch in JS and writes each table with one statement (the
 * bulk path, pg-bulk-*.ts). Here random batches mixing every kind of row, with clashing slugs, shares
 * and member ids, repeated records, card changes, moved comments and missing links, go to it and to
 * the SQLite store, which writes row by row: the outcomes and everything the port reads back must be
 * the same, and the search totals exact.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BULK_SLICE, SLICE_CHARS, slices } from '../../src/adapters/postgres/pg-bulk-write.ts'
import { createPgContentStore } from '../../src/adapters/postgres/pg-content-store.ts'
import { openSqlite } from '../../src/adapters/sqlite/database.ts'
import { createSqliteContentStore } from '../../src/adapters/sqlite/sqlite-content-store.ts'
import type { AuthorRef, ContentRow, ContentStore, PostCard } from '../../src/ports/content-store.ts'
import { openTestDatabase, type PgTestDatabase } from '../helpers/pg-content.ts'
import { postgresAvailable } from '../helpers/postgres.ts'
import {
  articleRow,
  commentRow,
  companyIdOf,
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

const available = await postgresAvailable()

const PEOPLE = [1, 2, 3, 4]
const PAGES = [1, 2]
const POSTS = [1, 2, 3, 4].map((m) => postIdAt(m))
const COMMENTS = [10, 11, 12, 13, 14].map((m) => postIdAt(m))
const ARTICLES = ['1', '2']

const urnOf = (ref: AuthorRef): string => (ref.kind === 'person' ? `urn:li:fsd_profile:${ref.id}` : `urn:li:fsd_company:${ref.id}`)

/** A post whose documents hold `card`, so a change of its author's card shows in them. */
const cardedPost = (id: string, author: AuthorRef, card: PostCard, over: { shareId: string; isRepost: boolean; text: string }): ContentRow => {
  const shape = (kind: string) => JSON.stringify({ id, kind, profile: { urn: urnOf(author), ...card }, text: over.text })
  return postRow(id, author, { doc: shape('doc'), docTrimmed: shape('trimmed'), docOlder: shape('older'), docSearch: shape('search'), card, ...over })
}

const person = fc.constantFrom(...PEOPLE).map(personRef)
const page = fc.constantFrom(...PAGES).map(companyRef)
const author: fc.Arbitrary<AuthorRef> = fc.oneof(
  { weight: 6, arbitrary: person },
  { weight: 3, arbitrary: page },
  { weight: 1, arbitrary: fc.constant(personRef(9)) },
  { weight: 1, arbitrary: fc.constant({ kind: 'robot', id: '1' } as unknown as AuthorRef) },
)
const postId = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...POSTS) }, { weight: 1, arbitrary: fc.constant(postIdAt(99)) }, { weight: 1, arbitrary: fc.constant('0123') })
const card: fc.Arbitrary<PostCard> = fc.record({
  name: fc.constantFrom('Member 1', 'Someone'),
  headline: fc.constantFrom('Headline 1', 'Other'),
  url: fc.constant('https://www.linkedin.com/in/member-1'),
  imageUrl: fc.constantFrom(null, 'https://media.example/p1.jpg'),
})

const row: fc.Arbitrary<ContentRow> = fc.oneof(
  // Profiles whose slug, member id and card change, and clash with one another's (two of each are free).
  fc
    .record({ n: fc.constantFrom(...PEOPLE), slug: fc.integer({ min: 1, max: 6 }), member: fc.integer({ min: 1, max: 6 }), renamed: fc.boolean(), picture: fc.boolean() })
    .map(({ n, slug, member, renamed, picture }) =>
      profileRow(n, {
        slug: `member-${slug}`,
        memberId: String(500_000 + member),
        name: renamed ? `Renamed ${n}` : `Member ${n}`,
        pictureUrl: picture ? `https://media.example/p${n}.jpg` : null,
        jobTitle: renamed ? 'Chief Tester' : `Title ${n}`,
      }),
    ),
  fc
    .record({ n: fc.constantFrom(...PAGES), slug: fc.constantFrom<number | null>(1, 2, null), renamed: fc.boolean() })
    .map(({ n, slug, renamed }) => companyRow(n, { slug: slug === null ? null : `company-${slug}`, name: renamed ? `Renamed Co ${n}` : `Company ${n}` })),
  fc
    .record({ id: postId, author, card, share: fc.constantFrom(...POSTS), isRepost: fc.boolean(), text: fc.constantFrom('one two three', 'one', '#hiring now', '') })
    .map(({ id, author: by, card: c, share, isRepost, text }) => cardedPost(id, by, c, { shareId: share, isRepost, text })),
  fc
    .record({ id: fc.constantFrom(...ARTICLES, '0123'), by: fc.constantFrom(1, 2, 9), v: fc.nat(3) })
    .map(({ id, by, v }) => articleRow(id, profileIdOf(by), { doc: JSON.stringify({ article: id, v }) })),
  fc
    .record({
      id: fc.constantFrom(...COMMENTS),
      // Mostly the post of the thread SETUP starts, so comments move in and out of it.
      post: fc.oneof({ weight: 4, arbitrary: fc.constant(POSTS[0]!) }, { weight: 1, arbitrary: postId }),
      parent: fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: fc.constantFrom(...COMMENTS) }),
      author,
      reactionCount: fc.nat(3),
      pinned: fc.boolean(),
      createdAt: fc.constantFrom('2025-02-01T10:00:00.000Z', '2025-02-01T09:00:00+02:00', 'yesterday'),
    })
    .map((c) => commentRow(c.id, c.post, c.author, { parentId: c.parent, reactionCount: c.reactionCount, pinned: c.pinned, createdAt: c.createdAt })),
  fc.tuple(postId, author, fc.constantFrom('LIKE', 'PRAISE')).map(([p, a, t]) => postReactionRow(p, a, t)),
  fc
    .tuple(fc.constantFrom(1, 2, 3, 9), postId, fc.oneof(fc.integer({ min: 1, max: 5 }), fc.constant(2.5)), fc.constantFrom('LIKE', 'EMPATHY'))
    .map(([n, p, at, t]) => profileReactionRow(profileIdOf(n), p, at, t)),
)

/** Where every run starts: members, pages, two posts and a thread, so most random rows find their links. */
const SETUP: ContentRow[] = [
  ...PEOPLE.map((n) => profileRow(n)),
  ...PAGES.map((n) => companyRow(n)),
  postRow(POSTS[0]!, personRef(1)),
  postRow(POSTS[1]!, companyRef(1), { text: 'a b' }),
  commentRow(COMMENTS[0]!, POSTS[0]!, personRef(2)),
  commentRow(COMMENTS[1]!, POSTS[0]!, personRef(3), { parentId: COMMENTS[0]! }),
  commentRow(COMMENTS[2]!, POSTS[0]!, companyRef(2)),
]

/** Everything the port reads back of the universe above. */
async function snapshot(store: ContentStore): Promise<unknown> {
  const text = (b: Buffer | undefined) => b?.toString()
  const authors = [...PEOPLE.map(personRef), ...PAGES.map(companyRef)]
  return {
    counts: await store.counts(),
    profiles: await Promise.all(
      PEOPLE.map(async (n) => ({
        doc: text(await store.getProfileDoc(profileIdOf(n))),
        bySlug: await store.findProfileIdBySlug(`member-${n}`),
        byMember: await store.findProfileIdByMemberId(String(500_000 + n)),
        articles: (await store.listArticles(profileIdOf(n), 0, 10)).map(text),
        reactions: (await store.listProfileReactions(profileIdOf(n), null, 50)).rows.map((r) => ({ ...r, postDoc: text(r.postDoc) })),
      })),
    ),
    companies: await Promise.all(
      PAGES.map(async (n) => ({ doc: text((await store.getCompany(companyIdOf(n)))?.doc), bySlug: await store.findCompanyIdBySlug(`company-${n}`) })),
    ),
    feeds: await Promise.all(
      authors.map(async (a) => ({
        posts: (await store.listPosts(a, null, 50)).rows.map((r) => ({ ...r, doc: text(r.doc) })),
        older: (await store.listRecentPostsOlder(a, 50)).map((r) => ({ ...r, docOlder: text(r.docOlder) })),
      })),
    ),
    posts: await Promise.all(
      POSTS.map(async (id) => ({
        share: await store.findPostIdByShare('share', id),
        comments: await store.listComments(id, 0, 50),
        reactions: await store.listPostReactions(id, 0, 50),
      })),
    ),
  }
}

describe.skipIf(!available)('postgres content store: the bulk path', () => {
  let db: PgTestDatabase
  beforeAll(async () => {
    db = await openTestDatabase()
  })
  afterAll(async () => {
    await db?.close()
  })

  it('gives every batch the outcomes, and leaves the reads, of the SQLite store writing row by row', async () => {
    const store = createPgContentStore(db.pool)
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.array(row, { minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 3 }), async (batches) => {
          await db.emptyContent()
          const sqliteDb = openSqlite(':memory:')
          const reference = createSqliteContentStore(sqliteDb)
          try {
            for (const batch of [SETUP, ...batches]) expect(await store.write(batch)).toEqual(await reference.write(batch))
            expect(await snapshot(store)).toEqual(await snapshot(reference))
            const { rows } = await db.pool.query<{ kept: string; actual: string }>(
              `SELECT (SELECT search_docs || '/' || search_tokens FROM content_epoch) AS kept,
                      (SELECT count(*) || '/' || coalesce(sum(search_len), 0) FROM posts WHERE NOT is_repost) AS actual`,
            )
            expect(rows[0]!.kept).toBe(rows[0]!.actual)
          } finally {
            sqliteDb.close()
          }
        }),
        { numRuns: 80, seed: 2024 },
      )
    } finally {
      await store.close()
    }
  })

  it('writes a table in slices and keeps the order of first writes across them', async () => {
    const store = createPgContentStore(db.pool)
    try {
      await db.emptyContent()
      const people = Array.from({ length: BULK_SLICE + 200 }, (_, i) => i + 1)
      const post = postIdAt(1)
      // One post's reactions in an order that is not the actors' order, then the first of them again.
      const order = people.map((_, i) => people[(i * 7) % people.length]!)
      const out = await store.write([
        ...people.map((n) => profileRow(n)),
        postRow(post, personRef(1)),
        ...order.map((n) => postReactionRow(post, personRef(n), 'LIKE')),
        postReactionRow(post, personRef(order[0]!), 'PRAISE'),
      ])
      expect(out.every((o) => o.ok)).toBe(true)
      const { reactions } = await store.listPostReactions(post, 0, people.length + 1)
      expect(reactions.map((r) => r.actor.id)).toEqual(order.map(profileIdOf))
      expect(reactions[0]!.reactionType).toBe('PRAISE')
      expect((await store.counts()).profiles).toBe(people.length)
    } finally {
      await store.close()
    }
  })

  it('cuts slices by rows and by the text they carry, never leaving one empty', () => {
    const items = Array.from({ length: BULK_SLICE * 2 + 1 }, (_, i) => i)
    expect(slices(items).map((s) => s.length)).toEqual([BULK_SLICE, BULK_SLICE, 1])
    const big = (i: number) => (i === 1 ? SLICE_CHARS * 2 : SLICE_CHARS / 4)
    expect(slices([0, 1, 2, 3, 4, 5], big)).toEqual([[0], [1], [2, 3, 4, 5]])
    expect(slices([], big)).toEqual([])
  })
})
