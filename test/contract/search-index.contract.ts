/**
 * The SearchIndex contract (src/ports/search-index.ts), written against the ports only so every
 * adapter runs the same suite: `runSearchIndexContract('sqlite', makeIndex)`. Posts reach the index
 * through the ContentStore it belongs with, as in production. Each test gets an empty store.
 *
 * What a query matches is fixed by the reference evaluator `matches(tree, tokenize(text))` of
 * query-tokens.ts: every adapter returns exactly its ids, so all adapters return the same ids.
 */
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseSearchQuery, type QueryNode, type TermNode } from '../../src/domain/search/query-grammar.ts'
import { matches, tokenize } from '../../src/domain/search/query-tokens.ts'
import { byRelevance } from '../../src/domain/search/ranking.ts'
import { CONTENT_KIND, type ContentRow, type ContentStore } from '../../src/ports/content-store.ts'
import type { SearchIndex } from '../../src/ports/search-index.ts'
import { companyRef, companyRow, personRef, postIdAt, postRow, profileRow } from '../helpers/content-fixtures.ts'

export interface SearchIndexHandle {
  store: ContentStore
  index: SearchIndex
  dispose(): Promise<void>
}

const q = (raw: string): QueryNode => parseSearchQuery(raw).tree

// ---------- generated posts and queries, over a vocabulary with the tokenizer's hard cases ----------

const WORDS = [
  'python', 'java', 'remote', 'hiring', 'machine', 'learning', 'data', 'engineer', 'ai', 'ml',
  'cafe', 'café', 'Zürich', 'zurich', 'naïve', "O'Neil", 'neil', 'o', "don't", 'don', 'C#', 'c', 'straße',
  'ΟΔΟΣ', 'οδος', '東京', 'R&D', 'e-mail', 'mail', 'd',
]
const HASHTAGS = ['#hiring', '#Hiring', '#remote', '#AI', '#café']
const SEPARATORS = [' ', ' ', ' ', ', ', ' - ', '\n', '! ', '—', ' (', ') ', '"', "'", ' & ', ': ']

const casing = (word: string, style: number): string =>
  style === 1 ? word.toUpperCase() : style === 2 ? word.charAt(0).toUpperCase() + word.slice(1) : word
const vocabWord = fc.tuple(fc.constantFrom(...WORDS), fc.integer({ min: 0, max: 3 })).map(([w, s]) => casing(w, s))

/** A post's text: words, hashtags and separators of the vocabulary. */
export const postTextArb = fc
  .array(
    fc.tuple(fc.oneof({ weight: 5, arbitrary: vocabWord }, { weight: 1, arbitrary: fc.constantFrom(...HASHTAGS) }), fc.constantFrom(...SEPARATORS)),
    { maxLength: 14 },
  )
  .map((parts) => parts.map(([w, sep]) => w + sep).join(''))

const term = (kind: TermNode['kind'], text: string): TermNode => ({ kind, text, tokens: tokenize(text) })
const termArb: fc.Arbitrary<QueryNode> = fc.oneof(
  { weight: 4, arbitrary: vocabWord.map((w) => term('word', w)) },
  { weight: 1, arbitrary: fc.constantFrom(...HASHTAGS).map((h) => term('hashtag', h)) },
  { weight: 2, arbitrary: fc.array(vocabWord, { minLength: 2, maxLength: 3 }).map((ws) => term('phrase', ws.join(' '))) },
)

/** Boolean queries as parsed trees: terms under AND, OR and binary NOT, a few levels deep. */
export const queryTreeArb: fc.Arbitrary<QueryNode> = fc.letrec<{ node: QueryNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', maxDepth: 3, withCrossShrink: true },
    { weight: 3, arbitrary: termArb },
    fc.array(tie('node'), { minLength: 2, maxLength: 3 }).map((children): QueryNode => ({ kind: 'and', children })),
    fc.array(tie('node'), { minLength: 2, maxLength: 3 }).map((children): QueryNode => ({ kind: 'or', children })),
    fc.tuple(tie('node'), tie('node')).map(([include, exclude]): QueryNode => ({ kind: 'not', include, exclude })),
  ),
})).node

/** `count` posts with generated texts, one every minute (ids in time order), every 7th a repost. */
export function generatedPosts(count: number, seed: number): { id: string; text: string; isRepost: boolean }[] {
  const texts = fc.sample(postTextArb, { numRuns: count, seed })
  return texts.map((text, i) => ({ id: postIdAt(i + 1), text, isRepost: i % 7 === 6 }))
}

