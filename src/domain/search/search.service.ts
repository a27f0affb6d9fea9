/**
 * Post search (spec 2.11, 4.12; D8, D11). Plans over the SearchIndex port:
 * - candidates come from the text index (a query) or from the authors' own feeds (authorProfiles /
 *   authorCompanies, checked against the query one post at a time): a few authors have far fewer
 *   posts than a common word has matches;
 * - candidates come from the companies' mentions instead (mentionsCompanies without authors), checked
 *   against the query one post at a time, when those companies are mentioned in at most
 *   MENTIONS_FIRST searchable posts: a company is mentioned in few posts next to a common word's
 *   matches, and the search then covers every mention, in either order;
 * - failing that, from the posts of the members holding authorJobTitle (without authors), when at most
 *   TITLE_HOLDERS_FIRST members hold it and they wrote at most MENTIONS_FIRST searchable posts (or, for
 *   a date walk, at most POSTS_PER_MATCH per match the query is estimated to have, or any number when
 *   it is estimated to match BROAD_QUERY times MENTIONS_FIRST): the same reasoning, a title's holders
 *   being few next to a common word's matches; failing that, a date walk over the query's matches has
 *   the index check the title as it walks them (newestMatchesBy, given the holders) when at most
 *   TITLE_HOLDERS_LISTED members hold it, rather than reading each match's facts;
 * - `date` (and a search without a query) walks candidates newest first in chunks, checking the
 *   filters, until the page is full or SCAN_BUDGET candidates were looked at and at least one kept
 *   (a short page with a cursor then says "more may follow"); an empty page is always the last, at
 *   the end of the candidates or after EMPTY_SCAN_LIMIT of them held nothing;
 * - `relevance` ranks by BM25 all matches of a narrow query and the newest RELEVANCE_CANDIDATES
 *   matches of a broad one (D8's bound: no search scores millions of rows), planned on the first
 *   page from the index's term frequencies (ranking.ts), and pages through that ranking by offset,
 *   fixed for the whole walk by the first page's newest match and plan, both kept in the cursor;
 * - postedWithin bounds the candidates' ids (ids encode time); postedAfter trims the page afterwards,
 *   so a trimmed page is short and still billed;
 * - cursors are signed and bound to the interpreted query and filters; a walk ends after MAX_DEPTH
 *   results.
 */
import type { Clock } from '../../ports/clock.ts'
import type { AuthorRef } from '../../ports/content-store.ts'
import type { IdRange, PostFacts, RankingPlan, SearchIndex } from '../../ports/search-index.ts'
import type { Admit, Delivered } from '../content/content.service.ts'
import type { ResponseCache } from '../content/response-cache.ts'
import { compareIds, idFromTime, timeFromId } from '../content/ids.ts'
import { invalidParameter } from '../errors.ts'
import type { TokenSigner } from '../tokens.ts'
import { withoutRepeats, type QueryNode } from './query-grammar.ts'
import { containsRun, tokenize } from './query-tokens.ts'
import { byRelevance, estimateMatches, planningTokens, planRanking } from './ranking.ts'
import { POSTED_WITHIN_MS, parseSearchRequest, searchScope, type SearchRequest } from './search-request.ts'

/** Results one query yields at most, over all its pages (D8). */
export const MAX_DEPTH = 500
/** Matches a relevance search ranks at most: the newest ones (D8). */
export const RELEVANCE_CANDIDATES = 10_000
/** Candidates one call looks at before it answers with what it has. */
export const SCAN_BUDGET = 20_000
/**
 * Candidates a call looks at while its page is still empty; past them the walk ends. Facts cost about
 * 23 µs a candidate on the 1.9M-post bench network ("the" with a filter nothing passes: all 1.38M
 * matches took 32 s), so this bounds such a call near 2 s.
 */
export const EMPTY_SCAN_LIMIT = 100_000
const CHUNK = 500
/**
 * Posts mentioning the filter's companies up to which they, not the query's matches, are the
 * candidates. Equal to RELEVANCE_CANDIDATES, so a relevance search with this filter ranks every post
 * that mentions them and matches, or (past it) its newest RELEVANCE_CANDIDATES matches as before.
 */
export const MENTIONS_FIRST = RELEVANCE_CANDIDATES
/**
 * Members holding authorJobTitle up to which their posts may be the candidates (when they wrote at
 * most MENTIONS_FIRST searchable posts). Past it the holders are not listed: on the synthetic network
 * 2,000 members write about 20,000 posts, and listing 3,868 Managers took 6 ms.
 */
