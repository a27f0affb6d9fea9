/**
 * When a search walk ends (clients "stop when `cursor` is null (null on a last page, an empty page
 * past the end, and a no-match query)"): an empty page never carries a cursor (a filtered date walk
 * that finds nothing scans on, to the end of the candidates or EMPTY_SCAN_LIMIT of them), and a
 * ranked walk whose matches are all older than postedAfter ends on its first page. Over a stub index,
 * so the scan budget can be passed many times over.
 */
import { describe, expect, it } from 'vitest'
import { bodyBytes } from '../../src/domain/content/content.service.ts'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { compareIds, idFromTime } from '../../src/domain/content/ids.ts'
import { BROAD_QUERY, createSearchService, EMPTY_SCAN_LIMIT, FIRST_POSTS_BLOCK, MENTIONS_FIRST, POSTS_PER_MATCH, RELEVANCE_CANDIDATES, SCAN_BUDGET, FIRST_MATCH_WINDOW, TITLE_HOLDERS_FIRST, TITLE_HOLDERS_LISTED } from '../../src/domain/search/search.service.ts'
import { createTokenSigner } from '../../src/domain/tokens.ts'
import { CONTENT_KIND } from '../../src/ports/content-store.ts'
import type { IdRange, PostFacts, SearchIndex } from '../../src/ports/search-index.ts'

const NOW = Date.UTC(2026, 10, 1)
const MIN = 60_000
const admit = async () => {}

/** The title the stub's holders hold, and its tokens. */
const TITLE = 'Chief Legal Officer'
const TITLE_TOKENS = ['chief', 'legal', 'officer']

/**
 * Every post matches the query; `live` says which posts are live videos (a filter checked on each
 * candidate's facts), `mentioned` which mention company 42 (the mentions' own index), `titled` which
 * were written by a member holding TITLE: `holders` members (h0, h1, …) take turns writing those.
 */
