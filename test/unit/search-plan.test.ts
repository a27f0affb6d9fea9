/**
 * The relevance walk is planned once (ranking.ts) and every later page is cut from the same
 * ranking: the plan rides in the cursor, whatever the index's term frequencies say by then.
 */
import { describe, expect, it } from 'vitest'
import { bodyBytes } from '../../src/domain/content/content.service.ts'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { idFromTime } from '../../src/domain/content/ids.ts'
import { parseSearchQuery } from '../../src/domain/search/query-grammar.ts'
import { estimateMatches, planningTokens, planRanking } from '../../src/domain/search/ranking.ts'
import { createSearchService, RELEVANCE_CANDIDATES } from '../../src/domain/search/search.service.ts'
import { parseSearchRequest, searchScope } from '../../src/domain/search/search-request.ts'
import { createTokenSigner } from '../../src/domain/tokens.ts'
import type { RankingPlan, SearchIndex, TermFrequencies } from '../../src/ports/search-index.ts'

const NOW = Date.UTC(2026, 10, 1)
const ids = Array.from({ length: 30 }, (_, i) => idFromTime(NOW - (i + 1) * 60_000, 0))

/** An index whose every post matches; it records the plans it is asked for and answers frequencies as told. */
function stubIndex(frequencies: { current: TermFrequencies }) {
  const plans: RankingPlan[] = []
  const index: SearchIndex = {
    async newestMatches(_q, _r, limit) {
      return ids.slice(0, limit)
    },
    async newestMatchesBy() {
      throw new Error('not used by the relevance walk')
    },
    async scoredMatches() {
      throw new Error('not used by the relevance walk')
    },
    async rankedMatches(_q, range, _bound, skip, take, plan) {
      plans.push(plan)
      const inRange = ids.filter((id) => range.below === undefined || BigInt(id) < BigInt(range.below))
      return { ids: inRange.slice(skip, skip + take), more: inRange.length > skip + take }
    },
    async termFrequencies() {
      return frequencies.current
    },
    async matchAmong() {
      return []
    },
    async matchingAmong() {
      return []
    },
    async authorPosts() {
      return []
    },
    async mentionPosts() {
      return []
    },
    async mentionCount() {
      return 0
    },
    async authorPostCount() {
      return 0
    },
    async titleHolders() {
      return []
    },
    async facts(list) {
      return new Map(list.map((id) => [id, { authorKind: 'person', authorId: 'p', contentKinds: 1, mentions: [], authorJobTitle: null }] as const))
    },
    async items(list) {
      return new Map(list.map((id) => [id, Buffer.from(JSON.stringify({ id }))]))
    },
  }
  return { index, plans }
}

const few = (n: number): TermFrequencies => ({ posts: 1_000_000, df: new Map([['remote', n], ['hiring', n]]) })
const admit = async () => {}

describe('relevance planning: a narrow query ranks all its matches, a broad one the newest', () => {
  it('estimates from term frequencies: a rare term ranks all, a common one the newest, AND as independent terms', () => {
    const q = (raw: string) => parseSearchQuery(raw).tree
    expect(planningTokens(q('remote AND (hiring OR "data engineer") NOT java'))).toEqual(['remote', 'hiring', 'data', 'engineer'])
    const f: TermFrequencies = { posts: 1_000_000, df: new Map([['remote', 50_000], ['hiring', 40_000], ['rare', 12], ['gone', 0]]) }
    expect(estimateMatches(q('rare'), f)).toBe(12)
    expect(planRanking(q('rare'), f, RELEVANCE_CANDIDATES)).toBe('all')
    expect(planRanking(q('remote'), f, RELEVANCE_CANDIDATES)).toBe('newest')
    // 1M × 5% × 4% × 4 = 8,000: narrow.
    expect(estimateMatches(q('remote hiring'), f)).toBeCloseTo(8_000)
    expect(planRanking(q('remote hiring'), f, RELEVANCE_CANDIDATES)).toBe('all')
    expect(planRanking(q('remote OR hiring'), f, RELEVANCE_CANDIDATES)).toBe('newest')
    expect(planRanking(q('rare NOT remote'), f, RELEVANCE_CANDIDATES)).toBe('all')
    // A token the index did not count is unknown: never narrower than what is known.
    expect(planRanking(q('uncounted'), f, RELEVANCE_CANDIDATES)).toBe('newest')
    expect(planRanking(q('uncounted rare'), f, RELEVANCE_CANDIDATES)).toBe('all')
    expect(estimateMatches(q('gone uncounted'), f)).toBe(0)
  })

  it('plans on the first page and keeps the plan for the whole walk, whatever the frequencies say later', async () => {
    const frequencies = { current: few(10) }
    const { index, plans } = stubIndex(frequencies)
    const service = createSearchService({ index, tokens: createTokenSigner('s'), clock: createManualClock(NOW), platformHost: 'www.linkedin.com' })
    const body = { query: 'remote hiring', maxResults: 10 }
    const page1 = JSON.parse(bodyBytes(await service.search(body, admit)).toString()) as { results: { id: string }[]; cursor: string | null }
    // The terms turn common between pages: a new plan would cut page 2 from another ranking.
    frequencies.current = few(900_000)
    const page2 = JSON.parse(bodyBytes(await service.search({ ...body, cursor: page1.cursor }, admit)).toString()) as typeof page1
    const page3 = JSON.parse(bodyBytes(await service.search({ ...body, cursor: page2.cursor }, admit)).toString()) as typeof page1
    expect(plans).toEqual(['all', 'all', 'all'])
    expect([...page1.results, ...page2.results, ...page3.results].map((r) => r.id)).toEqual(ids)
    // A fresh walk plans again.
    await service.search(body, admit)
    expect(plans.at(-1)).toBe('newest')
  })

  it('a filtered relevance search checks the newest matches, whatever the plan would be', async () => {
    const { index, plans } = stubIndex({ current: few(10) })
    const service = createSearchService({ index, tokens: createTokenSigner('s'), clock: createManualClock(NOW), platformHost: 'www.linkedin.com' })
    await service.search({ query: 'remote hiring', contentType: ['image'] }, admit)
    expect(plans).toEqual(['newest'])
  })

  it('a cursor issued before plans existed goes on ranking the newest matches, as it began', async () => {
    const { index, plans } = stubIndex({ current: few(10) })
    const tokens = createTokenSigner('s')
    const service = createSearchService({ index, tokens, clock: createManualClock(NOW), platformHost: 'www.linkedin.com' })
    const body = { query: 'remote hiring', maxResults: 10 }
    const scope = searchScope(parseSearchRequest(body, NOW, 'www.linkedin.com'))
    const old = tokens.issue(scope, { m: 'r', n: 10, s: null, o: 10, t: idFromTime(NOW, 0) })
    const page = JSON.parse(bodyBytes(await service.search({ ...body, cursor: old }, admit)).toString()) as { results: { id: string }[] }
    expect(plans).toEqual(['newest'])
    expect(page.results.map((r) => r.id)).toEqual(ids.slice(10, 20))
    // A plan that is neither is not one this service issued.
    const forged = tokens.issue(scope, { m: 'r', n: 10, s: null, o: 10, t: idFromTime(NOW, 0), k: 'best' })
    await expect(service.search({ ...body, cursor: forged }, admit)).rejects.toMatchObject({ code: 'INVALID_PARAMETER' })
  })
})