export const TITLE_HOLDERS_FIRST = 2_000
/**
 * How many times more matches than MENTIONS_FIRST a query must be estimated to have for a date walk to
 * take the holders' posts without counting them (POSTS_PER_MATCH: they would be taken unless they
 * wrote several hundred thousand). On the 1.9M-post network, a date page of Physicians' posts (1,757
 * holders, 13,987 posts) with `the` or `offer` took 160-570 ms over the matches, 37-63 ms over their
 * posts (checked by a seek each then).
 */
export const BROAD_QUERY = 4
/**
 * For a date walk, how many of the holders' posts per estimated match of the query they may have
 * written (past MENTIONS_FIRST) for their posts to be the candidates. Per result, walking their posts
 * costs about 1.5 µs for each post of theirs the query misses (read in blocks, checked by walks of the
 * query's matches between them: matchingAmong), walking the query's matches a facts read (5-10 µs on
 * the 1.9M-post network) for each match they did not write: the first costs less up to 3-6 posts a
 * match. There, a date page of Physicians' posts (1,757 holders, 13,987 posts) with 'university'
 * (about 21,000 matches) took 107-115 ms over the matches (facts then read 20 µs), 41 ms over theirs.
 */
export const POSTS_PER_MATCH = 4
/**
 * The first block of a title's holders' posts a date walk reads; each next block is twice the last, up
 * to MENTIONS_FIRST. A page often needs the newest few hundred, and a read of many authors' posts
 * gathers and sorts all of theirs in range: on the 1.9M-post network the newest 10,000 of 1,757
 * Physicians' posts took 13.5 ms, the newest 500 5.4 ms (the seek into each author's posts stays).
 */
export const FIRST_POSTS_BLOCK = 1_000
/**
 * Members holding authorJobTitle up to which a date walk over the query's matches has the index check
 * the title in its own walk (newestMatchesBy, given the holders) rather than reading each match's
 * facts: a match then costs 1.5-6 µs against 10 µs on the 1.9M-post bench network. Listing the
 * holders costs 2-3 µs each there (7,371 Software Engineers: 17 ms; a title held more widely is told
 * by a count, about 1 ms, and its walk reads facts); the list goes to the index, which builds a lookup
 * of it for each statement (about 0.9 µs a holder).
 */
export const TITLE_HOLDERS_LISTED = 5_000
/**
 * The first window of the query's matches such a walk has the index check at once (each next one
 * twice the last, up to MENTIONS_FIRST). The index stops at the page's last result, so a large window
 * costs only where the holders' posts are sparse; each statement builds the holders' lookup again
 * (2,105 holders: about 2 ms).
 */
export const FIRST_MATCH_WINDOW = 5_000

/**
 * Where a walk stands: date order continues below `b`; relevance continues at offset `o` of the
 * ranking of ids below `t`, planned `k` (absent in cursors issued before plans existed: `newest`),
 * after the ranks just above `o` as they were (`a`, packed: packIds) and posts already shown below
 * them (`x`), together up to MARKS ids, where they now rank. Cursors issued before those were kept
 * carry `l` instead, the page before's last three results (or its last one; cursors older still carry
 * neither: at the offset alone).
 */
type Position = { n: number; s: string | null } & (
  | { m: 'd'; b: string | null }
  | { m: 'r'; o: number; t: string | null; k?: RankingPlan; a?: string; x?: string; l?: string | string[]; v?: 'm' | 't' }
)

/**
 * What a relevance walk ranks: the query's matches (`q`), the posts mentioning the filter's companies
 * that match (`m`), or the posts of the title's holders that match (`t`); `m` and `t` are kept in the
 * cursor as `v`: the walk keeps its first page's choice.
 */
type Driver = 'q' | 'm' | 't'

/**
 * Where a date walk's candidates come from: the query's matches, the authors' posts (authorProfiles
 * and authorCompanies), the companies' mentions, or posts read beforehand, newest first (the title's
 * holders': many authors, each read once a call rather than once a chunk).
 */
type Source =
  // `by`: the title's holders, checked by the index in its walk of the matches (newestMatchesBy).
  | { via: 'query'; by?: readonly AuthorRef[] }
  | { via: 'authors' }
  | { via: 'mentions' }
  // `posts` are read when needed, `block` at a time (FIRST_POSTS_BLOCK, doubling up to MENTIONS_FIRST);
  // `more`: none read yet, or the last read was full, so more may be below them.
  | { via: 'posts'; posts: readonly string[]; authors: readonly AuthorRef[]; more: boolean; block: number }