function stubIndex(
  count: number,
  live: (i: number) => boolean,
  mentioned: (i: number) => boolean = () => false,
  titled: (i: number) => boolean = () => false,
  holders = 2,
  /** The query's document frequency termFrequencies gives (planning only: every post matches all the same). */
  matches = count,
) {
  // Newest first, one a minute back from NOW.
  const ids = Array.from({ length: count }, (_, i) => idFromTime(NOW - (i + 1) * MIN, 0))
  const position = new Map(ids.map((id, i) => [id, i]))
  const inRange = (range: IdRange) =>
    ids.filter((id) => (range.below === undefined || compareIds(id, range.below) < 0) && (range.from === undefined || compareIds(id, range.from) >= 0))
  let factsRead = 0
  let mentionsRead = 0
  let seeks = 0
  let authorReads = 0
  let authorCounts = 0
  // Posts without the title are company 777's.
  const authorOf = (i: number) => (titled(i) ? `h${i % holders}` : '777')
  const byAuthors = (authors: readonly { id: string }[], range: IdRange) => {
    const wanted = new Set(authors.map((a) => a.id))
    return inRange(range).filter((id) => wanted.has(authorOf(position.get(id) as number)))
  }
  let windows = 0
  const index: SearchIndex = {
    async newestMatches(_q, range, limit) {
      return inRange(range).slice(0, limit)
    },
    async newestMatchesBy(_q, authors, range, limit, keep) {
      windows++
      const window = inRange(range).slice(0, limit)
      const wanted = new Set(authors.map((a) => a.id))
      const kept = window.filter((id) => wanted.has(authorOf(position.get(id) as number))).slice(0, keep)
      const looked = kept.length === keep ? window.indexOf(kept.at(-1) as string) + 1 : window.length
      return { ids: kept, looked, last: window[looked - 1] }
    },
    async scoredMatches() {
      throw new Error('not used')
    },
    async rankedMatches(_q, range, _bound, skip, take) {
      const all = inRange(range)
      return { ids: all.slice(skip, skip + take), more: all.length > skip + take }
    },
    async termFrequencies(tokens) {
      // Every post matches every query (however many matches it claims).
      return { posts: count, df: new Map(tokens.map((t) => [t, matches])) }
    },
    async matchAmong(_q, list) {
      return list.map((id) => ({ id, score: 1 }))
    },
    async matchingAmong(_q, list, sparse) {
      if (sparse) seeks += list.length
      return [...list]
    },
    async authorPosts(authors, range, limit) {
      authorReads++
      return byAuthors(authors, range).slice(0, limit)
    },
    async authorPostCount(authors, range, cap) {
      authorCounts++
      return Math.min(cap, byAuthors(authors, range).length)
    },
    async titleHolders(title, limit) {
      const all = title.join(' ') === TITLE_TOKENS.join(' ') ? Array.from({ length: holders }, (_, k) => `h${k}`) : []
      return all.length > limit ? null : all
    },
    async mentionPosts(companies, range, limit) {
      mentionsRead++
      return companies.includes('42') ? inRange(range).filter((id) => mentioned(position.get(id) as number)).slice(0, limit) : []
    },
    async mentionCount(companies, range, cap) {
      return companies.includes('42') ? Math.min(cap, inRange(range).filter((id) => mentioned(position.get(id) as number)).length) : 0
    },
    async facts(list) {
      factsRead += list.length
      return new Map(
        list.map((id): [string, PostFacts] => [
          id,
          {
            authorKind: 'person',
            authorId: authorOf(position.get(id) as number),
            contentKinds: live(position.get(id) as number) ? CONTENT_KIND.liveVideo : CONTENT_KIND.image,
            mentions: mentioned(position.get(id) as number) ? ['42'] : [],
            authorJobTitle: titled(position.get(id) as number) ? TITLE : 'Engineer',
          },
        ]),
      )
    },
    async items(list) {
      return new Map(list.map((id) => [id, Buffer.from(JSON.stringify({ id }))]))
    },
  }
  return {
    index,
    ids,
    factsRead: () => factsRead,
    mentionsRead: () => mentionsRead,
    seeks: () => seeks,
    authorReads: () => authorReads,
    authorCounts: () => authorCounts,
    windows: () => windows,
  }
}

function serviceOver(index: SearchIndex) {
  const service = createSearchService({ index, tokens: createTokenSigner('s'), clock: createManualClock(NOW), platformHost: 'www.linkedin.com' })
  return async (body: Record<string, unknown>) =>
    JSON.parse(bodyBytes(await service.search(body, admit)).toString()) as { results: { id: string }[]; cursor: string | null }
}

/** Pages of one search, each cursor passed back, until it is null or `maxCalls` were made. */
async function walk(search: ReturnType<typeof serviceOver>, body: Record<string, unknown>, maxCalls: number) {
  const seen: string[] = []
  let cursor: string | null = null
  let calls = 0
  do {
    const page = await search(cursor === null ? body : { ...body, cursor })
    calls++
    seen.push(...page.results.map((r) => r.id))
    cursor = page.cursor
  } while (cursor !== null && calls < maxCalls)
  return { seen, calls, cursor }
}

