/**
 * Where a search's candidates come from. The query's matches are the default; a few authors, a few
 * companies' mentions or a job title's few holders have far fewer posts than a common word has
 * matches, so their posts, each checked against the query, are the candidates instead:
 * - authorProfiles / authorCompanies: always the authors' own feeds;
 * - mentionsCompanies without authors: the companies' mentions, when they are mentioned in at most
 *   MENTIONS_FIRST searchable posts, and the search then covers every mention, in either order;
 * - authorJobTitle without authors: the holders' posts, when at most TITLE_HOLDERS_FIRST members hold
 *   the title and they wrote at most MENTIONS_FIRST searchable posts (or, for a date walk, at most
 *   POSTS_PER_MATCH per match the query is estimated to have, or any number when it is estimated to
 *   match BROAD_QUERY times MENTIONS_FIRST). Failing that, a date walk over the query's matches has
 *   the index check the title as it walks them (newestMatchesBy, given the holders) when at most
 *   TITLE_HOLDERS_LISTED members hold it, rather than reading each match's facts.
 * The filters the candidates do not already pass are checked on each one's facts (factsFilter).
 */
import type { AuthorRef } from '../../ports/content-store.ts'
import type { IdRange, PostFacts, SearchIndex } from '../../ports/search-index.ts'
import type { QueryNode } from './query-grammar.ts'
import { containsRun, tokenize } from './query-tokens.ts'
import { estimateMatches, planningTokens } from './ranking.ts'
import type { Driver } from './search-cursor.ts'
import { BROAD_QUERY, FIRST_POSTS_BLOCK, MENTIONS_FIRST, POSTS_PER_MATCH, TITLE_HOLDERS_FIRST, TITLE_HOLDERS_LISTED } from './search-limits.ts'
import type { SearchRequest } from './search-request.ts'

/**
 * Where a date walk's candidates come from: the query's matches, the authors' posts (authorProfiles
 * and authorCompanies), the companies' mentions, or posts read beforehand, newest first (the title's
 * holders': many authors, each read once a call rather than once a chunk).
 */
export type Source =
  // `by`: the title's holders, checked by the index in its walk of the matches (newestMatchesBy).
  | { via: 'query'; by?: readonly AuthorRef[] }
  | { via: 'authors' }
  | { via: 'mentions' }
  // `posts` are read when needed, `block` at a time (FIRST_POSTS_BLOCK, doubling up to MENTIONS_FIRST);
  // `more`: none read yet, or the last read was full, so more may be below them.
  | { via: 'posts'; posts: readonly string[]; authors: readonly AuthorRef[]; more: boolean; block: number }

/** A check of one candidate's facts (undefined: the post is gone, and fails). */
export type FactsFilter = (f: PostFacts | undefined) => boolean

/** The window of ids below `below` (null: no upper end) and from `from` (undefined: no lower end). */
export const idRange = (below: string | null, from: string | undefined): IdRange => ({
  ...(below !== null ? { below } : {}),
  ...(from !== undefined ? { from } : {}),
})

/**
 * The filters checked per candidate; null when none applies. `driver`: where the candidates come
 * from, whose own filter they all pass (the mentions, or the title's holders).
 */
export function factsFilter(r: SearchRequest, driver: Driver = 'query'): FactsFilter | null {
  const mentions = new Set(driver === 'mentions' ? [] : r.mentions)
  const title = driver === 'title' ? null : r.jobTitle
  if (r.contentKinds === 0 && mentions.size === 0 && title === null) return null
  // Many candidates share an author's title: each title is matched once a call.
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

export type SearchPlan = ReturnType<typeof createSearchPlan>

export function createSearchPlan(index: SearchIndex) {
  /** The members holding authorJobTitle, as authors; null past `most` of them. */
  async function titleHolders(r: SearchRequest, most = TITLE_HOLDERS_FIRST): Promise<AuthorRef[] | null> {
    if (r.jobTitle === null) return null
    const holders = await index.titleHolders(r.jobTitle, most)
    return holders === null ? null : holders.map((id) => ({ kind: 'person', id }))
  }

  /**
   * Whether the posts mentioning the filter's companies within `range` are the candidates: a query,
   * no authors, and at most MENTIONS_FIRST such posts (counted, not read).
   */
  async function viaMentions(r: SearchRequest, query: QueryNode | null, range: IdRange): Promise<boolean> {
    if (query === null || r.authors.length > 0 || r.mentions.length === 0) return false
    return (await index.mentionCount(r.mentions, range, MENTIONS_FIRST + 1)) <= MENTIONS_FIRST
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

  /** Where a date page's candidates come from, and whose filter they already pass. */
  async function dateSource(r: SearchRequest, query: QueryNode | null, range: IdRange): Promise<{ source: Source; driver: Driver }> {
    if (r.authors.length > 0) return { source: { via: 'authors' }, driver: 'query' }
    if (await viaMentions(r, query, range)) return { source: { via: 'mentions' }, driver: 'mentions' }
    if (query !== null && r.jobTitle !== null) {
      const holders = await titleHolders(r, TITLE_HOLDERS_LISTED)
      if (holders !== null) {
        if (holders.length <= TITLE_HOLDERS_FIRST && (holders.length === 0 || (await holdersPostsPay(holders, query, range)))) {
          return { source: { via: 'posts', posts: [], authors: holders, more: true, block: FIRST_POSTS_BLOCK }, driver: 'title' }
        }
        // The query's matches, the index checking the title as it walks them.
        return { source: { via: 'query', by: holders }, driver: 'title' }
      }
    }
    return { source: { via: 'query' }, driver: 'query' }
  }

  return { titleHolders, viaMentions, viaTitle, dateSource }
}
