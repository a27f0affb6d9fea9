/**
 * The post search index: the primitives the search service plans with. Candidates
 * come newest first from the text index or from the authors' own feeds; filters are checked against
 * each candidate's facts; result items are ready-to-send documents. Ids are activity ids (19-digit
 * decimals as strings), whose order is time order. A query is the parsed tree; each adapter
 * compiles it to its engine's expression (FTS5 MATCH, tsquery) with the meaning of `matches` in
 * query-tokens.ts.
 */
import type { QueryNode } from '../domain/search/query-grammar.ts'
import type { AuthorKind, AuthorRef } from './content-store.ts'

/** A window of activity ids: `below` excluded, `from` included; either may be absent. */
export interface IdRange {
  below?: string
  from?: string
}

/** What a relevance ranking covers: every match, or the newest `bound` of them (all when fewer match). */
export type RankingPlan = 'all' | 'newest'

/** A page of a relevance ranking, and whether the ranking goes on past it. */
export interface RankedPage {
  ids: string[]
  more: boolean
}

/** What the planner reads of the index: how many posts are indexed and how many hold each token. */
export interface TermFrequencies {
  posts: number
  /** Per token asked about: the posts holding it, or Infinity when the index did not count it (too dear now). */
  df: Map<string, number>
}

/** newestMatchesBy's answer. */
export interface AuthoredMatches {
  ids: string[]
  looked: number
  last: string | undefined
}

export interface ScoredId {
  id: string
  /** Relevance (BM25 over the post text); higher is better. */
  score: number
}

/** What the search filters read of one post. */
export interface PostFacts {
  authorKind: AuthorKind
  authorId: string
  /** Bit mask of CONTENT_KIND. */
  contentKinds: number
  /** Company ids the post mentions. */
  mentions: readonly string[]
  /** The author's current job title (persons only; null for companies and when none). */
  authorJobTitle: string | null
}

export interface SearchIndex {
  /** Ids of posts matching `query` within `range`, newest first, at most `limit`. */
  newestMatches(query: QueryNode, range: IdRange, limit: number): Promise<string[]>
  /**
   * Of the query's newest `limit` matches within `range`, the first `keep` that any of `authors` wrote
   * (newest first): a filter on many authors (a title's holders) checked in the index's own walk
   * rather than by reading each match's facts. With them, how many matches were looked at and the
   * oldest of those (the walk goes on below it): up to the last kept when `keep` were found, else the
   * `limit` matches (fewer only when no more match).
   */
  newestMatchesBy(query: QueryNode, authors: readonly AuthorRef[], range: IdRange, limit: number, keep: number): Promise<AuthoredMatches>
  /** The newest `limit` matches within `range`, each with its relevance score (newest first). */
  scoredMatches(query: QueryNode, range: IdRange, limit: number): Promise<ScoredId[]>
  /**
   * A page of the relevance ranking of the matches within `range` (score descending, then newest
   * first) over what `plan` says: every match, or the newest `bound`. From `skip`, at most `take` ids.
   */
  rankedMatches(query: QueryNode, range: IdRange, bound: number, skip: number, take: number, plan: RankingPlan): Promise<RankedPage>
  /** Planning figures for these tokens (exact or close; a figure may lag the index a little). */
  termFrequencies(tokens: readonly string[]): Promise<TermFrequencies>
  /** Which of `ids` match `query`, with their scores (order of `ids`). */
  matchAmong(query: QueryNode, ids: readonly string[]): Promise<ScoredId[]>
  /**
   * Which of `ids` match `query` (order of `ids`), unscored: what a walk newest first asks, without a
   * score's cost. `sparse`: the ids may lie far apart in time (a company's mentions, a title's holders'
   * posts), so the index should weigh looking each one up against walking the query's matches between
   * them; the answer is the same.
   */
  matchingAmong(query: QueryNode, ids: readonly string[], sparse?: boolean): Promise<string[]>
  /** Searchable posts (reposts without commentary excluded) of any of `authors` within `range`, newest first. */
  authorPosts(authors: readonly AuthorRef[], range: IdRange, limit: number): Promise<string[]>
  /** Searchable posts (reposts without commentary excluded) mentioning any of `companies` (ids) within `range`, newest first. */
  mentionPosts(companies: readonly string[], range: IdRange, limit: number): Promise<string[]>
  /** How many posts mentionPosts would give without a limit, counted only up to `cap` (more reads as `cap`). */
  mentionCount(companies: readonly string[], range: IdRange, cap: number): Promise<number>
  /**
   * Searchable posts of `authors` within `range`, counted only up to `cap` (more reads as `cap`): what
   * authorPosts would give without a limit.
   */
  authorPostCount(authors: readonly AuthorRef[], range: IdRange, cap: number): Promise<number>
  /**
   * Profile ids of the members whose current job title holds `title` (tokens of the search model, as
   * consecutive tokens: authorJobTitle's phrase), each once, in no particular order; null when more
   * than `limit` members hold it, or when the store cannot list them all cheaply now.
   */
  titleHolders(title: readonly string[], limit: number): Promise<string[] | null>
  /** Facts of each id that exists (absent ids are missing from the map). */
  facts(ids: readonly string[]): Promise<Map<string, PostFacts>>
  /** Search result items of each id whose item can be read (absent ids are missing). */
  items(ids: readonly string[]): Promise<Map<string, Buffer>>
}