export interface SearchServiceDeps {
  index: SearchIndex
  /** Ready result items of recent searches (the same post recurs across searches); none: always read. */
  cache?: ResponseCache
  tokens: TokenSigner
  clock: Clock
  platformHost: string
}

export type SearchService = ReturnType<typeof createSearchService>

const next = (id: string): string => (BigInt(id) + 1n).toString()

/** Where in `ids` (newest first) the ids below `below` begin (none: from the start). */
function firstBelow(ids: readonly string[], below: string | undefined): number {
  if (below === undefined) return 0
  let lo = 0
  let hi = ids.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (compareIds(ids[mid] as string, below) < 0) hi = mid
    else lo = mid + 1
  }
  return lo
}

/** The window of ids below `below` (none: no upper end) and from `from` (none: no lower end). */
const idRange = (below: string | null, from: string | undefined): IdRange => ({
  ...(below !== null ? { below } : {}),
  ...(from !== undefined ? { from } : {}),
})

export function createSearchService(deps: SearchServiceDeps) {
  const { index, tokens, clock } = deps

  /**
   * The filters checked per candidate; null when none applies. `driver`: where the candidates come
   * from, whose own filter they all pass (`m`: the mentions, `t`: the title's holders).
   */
  function factsFilter(r: SearchRequest, driver: Driver = 'q'): ((f: PostFacts | undefined) => boolean) | null {
    const mentions = new Set(driver === 'm' ? [] : r.mentions)
    const title = driver === 't' ? null : r.jobTitle
    if (r.contentKinds === 0 && mentions.size === 0 && title === null) return null
    const titles = new Map<string | null, boolean>()
    return (f) => {
      if (!f) return false
      if (r.contentKinds !== 0 && (f.contentKinds & r.contentKinds) === 0) return false
      if (mentions.size > 0 && !f.mentions.some((m) => mentions.has(m))) return false
      if (title !== null) {
        let ok = titles.get(f.authorJobTitle)
        if (ok === undefined) {
          ok = f.authorJobTitle !== null && containsRun(tokenize(f.authorJobTitle), title)
          titles.set(f.authorJobTitle, ok)
        }
        if (!ok) return false
      }
      return true
    }
  }

  /**
   * The next candidates newest first from `source`, those that match the query when there is one.
   * `looked` counts what was read, `last` is the oldest of it: the walk goes on below it. `keep`: of
   * the query's matches the index checks for the title's holders, it stops at this many kept (the
   * page's rest and one more, when no other filter is left to check on them).
   */
  async function candidates(
    r: SearchRequest,
    query: QueryNode | null,
    range: IdRange,
    limit: number,
    source: Source,
    keep = limit,
  ): Promise<{ ids: string[]; looked: number; last: string | undefined }> {
    if (source.via === 'query') {
      // Kept: as many as the page still needs, and one more (which says more follow).
      if (source.by !== undefined) return index.newestMatchesBy(query as QueryNode, source.by, range, limit, keep)
      const ids = await index.newestMatches(query as QueryNode, range, limit)
      return { ids, looked: ids.length, last: ids.at(-1) }
    }
    let posts: readonly string[]
    if (source.via === 'posts') {
      let start = firstBelow(source.posts, range.below)
      if (source.posts.length - start < limit && source.more) {
        const rest = source.posts.slice(start)
        const size = source.block
        source.block = Math.min(MENTIONS_FIRST, size * 2)
        const block = await index.authorPosts(source.authors, idRange(rest.at(-1) ?? range.below ?? null, range.from), size)
        source.posts = rest.concat(block)
        source.more = block.length === size
        start = 0
      }
      posts = source.posts.slice(start, start + limit)
    } else {
      posts = source.via === 'mentions' ? await index.mentionPosts(r.mentions, range, limit) : await index.authorPosts(r.authors, range, limit)
    }
    if (query === null || posts.length === 0) return { ids: [...posts], looked: posts.length, last: posts.at(-1) }
    // Mentions lie far apart in time, as do many authors' posts: the query is checked on each by a seek.
    return { ids: await index.matchingAmong(query, posts, source.via !== 'authors'), looked: posts.length, last: posts.at(-1) }
  }

  /**
   * Whether the posts mentioning the filter's companies within `range` are the candidates: a query,
   * no authors, and at most MENTIONS_FIRST such posts (counted, not read).
   */
  async function viaMentions(r: SearchRequest, query: QueryNode | null, range: IdRange): Promise<boolean> {
    if (query === null || r.authors.length > 0 || r.mentions.length === 0) return false
    return (await index.mentionCount(r.mentions, range, MENTIONS_FIRST + 1)) <= MENTIONS_FIRST
  }

  /** The members holding authorJobTitle, as authors; null past `most` of them. */
  async function titleHolders(r: SearchRequest, most = TITLE_HOLDERS_FIRST): Promise<AuthorRef[] | null> {
    if (r.jobTitle === null) return null
    const holders = await index.titleHolders(r.jobTitle, most)
    return holders === null ? null : holders.map((id) => ({ kind: 'person', id }))
  }

  /**
   * The title's holders when their posts within `range` are the candidates of a relevance walk: a
   * query, no authors, at most TITLE_HOLDERS_FIRST holders and at most MENTIONS_FIRST such posts
   * (counted, not read).
   */
  async function viaTitle(r: SearchRequest, query: QueryNode | null, range: IdRange): Promise<AuthorRef[] | null> {
    if (query === null || r.authors.length > 0) return null
    const holders = await titleHolders(r)
    if (holders === null || holders.length === 0) return holders
    return (await index.authorPostCount(holders, range, MENTIONS_FIRST + 1)) <= MENTIONS_FIRST ? holders : null
  }

  /**
   * Whether a date walk takes the holders' posts within `range` as its candidates: at most
   * MENTIONS_FIRST of them, or at most POSTS_PER_MATCH per estimated match of the query if that is
   * more, or however many they wrote when the query is estimated to match BROAD_QUERY × MENTIONS_FIRST
   * posts (their posts are then not counted).
   */
  async function holdersPostsPay(holders: readonly AuthorRef[], query: QueryNode, range: IdRange): Promise<boolean> {
    const matches = estimateMatches(query, await index.termFrequencies(planningTokens(query)))
    if (matches >= BROAD_QUERY * MENTIONS_FIRST) return true
    const most = Math.max(MENTIONS_FIRST, Math.ceil(POSTS_PER_MATCH * matches))
    return (await index.authorPostCount(holders, range, most + 1)) <= most
  }

  /** Where a date page's candidates come from, and the filter left to check on each. */
  async function dateSource(r: SearchRequest, query: QueryNode | null, range: IdRange): Promise<{ source: Source; driver: Driver }> {
    if (r.authors.length > 0) return { source: { via: 'authors' }, driver: 'q' }
    if (await viaMentions(r, query, range)) return { source: { via: 'mentions' }, driver: 'm' }
    if (query !== null && r.jobTitle !== null) {
      const holders = await titleHolders(r, TITLE_HOLDERS_LISTED)
      if (holders !== null) {
        if (holders.length <= TITLE_HOLDERS_FIRST && (holders.length === 0 || (await holdersPostsPay(holders, query, range)))) {
          return { source: { via: 'posts', posts: [], authors: holders, more: true, block: FIRST_POSTS_BLOCK }, driver: 't' }
        }
        // The query's matches, the index checking the title as it walks them.
        return { source: { via: 'query', by: holders }, driver: 't' }
      }
    }
    return { source: { via: 'query' }, driver: 'q' }
  }

  /** A page newest first; `below` is where the next page starts, null when nothing is left. */
  async function pageByDate(
    r: SearchRequest,
    query: QueryNode | null,
    from: string | undefined,
    below: string | null,
    want: number,
  ): Promise<{ ids: string[]; below: string | null }> {
    const { source, driver } = await dateSource(r, query, idRange(below, from))
    // Mentions and a title's holders' posts are checked in growing chunks: each is a seek in the text
    // index, and a page is often full after a few.
    const seeking = source.via === 'mentions' || source.via === 'posts'
    let chunk = want + 1
    // The query's matches the index checks the title on: in growing windows.
    const windowed = source.via === 'query' && source.by !== undefined
    let window = FIRST_MATCH_WINDOW
    const filter = factsFilter(r, driver)
    // Without per-candidate checks, one read of the page plus one tells whether more exist.
    const exact = filter === null && (source.via === 'query' ? !windowed : query === null)
    const out: string[] = []
    let scanned = 0
    let cursor = below
    for (;;) {
      const limit = exact ? want - out.length + 1 : seeking ? chunk : windowed ? window : CHUNK
      chunk = Math.min(CHUNK, chunk * 2)
      window = Math.min(MENTIONS_FIRST, window * 2)
      const c = await candidates(r, query, idRange(cursor, from), limit, source, filter === null ? want - out.length + 1 : limit)
      const facts = filter && c.ids.length > 0 ? await index.facts(c.ids) : null
      for (const id of c.ids) {
        if (filter && !filter(facts?.get(id))) continue
        // One more beyond a full page: the next page starts below the page's last result.
        if (out.length === want) return { ids: out, below: out[want - 1] as string }
        out.push(id)
      }
      scanned += c.looked
      if (c.looked < limit || c.last === undefined) return { ids: out, below: null }
      cursor = c.last
      // A full page whose candidates may go on, or a long scan that found something: answer now, the
      // cursor resumes here. A scan that finds nothing goes on, and an empty page always ends the walk
      // (4.12: the cursor is null on a no-match query): at the end of the candidates, or once
      // EMPTY_SCAN_LIMIT of them held nothing, where the query counts as exhausted (D8: no search
      // scans millions of rows; a selective filter on a word in most posts would, for seconds).
      if (out.length === want) return { ids: out, below: out[want - 1] as string }
      if (scanned >= SCAN_BUDGET && out.length > 0) return { ids: out, below: cursor }
      if (scanned >= EMPTY_SCAN_LIMIT) return { ids: out, below: null }
    }
  }

  /**
   * A page of relevance. `plan` and `driver` are the walk's (from its cursor), undefined on a first
   * page, which chooses them.
   */
  async function pageByRelevance(
    r: SearchRequest,
    query: QueryNode,
    from: string | undefined,
    top: string | null,
    offset: number,
    want: number,
    plan: RankingPlan | undefined,
    driver: Driver | undefined,
    last?: readonly string[],
    also: readonly string[] = [],
  ): Promise<{ ids: string[]; top: string | null; more: boolean; plan?: RankingPlan; driver?: Driver; next?: number; mark?: string[]; after?: string[] }> {
    const filter = factsFilter(r)
    // Below the walk's top (fixed by its first page): newer posts never enter it.
    const range = idRange(top, from)
    if (driver === 'm' || (driver === undefined && (await viaMentions(r, query, range)))) {
      const mentioned = await index.mentionPosts(r.mentions, range, MENTIONS_FIRST)
      return { ...(await rankAmong(query, mentioned, factsFilter(r, 'm'), top, offset, want, last, also)), driver: 'm' }
    }
    // A walk that began on the title's holders stays on them (found again each page: a member may have
    // taken or left the title). Should more than TITLE_HOLDERS_FIRST hold it by now, it goes on over the
    // query's matches, where a post may show twice or be missed, as when posts leave a ranking.
    const holders = driver === 't' ? await titleHolders(r) : driver === undefined ? await viaTitle(r, query, range) : null
    if (holders !== null) {
      const posts = await index.authorPosts(holders, range, RELEVANCE_CANDIDATES)
      return { ...(await rankAmong(query, posts, factsFilter(r, 't'), top, offset, want, last, also)), driver: 't' }
    }
    if (r.authors.length === 0) {
      // The ranking is fixed for the whole walk by the first page's newest match (newer posts never
      // enter it) and by the first page's plan.
      let fixedTop = top
      if (fixedTop === null) {
        const newest = await index.newestMatches(query, idRange(null, from), 1)
        if (newest.length === 0) return { ids: [], top, more: false }
        fixedTop = next(newest[0] as string)
      }
      const ranking = idRange(fixedTop, from)
      if (filter === null) {
        const chosen = plan ?? planRanking(query, await index.termFrequencies(planningTokens(query)), RELEVANCE_CANDIDATES)
        if ((last === undefined && also.length === 0) || offset === 0) {
          const page = await index.rankedMatches(query, ranking, RELEVANCE_CANDIDATES, offset, want, chosen)
          // The page is the ranks from the offset on, so its results are the ranks just above the next.
          return { ...page, top: fixedTop, plan: chosen, next: offset + page.ids.length, mark: page.ids.slice(-MARKS) }
        }
        // Read from the first rank the cursor kept, and go on past those posts where they are now (left
        // out: as many more are read, and some past the page for those already shown below it).
        const back = Math.min(offset, last?.length ?? 0)
        const extra = (last?.length ?? 0) + also.length + STRAGGLERS
        const window = await index.rankedMatches(query, ranking, RELEVANCE_CANDIDATES, offset - back, back + want + extra, chosen)
        const page = pageAfter(window.ids, back, want, last, also)
        return { ...page, more: page.more || window.more, top: fixedTop, plan: chosen, next: offset - back + page.next }
      }
      // Filters are checked on the newest RELEVANCE_CANDIDATES matches in ranking order: all of them
      // when fewer match, never the best-scored 10,000 of a larger set.
      const ranked = await index.rankedMatches(query, ranking, RELEVANCE_CANDIDATES, 0, RELEVANCE_CANDIDATES, 'newest')
      return { ...(await filtered(ranked.ids, filter, offset, want, last, also)), top: fixedTop }
    }
    return rankAmong(query, await index.authorPosts(r.authors, range, RELEVANCE_CANDIDATES), filter, top, offset, want, last, also)
  }

  /** A page of the relevance ranking of those of `posts` (an author's or a mention's) that match the query. */
  async function rankAmong(
    query: QueryNode,
    posts: readonly string[],
    filter: ((f: PostFacts | undefined) => boolean) | null,
    top: string | null,
    offset: number,
    want: number,
    last: readonly string[] | undefined,
    also: readonly string[],
  ): Promise<{ ids: string[]; top: string | null; more: boolean; next?: number; mark?: string[]; after?: string[] }> {
    const scored = await index.matchAmong(query, posts)
    if (scored.length === 0) return { ids: [], top, more: false }
    const fixedTop = top ?? next(scored.reduce((a, s) => (compareIds(s.id, a) > 0 ? s.id : a), scored[0]!.id))
    scored.sort(byRelevance)
    const ranked = scored.map((s) => s.id)
    if (filter === null) return { ...pageAfter(ranked, offset, want, last, also), top: fixedTop }
    return { ...(await filtered(ranked, filter, offset, want, last, also)), top: fixedTop }
  }

  /**
   * Filters checked lazily in ranking order, only as far as this page needs (as many more as the cursor
   * kept ranks, which it leaves out).
   */
  async function filtered(
    ranked: readonly string[],
    filter: (f: PostFacts | undefined) => boolean,
    offset: number,
    want: number,
    last: readonly string[] | undefined,
    also: readonly string[],
  ): Promise<{ ids: string[]; more: boolean; next: number; mark: string[]; after: string[] }> {
    const kept: string[] = []
    let seen = 0
    const enough = offset + want + 1 + (last?.length ?? 0) + also.length + STRAGGLERS
    for (let i = 0; i < ranked.length && kept.length < enough; i += CHUNK) {
      const slice = ranked.slice(i, i + CHUNK)
      const facts = await index.facts(slice)
      for (const id of slice) if (filter(facts.get(id))) kept.push(id)
      seen = i + slice.length
    }
    const page = pageAfter(kept, offset, want, last, also)
    return { ...page, more: page.more || seen < ranked.length }
  }

  return {
    /** POST /api/v1/search/posts: validates (free 400s), admits (holds 1 credit), searches. */
    async search(body: unknown, admit: Admit): Promise<Delivered> {
      const now = clock.now()
      const r = parseSearchRequest(body, now, deps.platformHost)
      const scope = searchScope(r)
      const relevance = r.query !== null && r.sortBy !== 'date'
      const sinceAtStart = r.postedWithin ? idFromTime(now - POSTED_WITHIN_MS[r.postedWithin], 0) : null
      let pos: Position = relevance ? { m: 'r', n: 0, s: sinceAtStart, o: 0, t: null } : { m: 'd', n: 0, s: sinceAtStart, b: null }
      if (r.cursor !== null) {
        const opened = tokens.open(r.cursor, scope, 'cursor') as Position | null
        if (
          typeof opened !== 'object' ||
          opened === null ||
          opened.m !== pos.m ||
          typeof opened.n !== 'number' ||
          (opened.m === 'r' && opened.k !== undefined && opened.k !== 'all' && opened.k !== 'newest') ||
          (opened.m === 'r' && opened.v !== undefined && opened.v !== 'm' && opened.v !== 't')
        ) {
          throw invalidParameter('cursor', 'the cursor was not issued by this service for this search.')
        }
        pos = opened
      }
      await admit()

      // The index is asked each operand once: repeats change no match, and bm25() paid for each.
      const query = r.query ? withoutRepeats(r.query.tree) : null
      // authorProfiles and authorCompanies are two filters, and filters AND together (4.12): a post
      // has one author, a member or a page, so a search sending both matches nothing.
      const bothAuthorKinds = r.authors.some((a) => a.kind === 'person') && r.authors.some((a) => a.kind === 'company')
      // A page holds no job title: authorCompanies with authorJobTitle matches nothing either (their
      // posts were read, and each one's facts, to find that out).
      const titledPages = r.jobTitle !== null && r.authors.some((a) => a.kind === 'company')
      const want = bothAuthorKinds || titledPages ? 0 : Math.min(r.maxResults, MAX_DEPTH - pos.n)
      const from = pos.s ?? undefined
      let ids: string[] = []
      let nextPos: Position | null = null
      if (want > 0) {
        if (pos.m === 'd') {
          const page = await pageByDate(r, query, from, pos.b, want)
          ids = page.ids
          if (page.below !== null) nextPos = { ...pos, n: pos.n + ids.length, b: page.below }
        } else {
          // A walk begun before plans existed ranked the newest matches: it goes on doing so.
          const plan = r.cursor === null ? undefined : (pos.k ?? 'newest')
          const anchors = pos.a !== undefined ? unpackIds(pos.a) : pos.l === undefined || Array.isArray(pos.l) ? pos.l : [pos.l]
          const below = pos.x !== undefined ? unpackIds(pos.x) : []
          if ((pos.a !== undefined && anchors === undefined) || below === undefined) {
            throw invalidParameter('cursor', 'the cursor was not issued by this service for this search.')
          }
          const driver = r.cursor === null ? undefined : (pos.v ?? 'q')
          const page = await pageByRelevance(r, query as QueryNode, from, pos.t, pos.o, want, plan, driver, anchors, below)
          ids = page.ids
          if (page.more) {
            const { l: _older, a: _previous, x: _below, ...rest } = pos
            nextPos = {
              ...rest,
              n: pos.n + ids.length,
              o: page.next ?? pos.o + ids.length,
              t: page.top,
              ...(page.plan ? { k: page.plan } : {}),
              ...(page.driver === 'm' || page.driver === 't' ? { v: page.driver } : {}),
              ...(page.mark !== undefined && page.mark.length > 0 ? { a: packIds(page.mark) } : {}),
              ...(page.after !== undefined && page.after.length > 0 ? { x: packIds(page.after) } : {}),
            }
          }
        }
      }
      if (nextPos !== null && nextPos.n >= MAX_DEPTH) nextPos = null

      // postedAfter is applied after the search: the page may come back short, and is billed all the same.
      if (r.postedAfter !== null) {
        const after = r.postedAfter
        const kept = ids.filter((id) => timeFromId(id) >= after)
        // Newest first: once one is too old, every later page would be too.
        if (kept.length < ids.length && pos.m === 'd') nextPos = null
        // Ranked: when nothing the rest of the walk (to the depth cap) would show is recent enough,
        // every later page would be empty and billed; such a walk, and a query whose matches are all
        // older, ends here. One more read of at most MAX_DEPTH ranks, only for postedAfter.
        if (nextPos !== null && nextPos.m === 'r') {
          const rest = await pageByRelevance(r, query as QueryNode, from, nextPos.t, nextPos.o, MAX_DEPTH - nextPos.n, nextPos.k ?? 'newest', nextPos.v ?? 'q')
          if (!rest.ids.some((id) => timeFromId(id) >= after)) nextPos = null
        }
        ids = kept
      }

      const unique = distinct(ids)
      const items = deps.cache
        ? await deps.cache.many(ITEM_KEY, unique, (ids) => index.items(ids))
        : await index.items(unique).then((found) => unique.map((id) => found.get(id)))
      // Sent as parts (one gathered write): joining ~90 KB of items costs a fresh allocation per call.
      const parts: Buffer[] = [Buffer.from(`{"query":${JSON.stringify(r.query?.query ?? null)},"sort":${JSON.stringify(r.sortBy)},"results":[`)]
      let dropped = 0
      for (const item of items) {
        if (item === undefined) {
          dropped++
          continue
        }
        if (parts.length > 1) parts.push(COMMA)
        parts.push(item)
      }
      const tail =
        `],"cursor":${JSON.stringify(nextPos === null ? null : tokens.issue(scope, nextPos))}` +
        (dropped > 0 ? `,"partial":${JSON.stringify({ droppedResults: dropped, reasons: { unreadableCard: dropped } })}` : '') +
        '}'
      parts.push(Buffer.from(tail))
      return { body: parts }
    },
  }
}

