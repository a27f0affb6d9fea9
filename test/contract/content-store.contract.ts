/**
 * The ContentStore contract (src/ports/content-store.ts), written against the port only so every
 * adapter (SQLite, PostgreSQL) runs the same suite: `runContentStoreContract('sqlite', makeStore)`.
 * Each test gets an empty store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { EMPTY_COUNTS } from '../helpers/content-fixtures.ts'
import { validateRecord } from '../../src/domain/content/content-writer.ts'
import type { ContentRow, ContentStore, ProfileRow, WriteOutcome } from '../../src/ports/content-store.ts'
import {
  articleRow,
  commentRow,
  companyIdOf,
  companyRef,
  companyRow,
  personRef,
  postIdAt,
  postReactionRow,
  postRecord,
  postRow,
  prepared,
  profileIdOf,
  profileReactionRow,
  profileRow,
} from '../helpers/content-fixtures.ts'

export interface ContentStoreHandle {
  store: ContentStore
  dispose(): Promise<void>
}

const OK: WriteOutcome = { ok: true }

/** Ids at the top of the 19-digit range that a double cannot tell apart. */
const BIG = ['7399999999999999997', '7399999999999999998', '7399999999999999999'] as const

type Texted<T> = T extends Buffer ? string : T extends (infer U)[] ? Texted<U>[] : T extends object ? { [K in keyof T]: Texted<T[K]> } : T
/** The port with every returned document as text; the suite compares text, one test checks the bytes. */
type TextView = { [K in keyof ContentStore]: ContentStore[K] extends (...a: infer A) => Promise<infer R> ? (...a: A) => Promise<Texted<R>> : ContentStore[K] }

function toText(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return value.toString()
  if (Array.isArray(value)) return value.map(toText)
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toText(v)]))
  return value
}

function asText(store: ContentStore): TextView {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const member = Reflect.get(target, prop, receiver) as unknown
      if (typeof member !== 'function') return member
      return (...args: unknown[]) => {
        const out = (member as (...a: unknown[]) => unknown).apply(target, args)
        return out instanceof Promise ? out.then(toText) : out
      }
    },
  }) as unknown as TextView
}

