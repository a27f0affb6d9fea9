/**
 * A search page in relevance order. The walk ranks by BM25 all matches of a narrow query and the newest
 * RELEVANCE_CANDIDATES matches of a broad one, so that no search scores millions of rows; the choice
 * is planned on the first page from the index's term frequencies (ranking.ts). It pages through that
 * ranking by offset, fixed for the whole walk by the first page's newest match and plan, both kept in
 * the cursor. Candidates other than the query's matches (search-plan.ts) are ranked here among
 * themselves.
 */
import type { QueryNode } from './query-grammar.ts'
import type { RankingPlan, SearchIndex } from '../../ports/search-index.ts'
import { compareIds } from '../content/ids.ts'
import { pageAfter, type PageCut } from './page-after.ts'
import { byRelevance, planningTokens, planRanking } from './ranking.ts'
import type { Driver } from './search-cursor.ts'
import { CHUNK, MARKS, MENTIONS_FIRST, RELEVANCE_CANDIDATES, STRAGGLERS } from './search-limits.ts'
import { factsFilter, idRange, type FactsFilter, type SearchPlan } from './search-plan.ts'
import type { SearchRequest } from './search-request.ts'

/** Where in a ranking a page starts, and what the cursor kept of the ranking around that point (pageAfter). */
interface Cut {
  offset: number
  want: number
  ranksAbove: readonly string[] | undefined
  shownBelow: readonly string[]
}

export interface RelevancePageOptions {
  request: SearchRequest
  query: QueryNode
  /** The walk's lowest id (postedWithin); undefined when unbounded. */
  from: string | undefined
  /** The ranking covers ids below this one; null on a first page, which fixes it. */
  top: string | null
  offset: number
  want: number
  /** The walk's plan and driver, from its cursor; undefined on a first page, which chooses them. */
  plan: RankingPlan | undefined
  driver: Driver | undefined
  /** What the cursor kept of the ranking just above `offset` (none: the page starts at `offset`). */
  ranksAbove?: readonly string[]
  /** Posts already shown that ranked below `offset`. */
  shownBelow?: readonly string[]
}

/** A relevance page: the ids, the ranking's top, whether more follow, and what the next cursor keeps. */
export interface RelevancePage extends Partial<Omit<PageCut, 'ids' | 'more'>> {
  ids: string[]
  top: string | null
  more: boolean
  plan?: RankingPlan
  driver?: Driver
}

/** The id just above `id`: a ranking's top that keeps `id` inside it. */
const above = (id: string): string => (BigInt(id) + 1n).toString()