const COMMA = Buffer.from(',')

/**
 * `ids` without repeats, first occurrence kept. A page holds at most 50 ids, where comparing each with
 * those kept is cheaper than a Set, and a page that has no repeat (nearly all) is returned as is.
 */
export function distinct(ids: string[]): string[] {
  let out: string[] | undefined
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i] as string
    let seen = false
    for (let j = 0; j < i && !seen; j++) seen = ids[j] === id
    if (seen) out ??= ids.slice(0, i)
    else out?.push(id)
  }
  return out ?? ids
}

/**
 * Ids a relevance cursor keeps of where the walk stands (`a` and `x` together, 50 fit in the 1,024
 * characters of 4.12): the ranks just above where the next page starts, and posts already shown found
 * below it.
 */
export const MARKS = 50
/** Of MARKS, at most this many posts already shown below (`x`): the rest, at least 40, are ranks. */
export const STRAGGLERS = 10

/**
 * A page of a ranking known as far as it needs, after where the page before ended, so that no post the
 * walk has not shown is skipped, whatever left the ranking since. `last` is the ranking as it was just
 * above that point (the ranks before `offset`, up to MARKS of them; in cursors issued before that was
 * kept, the page before's last three results, or its last one), `also` posts already shown that were
 * below it then (a page that ended among them):
 * - A post not shown yet is now above where `last` began (offset − |last|) only when more posts shown
 *   than `last` holds left the ranking or fell below it (edited to score lower): with at least 40
 *   ranks kept, more than 40 between two pages. So the page starts there and leaves `last` and `also`
 *   out wherever they rank now. It shows again a post of an earlier page that fell into its ranks, or
 *   one pushed down into them by a post edited to rank above the walk (one for each such edit).
 *   Starting higher, at a post of `last` found above (an earlier version), re-showed every post
 *   between it and the walk when that post had been edited to rank first (a paging probe: nine such
 *   edits, one a page, ended a 500-deep walk having shown 100 posts).
 * - A page that ends among posts already shown goes on past them, and keeps up to STRAGGLERS of those
 *   still below it (the rest, having moved, may show again).
 * Keeping only the page's last three results, a fourth leaving made the next page skip a post (found by
 * a paging probe: six of ten leaving skipped three). A post edited to rank above where the walk stands
 * may be missed (4.12 allows a post on two pages, not one left out; an edit is a new post's worth).
 * On a first page, or without `last`, at `offset`. `next` is where the page after starts; `mark` and
 * `after` are what its cursor keeps.
 */