export function runContentStoreContract(name: string, makeStore: () => Promise<ContentStoreHandle>): void {
  describe(`ContentStore contract: ${name}`, () => {
    let handle: ContentStoreHandle
    /** The store under test, read through `asText` so document assertions can compare text. */
    let store: TextView
    let raw: ContentStore

    beforeEach(async () => {
      handle = await makeStore()
      raw = handle.store
      store = asText(raw)
    })
    afterEach(async () => {
      await handle.dispose()
    })

    /** Writes rows that must all succeed. */
    const seed = async (...rows: ContentRow[]): Promise<void> => {
      expect(await store.write(rows)).toEqual(rows.map(() => OK))
    }

    /** Asserts a batch of [good, bad, good]: the bad row fails with a reason matching `reason`. */
    const expectMiddleFails = async (good1: ContentRow, bad: ContentRow, good2: ContentRow, reason: RegExp) => {
      const out = await store.write([good1, bad, good2])
      expect(out[0]).toEqual(OK)
      expect(out[2]).toEqual(OK)
      expect(out[1]).toMatchObject({ ok: false })
      expect((out[1] as { reason: string }).reason).toMatch(reason)
    }

    const ids = (rows: { id: string }[]) => rows.map((r) => r.id)

    describe('documents', () => {
      it('come back as Buffers holding exactly the stored UTF-8 bytes', async () => {
        const doc = '{"name":"Zoë Ünal","emoji":"🚀","mark":"\u0001"}'
        await seed(profileRow(1, { doc }), postRow(postIdAt(1), personRef(1), { doc: '{"p":"ü"}', docOlder: '{"o":"é"}' }))
        const got = await raw.getProfileDoc(profileIdOf(1))
        expect(Buffer.isBuffer(got)).toBe(true)
        expect((got as Buffer).equals(Buffer.from(doc))).toBe(true)
        const feed = await raw.listPosts(personRef(1), null, 5)
        expect(Buffer.isBuffer(feed.rows[0]?.doc)).toBe(true)
        expect(feed.rows[0]?.doc.equals(Buffer.from('{"p":"ü"}'))).toBe(true)
        const older = await raw.listRecentPostsOlder(personRef(1), 5)
        expect(older[0]?.docOlder.equals(Buffer.from('{"o":"é"}'))).toBe(true)
      })
    })

    describe('write', () => {
      it('answers an empty batch with no outcomes and an empty store counts zero', async () => {
        expect(await store.write([])).toEqual([])
        expect(await store.counts()).toEqual(EMPTY_COUNTS)
        expect(await store.isEmpty()).toBe(true)
      })

      it('is not empty once it holds a profile, a company or a post', async () => {
        await seed(companyRow(1))
        expect(await store.isEmpty()).toBe(false)
        expect(await store.hasCompany(companyIdOf(1))).toBe(true)
        expect(await store.hasCompany(companyIdOf(2))).toBe(false)
      })

      it('returns one outcome per row, in order, and counts every table', async () => {
        const p1 = postIdAt(1)
        const p2 = postIdAt(2)
        const rows: ContentRow[] = [
          profileRow(1),
          profileRow(2),
          companyRow(1),
          postRow(p1, personRef(1)),
          postRow(p2, companyRef(1)),
          articleRow('42', profileIdOf(1)),
          commentRow(postIdAt(3), p1, personRef(2)),
          commentRow(postIdAt(4), p1, companyRef(1)),
          commentRow(postIdAt(5), p1, personRef(1), { parentId: postIdAt(3) }),
          postReactionRow(p1, personRef(2)),
          postReactionRow(p1, companyRef(1)),
          postReactionRow(p2, personRef(1)),
          profileReactionRow(profileIdOf(2), p1, 1000),
        ]
        expect(await store.write(rows)).toEqual(rows.map(() => OK))
        expect(await store.counts()).toEqual({
          profiles: 2,
          companies: 1,
          posts: 2,
          articles: 1,
          comments: 3,
          postReactions: 3,
          profileReactions: 1,
        })
      })

      it('lets a row depend on an earlier row of the same batch', async () => {
        const p = postIdAt(1)
        const c = postIdAt(2)
        await seed(
          profileRow(1),
          postRow(p, personRef(1)),
          commentRow(c, p, personRef(1)),
          commentRow(postIdAt(3), p, personRef(1), { parentId: c }),
          postReactionRow(p, personRef(1)),
          profileReactionRow(profileIdOf(1), p, 5),
        )
        const { comments } = await store.listComments(p, 0, 10)
        expect(comments.map((x) => x.commentId)).toEqual([c])
        expect(comments[0]?.replies.map((x) => x.commentId)).toEqual([postIdAt(3)])
      })

      it('upserts do not add rows', async () => {
        const p = postIdAt(1)
        const rows = [
          profileRow(1),
          companyRow(1),
          postRow(p, personRef(1)),
          articleRow('7', profileIdOf(1)),
          commentRow(postIdAt(2), p, personRef(1)),
          postReactionRow(p, personRef(1)),
          profileReactionRow(profileIdOf(1), p, 5),
        ]
        await seed(...rows)
        await seed(...rows)
        expect(await store.counts()).toEqual({
          profiles: 1,
          companies: 1,
          posts: 1,
          articles: 1,
          comments: 1,
          postReactions: 1,
          profileReactions: 1,
        })
      })

      it('refuses ids a 64-bit integer cannot hold exactly, keeping the other rows', async () => {
        await seed(profileRow(1))
        await expectMiddleFails(
          postRow(postIdAt(1), personRef(1)),
          postRow('9999999999999999999', personRef(1)),
          postRow(postIdAt(2), personRef(1)),
          /9999999999999999999/,
        )
        await expectMiddleFails(
          articleRow('1', profileIdOf(1)),
          articleRow('0123', profileIdOf(1)),
          articleRow('2', profileIdOf(1)),
          /0123/,
        )
        expect(await store.counts()).toMatchObject({ posts: 2, articles: 2 })
        expect(await store.listArticles(profileIdOf(1), 0, 10)).toEqual([
          JSON.stringify({ article: '2' }),
          JSON.stringify({ article: '1' }),
        ])
      })
    })

    describe('referential rules: a failing row leaves nothing, the rest of the batch is kept', () => {
      const p1 = postIdAt(1)
      const p2 = postIdAt(2)
      const missingPost = postIdAt(99)
      const top1 = postIdAt(10)
      const reply1 = postIdAt(11)
      const top2 = postIdAt(12)

      beforeEach(async () => {
        await seed(
          profileRow(1),
          profileRow(2),
          companyRow(1),
          postRow(p1, personRef(1)),
          postRow(p2, personRef(2)),
          commentRow(top1, p1, personRef(1)),
          commentRow(reply1, p1, personRef(2), { parentId: top1 }),
          commentRow(top2, p2, personRef(2)),
        )
      })

      const commentCount = async () => (await store.counts()).comments

      it('a post by a member or a company that does not exist', async () => {
        const before = (await store.counts()).posts
        await expectMiddleFails(
          postRow(postIdAt(30), personRef(1)),
          postRow(postIdAt(31), personRef(9)),
          postRow(postIdAt(32), companyRef(1)),
          new RegExp(`profile ${profileIdOf(9)} does not exist`),
        )
        await expectMiddleFails(
          postRow(postIdAt(33), companyRef(1)),
          postRow(postIdAt(34), companyRef(9)),
          postRow(postIdAt(35), personRef(2)),
          new RegExp(`company ${companyIdOf(9)} does not exist`),
        )
        expect((await store.counts()).posts).toBe(before + 4)
      })

      it('an article by a profile that does not exist', async () => {
        await expectMiddleFails(
          articleRow('7', profileIdOf(1)),
          articleRow('8', profileIdOf(9)),
          articleRow('9', profileIdOf(2)),
          new RegExp(`profile ${profileIdOf(9)} does not exist`),
        )
        expect(await store.listArticles(profileIdOf(9), 0, 10)).toEqual([])
        expect((await store.counts()).articles).toBe(2)
      })

      it('a comment on a post that does not exist', async () => {
        await expectMiddleFails(
          commentRow(postIdAt(20), p1, personRef(1)),
          commentRow(postIdAt(21), missingPost, personRef(1)),
          commentRow(postIdAt(22), p2, personRef(1)),
          new RegExp(`post ${missingPost} does not exist`),
        )
        expect(await commentCount()).toBe(5)
        expect(await store.listComments(missingPost, 0, 10)).toEqual({ comments: [], hasMore: false })
      })

      it('a comment by a profile that does not exist', async () => {
        await expectMiddleFails(
          commentRow(postIdAt(20), p1, personRef(1)),
          commentRow(postIdAt(21), p1, personRef(9)),
          commentRow(postIdAt(22), p1, companyRef(1)),
          new RegExp(`profile ${profileIdOf(9)} does not exist`),
        )
        const { comments } = await store.listComments(p1, 0, 10)
        expect(comments.map((c) => c.commentId).sort()).toEqual([top1, postIdAt(20), postIdAt(22)].sort())
      })

      it('a comment by a company that does not exist', async () => {
        await expectMiddleFails(
          commentRow(postIdAt(20), p1, companyRef(1)),
          commentRow(postIdAt(21), p1, companyRef(9)),
          commentRow(postIdAt(22), p1, personRef(2)),
          new RegExp(`company ${companyIdOf(9)} does not exist`),
        )
        expect(await commentCount()).toBe(5)
      })

      it('a reply whose parent does not exist', async () => {
        const ghost = postIdAt(50)
        await expectMiddleFails(
          commentRow(postIdAt(20), p1, personRef(1), { parentId: top1 }),
          commentRow(postIdAt(21), p1, personRef(1), { parentId: ghost }),
          commentRow(postIdAt(22), p1, personRef(1)),
          new RegExp(`comment ${ghost} does not exist`),
        )
        expect(await commentCount()).toBe(5)
      })

      it('a reply whose parent belongs to another post', async () => {
        await expectMiddleFails(
          commentRow(postIdAt(20), p1, personRef(1)),
          commentRow(postIdAt(21), p1, personRef(1), { parentId: top2 }),
          commentRow(postIdAt(22), p2, personRef(1), { parentId: top2 }),
          new RegExp(`${top2}.*${p2}`),
        )
        expect(await commentCount()).toBe(5)
        const { comments } = await store.listComments(p2, 0, 10)
        expect(comments[0]?.replies.map((r) => r.commentId)).toEqual([postIdAt(22)])
      })

      it('a reply to a reply (replies are one level deep)', async () => {
        await expectMiddleFails(
          commentRow(postIdAt(20), p1, personRef(1)),
          commentRow(postIdAt(21), p1, personRef(1), { parentId: reply1 }),
          commentRow(postIdAt(22), p1, personRef(1)),
          new RegExp(`${reply1}.*reply`),
        )
        expect(await commentCount()).toBe(5)
      })

      it('a comment that has replies cannot become a reply, nor move to another post', async () => {
        const out = await store.write([
          commentRow(top1, p1, personRef(1), { parentId: postIdAt(20) }),
          commentRow(postIdAt(20), p1, personRef(1)),
          commentRow(top1, p1, personRef(1), { parentId: postIdAt(20) }),
          commentRow(top1, p2, personRef(1)),
        ])
        expect(out[0]).toMatchObject({ ok: false })
        expect(out[1]).toEqual(OK)
        expect(out[2]).toMatchObject({ ok: false, reason: expect.stringMatching(/replies/) })
        expect(out[3]).toMatchObject({ ok: false, reason: expect.stringContaining(p1) })
        const { comments } = await store.listComments(p1, 0, 10)
        const first = comments.find((c) => c.commentId === top1)
        expect(first?.replies.map((r) => r.commentId)).toEqual([reply1])
      })

      it('a post reaction to a post that does not exist', async () => {
        await expectMiddleFails(
          postReactionRow(p1, personRef(1)),
          postReactionRow(missingPost, personRef(2)),
          postReactionRow(p2, personRef(2)),
          new RegExp(`post ${missingPost} does not exist`),
        )
        expect((await store.counts()).postReactions).toBe(2)
        expect(await store.listPostReactions(missingPost, 0, 10)).toEqual({ reactions: [], hasMore: false })
      })

      it('a post reaction by an actor that does not exist', async () => {
        await expectMiddleFails(
          postReactionRow(p1, personRef(1)),
          postReactionRow(p1, personRef(7)),
          postReactionRow(p1, companyRef(1)),
          new RegExp(`profile ${profileIdOf(7)} does not exist`),
        )
        await expectMiddleFails(
          postReactionRow(p2, personRef(1)),
          postReactionRow(p2, companyRef(7)),
          postReactionRow(p2, companyRef(1)),
          new RegExp(`company ${companyIdOf(7)} does not exist`),
        )
        const { reactions } = await store.listPostReactions(p1, 0, 10)
        expect(reactions.map((r) => r.actor.id)).toEqual([profileIdOf(1), companyIdOf(1)])
        expect((await store.counts()).postReactions).toBe(4)
      })

      it('a profile reaction to a post that does not exist, or by a profile that does not exist', async () => {
        await expectMiddleFails(
          profileReactionRow(profileIdOf(1), p1, 10),
          profileReactionRow(profileIdOf(1), missingPost, 20),
          profileReactionRow(profileIdOf(1), p2, 30),
          new RegExp(`post ${missingPost} does not exist`),
        )
        await expectMiddleFails(
          profileReactionRow(profileIdOf(2), p1, 10),
          profileReactionRow(profileIdOf(8), p1, 20),
          profileReactionRow(profileIdOf(2), p2, 30),
          new RegExp(`profile ${profileIdOf(8)} does not exist`),
        )
        const page = await store.listProfileReactions(profileIdOf(1), null, 10)
        expect(page.rows.map((r) => r.postId)).toEqual([p2, p1])
        expect(await store.listProfileReactions(profileIdOf(8), null, 10)).toEqual({ rows: [], hasMore: false })
        expect((await store.counts()).profileReactions).toBe(4)
      })

      it('a profile whose slug or memberId another profile uses', async () => {
        await expectMiddleFails(
          profileRow(3),
          profileRow(4, { slug: 'member-1' }),
          profileRow(5),
          new RegExp(`publicIdentifier 'member-1' is already used by profile ${profileIdOf(1)}`),
        )
        await expectMiddleFails(
          profileRow(6),
          profileRow(7, { memberId: String(500_002) }),
          profileRow(8),
          new RegExp(`memberId '500002' is already used by profile ${profileIdOf(2)}`),
        )
        expect(await store.getProfileDoc(profileIdOf(4))).toBeUndefined()
        expect(await store.getProfileDoc(profileIdOf(7))).toBeUndefined()
        expect(await store.findProfileIdBySlug('member-1')).toBe(profileIdOf(1))
        expect(await store.findProfileIdByMemberId('500002')).toBe(profileIdOf(2))
        expect((await store.counts()).profiles).toBe(6)
      })

      it('a profile taking another profile slug by upsert fails and keeps its old values', async () => {
        const out = await store.write([profileRow(2, { slug: 'member-1', doc: '{"changed":true}' })])
        expect(out).toEqual([{ ok: false, reason: expect.stringContaining('member-1') }])
        expect(await store.getProfileDoc(profileIdOf(2))).toBe(JSON.stringify({ profile: 2 }))
        expect(await store.findProfileIdBySlug('member-2')).toBe(profileIdOf(2))
      })

      it('a company whose slug another company uses; pages without a slug never clash', async () => {
        await expectMiddleFails(
          companyRow(2, { slug: null }),
          companyRow(3, { slug: 'company-1' }),
          companyRow(4, { slug: null }),
          new RegExp(`publicIdentifier 'company-1' is already used by company ${companyIdOf(1)}`),
        )
        expect(await store.getCompany(companyIdOf(3))).toBeUndefined()
        expect(await store.getCompany(companyIdOf(4))).toBeDefined()
        expect(await store.findCompanyIdBySlug('company-1')).toBe(companyIdOf(1))
        expect((await store.counts()).companies).toBe(3)
      })

      it('a post whose share id another post uses', async () => {
        await expectMiddleFails(
          postRow(postIdAt(30), personRef(1)),
          postRow(postIdAt(31), personRef(1), { shareId: p1 }),
          postRow(postIdAt(32), personRef(1), { shareKind: 'ugcPost', shareId: p1 }),
          new RegExp(`${p1}.*already used by post ${p1}`),
        )
        expect(await store.getPost(postIdAt(31))).toBeUndefined()
        expect(await store.findPostIdByShare('ugcPost', p1)).toBe(postIdAt(32))
      })

      it('a failing row does not undo earlier rows or block later rows that depend on them', async () => {
        const p3 = postIdAt(40)
        const out = await store.write([
          postRow(p3, personRef(1)),
          commentRow(postIdAt(41), missingPost, personRef(1)),
          commentRow(postIdAt(42), p3, personRef(2)),
          postReactionRow(p3, personRef(9)),
          postReactionRow(p3, personRef(2)),
        ])
        expect(out.map((o) => o.ok)).toEqual([true, false, true, false, true])
        expect((await store.listComments(p3, 0, 10)).comments.map((c) => c.commentId)).toEqual([postIdAt(42)])
        expect((await store.listPostReactions(p3, 0, 10)).reactions.map((r) => r.actor.id)).toEqual([profileIdOf(2)])
      })
    })

    describe('version', () => {
      it('is stable while nothing changes and moves after every write', async () => {
        const v0 = store.version()
        expect(store.version()).toBe(v0)
        await seed(profileRow(1))
        const v1 = store.version()
        expect(v1).not.toBe(v0)
        await store.write([postRow(postIdAt(1), personRef(1))])
        expect(store.version()).not.toBe(v1)
      })
    })

    describe('profiles', () => {
      it('returns the stored document exactly as written', async () => {
        const doc = '{"name":"Zoë \\"Z\\" Ünal","experiences":[{"totalDuration":\u00012020-1/now\u0001}],"emoji":"🚀"}'
        await seed(profileRow(1, { doc }))
        expect(await store.getProfileDoc(profileIdOf(1))).toBe(doc)
        expect(await store.getProfileDoc(profileIdOf(2))).toBeUndefined()
        expect(await store.hasProfile(profileIdOf(1))).toBe(true)
        expect(await store.hasProfile(profileIdOf(2))).toBe(false)
      })

      it('finds a profile by slug case-insensitively and by member id', async () => {
        await seed(profileRow(1, { slug: 'jane-doe' }), profileRow(2, { slug: 'émilie-dürr' }))
        expect(await store.findProfileIdBySlug('jane-doe')).toBe(profileIdOf(1))
        expect(await store.findProfileIdBySlug('Jane-DOE')).toBe(profileIdOf(1))
        expect(await store.findProfileIdBySlug('ÉMILIE-DÜRR')).toBe(profileIdOf(2))
        expect(await store.findProfileIdBySlug('jane')).toBeUndefined()
        const bySlug = await store.getProfileBySlug('ÉMILIE-dürr')
        expect(bySlug).toEqual({ profileId: profileIdOf(2), doc: (await store.getProfileDoc(profileIdOf(2))) as string })
        expect(await store.getProfileBySlug('jane')).toBeUndefined()
        expect(await store.findProfileIdByMemberId('500001')).toBe(profileIdOf(1))
        expect(await store.findProfileIdByMemberId('500009')).toBeUndefined()
      })

      it('an upsert replaces the document, slug and member id; the old slug is free again', async () => {
        await seed(profileRow(1, { slug: 'old-slug' }))
        await seed(profileRow(1, { slug: 'new-slug', memberId: '77', doc: '{"v":2}' }))
        expect(await store.getProfileDoc(profileIdOf(1))).toBe('{"v":2}')
        expect(await store.findProfileIdBySlug('old-slug')).toBeUndefined()
        expect(await store.findProfileIdBySlug('NEW-slug')).toBe(profileIdOf(1))
        expect(await store.findProfileIdByMemberId('77')).toBe(profileIdOf(1))
        expect(await store.findProfileIdByMemberId('500001')).toBeUndefined()
        await seed(profileRow(2, { slug: 'old-slug' }))
        expect(await store.findProfileIdBySlug('old-slug')).toBe(profileIdOf(2))
      })

      it('a profile keeping its own slug and member id is not a clash', async () => {
        await seed(profileRow(1))
        await seed(profileRow(1, { name: 'Renamed' }))
        expect((await store.counts()).profiles).toBe(1)
      })
    })

    describe('companies', () => {
      it('returns the document and page kind, finds by slug case-insensitively', async () => {
        await seed(companyRow(1, { slug: 'acme-labs', pageType: 'school', doc: '{"c":"ü"}' }), companyRow(2, { slug: null }))
        expect(await store.getCompany(companyIdOf(1))).toEqual({ doc: '{"c":"ü"}', pageType: 'school' })
        expect(await store.getCompany(companyIdOf(2))).toEqual({ doc: JSON.stringify({ company: 2 }), pageType: 'company' })
        expect(await store.getCompany('1')).toBeUndefined()
        expect(await store.findCompanyIdBySlug('ACME-Labs')).toBe(companyIdOf(1))
        expect(await store.findCompanyIdBySlug('acme')).toBeUndefined()
      })

      it('an upsert replaces the document, kind and slug', async () => {
        await seed(companyRow(1))
        await seed(companyRow(1, { slug: 'renamed', pageType: 'showcase', doc: '{"v":2}' }))
        expect(await store.getCompany(companyIdOf(1))).toEqual({ doc: '{"v":2}', pageType: 'showcase' })
        expect(await store.findCompanyIdBySlug('company-1')).toBeUndefined()
        expect(await store.findCompanyIdBySlug('renamed')).toBe(companyIdOf(1))
      })
    })

    describe('posts', () => {
      // Five posts by member 1, newest last; the third is a repost; member 2 and company 1 interleave.
      const mine = [1, 2, 3, 4, 5].map((m) => postIdAt(m * 10))
      beforeEach(async () => {
        await seed(
          profileRow(1),
          profileRow(2),
          companyRow(1),
          ...mine.map((id, i) => postRow(id, personRef(1), { isRepost: i === 2 })),
          postRow(postIdAt(15), personRef(2)),
          postRow(postIdAt(25), companyRef(1)),
          postRow(postIdAt(45), companyRef(1), { isRepost: true }),
        )
      })
      const newest = [...mine].reverse()

      it('lists an author newest first with reposts flagged, paging by exclusive beforeId', async () => {
        const page1 = await store.listPosts(personRef(1), null, 2)
        expect(ids(page1.rows)).toEqual(newest.slice(0, 2))
        expect(page1.hasMore).toBe(true)
        expect(page1.rows[0]).toEqual({ id: newest[0], isRepost: false, doc: JSON.stringify({ post: newest[0] }) })

        const page2 = await store.listPosts(personRef(1), page1.rows[1]!.id, 2)
        expect(page2.rows.map((r) => [r.id, r.isRepost])).toEqual([
          [newest[2], true],
          [newest[3], false],
        ])
        expect(page2.hasMore).toBe(true)

        const page3 = await store.listPosts(personRef(1), page2.rows[1]!.id, 2)
        expect(ids(page3.rows)).toEqual([newest[4]])
        expect(page3.hasMore).toBe(false)
      })

      it('hasMore is false when the page ends exactly at the last post', async () => {
        const all = await store.listPosts(personRef(1), null, 5)
        expect(ids(all.rows)).toEqual(newest)
        expect(all.hasMore).toBe(false)
        const tail = await store.listPosts(personRef(1), newest[2]!, 2)
        expect(ids(tail.rows)).toEqual(newest.slice(3))
        expect(tail.hasMore).toBe(false)
        const oneShort = await store.listPosts(personRef(1), null, 4)
        expect(oneShort.hasMore).toBe(true)
      })

      it('beforeId of the last post, or an unknown author, gives an empty page', async () => {
        expect(await store.listPosts(personRef(1), newest[4]!, 10)).toEqual({ rows: [], hasMore: false })
        expect(await store.listPosts(personRef(9), null, 10)).toEqual({ rows: [], hasMore: false })
        expect(await store.listPosts(companyRef(9), null, 10)).toEqual({ rows: [], hasMore: false })
      })

      it('beforeId need not be a stored id', async () => {
        const page = await store.listPosts(personRef(1), postIdAt(35), 10)
        expect(ids(page.rows)).toEqual([mine[2], mine[1], mine[0]])
      })

      it('lists company pages by company id, reposts included', async () => {
        const page = await store.listPosts(companyRef(1), null, 10)
        expect(page.rows.map((r) => [r.id, r.isRepost])).toEqual([
          [postIdAt(45), true],
          [postIdAt(25), false],
        ])
      })

      it('lists the newest posts in the older shape, without reposts', async () => {
        const older = await store.listRecentPostsOlder(personRef(1), 3)
        expect(older).toEqual([newest[0], newest[1], newest[3]].map((id) => ({ id, docOlder: JSON.stringify({ older: id }) })))
        expect(ids(await store.listRecentPostsOlder(personRef(1), 10))).toEqual([newest[0], newest[1], newest[3], newest[4]])
        expect(await store.listRecentPostsOlder(companyRef(1), 10)).toEqual([
          { id: postIdAt(25), docOlder: JSON.stringify({ older: postIdAt(25) }) },
        ])
        expect(await store.listRecentPostsOlder(personRef(9), 10)).toEqual([])
      })

      it('gets a post by activity id or by its share/ugcPost id, and finds the activity id of a share', async () => {
        const ugc = '7100000000000000123'
        await seed(postRow(postIdAt(60), personRef(2), { shareKind: 'ugcPost', shareId: ugc }))
        expect(await store.getPost(mine[0]!)).toEqual({ id: mine[0], doc: JSON.stringify({ post: mine[0] }) })
        expect(await store.getPost(ugc)).toEqual({ id: postIdAt(60), doc: JSON.stringify({ post: postIdAt(60) }) })
        expect(await store.getPost(postIdAt(99))).toBeUndefined()
        expect(await store.findPostIdByShare('ugcPost', ugc)).toBe(postIdAt(60))
        expect(await store.findPostIdByShare('share', ugc)).toBeUndefined()
        expect(await store.findPostIdByShare('share', mine[1]!)).toBe(mine[1])
      })

      it('an upsert replaces every document and the repost flag', async () => {
        await seed(postRow(mine[4]!, personRef(1), { isRepost: true, doc: '{"v":2}', docOlder: '{"o":2}' }))
        expect(await store.getPost(mine[4]!)).toEqual({ id: mine[4], doc: '{"v":2}' })
        expect((await store.listPosts(personRef(1), null, 1)).rows[0]).toEqual({ id: mine[4], isRepost: true, doc: '{"v":2}' })
        expect(ids(await store.listRecentPostsOlder(personRef(1), 1))).toEqual([mine[3]])
        expect((await store.counts()).posts).toBe(8)
      })

      it('round-trips 19-digit ids exactly and orders ids that differ only in the last digit', async () => {
        await seed(...[BIG[1], BIG[0], BIG[2]].map((id) => postRow(id, personRef(2))))
        for (const id of BIG) expect(await store.getPost(id)).toEqual({ id, doc: JSON.stringify({ post: id }) })
        const page = await store.listPosts(personRef(2), null, 2)
        expect(ids(page.rows)).toEqual([BIG[2], BIG[1]])
        const next = await store.listPosts(personRef(2), BIG[1], 1)
        expect(ids(next.rows)).toEqual([BIG[0]])
        expect(next.hasMore).toBe(true)
        expect(ids((await store.listPosts(personRef(2), BIG[2], 10)).rows)).toEqual([BIG[1], BIG[0], postIdAt(15)])
        expect(await store.findPostIdByShare('share', BIG[2])).toBe(BIG[2])
      })

      it('stores what the content writer prepares from a post record', async () => {
        const id = postIdAt(70, 3)
        const checked = validateRecord({ kind: 'post', data: postRecord(id, 1) })
        if (!('record' in checked)) throw new Error(checked.reason)
        const row = prepared(checked.record)
        // The record's card is member 1's as stored (no picture), so its documents are kept as prepared.
        await seed(profileRow(1, { pictureUrl: null }), row)
        const got = await store.getPost(id)
        expect(got?.doc).toBe(row.kind === 'post' ? row.row.doc : undefined)
        expect(JSON.parse(got!.doc)).toMatchObject({ id: `urn:li:activity:${id}`, content: postRecord(id, 1).content })
        expect(await store.findPostIdByShare('share', id)).toBe(id)
        expect(ids((await store.listPosts(personRef(1), null, 1)).rows)).toEqual([id])
      })
    })

    describe("a post's author card (post-card.ts)", () => {
      type Card = { name: string; headline: string; url: string; imageUrl: string | null }
      const cardOf = (r: { name: string; headline: string; url: string }, imageUrl: string | null): Card => ({
        name: r.name,
        headline: r.headline,
        url: r.url,
        imageUrl,
      })
      const member1 = profileRow(1).row
      const page1 = companyRow(1).row
      /** A post by `author` whose four documents hold `card` between two other fields, as real ones do. */
      const cardedPost = (id: string, author: ReturnType<typeof personRef>, urn: string, card: Card) => {
        const shape = (name: string) => JSON.stringify({ id, kind: name, profile: { urn, ...card }, after: [1, 'ü'] })
        return postRow(id, author, {
          doc: shape('doc'),
          docTrimmed: shape('trimmed'),
          docOlder: shape('older'),
          docSearch: shape('search'),
          card,
        })
      }
      const personUrn = `urn:li:fsd_profile:${profileIdOf(1)}`
      const companyUrn = `urn:li:fsd_company:${companyIdOf(1)}`
      const expected = (id: string, kind: string, urn: string, card: Card) =>
        JSON.stringify({ id, kind, profile: { urn, ...card }, after: [1, 'ü'] })
      /** Every read of the post's documents the port offers (search items are the search index's). */
      const shownCards = async (id: string, author: ReturnType<typeof personRef>) => {
        const listed = (await store.listPosts(author, null, 1000)).rows.find((r) => r.id === id)
        const older = (await store.listRecentPostsOlder(author, 1000)).find((r) => r.id === id)
        const reacted = (await store.listProfileReactions(profileIdOf(2), null, 1000)).rows.find((r) => r.postId === id)
        return {
          doc: (await store.getPost(id))?.doc,
          listed: listed?.doc,
          older: older?.docOlder,
          trimmed: reacted?.postDoc,
        }
      }

      it("is the author's card when the post is stored, whatever card the post carried", async () => {
        const id = postIdAt(1)
        await seed(profileRow(1), profileRow(2), cardedPost(id, personRef(1), personUrn, { name: 'Old', headline: 'Was', url: 'https://x.example/old', imageUrl: null }))
        await seed(profileReactionRow(profileIdOf(2), id, Date.UTC(2025, 5, 1)))
        const card = cardOf(member1, member1.pictureUrl)
        expect(await shownCards(id, personRef(1))).toEqual({
          doc: expected(id, 'doc', personUrn, card),
          listed: expected(id, 'doc', personUrn, card),
          older: expected(id, 'older', personUrn, card),
          trimmed: expected(id, 'trimmed', personUrn, card),
        })
      })

      it("follows a change of the author's name, headline, picture or URL into every post, and only its own", async () => {
        const before = cardOf(member1, member1.pictureUrl)
        // More posts than one slice of the rewrite (500), so it walks on past the first.
        const mine = Array.from({ length: 503 }, (_, i) => postIdAt(100 + i))
        const theirs = postIdAt(50)
        const theirCard = cardOf(profileRow(2).row, profileRow(2).row.pictureUrl)
        await seed(profileRow(1), profileRow(2), ...mine.map((id) => cardedPost(id, personRef(1), personUrn, before)))
        await seed(
          cardedPost(theirs, personRef(2), `urn:li:fsd_profile:${profileIdOf(2)}`, theirCard),
          ...[mine[0]!, mine[502]!, theirs].map((id, i) => profileReactionRow(profileIdOf(2), id, Date.UTC(2025, 5, 1 + i))),
        )
        const changes: Partial<ProfileRow>[] = [{ name: 'Renamed' }, { headline: 'New headline' }, { pictureUrl: null }, { url: `https://www.linkedin.com/in/member-1-new`, slug: 'member-1-new' }]
        let now: Partial<ProfileRow> = {}
        for (const change of changes) {
          now = { ...now, ...change }
          await seed(profileRow(1, now))
          const row = profileRow(1, now).row
          const card = cardOf(row, row.pictureUrl)
          for (const id of [mine[0]!, mine[250]!, mine[502]!]) {
            const shown = await shownCards(id, personRef(1))
            expect(shown.doc).toBe(expected(id, 'doc', personUrn, card))
            expect(shown.listed).toBe(expected(id, 'doc', personUrn, card))
            expect(shown.older).toBe(expected(id, 'older', personUrn, card))
            if (id !== mine[250]) expect(shown.trimmed).toBe(expected(id, 'trimmed', personUrn, card))
          }
        }
        const other = await shownCards(theirs, personRef(2))
        expect(other.doc).toBe(expected(theirs, 'doc', `urn:li:fsd_profile:${profileIdOf(2)}`, theirCard))
        expect(other.trimmed).toBe(expected(theirs, 'trimmed', `urn:li:fsd_profile:${profileIdOf(2)}`, theirCard))
      })

      it("follows a change of a page's name, tagline, logo or URL", async () => {
        const id = postIdAt(7)
        await seed(companyRow(1), cardedPost(id, companyRef(1), companyUrn, cardOf(page1, page1.logoUrl)))
        await seed(companyRow(1, { name: 'Renamed Co', headline: 'New tagline', logoUrl: null }))
        const doc = (await store.getPost(id))?.doc
        expect(doc).toBe(expected(id, 'doc', companyUrn, { name: 'Renamed Co', headline: 'New tagline', url: page1.url, imageUrl: null }))
        expect((await store.listPosts(companyRef(1), null, 1)).rows[0]?.doc).toBe(doc)
      })

      it("leaves the posts' documents as they are when the author's record changes nothing the card shows", async () => {
        const id = postIdAt(8)
        const card = cardOf(member1, member1.pictureUrl)
        await seed(profileRow(1), cardedPost(id, personRef(1), personUrn, card))
        await seed(profileRow(1, { doc: '{"profile":"edited"}', jobTitle: 'Another title', memberId: '999' }))
        expect((await store.getPost(id))?.doc).toBe(expected(id, 'doc', personUrn, card))
      })

      it("is the card the batch leaves when the author's record changes in the same batch as its posts", async () => {
        const before = postIdAt(9)
        const [early, late] = [postIdAt(10), postIdAt(11)]
        const old = cardOf(member1, member1.pictureUrl)
        await seed(profileRow(1), cardedPost(before, personRef(1), personUrn, old))
        // A post before the change, the change, a post after it carrying the old card: all three show the new one.
        await seed(
          cardedPost(early, personRef(1), personUrn, old),
          profileRow(1, { name: 'Renamed', pictureUrl: null }),
          cardedPost(late, personRef(1), personUrn, old),
        )
        const card = { ...old, name: 'Renamed', imageUrl: null }
        for (const id of [before, early, late]) expect((await store.getPost(id))?.doc).toBe(expected(id, 'doc', personUrn, card))
        expect((await store.listRecentPostsOlder(personRef(1), 10)).map((r) => r.docOlder)).toEqual(
          [late, early, before].map((id) => expected(id, 'older', personUrn, card)),
        )
      })
    })

    describe('profile reactions', () => {
      const me = profileIdOf(1)
      const posts = [BIG[0], BIG[1], BIG[2], postIdAt(1), postIdAt(2)]
      beforeEach(async () => {
        await seed(profileRow(1), profileRow(2), ...posts.map((id) => postRow(id, personRef(2))))
      })

      it('lists newest first, ties broken by post id, with the trimmed post joined', async () => {
        await seed(
          profileReactionRow(me, postIdAt(1), 100, 'PRAISE'),
          profileReactionRow(me, BIG[0], 300),
          profileReactionRow(me, BIG[2], 300, 'EMPATHY'),
          profileReactionRow(me, BIG[1], 300),
          profileReactionRow(me, postIdAt(2), 200),
          profileReactionRow(profileIdOf(2), postIdAt(2), 999),
        )
        const page = await store.listProfileReactions(me, null, 10)
        expect(page.hasMore).toBe(false)
        expect(page.rows.map((r) => [r.postId, r.reactedAt])).toEqual([
          [BIG[2], 300],
          [BIG[1], 300],
          [BIG[0], 300],
          [postIdAt(2), 200],
          [postIdAt(1), 100],
        ])
        expect(page.rows[0]).toEqual({
          reactionType: 'EMPATHY',
          reactedAt: 300,
          postId: BIG[2],
          postDoc: JSON.stringify({ trimmed: BIG[2] }),
        })
        expect(page.rows[4]?.reactionType).toBe('PRAISE')
      })

      it('pages by (reactedAt, postId) exclusively, through ties on 19-digit ids', async () => {
        await seed(
          profileReactionRow(me, BIG[0], 300),
          profileReactionRow(me, BIG[1], 300),
          profileReactionRow(me, BIG[2], 300),
          profileReactionRow(me, postIdAt(1), 100),
        )
        const p1 = await store.listProfileReactions(me, null, 2)
        expect(p1.rows.map((r) => r.postId)).toEqual([BIG[2], BIG[1]])
        expect(p1.hasMore).toBe(true)
        const last = p1.rows[1]!
        const p2 = await store.listProfileReactions(me, { reactedAt: last.reactedAt, postId: last.postId }, 2)
        expect(p2.rows.map((r) => r.postId)).toEqual([BIG[0], postIdAt(1)])
        expect(p2.hasMore).toBe(false)
        const end = await store.listProfileReactions(me, { reactedAt: 100, postId: postIdAt(1) }, 2)
        expect(end).toEqual({ rows: [], hasMore: false })
        const exact = await store.listProfileReactions(me, null, 4)
        expect(exact.rows).toHaveLength(4)
        expect(exact.hasMore).toBe(false)
      })

      it('never lists a reaction to a repost without commentary, which is no post of its own, and pages stay full', async () => {
        const repost = postIdAt(3)
        await seed(postRow(repost, personRef(2), { isRepost: true }))
        await seed(profileReactionRow(me, postIdAt(1), 100), profileReactionRow(me, repost, 200), profileReactionRow(me, postIdAt(2), 300))
        const p1 = await store.listProfileReactions(me, null, 1)
        expect(p1.rows.map((r) => r.postId)).toEqual([postIdAt(2)])
        expect(p1.hasMore).toBe(true)
        const p2 = await store.listProfileReactions(me, { reactedAt: 300, postId: postIdAt(2) }, 1)
        expect(p2).toMatchObject({ rows: [expect.objectContaining({ postId: postIdAt(1) })], hasMore: false })
        expect((await store.listProfileReactions(me, null, 10)).rows.map((r) => r.postId)).toEqual([postIdAt(2), postIdAt(1)])
      })

      it('is empty for a member without reactions', async () => {
        expect(await store.listProfileReactions(profileIdOf(2), null, 10)).toEqual({ rows: [], hasMore: false })
      })

      it('an upsert changes the type and moves the reaction to its new time', async () => {
        await seed(profileReactionRow(me, postIdAt(1), 100), profileReactionRow(me, postIdAt(2), 200))
        await seed(profileReactionRow(me, postIdAt(1), 500, 'INTEREST'))
        const page = await store.listProfileReactions(me, null, 10)
        expect(page.rows.map((r) => [r.postId, r.reactionType, r.reactedAt])).toEqual([
          [postIdAt(1), 'INTEREST', 500],
          [postIdAt(2), 'LIKE', 200],
        ])
      })
    })

    describe('articles', () => {
      const me = profileIdOf(1)
      // Numeric, not lexicographic, order: '999' is older than '7000…' and newer than '42'.
      const articleIds = ['42', '999', BIG[0], '7000000000000000000', BIG[2]]
      beforeEach(async () => {
        await seed(profileRow(1), profileRow(2), ...articleIds.map((id) => articleRow(id, me)), articleRow('5000', profileIdOf(2)))
      })
      const doc = (id: string) => JSON.stringify({ article: id })

      it('lists newest first by numeric id, by offset and limit', async () => {
        expect(await store.listArticles(me, 0, 10)).toEqual([BIG[2], BIG[0], '7000000000000000000', '999', '42'].map(doc))
        expect(await store.listArticles(me, 1, 2)).toEqual([BIG[0], '7000000000000000000'].map(doc))
        expect(await store.listArticles(me, 4, 2)).toEqual(['42'].map(doc))
        expect(await store.listArticles(me, 5, 2)).toEqual([])
        expect(await store.listArticles(profileIdOf(2), 0, 10)).toEqual(['5000'].map(doc))
        expect(await store.listArticles(profileIdOf(3), 0, 10)).toEqual([])
      })

      it('an upsert replaces the document', async () => {
        await seed(articleRow('999', me, { doc: '{"v":2}' }))
        expect(await store.listArticles(me, 3, 1)).toEqual(['{"v":2}'])
      })
    })

    describe('comments', () => {
      const post = postIdAt(1)
      beforeEach(async () => {
        await seed(
          profileRow(1, { slug: 'ann', pictureUrl: null }),
          profileRow(2),
          companyRow(1, { slug: null }),
          postRow(post, personRef(1)),
          postRow(postIdAt(2), personRef(1)),
        )
      })

      it('orders top-level comments: pinned, then reactions, then newest, then comment id', async () => {
        await seed(
          commentRow(BIG[0], post, personRef(2), { reactionCount: 5, createdAt: '2025-03-01T00:00:00Z' }),
          commentRow(BIG[1], post, personRef(2), { reactionCount: 5, createdAt: '2025-03-01T00:00:00Z' }),
          commentRow(postIdAt(10), post, personRef(2), { reactionCount: 1, pinned: true }),
          commentRow(postIdAt(11), post, personRef(2), { reactionCount: 9 }),
          commentRow(postIdAt(12), post, personRef(2), { reactionCount: 5, createdAt: '2025-03-01T00:00:00.500Z' }),
          commentRow(postIdAt(13), post, personRef(2), { reactionCount: 5, createdAt: '2025-03-01T01:00:00+02:00' }),
          commentRow(postIdAt(14), postIdAt(2), personRef(2), { reactionCount: 99 }),
        )
        const { comments, hasMore } = await store.listComments(post, 0, 10)
        expect(hasMore).toBe(false)
        expect(comments.map((c) => c.commentId)).toEqual([
          postIdAt(10),
          postIdAt(11),
          postIdAt(12),
          BIG[1],
          BIG[0],
          postIdAt(13),
        ])
        expect(comments[0]?.pinned).toBe(true)
        expect(comments[5]?.createdAt).toBe('2025-03-01T01:00:00+02:00')
      })

      it('nests replies oldest first under their comment, with the author cards joined', async () => {
        const top = postIdAt(10)
        await seed(
          commentRow(top, post, personRef(1), { text: 'top', reactionCount: 2 }),
          commentRow(postIdAt(13), post, companyRef(1), { parentId: top, createdAt: '2025-02-03T00:00:00.000Z' }),
          commentRow(postIdAt(12), post, personRef(2), { parentId: top, createdAt: '2025-02-02T00:00:00.000Z', pinned: true }),
          commentRow(postIdAt(11), post, personRef(2), { createdAt: '2025-02-05T00:00:00.000Z' }),
        )
        const { comments } = await store.listComments(post, 0, 10)
        expect(comments.map((c) => c.commentId)).toEqual([top, postIdAt(11)])
        const [first, second] = comments
        expect(first).toEqual({
          commentId: top,
          postId: post,
          text: 'top',
          createdAt: '2025-02-01T10:00:00.000Z',
          reactionCount: 2,
          pinned: false,
          permalink: commentRow(top, post, personRef(1)).row.permalink,
          author: {
            kind: 'person',
            id: profileIdOf(1),
            name: 'Member 1',
            headline: 'Headline 1',
            pictureUrl: null,
            url: profileRow(1).row.url,
            slug: 'ann',
          },
          replies: expect.any(Array),
        })
        expect(first?.replies.map((r) => r.commentId)).toEqual([postIdAt(12), postIdAt(13)])
        expect(first?.replies.every((r) => r.replies.length === 0)).toBe(true)
        expect(first?.replies[0]?.pinned).toBe(true)
        expect(first?.replies[1]?.author).toEqual({
          kind: 'company',
          id: companyIdOf(1),
          name: 'Company 1',
          headline: 'Tagline 1',
          pictureUrl: companyRow(1).row.logoUrl,
          url: companyRow(1).row.url,
          slug: null,
        })
        expect(second?.replies).toEqual([])
        expect(second?.author).toMatchObject({ kind: 'person', id: profileIdOf(2), slug: 'member-2', pictureUrl: profileRow(2).row.pictureUrl })
      })

      it('pages top-level comments by offset; hasMore is exact at the boundary', async () => {
        const tops = [1, 2, 3, 4].map((i) => postIdAt(20 + i))
        await seed(
          ...tops.map((id, i) => commentRow(id, post, personRef(2), { reactionCount: 10 - i })),
          ...[5, 6, 7].map((i) => commentRow(postIdAt(30 + i), post, personRef(2), { parentId: tops[0]! })),
        )
        const p1 = await store.listComments(post, 0, 2)
        expect(p1.comments.map((c) => c.commentId)).toEqual(tops.slice(0, 2))
        expect(p1.comments[0]?.replies).toHaveLength(3)
        expect(p1.hasMore).toBe(true)
        const p2 = await store.listComments(post, 2, 2)
        expect(p2.comments.map((c) => c.commentId)).toEqual(tops.slice(2))
        expect(p2.hasMore).toBe(false)
        expect((await store.listComments(post, 0, 4)).hasMore).toBe(false)
        expect((await store.listComments(post, 0, 3)).hasMore).toBe(true)
        expect(await store.listComments(post, 4, 2)).toEqual({ comments: [], hasMore: false })
        expect(await store.listComments(postIdAt(2), 0, 2)).toEqual({ comments: [], hasMore: false })
      })

      it('pages after a comment\'s place in the order: a comment demoted, unpinned or gone meanwhile skips none that stayed', async () => {
        // Reactions 12 down to 1 (the same creation instant: ids break ties), the last one pinned.
        const ids = Array.from({ length: 12 }, (_, i) => postIdAt(60 + i))
        await seed(...ids.map((id, i) => commentRow(id, post, personRef(2), { reactionCount: 12 - i, pinned: i === 11 })))
        const p1 = await store.listComments(post, 0, 4)
        expect(p1.comments.map((c) => c.commentId)).toEqual([ids[11], ids[0], ids[1], ids[2]])
        expect(p1.last).toEqual({ pinned: false, reactionCount: 10, createdMs: Date.parse('2025-02-01T10:00:00.000Z'), commentId: ids[2] })
        // Shown ones change place: the pinned one is unpinned, the best one falls to 0 (both now last).
        // From offset 4 the next page would skip ids[3] and ids[4], which stayed put.
        await seed(
          commentRow(ids[11]!, post, personRef(2), { reactionCount: 1, pinned: false }),
          commentRow(ids[0]!, post, personRef(2), { reactionCount: 0 }),
        )
        expect((await store.listComments(post, 4, 4)).comments.map((c) => c.commentId)).toEqual(ids.slice(5, 9))
        const p2 = await store.listComments(post, { after: p1.last! }, 4)
        expect(p2.comments.map((c) => c.commentId)).toEqual(ids.slice(3, 7))
        expect(p2.hasMore).toBe(true)
        const p3 = await store.listComments(post, { after: p2.last! }, 10)
        // What fell below the walk shows again (a live list allows it); nothing that stayed put was skipped.
        expect(p3.comments.map((c) => c.commentId)).toEqual([...ids.slice(7, 11), ids[11], ids[0]])
        expect(p3.hasMore).toBe(false)
        // Ties on reactions and creation go by id, descending, as the order does.
        await seed(commentRow(ids[9]!, post, personRef(2), { reactionCount: 2 }))
        const tied = await store.listComments(post, { after: { pinned: false, reactionCount: 2, createdMs: Date.parse('2025-02-01T10:00:00.000Z'), commentId: ids[10]! } }, 10)
        expect(tied.comments.map((c) => c.commentId)).toEqual([ids[9], ids[11], ids[0]])
        expect(await store.listComments(post, { after: p3.last! }, 10)).toEqual({ comments: [], hasMore: false })
      })

      it('an upsert replaces text and counts and reorders; the author card follows profile updates', async () => {
        await seed(
          commentRow(postIdAt(10), post, personRef(2), { reactionCount: 1 }),
          commentRow(postIdAt(11), post, personRef(2), { reactionCount: 2 }),
        )
        await seed(
          commentRow(postIdAt(10), post, personRef(2), { reactionCount: 3, text: 'edited' }),
          profileRow(2, { name: 'New Name', headline: 'New headline' }),
        )
        const { comments } = await store.listComments(post, 0, 10)
        expect(comments.map((c) => [c.commentId, c.text, c.reactionCount])).toEqual([
          [postIdAt(10), 'edited', 3],
          [postIdAt(11), 'comment ' + postIdAt(11), 2],
        ])
        expect(comments[0]?.author).toMatchObject({ name: 'New Name', headline: 'New headline' })
        expect((await store.counts()).comments).toBe(2)
      })

      it('round-trips 19-digit comment ids exactly', async () => {
        await seed(
          commentRow(BIG[2], post, personRef(2)),
          commentRow(BIG[1], post, personRef(2), { parentId: BIG[2] }),
          commentRow(BIG[0], post, personRef(2), { parentId: BIG[2], createdAt: '2025-02-01T10:00:00.000Z' }),
        )
        const { comments } = await store.listComments(post, 0, 10)
        expect(comments.map((c) => c.commentId)).toEqual([BIG[2]])
        expect(comments[0]?.replies.map((r) => r.commentId)).toEqual([BIG[0], BIG[1]])
      })
    })

    describe('post reactions', () => {
      const post = postIdAt(1)
      beforeEach(async () => {
        await seed(
          profileRow(1),
          profileRow(2, { pictureUrl: null }),
          profileRow(3),
          companyRow(1),
          postRow(post, personRef(1)),
          postRow(postIdAt(2), personRef(1)),
        )
      })

      it('lists in the order recorded with actor cards, paging by offset', async () => {
        await seed(
          postReactionRow(post, personRef(3), 'PRAISE'),
          postReactionRow(post, companyRef(1), 'LIKE'),
          postReactionRow(postIdAt(2), personRef(2), 'LIKE'),
          postReactionRow(post, personRef(1), 'EMPATHY'),
        )
        await seed(postReactionRow(post, personRef(2), 'INTEREST'))
        const all = await store.listPostReactions(post, 0, 10)
        expect(all.hasMore).toBe(false)
        expect(all.reactions.map((r) => [r.actor.id, r.reactionType])).toEqual([
          [profileIdOf(3), 'PRAISE'],
          [companyIdOf(1), 'LIKE'],
          [profileIdOf(1), 'EMPATHY'],
          [profileIdOf(2), 'INTEREST'],
        ])
        expect(all.reactions[1]?.actor).toEqual({
          kind: 'company',
          id: companyIdOf(1),
          name: 'Company 1',
          headline: 'Tagline 1',
          pictureUrl: companyRow(1).row.logoUrl,
          url: companyRow(1).row.url,
          slug: 'company-1',
        })
        expect(all.reactions[3]?.actor).toEqual({
          kind: 'person',
          id: profileIdOf(2),
          name: 'Member 2',
          headline: 'Headline 2',
          pictureUrl: null,
          url: profileRow(2).row.url,
          slug: 'member-2',
        })

        const p1 = await store.listPostReactions(post, 0, 2)
        expect(p1.reactions.map((r) => r.actor.id)).toEqual([profileIdOf(3), companyIdOf(1)])
        expect(p1.hasMore).toBe(true)
        const p2 = await store.listPostReactions(post, 2, 2)
        expect(p2.reactions.map((r) => r.actor.id)).toEqual([profileIdOf(1), profileIdOf(2)])
        expect(p2.hasMore).toBe(false)
        expect((await store.listPostReactions(post, 1, 2)).hasMore).toBe(true)
        expect(await store.listPostReactions(post, 4, 2)).toEqual({ reactions: [], hasMore: false })
        expect(await store.listPostReactions(postIdAt(3), 0, 2)).toEqual({ reactions: [], hasMore: false })
      })

      it('an upsert by the same actor changes the type and keeps its place', async () => {
        await seed(
          postReactionRow(post, personRef(1), 'LIKE'),
          postReactionRow(post, personRef(2), 'LIKE'),
          postReactionRow(post, personRef(3), 'LIKE'),
        )
        await seed(postReactionRow(post, personRef(1), 'APPRECIATION'))
        const { reactions } = await store.listPostReactions(post, 0, 10)
        expect(reactions.map((r) => [r.actor.id, r.reactionType])).toEqual([
          [profileIdOf(1), 'APPRECIATION'],
          [profileIdOf(2), 'LIKE'],
          [profileIdOf(3), 'LIKE'],
        ])
        expect((await store.counts()).postReactions).toBe(3)
      })

      it('a reaction repeated within one batch keeps its first place and takes its last type', async () => {
        await seed(
          postReactionRow(post, personRef(2), 'LIKE'),
          postReactionRow(post, personRef(3), 'LIKE'),
          postReactionRow(post, personRef(2), 'PRAISE'),
          postReactionRow(post, companyRef(1), 'LIKE'),
          postReactionRow(post, personRef(3), 'EMPATHY'),
          postReactionRow(post, personRef(1), 'LIKE'),
        )
        const { reactions } = await store.listPostReactions(post, 0, 10)
        expect(reactions.map((r) => [r.actor.id, r.reactionType])).toEqual([
          [profileIdOf(2), 'PRAISE'],
          [profileIdOf(3), 'EMPATHY'],
          [companyIdOf(1), 'LIKE'],
          [profileIdOf(1), 'LIKE'],
        ])
      })

      it('works on 19-digit post ids that differ only in the last digit', async () => {
        await seed(
          postRow(BIG[0], personRef(1)),
          postRow(BIG[1], personRef(1)),
          postReactionRow(BIG[0], personRef(2)),
          postReactionRow(BIG[1], personRef(3)),
        )
        expect((await store.listPostReactions(BIG[0], 0, 10)).reactions.map((r) => r.actor.id)).toEqual([profileIdOf(2)])
        expect((await store.listPostReactions(BIG[1], 0, 10)).reactions.map((r) => r.actor.id)).toEqual([profileIdOf(3)])
      })
    })

    describe('batches of many rows', () => {
      const ok = (row: ContentRow): [ContentRow, WriteOutcome] => [row, OK]
      const refused = (row: ContentRow, reason: string): [ContentRow, WriteOutcome] => [row, { ok: false, reason }]
      const write = async (batch: [ContentRow, WriteOutcome][]) => {
        expect(await store.write(batch.map(([row]) => row))).toEqual(batch.map(([, outcome]) => outcome))
      }

      it('writes every good row of every table and refuses each bad one among them with its reason', async () => {
        const posts = Array.from({ length: 60 }, (_, i) => postIdAt(i + 1))
        const author = (i: number) => personRef((i % 40) + 1)
        const batch: [ContentRow, WriteOutcome][] = [
          ...Array.from({ length: 20 }, (_, i) => ok(profileRow(i + 1))),
          refused(profileRow(41, { slug: 'member-3' }), `publicIdentifier 'member-3' is already used by profile ${profileIdOf(3)}`),
          ...Array.from({ length: 20 }, (_, i) => ok(profileRow(i + 21))),
          ...[1, 2, 3].map((n) => ok(companyRow(n))),
          refused(companyRow(4, { slug: 'company-2' }), `publicIdentifier 'company-2' is already used by company ${companyIdOf(2)}`),
          ...posts.slice(0, 30).map((id, i) => ok(postRow(id, author(i)))),
          refused(postRow(postIdAt(500), personRef(99)), `profile ${profileIdOf(99)} does not exist`),
          refused(postRow(postIdAt(501), personRef(1), { shareId: posts[0] }), `share ${posts[0]} is already used by post ${posts[0]}`),
          ...posts.slice(30).map((id, i) => ok(postRow(id, i % 2 === 0 ? companyRef(1) : author(i)))),
          ...Array.from({ length: 10 }, (_, i) => ok(articleRow(String(100 + i), profileIdOf(i + 1)))),
          refused(articleRow('200', profileIdOf(99)), `profile ${profileIdOf(99)} does not exist`),
        ]
        posts.forEach((post, m) => {
          const top = postIdAt(1000 + m)
          batch.push(ok(commentRow(top, post, author(m + 1))))
          if (m % 3 === 0) batch.push(ok(commentRow(postIdAt(2000 + m), post, companyRef(2), { parentId: top })))
          if (m === 7) batch.push(refused(commentRow(postIdAt(3000), postIdAt(999), personRef(1)), `post ${postIdAt(999)} does not exist`))
          for (let n = 1; n <= 20; n++) {
            batch.push(ok(postReactionRow(post, personRef(n), n % 2 === 0 ? 'LIKE' : 'PRAISE')))
            if (m === 40 && n === 10) batch.push(refused(postReactionRow(post, companyRef(9)), `company ${companyIdOf(9)} does not exist`))
          }
          for (let n = 1; n <= 10; n++) batch.push(ok(profileReactionRow(profileIdOf(n + 10), post, 1_000 + m)))
          if (m === 50) batch.push(refused(profileReactionRow(profileIdOf(98), post, 5), `profile ${profileIdOf(98)} does not exist`))
        })
        await write(batch)
        expect(await store.counts()).toEqual({
          profiles: 40,
          companies: 3,
          posts: 60,
          articles: 10,
          comments: 80,
          postReactions: 1200,
          profileReactions: 600,
        })
        expect(await store.findProfileIdBySlug('member-3')).toBe(profileIdOf(3))
        expect(await store.hasProfile(profileIdOf(41))).toBe(false)
        expect(await store.findCompanyIdBySlug('company-2')).toBe(companyIdOf(2))
        expect(await store.getPost(postIdAt(501))).toBeUndefined()
        const last = posts[59]!
        const reactions = (await store.listPostReactions(last, 0, 50)).reactions
        expect(reactions.map((r) => [r.actor.id, r.reactionType])).toEqual(
          Array.from({ length: 20 }, (_, i) => [profileIdOf(i + 1), (i + 1) % 2 === 0 ? 'LIKE' : 'PRAISE']),
        )
        const thread = (await store.listComments(posts[3]!, 0, 10)).comments
        expect(thread.map((c) => [c.commentId, c.replies.map((r) => r.commentId)])).toEqual([[postIdAt(1003), [postIdAt(2003)]]])
        const page = await store.listProfileReactions(profileIdOf(11), null, 2)
        expect(page.rows.map((r) => [r.postId, r.reactedAt])).toEqual([
          [posts[59], 1_059],
          [posts[58], 1_058],
        ])
        expect(await store.listArticles(profileIdOf(3), 0, 10)).toEqual([JSON.stringify({ article: '102' })])
      })

      it('judges each row against the store as the rows before it in the batch leave it', async () => {
        const [p1, p2, p3] = [postIdAt(1), postIdAt(2), postIdAt(3)]
        const [c1, c2, c3] = [postIdAt(11), postIdAt(12), postIdAt(13)]
        await write([
          refused(postRow(p1, personRef(1)), `profile ${profileIdOf(1)} does not exist`),
          refused(postReactionRow(p2, personRef(1)), `post ${p2} does not exist`),
          ok(profileRow(1)),
          ok(postRow(p1, personRef(1))),
          refused(postRow(p2, personRef(1), { shareId: p1 }), `share ${p1} is already used by post ${p1}`),
          // p1 moves to another share id, which frees its own for p2.
          ok(postRow(p1, personRef(1), { shareId: p3 })),
          ok(postRow(p2, personRef(1), { shareId: p1 })),
          ok(postReactionRow(p2, personRef(1))),
          ok(commentRow(c1, p1, personRef(1))),
          ok(commentRow(c2, p1, personRef(1), { parentId: c1 })),
          refused(commentRow(c1, p1, personRef(1), { parentId: c3 }), `parent comment ${c3} does not exist`),
          ok(commentRow(c3, p1, personRef(1))),
          refused(commentRow(c1, p1, personRef(1), { parentId: c3 }), `comment ${c1} has replies, so it cannot become a reply`),
          // Its one reply becomes a comment of its own: then it may become a reply.
          ok(commentRow(c2, p1, personRef(1))),
          ok(commentRow(c1, p1, personRef(1), { parentId: c3 })),
          refused(profileRow(2, { slug: 'member-1' }), `publicIdentifier 'member-1' is already used by profile ${profileIdOf(1)}`),
          // Member 1 takes another slug, which frees its own for member 2.
          ok(profileRow(1, { slug: 'first' })),
          ok(profileRow(2, { slug: 'member-1' })),
        ])
        expect(await store.findPostIdByShare('share', p1)).toBe(p2)
        expect(await store.findPostIdByShare('share', p3)).toBe(p1)
        expect(await store.findProfileIdBySlug('member-1')).toBe(profileIdOf(2))
        expect(await store.findProfileIdBySlug('first')).toBe(profileIdOf(1))
        const { comments } = await store.listComments(p1, 0, 10)
        expect(comments.map((c) => [c.commentId, c.replies.map((r) => r.commentId)]).sort()).toEqual([
          [c2, []],
          [c3, [c1]],
        ])
        expect((await store.listPostReactions(p2, 0, 10)).reactions.map((r) => r.actor.id)).toEqual([profileIdOf(1)])
      })

      it('leaves the last write of a record written twice, with the place its first write took', async () => {
        const p = postIdAt(1)
        const [c1, c2] = [postIdAt(11), postIdAt(12)]
        await write([
          ok(profileRow(1)),
          ok(profileRow(2)),
          ok(companyRow(1)),
          ok(postRow(p, personRef(1), { text: 'one two three' })),
          ok(commentRow(c1, p, personRef(2))),
          ok(commentRow(c2, p, personRef(2))),
          ok(postReactionRow(p, personRef(2), 'LIKE')),
          ok(postReactionRow(p, companyRef(1), 'LIKE')),
          ok(profileReactionRow(profileIdOf(2), p, 10, 'LIKE')),
          ok(articleRow('7', profileIdOf(1))),
          ok(companyRow(1, { name: 'Renamed Co' })),
          ok(postRow(p, personRef(1), { text: 'one two', doc: '{"v":2}' })),
          ok(commentRow(c2, p, personRef(2), { parentId: c1, text: 'now a reply' })),
          ok(postReactionRow(p, personRef(2), 'PRAISE')),
          ok(profileReactionRow(profileIdOf(2), p, 20, 'EMPATHY')),
          ok(articleRow('7', profileIdOf(1), { doc: '{"article":"v2"}' })),
        ])
        expect(await store.counts()).toEqual({
          profiles: 2,
          companies: 1,
          posts: 1,
          articles: 1,
          comments: 2,
          postReactions: 2,
          profileReactions: 1,
        })
        expect(await store.getPost(p)).toEqual({ id: p, doc: '{"v":2}' })
        const { comments } = await store.listComments(p, 0, 10)
        expect(comments.map((c) => [c.commentId, c.replies.map((r) => [r.commentId, r.text])])).toEqual([[c1, [[c2, 'now a reply']]]])
        const reactions = (await store.listPostReactions(p, 0, 10)).reactions
        expect(reactions.map((r) => [r.actor.id, r.actor.name, r.reactionType])).toEqual([
          [profileIdOf(2), 'Member 2', 'PRAISE'],
          [companyIdOf(1), 'Renamed Co', 'LIKE'],
        ])
        const mine = await store.listProfileReactions(profileIdOf(2), null, 10)
        expect(mine.rows.map((r) => [r.postId, r.reactedAt, r.reactionType])).toEqual([[p, 20, 'EMPATHY']])
        expect(await store.listArticles(profileIdOf(1), 0, 10)).toEqual(['{"article":"v2"}'])
      })

      it('refuses a row of a kind it does not know, keeping the rows around it', async () => {
        const bogus = { kind: 'bogus', row: {} } as unknown as ContentRow
        await write([ok(profileRow(1)), refused(bogus, 'unknown row kind "bogus"'), ok(postRow(postIdAt(1), personRef(1)))])
        expect(await store.counts()).toMatchObject({ profiles: 1, posts: 1 })
      })
    })
  })
}
