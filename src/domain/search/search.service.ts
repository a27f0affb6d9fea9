/**
 * Post search over the SearchIndex port: validates the body (free 400s), opens its cursor, admits the
 * call, walks one page and renders it with the cursor of the next. Where candidates come from is
 * search-plan.ts; the walks are date-walk.ts (newest first) and relevance-walk.ts; the cursor is
 * search-cursor.ts, signed and bound to the interpreted query and filters; a walk ends after MAX_DEPTH
 * results. postedWithin bounds the candidates' ids (ids encode time); postedAfter trims the page
 * afterwards, so a trimmed page is short and still billed.
 */
import type { Clock } from '../../ports/clock.ts'
import type { SearchIndex } from '../../ports/search-index.ts'
import type { Admit, Delivered } from '../content/content.service.ts'
import type { ResponseCache } from '../content/response-cache.ts'
import { idFromTime, timeFromId } from '../content/ids.ts'
import type { TokenSigner } from '../tokens.ts'
import { createDateWalk } from './date-walk.ts'
import { withoutRepeats, type QueryNode } from './query-grammar.ts'
import { createRelevanceWalk } from './relevance-walk.ts'
import {
  issueCursor,
  openCursor,
  readMarks,
  startPosition,
  type CarriedMarks,
  type DatePosition,
  type RelevancePosition,
  type WalkMarks,
  type WalkPosition,
} from './search-cursor.ts'
import { MAX_DEPTH } from './search-limits.ts'
import { createSearchPlan } from './search-plan.ts'
import { POSTED_WITHIN_MS, parseSearchRequest, searchScope, type SearchRequest } from './search-request.ts'
import { distinct, readItems, renderPage } from './search-response.ts'

// What the suites tune or call directly, so that they reach the search through one module.
export {
  BROAD_QUERY,
  EMPTY_SCAN_LIMIT,
  FIRST_MATCH_WINDOW,
  FIRST_POSTS_BLOCK,
  MARKS,
  MAX_DEPTH,
  MENTIONS_FIRST,
  POSTS_PER_MATCH,
  RELEVANCE_CANDIDATES,
  SCAN_BUDGET,
  STRAGGLERS,
  TITLE_HOLDERS_FIRST,
  TITLE_HOLDERS_LISTED,
} from './search-limits.ts'
export { packIds, unpackIds } from './search-cursor.ts'
export { pageAfter } from './page-after.ts'
export { distinct } from './search-response.ts'

export interface SearchServiceDeps {
  index: SearchIndex
  /** Ready result items of recent searches (the same post recurs across searches); none: always read. */
  cache?: ResponseCache
  tokens: TokenSigner
  clock: Clock
  platformHost: string
}

export type SearchService = ReturnType<typeof createSearchService>

/** The account a search is walked for, and its share of the search workers when they are contended. */
export interface SearchFor {
  accountId: string
  weight: number
}

/**
 * A validated search with its cursor opened: plain data, so it can be handed to a search worker
 * thread (search-pool/) and walked there.
 */
export type PreparedSearch = {
  request: SearchRequest
  /** What the cursors of this search are bound to. */
  scope: string
  position: WalkPosition
  carried: CarriedMarks
}

/** Where the walk goes on: the next cursor's position (and, for a relevance walk, its marks); null at its end. */
type Next = { position: WalkPosition; marks?: Partial<WalkMarks> } | null

/** One walk step: the page's ids and where the walk goes on. */
interface Step {
  ids: string[]
  next: Next
}

/** What a step needs beside its position. */
interface StepInput {
  request: SearchRequest
  query: QueryNode | null
  /** The walk's lowest id (postedWithin); undefined when unbounded. */
  from: string | undefined
  want: number
}

/**
 * Whether the filters exclude each other, so the search matches nothing. authorProfiles and
 * authorCompanies are two filters, and filters AND together: a post has one author, a member or a
 * page, so a search sending both matches nothing. A page holds no job title, so authorCompanies with
 * authorJobTitle matches nothing either (without this, their posts and each one's facts would be read
 * to find that out).
 */
function matchesNothing(r: SearchRequest): boolean {
  const bothAuthorKinds = r.authors.some((a) => a.kind === 'person') && r.authors.some((a) => a.kind === 'company')
  const titledPages = r.jobTitle !== null && r.authors.some((a) => a.kind === 'company')
  return bothAuthorKinds || titledPages
}