describe('an empty page is always the last', () => {
  it('a filtered date walk that matches nothing answers one empty page with cursor null, past the scan budget', async () => {
    const count = SCAN_BUDGET * 2 + 777
    const stub = stubIndex(count, () => false)
    const search = serviceOver(stub.index)
    const page = await search({ query: 'remote', sortBy: 'date', contentType: ['liveVideo'] })
    expect(page).toMatchObject({ results: [], cursor: null })
    // It looked at every candidate to say so.
    expect(stub.factsRead()).toBe(count)
  })

  it('past EMPTY_SCAN_LIMIT candidates that hold nothing, the walk ends: an empty page, cursor null, the rest not read', async () => {
    const count = EMPTY_SCAN_LIMIT + 2_000
    // One post would pass, but only beyond the limit: the query counts as exhausted before it, so that
    // no search scans millions of rows.
    const stub = stubIndex(count, (i) => i === EMPTY_SCAN_LIMIT + 1_000)
    const search = serviceOver(stub.index)
    const page = await search({ query: 'remote', sortBy: 'date', contentType: ['liveVideo'] })
    expect(page).toMatchObject({ results: [], cursor: null })
    expect(stub.factsRead()).toBeGreaterThanOrEqual(EMPTY_SCAN_LIMIT)
    expect(stub.factsRead()).toBeLessThan(EMPTY_SCAN_LIMIT + 1_000)
  })

  it('a sparse filter: every page holds something until the cursor is null, and the walk yields exactly the kept posts', async () => {
    const count = SCAN_BUDGET * 3
    // Kept: two posts deep past the first budget, one past the second, none after.
    const kept = new Set([SCAN_BUDGET + 5, SCAN_BUDGET + 9, 2 * SCAN_BUDGET + 100])
    const stub = stubIndex(count, (i) => kept.has(i))
    const search = serviceOver(stub.index)
    const body = { query: 'remote', sortBy: 'date', contentType: ['liveVideo'], maxResults: 50 }
    const seen: string[] = []
    let cursor: string | null = null
    for (let calls = 0; calls < 10; calls++) {
      const page = await search(cursor === null ? body : { ...body, cursor })
      if (page.cursor !== null) expect(page.results.length).toBeGreaterThan(0)
      seen.push(...page.results.map((r) => r.id))
      cursor = page.cursor
      if (cursor === null) break
    }
    expect(cursor).toBeNull()
    expect(seen).toEqual([...kept].sort((a, b) => a - b).map((i) => stub.ids[i]))
  })

  it('a relevance walk whose matches are all older than postedAfter ends on its first, empty page', async () => {
    const stub = stubIndex(2_000, () => true)
    const search = serviceOver(stub.index)
    const page = await search({ query: 'remote', maxResults: 10, postedAfter: NOW - MIN / 2 })
    expect(page).toMatchObject({ results: [], cursor: null })
  })

  it('a relevance walk with recent matches goes on while the rest holds any, and ends on the last of them', async () => {
    const stub = stubIndex(2_000, () => true)
    const search = serviceOver(stub.index)
    // The stub ranks newest first: 15 posts pass the cut, so page 1 is full and page 2 holds the rest.
    const body = { query: 'remote', maxResults: 10, postedAfter: NOW - 15 * MIN }
    const first = await search(body)
    expect(first.results.map((r) => r.id)).toEqual(stub.ids.slice(0, 10))
    expect(first.cursor).not.toBeNull()
    const second = await search({ ...body, cursor: first.cursor })
    expect(second.results.map((r) => r.id)).toEqual(stub.ids.slice(10, 15))
    expect(second.cursor).toBeNull()
  })
})

