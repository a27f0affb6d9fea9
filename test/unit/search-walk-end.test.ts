/**
 * When a search walk ends (4.12: "stop when `cursor` is null (null on a last page, an empty page past
 * the end, and a no-match query)"): an empty page never carries a cursor (a filtered date walk that
 * finds nothing scans on, to the end of the candidates or EMPTY_SCAN_LIMIT of them), and a ranked
 * walk whose matches are all older than postedAfter ends on its first page. Over a stub index, so the scan budget can be passed many times over.
 */
import { describe, expect, it } from 'vitest'
import { bodyBytes } from '../../src/domain/content/content.service.ts'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { compareIds, idFromTime } from '../../src/domain/content/ids.ts'
import { createSearchService, EMPTY_SCAN_LIMIT, SCAN_BUDGET } from '../../src/domain/search/search.service.ts'
import { createTokenSigner } from '../../src/domain/tokens.ts'
import type { IdRange, PostFacts, SearchIndex } from '../../src/ports/search-index.ts'

const NOW = Date.UTC(2026, 10, 1)
const MIN = 60_000
const admit = async () => {}

/** Every post matches the query; `mentioned` says which posts mention company 42. */
function stubIndex(count: number, mentioned: (i: number) => boolean) {
  // Newest first, one a minute back from NOW.
  const ids = Array.from({ length: count }, (_, i) => idFromTime(NOW - (i + 1) * MIN, 0))
  const position = new Map(ids.map((id, i) => [id, i]))
  const inRange = (range: IdRange) =>
    ids.filter((id) => (range.below === undefined || compareIds(id, range.below) < 0) && (range.from === undefined || compareIds(id, range.from) >= 0))
  let factsRead = 0
  const index: SearchIndex = {
    async newestMatches(_q, range, limit) {
      return inRange(range).slice(0, limit)
    },
    async scoredMatches() {
      throw new Error('not used')
    },
    async rankedMatches(_q, range, _bound, skip, take) {
      const all = inRange(range)
      return { ids: all.slice(skip, skip + take), more: all.length > skip + take }
    },
    async termFrequencies() {
      return { posts: count, df: new Map() }
    },
    async matchAmong(_q, list) {
      return list.map((id) => ({ id, score: 1 }))
    },
    async matchingAmong(_q, list) {
      return [...list]
    },
    async authorPosts() {
      return []
    },
    async facts(list) {
      factsRead += list.length
      return new Map(
        list.map((id): [string, PostFacts] => [
          id,
          { authorKind: 'person', authorId: 'p', contentKinds: 1, mentions: mentioned(position.get(id) as number) ? ['42'] : [], authorJobTitle: null },
        ]),
      )
    },
    async items(list) {
      return new Map(list.map((id) => [id, Buffer.from(JSON.stringify({ id }))]))
    },
  }
  return { index, ids, factsRead: () => factsRead }
}

function serviceOver(index: SearchIndex) {
  const service = createSearchService({ index, tokens: createTokenSigner('s'), clock: createManualClock(NOW), platformHost: 'www.linkedin.com' })
  return async (body: Record<string, unknown>) =>
    JSON.parse(bodyBytes(await service.search(body, admit)).toString()) as { results: { id: string }[]; cursor: string | null }
}

describe('an empty page is always the last (4.12)', () => {
  it('a filtered date walk that matches nothing answers one empty page with cursor null, past the scan budget', async () => {
    const count = SCAN_BUDGET * 2 + 777
    const stub = stubIndex(count, () => false)
    const search = serviceOver(stub.index)
    const page = await search({ query: 'remote', sortBy: 'date', mentionsCompanies: ['42'] })
    expect(page).toMatchObject({ results: [], cursor: null })
    // It looked at every candidate to say so.
    expect(stub.factsRead()).toBe(count)
  })

  it('past EMPTY_SCAN_LIMIT candidates that hold nothing, the walk ends: an empty page, cursor null, the rest not read', async () => {
    const count = EMPTY_SCAN_LIMIT + 2_000
    // One post would pass, but only beyond the limit: the query counts as exhausted before it (D8).
    const stub = stubIndex(count, (i) => i === EMPTY_SCAN_LIMIT + 1_000)
    const search = serviceOver(stub.index)
    const page = await search({ query: 'remote', sortBy: 'date', mentionsCompanies: ['42'] })
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
    const body = { query: 'remote', sortBy: 'date', mentionsCompanies: ['42'], maxResults: 50 }
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