export function createRelevanceWalk(deps: { index: SearchIndex; plan: SearchPlan }) {
  const { index, plan: searchPlan } = deps

  /** A page of relevance. */
  async function page(options: RelevancePageOptions): Promise<RelevancePage> {
    const { request: r, query, from, top, offset, want, plan, driver } = options
    const cut: Cut = { offset, want, ranksAbove: options.ranksAbove, shownBelow: options.shownBelow ?? [] }
    const { ranksAbove, shownBelow } = cut
    const filter = factsFilter(r)
    // Below the walk's top (fixed by its first page): newer posts never enter it.
    const range = idRange(top, from)
    if (driver === 'mentions' || (driver === undefined && (await searchPlan.viaMentions(r, query, range)))) {
      const mentioned = await index.mentionPosts(r.mentions, range, MENTIONS_FIRST)
      return { ...(await rankAmong(mentioned, { query, filter: factsFilter(r, 'mentions'), top, cut })), driver: 'mentions' }
    }
    // A walk that began on the title's holders stays on them (found again each page: a member may have
    // taken or left the title). Should more than TITLE_HOLDERS_FIRST hold it by now, it goes on over the
    // query's matches, where a post may show twice or be missed, as when posts leave a ranking.
    const holders =
      driver === 'title' ? await searchPlan.titleHolders(r) : driver === undefined ? await searchPlan.viaTitle(r, query, range) : null
    if (holders !== null) {
      const posts = await index.authorPosts(holders, range, RELEVANCE_CANDIDATES)
      return { ...(await rankAmong(posts, { query, filter: factsFilter(r, 'title'), top, cut })), driver: 'title' }
    }
    if (r.authors.length > 0) {
      const posts = await index.authorPosts(r.authors, range, RELEVANCE_CANDIDATES)
      return rankAmong(posts, { query, filter, top, cut })
    }
    // The ranking is fixed for the whole walk by the first page's newest match (newer posts never
    // enter it) and by the first page's plan.
    let fixedTop = top
    if (fixedTop === null) {
      const newest = await index.newestMatches(query, idRange(null, from), 1)
      if (newest.length === 0) return { ids: [], top, more: false }
      fixedTop = above(newest[0] as string)
    }
    const ranking = idRange(fixedTop, from)
    if (filter !== null) {
      // Filters are checked on the newest RELEVANCE_CANDIDATES matches in ranking order: all of them
      // when fewer match, never the best-scored RELEVANCE_CANDIDATES of a larger set.
      const ranked = await index.rankedMatches(query, ranking, RELEVANCE_CANDIDATES, 0, RELEVANCE_CANDIDATES, 'newest')
      return { ...(await filtered(ranked.ids, filter, cut)), top: fixedTop }
    }
    const chosen = plan ?? planRanking(query, await index.termFrequencies(planningTokens(query)), RELEVANCE_CANDIDATES)
    if ((ranksAbove === undefined && shownBelow.length === 0) || offset === 0) {
      const ranked = await index.rankedMatches(query, ranking, RELEVANCE_CANDIDATES, offset, want, chosen)
      // The page is the ranks from the offset on, so its results are the ranks just above the next.
      return { ...ranked, top: fixedTop, plan: chosen, next: offset + ranked.ids.length, mark: ranked.ids.slice(-MARKS) }
    }
    // Read from the first rank the cursor kept, and go on past those posts where they are now (left
    // out: as many more are read, and some past the page for those already shown below it).
    const back = Math.min(offset, ranksAbove?.length ?? 0)
    const extra = (ranksAbove?.length ?? 0) + shownBelow.length + STRAGGLERS
    const window = await index.rankedMatches(query, ranking, RELEVANCE_CANDIDATES, offset - back, back + want + extra, chosen)
    const cutPage = pageAfter(window.ids, back, want, ranksAbove, shownBelow)
    return { ...cutPage, more: cutPage.more || window.more, top: fixedTop, plan: chosen, next: offset - back + cutPage.next }
  }

  /** A page of the relevance ranking of those of `posts` (an author's or a mention's) that match the query. */
  async function rankAmong(
    posts: readonly string[],
    among: { query: QueryNode; filter: FactsFilter | null; top: string | null; cut: Cut },
  ): Promise<RelevancePage> {
    const { query, filter, top, cut } = among
    const scored = await index.matchAmong(query, posts)
    if (scored.length === 0) return { ids: [], top, more: false }
    const fixedTop = top ?? above(scored.reduce((a, s) => (compareIds(s.id, a) > 0 ? s.id : a), scored[0]!.id))
    scored.sort(byRelevance)
    const ranked = scored.map((s) => s.id)
    if (filter === null) return { ...pageAfter(ranked, cut.offset, cut.want, cut.ranksAbove, cut.shownBelow), top: fixedTop }
    return { ...(await filtered(ranked, filter, cut)), top: fixedTop }
  }

  /**
   * Filters checked lazily in ranking order, only as far as this page needs (as many more as the cursor
   * kept ranks, which it leaves out).
   */
  async function filtered(ranked: readonly string[], filter: FactsFilter, cut: Cut): Promise<PageCut> {
    const { offset, want, ranksAbove, shownBelow } = cut
    const kept: string[] = []
    let seen = 0
    const enough = offset + want + 1 + (ranksAbove?.length ?? 0) + shownBelow.length + STRAGGLERS
    for (let i = 0; i < ranked.length && kept.length < enough; i += CHUNK) {
      const slice = ranked.slice(i, i + CHUNK)
      const facts = await index.facts(slice)
      for (const id of slice) if (filter(facts.get(id))) kept.push(id)
      seen = i + slice.length
    }
    const cutPage = pageAfter(kept, offset, want, ranksAbove, shownBelow)
    return { ...cutPage, more: cutPage.more || seen < ranked.length }
  }

  return { page }
}