export function pageAfter(
  ranked: readonly string[],
  offset: number,
  want: number,
  last: readonly string[] | undefined,
  also: readonly string[] = [],
): { ids: string[]; more: boolean; next: number; mark: string[]; after: string[] } {
  let start = offset
  let seen: ReadonlySet<string> | undefined
  if (offset > 0 && ((last !== undefined && last.length > 0) || also.length > 0)) {
    start = Math.max(0, offset - (last?.length ?? 0))
    seen = new Set([...(last ?? []), ...also])
  }
  const ids: string[] = []
  let i = start
  for (; i < ranked.length && ids.length < want; i++) if (!seen?.has(ranked[i] as string)) ids.push(ranked[i] as string)
  while (i < ranked.length && seen?.has(ranked[i] as string)) i++
  let more = false
  for (let j = i; j < ranked.length && !more; j++) more = !seen?.has(ranked[j] as string)
  const after = seen ? ranked.slice(i).filter((id) => seen.has(id)).slice(0, STRAGGLERS) : []
  return { ids, more, next: i, mark: ranked.slice(Math.max(0, i - (MARKS - after.length)), i), after }
}

/** Ids for a cursor (`a`, `x`): 8 bytes each, big-endian, base64url (50 ids in 534 characters). */
export function packIds(ids: readonly string[]): string {
  const b = Buffer.alloc(ids.length * 8)
  ids.forEach((id, i) => b.writeBigUInt64BE(BigInt(id), i * 8))
  return b.toString('base64url')
}

/** packIds undone; undefined when `packed` is not such a list. */
export function unpackIds(packed: unknown): string[] | undefined {
  if (typeof packed !== 'string' || !/^[A-Za-z0-9_-]*$/.test(packed)) return undefined
  const b = Buffer.from(packed, 'base64url')
  if (b.length === 0 || b.length % 8 !== 0 || b.length > MAX_DEPTH * 8) return undefined
  return Array.from({ length: b.length / 8 }, (_, i) => b.readBigUInt64BE(i * 8).toString())
}

/** Result items' key space in the response cache. */
const ITEM_KEY = 'search-item|'