describe('mentionsCompanies walks the companies\' mentions, not the query\'s matches', () => {
  it('a date walk answers every mention in one call, however deep among the matches, reading no facts', async () => {
    const count = SCAN_BUDGET * 3
    const deep = [SCAN_BUDGET + 5, SCAN_BUDGET + 9, 2 * SCAN_BUDGET + 100, 3 * SCAN_BUDGET - 1]
    const stub = stubIndex(count, () => false, (i) => deep.includes(i))
    const search = serviceOver(stub.index)
    const page = await search({ query: 'remote', sortBy: 'date', mentionsCompanies: ['42'] })
    expect(page.results.map((r) => r.id)).toEqual(deep.map((i) => stub.ids[i]))
    expect(page.cursor).toBeNull()
    // The query was checked on the four mentions, one by one, and nothing else was read.
    expect(stub.seeks()).toBe(deep.length)
    expect(stub.factsRead()).toBe(0)
  })

  it('other filters are still checked on each mention', async () => {
    // 100 mentions, 34 of them live videos (and 300 other live videos).
    const stub = stubIndex(1_000, (i) => i % 3 === 0, (i) => i % 10 === 0)
    const search = serviceOver(stub.index)
    const page = await search({ query: 'remote', sortBy: 'date', mentionsCompanies: ['42'], contentType: ['liveVideo'] })
    expect(page.results.map((r) => r.id)).toEqual(stub.ids.filter((_, i) => i % 30 === 0))
    expect(page.cursor).toBeNull()
  })

  it('a date walk pages through the mentions: each page full, the last one ends the walk', async () => {
    const stub = stubIndex(5_000, () => false, (i) => i % 40 === 7)
    const search = serviceOver(stub.index)
    const body = { query: 'remote', sortBy: 'date', mentionsCompanies: ['42'], maxResults: 50 }
    const { seen, calls, cursor } = await walk(search, body, 10)
    expect(cursor).toBeNull()
    expect(seen).toEqual(stub.ids.filter((_, i) => i % 40 === 7))
    expect(calls).toBe(3) // 125 mentions: 50, 50, 25
  })

  it('relevance ranks every mention, also one older than the newest RELEVANCE_CANDIDATES matches', async () => {
    const old = RELEVANCE_CANDIDATES + 2_500
    const stub = stubIndex(RELEVANCE_CANDIDATES + 5_000, () => false, (i) => i === 3 || i === old)
    const search = serviceOver(stub.index)
    const page = await search({ query: 'remote', mentionsCompanies: ['42'] })
    expect(new Set(page.results.map((r) => r.id))).toEqual(new Set([stub.ids[3], stub.ids[old]]))
    expect(page.cursor).toBeNull()
    expect(stub.factsRead()).toBe(0)
  })

  it('a relevance walk over mentions pages to the end without repeats', async () => {
    const stub = stubIndex(3_000, () => false, (i) => i % 100 === 1)
    const search = serviceOver(stub.index)
    const body = { query: 'remote', mentionsCompanies: ['42'], maxResults: 7 }
    const { seen, cursor } = await walk(search, body, 20)
    expect(cursor).toBeNull()
    expect(seen).toHaveLength(30)
    expect(new Set(seen)).toEqual(new Set(stub.ids.filter((_, i) => i % 100 === 1)))
  })

  it('past MENTIONS_FIRST mentions the query\'s matches drive the walk again, with the mention checked on their facts', async () => {
    const stub = stubIndex(MENTIONS_FIRST * 2 + 10, () => false, (i) => i % 2 === 1)
    const search = serviceOver(stub.index)
    const page = await search({ query: 'remote', sortBy: 'date', mentionsCompanies: ['42'], maxResults: 10 })
    expect(page.results.map((r) => r.id)).toEqual(stub.ids.filter((_, i) => i % 2 === 1).slice(0, 10))
    expect(stub.factsRead()).toBeGreaterThan(0)
    expect(stub.seeks()).toBe(0)
    // Counted, not read.
    expect(stub.mentionsRead()).toBe(0)
  })
})

