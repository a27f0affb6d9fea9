/**
 * A search page newest first (`date`, and any search without a query). The walk reads candidates in
 * chunks from where search-plan.ts says, checking the filters left, until the page is full or
 * SCAN_BUDGET candidates were looked at and at least one kept: a short page with a cursor then says
 * "more may follow". An empty page is always the last, at the end of the candidates or after
 * EMPTY_SCAN_LIMIT of them held nothing. postedWithin bounds the candidates' ids, as ids encode time.
 */
import type { IdRange, SearchIndex } from '../../ports/search-index.ts'
import { compareIds } from '../content/ids.ts'
import type { QueryNode } from './query-grammar.ts'
import { CHUNK, EMPTY_SCAN_LIMIT, FIRST_MATCH_WINDOW, MENTIONS_FIRST, SCAN_BUDGET } from './search-limits.ts'
import { factsFilter, idRange, type SearchPlan, type Source } from './search-plan.ts'
import type { SearchRequest } from './search-request.ts'

export interface DatePageOptions {
  request: SearchRequest
  query: QueryNode | null
  /** The walk's lowest id (postedWithin); undefined when unbounded. */
  from: string | undefined
  /** The page holds ids below this one; null on a first page. */
  below: string | null
  want: number
}

/** A date page; `below` is where the next page starts, null when nothing is left. */
export interface DatePage {
  ids: string[]
  below: string | null
}

/** What one read of candidates gave: the ids kept, how many were read, and the oldest of those (the walk goes on below it). */
interface Candidates {
  ids: string[]
  looked: number
  last: string | undefined
}

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

export function createDateWalk(deps: { index: SearchIndex; plan: SearchPlan }) {
  const { index, plan } = deps

  /**
   * The next candidates newest first from `source`, those that match the query when there is one.
   * `keep`: of the query's matches the index checks for the title's holders, it stops at this many
   * kept (the page's rest and one more, when no other filter is left to check on them).
   */
  async function candidates(
    source: Source,
    read: { request: SearchRequest; query: QueryNode | null; range: IdRange; limit: number; keep: number },
  ): Promise<Candidates> {
    const { request, query, range, limit } = read
    if (source.via === 'query') {
      // Kept: as many as the page still needs, and one more (which says more follow).
      if (source.by !== undefined) return index.newestMatchesBy(query as QueryNode, source.by, range, limit, read.keep)
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
      posts =
        source.via === 'mentions' ? await index.mentionPosts(request.mentions, range, limit) : await index.authorPosts(request.authors, range, limit)
    }
    if (query === null || posts.length === 0) return { ids: [...posts], looked: posts.length, last: posts.at(-1) }
    // Mentions lie far apart in time, as do many authors' posts: the query is checked on each by a seek.
    return { ids: await index.matchingAmong(query, posts, source.via !== 'authors'), looked: posts.length, last: posts.at(-1) }
  }

  /** A page newest first. */
  async function page(options: DatePageOptions): Promise<DatePage> {
    const { request, query, from, below, want } = options
    const { source, driver } = await plan.dateSource(request, query, idRange(below, from))
    // Mentions and a title's holders' posts are checked in growing chunks: each is a seek in the text
    // index, and a page is often full after a few.
    const seeking = source.via === 'mentions' || source.via === 'posts'
    let chunk = want + 1
    // The query's matches the index checks the title on: in growing windows.
    const windowed = source.via === 'query' && source.by !== undefined
    let window = FIRST_MATCH_WINDOW
    const filter = factsFilter(request, driver)
    // Without per-candidate checks, one read of the page plus one tells whether more exist.
    const exact = filter === null && (source.via === 'query' ? !windowed : query === null)
    const out: string[] = []
    let scanned = 0
    let cursor = below
    for (;;) {
      const limit = exact ? want - out.length + 1 : seeking ? chunk : windowed ? window : CHUNK
      chunk = Math.min(CHUNK, chunk * 2)
      window = Math.min(MENTIONS_FIRST, window * 2)
      const keep = filter === null ? want - out.length + 1 : limit
      const c = await candidates(source, { request, query, range: idRange(cursor, from), limit, keep })
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
      // cursor resumes here. A scan that finds nothing goes on, and an empty page always ends the walk,
      // as a query that matches nothing gets a null cursor: at the end of the candidates, or once
      // EMPTY_SCAN_LIMIT of them held nothing, where the query counts as exhausted, so that a selective
      // filter on a word in most posts does not scan millions of rows.
      if (out.length === want) return { ids: out, below: out[want - 1] as string }
      if (scanned >= SCAN_BUDGET && out.length > 0) return { ids: out, below: cursor }
      if (scanned >= EMPTY_SCAN_LIMIT) return { ids: out, below: null }
    }
  }

  return { page }
}