export function createSearchService(deps: SearchServiceDeps) {
  const { index, tokens, clock } = deps
  const plan = createSearchPlan(index)
  const dateWalk = createDateWalk({ index, plan })
  const relevanceWalk = createRelevanceWalk({ index, plan })

  async function dateStep(position: DatePosition, input: StepInput): Promise<Step> {
    const page = await dateWalk.page({ ...input, below: position.below })
    const next: Next = page.below === null ? null : { position: { ...position, shown: position.shown + page.ids.length, below: page.below } }
    return { ids: page.ids, next }
  }

  async function relevanceStep(position: RelevancePosition, input: StepInput & { carried: CarriedMarks }): Promise<Step> {
    const { request, carried } = input
    const firstPage = request.cursor === null
    // A cursor that carries no plan ranked the newest matches from its first page on: it goes on so.
    const walkPlan = firstPage ? undefined : (position.plan ?? 'newest')
    const { ranksAbove, shownBelow } = readMarks(carried)
    const driver = firstPage ? undefined : (position.driver ?? 'query')
    const page = await relevanceWalk.page({
      request,
      query: input.query as QueryNode,
      from: input.from,
      top: position.top,
      offset: position.offset,
      want: input.want,
      plan: walkPlan,
      driver,
      ranksAbove,
      shownBelow,
    })
    if (!page.more) return { ids: page.ids, next: null }
    const next: RelevancePosition = {
      ...position,
      shown: position.shown + page.ids.length,
      offset: page.next ?? position.offset + page.ids.length,
      top: page.top,
      plan: page.plan ?? position.plan,
      driver: page.driver === 'mentions' || page.driver === 'title' ? page.driver : position.driver,
    }
    return { ids: page.ids, next: { position: next, marks: { ranksAbove: page.mark, shownBelow: page.after } } }
  }

  /**
   * Whether anything the rest of a relevance walk would show (to the depth cap) was posted at or after
   * `after`. When nothing is, every later page would be empty and billed, so such a walk, and a query
   * whose matches are all older, ends now. One more read of at most MAX_DEPTH ranks, only for postedAfter.
   */
  async function recentAhead(position: RelevancePosition, input: Omit<StepInput, 'want'> & { after: number }): Promise<boolean> {
    const rest = await relevanceWalk.page({
      request: input.request,
      query: input.query as QueryNode,
      from: input.from,
      top: position.top,
      offset: position.offset,
      want: MAX_DEPTH - position.shown,
      plan: position.plan ?? 'newest',
      driver: position.driver ?? 'query',
    })
    return rest.ids.some((id) => timeFromId(id) >= input.after)
  }

  /** Validates the body (free 400s) and opens its cursor: no store is read. */
  function prepare(body: unknown): PreparedSearch {
    const now = clock.now()
    const request = parseSearchRequest(body, now, deps.platformHost)
    const scope = searchScope(request)
    const relevance = request.query !== null && request.sortBy !== 'date'
    const since = request.postedWithin ? idFromTime(now - POSTED_WITHIN_MS[request.postedWithin], 0) : null
    const { position, carried } =
      request.cursor === null ? { position: startPosition(relevance, since), carried: {} } : openCursor(tokens, request.cursor, { scope, relevance })
    return { request, scope, position, carried }
  }

  /**
   * Walks one page of a prepared search and renders it with the cursor of the next. `who` is the
   * account the walk is for and its weight (its plan's rate): the worker pool orders walks by it
   * (search-pool/); walked here, it changes nothing.
   */
  async function run({ request, scope, position, carried }: PreparedSearch, _who?: SearchFor): Promise<Delivered> {
    // The index is asked each operand once: repeats change no match, and bm25() paid for each.
    const query = request.query ? withoutRepeats(request.query.tree) : null
    const want = matchesNothing(request) ? 0 : Math.min(request.maxResults, MAX_DEPTH - position.shown)
    const input: StepInput = { request, query, from: position.since ?? undefined, want }
    const step: Step =
      want <= 0
        ? { ids: [], next: null }
        : position.order === 'date'
          ? await dateStep(position, input)
          : await relevanceStep(position, { ...input, carried })
    let { ids, next } = step
    if (next !== null && next.position.shown >= MAX_DEPTH) next = null

    // postedAfter is applied after the search: the page may come back short, and is billed all the same.
    if (request.postedAfter !== null) {
      const after = request.postedAfter
      const kept = ids.filter((id) => timeFromId(id) >= after)
      // Newest first: once one is too old, every later page would be too.
      if (kept.length < ids.length && position.order === 'date') next = null
      if (next !== null && next.position.order === 'relevance' && !(await recentAhead(next.position, { ...input, after }))) next = null
      ids = kept
    }

    const unique = distinct(ids)
    const items = await readItems({ index, cache: deps.cache }, unique)
    const cursor = next === null ? null : issueCursor(tokens, { scope, ...next })
    return renderPage({ query: request.query?.query ?? null, sort: request.sortBy, items, cursor })
  }

  return {
    prepare,
    run,
    /** Validates (free 400s), admits (the gateway holds the price), then searches: the steps above in one call. */
    async search(body: unknown, admit: Admit): Promise<Delivered> {
      const prepared = prepare(body)
      await admit()
      return run(prepared)
    },
  }
}