describe("authorJobTitle walks the title's holders' posts, not the query's matches", () => {
  it('a date walk answers every post by a holder in one call, however deep among the matches, reading no facts', async () => {
    const count = SCAN_BUDGET * 3
    const deep = [SCAN_BUDGET + 5, SCAN_BUDGET + 9, 2 * SCAN_BUDGET + 100, 3 * SCAN_BUDGET - 1]
    const stub = stubIndex(count, () => false, undefined, (i) => deep.includes(i))
    const search = serviceOver(stub.index)
    const page = await search({ query: 'remote', sortBy: 'date', authorJobTitle: TITLE })
    expect(page.results.map((r) => r.id)).toEqual(deep.map((i) => stub.ids[i]))
    expect(page.cursor).toBeNull()
    // The query was checked on the four posts, one by one, and nothing else was read.
    expect(stub.seeks()).toBe(deep.length)
    expect(stub.factsRead()).toBe(0)
  })

  it('a date walk pages through the holders\' posts: each page full, the last one ends the walk', async () => {
    const stub = stubIndex(5_000, () => false, undefined, (i) => i % 40 === 7, 5)
    const search = serviceOver(stub.index)
    const { seen, calls, cursor } = await walk(search, { query: 'remote', sortBy: 'date', authorJobTitle: TITLE, maxResults: 50 }, 10)
    expect(cursor).toBeNull()
    expect(seen).toEqual(stub.ids.filter((_, i) => i % 40 === 7))
    expect(calls).toBe(3) // 125 posts: 50, 50, 25
    expect(stub.factsRead()).toBe(0)
  })

  it('other filters are still checked on each of the holders\' posts', async () => {
    const stub = stubIndex(1_000, (i) => i % 3 === 0, (i) => i % 2 === 0, (i) => i % 10 === 0)
    const search = serviceOver(stub.index)
    const live = await search({ query: 'remote', sortBy: 'date', authorJobTitle: TITLE, contentType: ['liveVideo'] })
    expect(live.results.map((r) => r.id)).toEqual(stub.ids.filter((_, i) => i % 30 === 0))
    // Mentions and a title together: the mentions drive (fewer than MENTIONS_FIRST), the title is checked on each.
    const both = await search({ query: 'remote', sortBy: 'date', authorJobTitle: TITLE, mentionsCompanies: ['42'], maxResults: 50 })
    expect(both.results.map((r) => r.id)).toEqual(stub.ids.filter((_, i) => i % 10 === 0).slice(0, 50))
  })

  it('relevance ranks every post by a holder, also one older than the newest RELEVANCE_CANDIDATES matches', async () => {
    const old = RELEVANCE_CANDIDATES + 2_500
    const stub = stubIndex(RELEVANCE_CANDIDATES + 5_000, () => false, undefined, (i) => i === 3 || i === old)
    const search = serviceOver(stub.index)
    const page = await search({ query: 'remote', authorJobTitle: TITLE })
    expect(new Set(page.results.map((r) => r.id))).toEqual(new Set([stub.ids[3], stub.ids[old]]))
    expect(page.cursor).toBeNull()
    expect(stub.factsRead()).toBe(0)
  })

  it('a relevance walk over the holders\' posts pages to the end without repeats', async () => {
    const stub = stubIndex(3_000, () => false, undefined, (i) => i % 100 === 1, 3)
    const search = serviceOver(stub.index)
    const { seen, cursor } = await walk(search, { query: 'remote', authorJobTitle: TITLE, maxResults: 7 }, 20)
    expect(cursor).toBeNull()
    expect(seen).toHaveLength(30)
    expect(new Set(seen)).toEqual(new Set(stub.ids.filter((_, i) => i % 100 === 1)))
    expect(stub.factsRead()).toBe(0)
  })

  it('a title nobody holds matches nothing: an empty last page, nothing scanned', async () => {
    const stub = stubIndex(SCAN_BUDGET * 2, () => false, undefined, (i) => i % 5 === 0)
    const search = serviceOver(stub.index)
    for (const sortBy of ['date', 'relevance']) {
      const page = await search({ query: 'remote', sortBy, authorJobTitle: 'Chief Happiness Officer' })
      expect(page).toMatchObject({ results: [], cursor: null })
    }
    expect(stub.factsRead()).toBe(0)
    expect(stub.seeks()).toBe(0)
  })

  it('past MENTIONS_FIRST posts by holders, and past POSTS_PER_MATCH per match of the query, its matches drive the walk again, the index checking the title as it walks them', async () => {
    // 10,005 posts by holders, a query estimated to match 1,000 posts (at most 4,000 of theirs).
    const stub = stubIndex(MENTIONS_FIRST * 2 + 10, () => false, undefined, (i) => i % 2 === 1, 2, 1_000)
    const search = serviceOver(stub.index)
    const page = await search({ query: 'remote', sortBy: 'date', authorJobTitle: TITLE, maxResults: 10 })
    expect(page.results.map((r) => r.id)).toEqual(stub.ids.filter((_, i) => i % 2 === 1).slice(0, 10))
    // One window of matches, no facts.
    expect(stub.windows()).toBe(1)
    expect(stub.factsRead()).toBe(0)
    expect(stub.seeks()).toBe(0)
    // Counted, not read.
    expect(stub.authorReads()).toBe(0)
  })

  it('past MENTIONS_FIRST posts by holders, a date walk of a query matching BROAD_QUERY times as many takes their posts, a block at a time', async () => {
    const count = BROAD_QUERY * MENTIONS_FIRST + 2_000
    // 14,000 posts by holders; those also live videos lie past the first block of their posts.
    const deep = (i: number) => i >= count - 6_000
    const stub = stubIndex(count, deep, undefined, (i) => i % 3 === 0)
    const search = serviceOver(stub.index)
    const page = await search({ query: 'remote', sortBy: 'date', authorJobTitle: TITLE, contentType: ['liveVideo'], maxResults: 50 })
    expect(page.results.map((r) => r.id)).toEqual(stub.ids.filter((_, i) => i % 3 === 0 && deep(i)).slice(0, 50))
    // The holders' posts were read in growing blocks (1,000, 2,000, 4,000, 8,000: not counted first) and
    // their facts checked: not the 36,000 matches above.
    expect(stub.authorReads()).toBe(4)
    expect(stub.authorCounts()).toBe(0)
    expect(stub.factsRead()).toBeLessThanOrEqual(14_000)
    // Relevance keeps to the query's newest matches (the holders' posts are not all there to rank).
    const ranked = await search({ query: 'remote', authorJobTitle: TITLE, maxResults: 10 })
    expect(ranked.results).toHaveLength(10)
    expect(stub.authorReads()).toBe(4)
  })

  it('past MENTIONS_FIRST posts by holders, a date walk takes their posts while they wrote at most POSTS_PER_MATCH per estimated match', async () => {
    // 12,000 posts by holders; a query estimated to match just enough posts for those to be taken.
    const count = 24_000
    const enough = Math.ceil(count / 2 / POSTS_PER_MATCH)
    const stub = stubIndex(count, (i) => i % 4 === 0, undefined, (i) => i % 2 === 0, 2, enough)
    const search = serviceOver(stub.index)
    const page = await search({ query: 'remote', sortBy: 'date', authorJobTitle: TITLE, contentType: ['liveVideo'], maxResults: 50 })
    expect(page.results.map((r) => r.id)).toEqual(stub.ids.filter((_, i) => i % 4 === 0).slice(0, 50))
    // Counted once, then the first block read: the live videos among it were checked, no other match.
    expect(stub.authorCounts()).toBe(1)
    expect(stub.authorReads()).toBe(1)
    expect(stub.factsRead()).toBeLessThanOrEqual(FIRST_POSTS_BLOCK)
    // Estimated to match fewer, the query's matches drive it.
    const narrow = stubIndex(count, (i) => i % 4 === 0, undefined, (i) => i % 2 === 0, 2, enough - 1)
    const again = await serviceOver(narrow.index)({ query: 'remote', sortBy: 'date', authorJobTitle: TITLE, contentType: ['liveVideo'], maxResults: 50 })
    expect(again.results).toEqual(page.results)
    expect(narrow.authorReads()).toBe(0)
  })

  it("a company page holds no title: authorCompanies with authorJobTitle is an empty last page, nothing read", async () => {
    const stub = stubIndex(5_000, () => false, undefined, (i) => i % 7 === 0)
    const search = serviceOver(stub.index)
    for (const body of [{ sortBy: 'date' }, { query: 'remote', sortBy: 'date' }, { query: 'remote' }]) {
      const page = await search({ ...body, authorCompanies: ['777'], authorJobTitle: 'Engineer' })
      expect(page).toMatchObject({ results: [], cursor: null })
    }
    expect(stub.factsRead()).toBe(0)
    expect(stub.authorReads()).toBe(0)
    // The company's posts, without the title filter.
    expect((await search({ authorCompanies: ['777'], maxResults: 10 })).results).toHaveLength(10)
  })

  it('past TITLE_HOLDERS_FIRST holders the query\'s matches drive the walk: by date the index checks the title as it walks them, by relevance their facts are read', async () => {
    const stub = stubIndex(3_000, () => false, undefined, (i) => i % 3 === 0, TITLE_HOLDERS_FIRST + 1)
    const search = serviceOver(stub.index)
    const want = stub.ids.filter((_, i) => i % 3 === 0).slice(0, 10)
    const byDate = await search({ query: 'remote', sortBy: 'date', authorJobTitle: TITLE, maxResults: 10 })
    expect(byDate.results.map((r) => r.id)).toEqual(want)
    expect(stub.windows()).toBe(1)
    expect(stub.factsRead()).toBe(0)
    const ranked = await search({ query: 'remote', sortBy: 'relevance', authorJobTitle: TITLE, maxResults: 10 })
    expect(new Set(ranked.results.map((r) => r.id))).toEqual(new Set(want))
    expect(stub.factsRead()).toBeGreaterThan(0)
    expect(stub.authorReads()).toBe(0)
  })

  it('a date walk whose matches the index checks for the title takes them in growing windows, checks other filters on what it keeps, and pages to the end', async () => {
    // Holders wrote every 200th post; of those, every other one is a live video.
    const count = 120_000
    const stub = stubIndex(count, (i) => i % 400 === 0, undefined, (i) => i % 200 === 0, TITLE_HOLDERS_FIRST + 1)
    const search = serviceOver(stub.index)
    const page = await search({ query: 'remote', sortBy: 'date', authorJobTitle: TITLE, maxResults: 50 })
    expect(page.results.map((r) => r.id)).toEqual(stub.ids.filter((_, i) => i % 200 === 0).slice(0, 50))
    // 10,001 matches hold 51 of theirs: a window of FIRST_MATCH_WINDOW, then one of twice that, where the
    // index stopped at the 51st (it tells that more follow).
    expect(FIRST_MATCH_WINDOW * 3).toBeGreaterThan(10_001)
    expect(stub.windows()).toBe(2)
    expect(stub.factsRead()).toBe(0)
    // contentType is checked on the facts of the posts the index kept, not on every match.
    const live = await search({ query: 'remote', sortBy: 'date', authorJobTitle: TITLE, contentType: ['liveVideo'], maxResults: 50 })
    expect(live.results.map((r) => r.id)).toEqual(stub.ids.filter((_, i) => i % 400 === 0).slice(0, 50))
    expect(stub.factsRead()).toBeLessThan(count / 100)
    // Every holder's post once, in order, then cursor null (the walk's depth cap).
    const { seen, cursor } = await walk(search, { query: 'remote', sortBy: 'date', authorJobTitle: TITLE, maxResults: 50 }, 30)
    expect(cursor).toBeNull()
    expect(seen).toEqual(stub.ids.filter((_, i) => i % 200 === 0).slice(0, 500))
    // A sparse title: the walk ends on an empty page once EMPTY_SCAN_LIMIT matches held nothing (the
    // window it passed that in included; the one post lies past it).
    const none = stubIndex(EMPTY_SCAN_LIMIT + 20_000, () => false, undefined, (i) => i === EMPTY_SCAN_LIMIT + 15_000, TITLE_HOLDERS_FIRST + 1)
    expect(await serviceOver(none.index)({ query: 'remote', sortBy: 'date', authorJobTitle: TITLE })).toMatchObject({ results: [], cursor: null })
    expect(none.factsRead()).toBe(0)
  })

  it('past TITLE_HOLDERS_LISTED holders a date walk checks the title on the facts of the query\'s matches', async () => {
    const stub = stubIndex(3_000, () => false, undefined, (i) => i % 3 === 0, TITLE_HOLDERS_LISTED + 1)
    const page = await serviceOver(stub.index)({ query: 'remote', sortBy: 'date', authorJobTitle: TITLE, maxResults: 10 })
    expect(page.results.map((r) => r.id)).toEqual(stub.ids.filter((_, i) => i % 3 === 0).slice(0, 10))
    expect(stub.windows()).toBe(0)
    expect(stub.factsRead()).toBeGreaterThan(0)
  })
})