const newestFirst = (ids: readonly string[]): string[] => [...ids].sort((a, b) => b.length - a.length || (a < b ? 1 : a > b ? -1 : 0))

export function runSearchIndexContract(name: string, makeIndex: () => Promise<SearchIndexHandle>): void {
  describe(`SearchIndex contract: ${name}`, () => {
    let handle: SearchIndexHandle
    let index: SearchIndex
    let store: ContentStore

    beforeEach(async () => {
      handle = await makeIndex()
      index = handle.index
      store = handle.store
    })
    afterEach(async () => {
      await handle.dispose()
    })

    const seed = async (...rows: ContentRow[]): Promise<void> => {
      expect(await store.write(rows)).toEqual(rows.map(() => ({ ok: true })))
    }
    const authors = () => [profileRow(1), profileRow(2, { jobTitle: null }), profileRow(3, { jobTitle: 'Senior Data Engineer' }), companyRow(1), companyRow(2)]
    /** A post by member 1 at `minute` with `text`. */
    const post = (minute: number, text: string, over: Parameters<typeof postRow>[2] = {}) =>
      postRow(postIdAt(minute), personRef(1), { text, ...over })

    describe('matching', () => {
      beforeEach(async () => {
        await seed(
          ...authors(),
          post(1, 'Python and Java engineers wanted'),
          post(2, 'We are #hiring a remote data engineer'),
          post(3, 'hiring: machine learning, remote'),
          post(4, "Coffee with O'Neil at the Café in Zürich"),
          post(5, 'learning machine code, not machine learning'),
          post(6, 'Reposted: python remote hiring', { isRepost: true }),
          post(7, 'C# and C are different; so are #AI and AI'),
          post(8, 'neil o and o neil'),
        )
      })
      const ids = (...minutes: number[]) => minutes.map((m) => postIdAt(m))

      it('finds the posts a query matches, newest first', async () => {
        expect(await index.newestMatches(q('remote'), {}, 10)).toEqual(ids(3, 2))
        expect(await index.newestMatches(q('hiring'), {}, 10)).toEqual(ids(3))
        expect(await index.newestMatches(q('#hiring'), {}, 10)).toEqual(ids(2))
        expect(await index.newestMatches(q('hiring OR #hiring'), {}, 10)).toEqual(ids(3, 2))
        expect(await index.newestMatches(q('"machine learning"'), {}, 10)).toEqual(ids(5, 3))
        expect(await index.newestMatches(q('machine learning NOT remote'), {}, 10)).toEqual(ids(5))
        expect(await index.newestMatches(q('ENGINEER python'), {}, 10)).toEqual([])
        expect(await index.newestMatches(q('engineers python'), {}, 10)).toEqual(ids(1))
        expect(await index.newestMatches(q('nothing-like-this'), {}, 10)).toEqual([])
      })

      it('folds case and Latin diacritics like the tokenizer model, and keeps # and tokens apart as it does', async () => {
        expect(await index.newestMatches(q('CAFE zurich'), {}, 10)).toEqual(ids(4))
        expect(await index.newestMatches(q('c#'), {}, 10)).toEqual(ids(7))
        expect(await index.newestMatches(q('c'), {}, 10)).toEqual(ids(7))
        expect(await index.newestMatches(q('#ai'), {}, 10)).toEqual(ids(7))
        // A word with an apostrophe is its tokens in sequence: o neil, not neil o.
        expect(await index.newestMatches(q("O'Neil"), {}, 10)).toEqual(ids(8, 4))
        expect(await index.newestMatches(q('"neil o"'), {}, 10)).toEqual(ids(8))
        expect(await index.newestMatches(q('"o neil" NOT coffee'), {}, 10)).toEqual(ids(8))
      })

      it('never returns a repost without commentary', async () => {
        expect(await index.newestMatches(q('reposted'), {}, 10)).toEqual([])
        expect(await index.scoredMatches(q('python'), {}, 10)).toEqual([{ id: postIdAt(1), score: expect.any(Number) }])
        expect(await index.matchAmong(q('python'), ids(6, 1))).toEqual([{ id: postIdAt(1), score: expect.any(Number) }])
      })

      it('honours limit and the id range (below excluded, from included)', async () => {
        // More operators than a request may hold (5): the index takes any tree.
        const any: QueryNode = { kind: 'or', children: ['o', 'hiring', 'python', 'machine', 'remote', 'c', '#hiring'].map((w) => term('word', w)) }
        expect(await index.newestMatches(any, {}, 100)).toEqual(ids(8, 7, 5, 4, 3, 2, 1))
        expect(await index.newestMatches(any, {}, 2)).toEqual(ids(8, 7))
        expect(await index.newestMatches(any, { below: postIdAt(5) }, 100)).toEqual(ids(4, 3, 2, 1))
        expect(await index.newestMatches(any, { from: postIdAt(3) }, 100)).toEqual(ids(8, 7, 5, 4, 3))
        expect(await index.newestMatches(any, { below: postIdAt(5), from: postIdAt(3) }, 100)).toEqual(ids(4, 3))
        expect(await index.newestMatches(any, { below: postIdAt(3), from: postIdAt(3) }, 100)).toEqual([])
        expect(await index.newestMatches(any, { below: '9223372036854775807' }, 100)).toHaveLength(7)
        expect(await index.newestMatches(any, {}, 0)).toEqual([])
        const scored = await index.scoredMatches(any, { below: postIdAt(5), from: postIdAt(2) }, 2)
        expect(scored.map((s) => s.id)).toEqual(ids(4, 3))
      })

      it('matchAmong and matchingAmong keep the order of the ids asked about and leave out the rest', async () => {
        const asked = [postIdAt(1), postIdAt(99), postIdAt(4), postIdAt(3), postIdAt(2)]
        const got = await index.matchAmong(q('remote OR python'), asked)
        expect(got.map((s) => s.id)).toEqual(ids(1, 3, 2))
        expect(got.every((s) => Number.isFinite(s.score) && s.score > 0)).toBe(true)
        expect(await index.matchingAmong(q('remote OR python'), asked)).toEqual(ids(1, 3, 2))
        expect(await index.matchingAmong(q('remote OR python'), asked, true)).toEqual(ids(1, 3, 2))
        expect(await index.matchAmong(q('remote'), [])).toEqual([])
        expect(await index.matchingAmong(q('remote'), [])).toEqual([])
        // Ids that are no activity id match nothing; more ids than matchingAmong seeks one by one.
        const odd = ['', 'abc', '-1', '99999999999999999999', ...Array.from({ length: 20 }, (_, i) => postIdAt(100 + i)), postIdAt(3)]
        expect(await index.matchingAmong(q('remote'), odd)).toEqual(ids(3))
        expect((await index.matchAmong(q('remote'), odd)).map((s) => s.id)).toEqual(ids(3))
      })

      it('re-indexes a re-written post: the old text no longer matches, a repost leaves the index, a post comes back', async () => {
        await seed(post(1, 'Rust engineers wanted'))
        expect(await index.newestMatches(q('python'), {}, 10)).toEqual([])
        expect(await index.newestMatches(q('rust'), {}, 10)).toEqual(ids(1))
        await seed(post(2, 'We are #hiring a remote data engineer', { isRepost: true }))
        expect(await index.newestMatches(q('remote'), {}, 10)).toEqual(ids(3))
        await seed(post(6, 'no longer a repost: remote'))
        expect(await index.newestMatches(q('remote'), {}, 10)).toEqual(ids(6, 3))
        expect(await index.newestMatches(q('reposted'), {}, 10)).toEqual([])
      })
    })

    describe('relevance', () => {
      it('scores like BM25: a rarer term, more occurrences and a shorter post rank higher', async () => {
        const filler = Array.from({ length: 30 }, (_, i) => post(100 + i, `common words only ${i}`))
        await seed(
          ...authors(),
          ...filler,
          post(1, 'common rare'),
          post(2, 'common common filler'),
          post(3, 'rare rare filler'),
          post(4, 'rare and a good deal of other words around it here'),
        )
        const scores = new Map((await index.scoredMatches(q('common OR rare'), {}, 100)).map((s) => [s.id, s.score]))
        const s = (m: number) => scores.get(postIdAt(m)) as number
        expect(s(3)).toBeGreaterThan(s(2)) // rare twice beats common twice
        expect(s(1)).toBeGreaterThan(s(4)) // the shorter post with the rare term (and common too)
        expect(s(3)).toBeGreaterThan(s(4)) // more occurrences
        const rareOnly = await index.scoredMatches(q('rare'), {}, 100)
        expect(rareOnly.map((x) => x.id)).toEqual([postIdAt(4), postIdAt(3), postIdAt(1)])
        const short = rareOnly.find((x) => x.id === postIdAt(1))!.score
        expect(short).toBeGreaterThan(rareOnly.find((x) => x.id === postIdAt(4))!.score)
        // matchAmong scores as scoredMatches does.
        const among = await index.matchAmong(q('common OR rare'), [postIdAt(3), postIdAt(1)])
        expect(among).toEqual([
          { id: postIdAt(3), score: expect.closeTo(s(3), 9) },
          { id: postIdAt(1), score: expect.closeTo(s(1), 9) },
        ])
      })
    })

    describe('relevance after rewrites', () => {
      it('a post written again, edited and put back, or made a repost and back, scores as if written once', async () => {
        const texts = ['common rare', 'common common filler', 'rare rare filler', 'rare and a good deal of other words around it here']
        const all = () => texts.map((text, i) => post(i + 1, text))
        const filler = Array.from({ length: 12 }, (_, i) => post(100 + i, `common words only ${i}`))
        await seed(...authors(), ...filler, ...all())
        const query = q('common OR rare')
        const before = await index.scoredMatches(query, {}, 100)
        const counted = (await index.termFrequencies(['rare'])).posts
        expect(counted).toBe(16)
        for (let round = 0; round < 5; round++) await seed(...all())
        await seed(post(2, 'something else entirely'))
        await seed(post(2, texts[1]!))
        await seed(post(3, texts[2]!, { isRepost: true }))
        await seed(post(3, texts[2]!))
        const after = await index.scoredMatches(query, {}, 100)
        expect(after.map((x) => x.id)).toEqual(before.map((x) => x.id))
        after.forEach((x, i) => expect(x.score).toBeCloseTo(before[i]!.score, 9))
        expect((await index.termFrequencies(['rare'])).posts).toBe(counted)
      })
    })

    describe('authors, facts and items', () => {
      beforeEach(async () => {
        await seed(
          ...authors(),
          postRow(postIdAt(1), personRef(1), { contentKinds: CONTENT_KIND.image | CONTENT_KIND.jobPost, mentions: ['10001', '10002'] }),
          postRow(postIdAt(2), personRef(2)),
          postRow(postIdAt(3), companyRef(1), { contentKinds: CONTENT_KIND.video }),
          postRow(postIdAt(4), personRef(1), { isRepost: true }),
          postRow(postIdAt(5), personRef(3), { docSearch: '{"item":"ü🚀"}' }),
          postRow(postIdAt(6), personRef(1)),
          postRow(postIdAt(7), companyRef(2)),
          postRow(postIdAt(8), companyRef(1), { isRepost: true }),
        )
      })

      it('authorPosts merges the authors\' own posts newest first, without reposts, within range and limit', async () => {
        const ids = (...minutes: number[]) => minutes.map((m) => postIdAt(m))
        expect(await index.authorPosts([personRef(1), companyRef(1)], {}, 10)).toEqual(ids(6, 3, 1))
        expect(await index.authorPosts([personRef(1), companyRef(1), personRef(1)], {}, 2)).toEqual(ids(6, 3))
        expect(await index.authorPosts([personRef(1), companyRef(1)], { below: postIdAt(6) }, 10)).toEqual(ids(3, 1))
        expect(await index.authorPosts([personRef(1), companyRef(1)], { from: postIdAt(3) }, 10)).toEqual(ids(6, 3))
        expect(await index.authorPosts([companyRef(2), personRef(3), personRef(2)], {}, 10)).toEqual(ids(7, 5, 2))
        expect(await index.authorPosts([personRef(9), companyRef(9)], {}, 10)).toEqual([])
        expect(await index.authorPosts([], {}, 10)).toEqual([])
        // Many authors (a title's holders), most without posts, read alike.
        const many = [...Array.from({ length: 30 }, (_, i) => personRef(i + 1)), companyRef(1), companyRef(2), personRef(1)]
        expect(await index.authorPosts(many, {}, 10)).toEqual(ids(7, 6, 5, 3, 2, 1))
        expect(await index.authorPosts(many, { below: postIdAt(7), from: postIdAt(2) }, 3)).toEqual(ids(6, 5, 3))
        expect(await index.authorPostCount(many, {}, 100)).toBe(6)
        expect(await index.authorPostCount(many, { below: postIdAt(7), from: postIdAt(2) }, 100)).toBe(4)
        expect(await index.authorPostCount(many, {}, 5)).toBe(5)
      })

      it('mentionPosts gives the posts mentioning any of the companies newest first, without reposts, within range and limit, as rewritten', async () => {
        const ids = (...minutes: number[]) => minutes.map((m) => postIdAt(m))
        await seed(
          postRow(postIdAt(10), personRef(2), { mentions: ['10001'] }),
          postRow(postIdAt(11), companyRef(1), { mentions: ['10003'] }),
          postRow(postIdAt(12), personRef(3), { mentions: ['10001', '10003'] }),
          postRow(postIdAt(13), personRef(1), { isRepost: true, mentions: ['10001'] }),
          postRow(postIdAt(14), personRef(1), { mentions: ['10002'] }),
        )
        expect(await index.mentionPosts(['10001'], {}, 10)).toEqual(ids(12, 10, 1))
        expect(await index.mentionPosts(['10001', '10003'], {}, 10)).toEqual(ids(12, 11, 10, 1))
        expect(await index.mentionPosts(['10001', '10001', '10003'], {}, 2)).toEqual(ids(12, 11))
        expect(await index.mentionPosts(['10001', '10003'], { below: postIdAt(12) }, 10)).toEqual(ids(11, 10, 1))
        expect(await index.mentionPosts(['10001', '10003'], { from: postIdAt(10) }, 10)).toEqual(ids(12, 11, 10))
        expect(await index.mentionPosts(['10002'], {}, 10)).toEqual(ids(14, 1))
        expect(await index.mentionPosts(['999', '1000'], {}, 10)).toEqual([])
        expect(await index.mentionPosts([], {}, 10)).toEqual([])
        // mentionCount: the posts mentionPosts gives, each once, up to the cap.
        expect(await index.mentionCount(['10001', '10003'], {}, 100)).toBe(4)
        expect(await index.mentionCount(['10001', '10003', '10001'], {}, 3)).toBe(3)
        expect(await index.mentionCount(['10001', '10003'], { below: postIdAt(12), from: postIdAt(10) }, 100)).toBe(2)
        expect(await index.mentionCount(['10002'], {}, 100)).toBe(2)
        expect(await index.mentionCount(['999'], {}, 100)).toBe(0)
        expect(await index.mentionCount([], {}, 100)).toBe(0)
        // A rewrite replaces a post's mentions; a repost has none, and a post that stops being one has its own.
        await seed(
          postRow(postIdAt(12), personRef(3), { mentions: ['10002'] }),
          postRow(postIdAt(10), personRef(2), { isRepost: true, mentions: ['10001'] }),
          postRow(postIdAt(13), personRef(1), { mentions: ['10001'] }),
          postRow(postIdAt(14), personRef(1)),
        )
        expect(await index.mentionPosts(['10001'], {}, 10)).toEqual(ids(13, 1))
        expect(await index.mentionPosts(['10002'], {}, 10)).toEqual(ids(12, 1))
        expect(await index.mentionPosts(['10003'], {}, 10)).toEqual(ids(11))
        expect(await index.mentionCount(['10001', '10002', '10003'], {}, 100)).toBe(4)
      })

      it('authorPostCount counts the posts authorPosts gives, each author once, within range, up to the cap', async () => {
        expect(await index.authorPostCount([personRef(1), companyRef(1)], {}, 100)).toBe(3)
        expect(await index.authorPostCount([personRef(1), companyRef(1), personRef(1)], {}, 100)).toBe(3)
        expect(await index.authorPostCount([personRef(1), companyRef(1)], {}, 2)).toBe(2)
        expect(await index.authorPostCount([personRef(1), companyRef(1)], { below: postIdAt(6), from: postIdAt(2) }, 100)).toBe(1)
        expect(await index.authorPostCount([companyRef(2), personRef(3), personRef(2)], {}, 100)).toBe(3)
        expect(await index.authorPostCount([personRef(9), companyRef(9)], {}, 100)).toBe(0)
        expect(await index.authorPostCount([], {}, 100)).toBe(0)
        expect(await index.authorPostCount([personRef(1)], {}, 0)).toBe(0)
      })

      it("titleHolders finds the members whose current title holds the phrase, as the facts filter reads it, and follows title changes", async () => {
        const holders = async (title: string, limit = 100) => (await index.titleHolders(tokenize(title), limit))?.sort()
        const ids = (...ns: number[]) => ns.map((n) => personRef(n).id).sort()
        await seed(
          profileRow(4, { jobTitle: 'Directeur Général' }),
          profileRow(5, { jobTitle: 'VP, Engineering & Data' }),
          profileRow(6, { jobTitle: 'Data Engineering Lead' }),
          profileRow(7, { jobTitle: 'SENIOR DATA ENGINEER (remote)' }),
        )
        // Member 3 is a Senior Data Engineer, member 2 holds no title, company pages none.
        expect(await holders('data engineer')).toEqual(ids(3, 7))
        expect(await holders('Senior Data Engineer')).toEqual(ids(3, 7))
        expect(await holders('engineer data')).toEqual([])
        expect(await holders('engineering data')).toEqual(ids(5))
        expect(await holders('data')).toEqual(ids(3, 5, 6, 7))
        expect(await holders('directeur general')).toEqual(ids(4))
        expect(await holders('GÉNÉRAL')).toEqual(ids(4))
        expect(await holders('direct')).toEqual([])
        expect(await holders('title 1')).toEqual(ids(1))
        expect(await holders('nobody holds this')).toEqual([])
        // More holders than the limit: null, not some of them.
        expect(await index.titleHolders(tokenize('data'), 3)).toBeNull()
        expect(await holders('data', 4)).toEqual(ids(3, 5, 6, 7))
        expect(await index.titleHolders([], 10)).toEqual([])
        // A new title replaces the old; a title removed leaves the member out; an upsert that keeps it keeps them in.
        await seed(profileRow(3, { jobTitle: 'Chief Data Officer' }), profileRow(7, { jobTitle: null }), profileRow(5, { name: 'Renamed', jobTitle: 'VP, Engineering & Data' }))
        expect(await holders('data engineer')).toEqual([])
        expect(await holders('chief data officer')).toEqual(ids(3))
        expect(await holders('engineering data')).toEqual(ids(5))
        expect(await holders('data')).toEqual(ids(3, 5, 6))
        await seed(profileRow(7, { jobTitle: 'Data Engineer' }))
        expect(await holders('data engineer')).toEqual(ids(7))
      })

      it('facts gives each existing post its author, content kinds, mentions and the author\'s job title', async () => {
        const facts = await index.facts([postIdAt(1), postIdAt(2), postIdAt(3), postIdAt(5), postIdAt(99)])
        expect([...facts.keys()].sort()).toEqual([postIdAt(1), postIdAt(2), postIdAt(3), postIdAt(5)].sort())
        expect(facts.get(postIdAt(1))).toEqual({
          authorKind: 'person',
          authorId: personRef(1).id,
          contentKinds: CONTENT_KIND.image | CONTENT_KIND.jobPost,
          mentions: ['10001', '10002'],
          authorJobTitle: 'Title 1',
        })
        expect(facts.get(postIdAt(2))).toMatchObject({ mentions: [], authorJobTitle: null, contentKinds: 0 })
        expect(facts.get(postIdAt(3))).toEqual({
          authorKind: 'company',
          authorId: companyRef(1).id,
          contentKinds: CONTENT_KIND.video,
          mentions: [],
          authorJobTitle: null,
        })
        expect(facts.get(postIdAt(5))?.authorJobTitle).toBe('Senior Data Engineer')
        expect((await index.facts([])).size).toBe(0)
        // The author's current title: changed, removed, given again.
        await seed(profileRow(3, { jobTitle: 'Chief Data Officer' }), profileRow(1, { jobTitle: null }))
        const later = await index.facts([postIdAt(1), postIdAt(5)])
        expect(later.get(postIdAt(5))?.authorJobTitle).toBe('Chief Data Officer')
        expect(later.get(postIdAt(1))?.authorJobTitle).toBeNull()
        await seed(profileRow(1, { jobTitle: 'Title 1' }))
        expect((await index.facts([postIdAt(1)])).get(postIdAt(1))?.authorJobTitle).toBe('Title 1')
      })

      it('items are the stored search documents, as their UTF-8 bytes', async () => {
        const items = await index.items([postIdAt(5), postIdAt(1), postIdAt(99)])
        expect([...items.keys()].sort()).toEqual([postIdAt(1), postIdAt(5)].sort())
        expect(Buffer.isBuffer(items.get(postIdAt(5)))).toBe(true)
        expect(items.get(postIdAt(5))?.equals(Buffer.from('{"item":"ü🚀"}'))).toBe(true)
        expect(items.get(postIdAt(1))?.toString()).toBe(JSON.stringify({ search: postIdAt(1) }))
        expect((await index.items([])).size).toBe(0)
      })

      it("an item shows its author's card as the author's record now stands (post-card.ts)", async () => {
        const id = postIdAt(20)
        const item = (card: object) => JSON.stringify({ id, profile: { urn: 'urn:li:fsd_profile:x', ...card }, isEdited: false })
        const stale = { name: 'Old', headline: 'Old headline', url: 'https://x.example/', imageUrl: null }
        await seed(postRow(id, personRef(2), { docSearch: item(stale), card: stale }))
        const m2 = profileRow(2).row
        expect((await index.items([id])).get(id)?.toString()).toBe(item({ name: m2.name, headline: m2.headline, url: m2.url, imageUrl: m2.pictureUrl }))
        await seed(profileRow(2, { name: 'Renamed', headline: 'Now elsewhere' }))
        expect((await index.items([id])).get(id)?.toString()).toBe(item({ name: 'Renamed', headline: 'Now elsewhere', url: m2.url, imageUrl: m2.pictureUrl }))
      })
    })

    describe('against the reference evaluator', () => {
      const posts = generatedPosts(300, 4_12)
      const expected = (tree: QueryNode, keep: (id: string) => boolean = () => true): string[] =>
        newestFirst(posts.filter((p) => !p.isRepost && keep(p.id) && matches(tree, tokenize(p.text))).map((p) => p.id))

      beforeEach(async () => {
        await seed(profileRow(1), ...posts.map((p) => postRow(p.id, personRef(1), { text: p.text, isRepost: p.isRepost })))
      })

      it('matches exactly the posts matches(tree, tokenize(text)) selects, for generated boolean queries', async () => {
        let informative = 0
        await fc.assert(
          fc.asyncProperty(queryTreeArb, async (tree) => {
            const want = expected(tree)
            expect(await index.newestMatches(tree, {}, 1000)).toEqual(want)
            if (want.length > 0 && want.length < 200) informative++
          }),
          { numRuns: 300, seed: 2026 },
        )
        // Most queries should select some posts and not all, or equality proves little.
        expect(informative).toBeGreaterThan(120)
      })

      it('scoredMatches, matchAmong and matchingAmong select the same posts, within ranges, and score alike', async () => {
        await fc.assert(
          fc.asyncProperty(
            queryTreeArb,
            fc.integer({ min: 1, max: 300 }),
            fc.integer({ min: 0, max: 150 }),
            fc.oneof(fc.subarray(posts.map((p) => p.id)), fc.shuffledSubarray(posts.map((p) => p.id), { maxLength: 40 })),
            async (tree, top, span, among) => {
              const below = postIdAt(top + 1)
              const from = postIdAt(Math.max(1, top - span))
              const want = expected(tree, (id) => id < below && id >= from)
              expect(await index.newestMatches(tree, { below, from }, 1000)).toEqual(want)
              const scored = await index.scoredMatches(tree, { below, from }, 1000)
              expect(scored.map((s) => s.id)).toEqual(want)
              expect(scored.every((s) => Number.isFinite(s.score) && s.score > 0)).toBe(true)
              const hits = new Set(expected(tree))
              const amongHits = among.filter((id) => hits.has(id))
              const amongScored = await index.matchAmong(tree, among)
              expect(amongScored.map((s) => s.id)).toEqual(amongHits)
              expect(await index.matchingAmong(tree, among)).toEqual(amongHits)
              expect(await index.matchingAmong(tree, among, true)).toEqual(amongHits)
              // Scored together or each on its own, a post's score is its score among all matches.
              const everyScore = new Map((await index.scoredMatches(tree, {}, 1000)).map((s) => [s.id, s.score]))
              for (const s of amongScored) expect(s.score).toBeCloseTo(everyScore.get(s.id) as number, 9)
            },
          ),
          { numRuns: 120, seed: 412 },
        )
      })

      it('rankedMatches pages through the matches by score, then newest first, as scoredMatches scores them', async () => {
        await fc.assert(
          fc.asyncProperty(
            queryTreeArb,
            fc.integer({ min: 1, max: 300 }),
            fc.integer({ min: 0, max: 300 }),
            fc.integer({ min: 0, max: 40 }),
            fc.integer({ min: 0, max: 30 }),
            async (tree, top, span, skip, take) => {
              const range = { below: postIdAt(top + 1), from: postIdAt(Math.max(1, top - span)) }
              const all = (await index.scoredMatches(tree, range, 1000)).sort(byRelevance).map((s) => s.id)
              // Either plan covers every match when no more than `bound` match.
              for (const plan of ['all', 'newest'] as const) {
                expect(await index.rankedMatches(tree, range, 1000, skip, take, plan)).toEqual({
                  ids: all.slice(skip, skip + take),
                  more: all.length > skip + take,
                })
              }
            },
          ),
          { numRuns: 120, seed: 4121 },
        )
      })

      it('rankedMatches covers every match (plan all) or exactly the newest `bound` (plan newest), in relevance order', async () => {
        await fc.assert(
          fc.asyncProperty(queryTreeArb, fc.integer({ min: 1, max: 20 }), async (tree, bound) => {
            const scores = new Map((await index.scoredMatches(tree, {}, 1000)).map((s) => [s.id, s.score]))
            const newest = await index.newestMatches(tree, {}, bound)
            for (const [plan, covered] of [['all', [...scores.keys()]], ['newest', newest]] as const) {
              const page = await index.rankedMatches(tree, {}, bound, 0, 1000, plan)
              expect(page.more).toBe(false)
              expect(new Set(page.ids)).toEqual(new Set(covered))
              expect(page.ids).toHaveLength(covered.length)
              const ranked = page.ids.map((id) => ({ id, score: scores.get(id) as number }))
              expect(ranked).toEqual([...ranked].sort(byRelevance))
              // Paging through it gives the same order.
              const first = await index.rankedMatches(tree, {}, bound, 0, 3, plan)
              const rest = await index.rankedMatches(tree, {}, bound, 3, 1000, plan)
              expect([...first.ids, ...rest.ids]).toEqual(page.ids)
              expect(first.more).toBe(page.ids.length > 3)
            }
          }),
          { numRuns: 120, seed: 4122 },
        )
      })

      it('termFrequencies counts the indexed posts and, for a few tokens, the posts holding each', async () => {
        const indexed = posts.filter((p) => !p.isRepost)
        const vocabulary = [...new Set(indexed.flatMap((p) => tokenize(p.text)))]
        expect(vocabulary.length).toBeGreaterThan(8)
        await fc.assert(
          fc.asyncProperty(fc.subarray([...vocabulary, 'absentword'], { minLength: 1, maxLength: 8 }), async (tokens) => {
            const f = await index.termFrequencies(tokens)
            expect(f.posts).toBe(indexed.length)
            for (const t of tokens) expect(f.df.get(t)).toBe(indexed.filter((p) => tokenize(p.text).includes(t)).length)
          }),
          { numRuns: 40, seed: 4123 },
        )
      })
    })

    describe('matches by some authors, against the reference evaluator', () => {
      const posts = generatedPosts(240, 4_13)
      // Five members and two pages write in turn; a repost is never a match.
      const writers = [personRef(1), personRef(2), personRef(3), personRef(4), personRef(5), companyRef(1), companyRef(2)]
      const writerOf = (i: number) => writers[(i * 3) % writers.length] as (typeof writers)[number]

      beforeEach(async () => {
        await seed(
          ...[1, 2, 3, 4, 5].map((n) => profileRow(n)),
          companyRow(1),
          companyRow(2),
          ...posts.map((p, i) => postRow(p.id, writerOf(i), { text: p.text, isRepost: p.isRepost })),
        )
      })

      it('newestMatchesBy keeps, of the newest `limit` matches within range, those the authors wrote, and says how many it looked at and the oldest', async () => {
        const authorOf = new Map(posts.map((p, i) => [p.id, writerOf(i)]))
        let informative = 0
        await fc.assert(
          fc.asyncProperty(
            queryTreeArb,
            fc.subarray([...writers, personRef(9)]),
            fc.integer({ min: 1, max: 240 }),
            fc.integer({ min: 0, max: 240 }),
            fc.integer({ min: 1, max: 120 }),
            fc.integer({ min: 1, max: 30 }),
            async (tree, by, top, span, limit, keep) => {
              const below = postIdAt(top + 1)
              const from = postIdAt(Math.max(1, top - span))
              const window = newestFirst(
                posts.filter((p) => !p.isRepost && p.id < below && p.id >= from && matches(tree, tokenize(p.text))).map((p) => p.id),
              ).slice(0, limit)
              const wrote = (id: string) => by.some((a) => a.kind === authorOf.get(id)?.kind && a.id === authorOf.get(id)?.id)
              const got = await index.newestMatchesBy(tree, by, { below, from }, limit, keep)
              const kept = window.filter(wrote).slice(0, keep)
              // The window ends at the last kept when `keep` were found.
              const looked = kept.length === keep ? window.indexOf(kept.at(-1) as string) + 1 : window.length
              expect(got).toEqual({ ids: kept, looked, last: window[looked - 1] })
              if (got.ids.length > 0 && got.ids.length < window.length) informative++
            },
          ),
          { numRuns: 300, seed: 4124 },
        )
        // Many windows should hold posts of the authors and of others, or equality proves little.
        expect(informative).toBeGreaterThan(50)
        expect(await index.newestMatchesBy(q('python'), writers, {}, 0, 10)).toEqual({ ids: [], looked: 0, last: undefined })
      })
    })
  })
}
