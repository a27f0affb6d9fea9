/**
 * A query's repeated operands reach the index once (a probe: `the` written 125 times held the server's
 * thread for 1.5 s a call, bm25() scoring 125 phrases for every post holding it). The matches are the
 * same; the echo keeps what the client wrote.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { loadConfig } from '../../src/config/config.ts'
import { createContainer, type Container } from '../../src/container.ts'
import { parseSearchQuery, withoutRepeats, type QueryNode } from '../../src/domain/search/query-grammar.ts'
import type { SearchIndex } from '../../src/ports/search-index.ts'
import { SEARCH_NOW, searchNetwork } from '../helpers/search-fixtures.ts'
import { beforeEachCall } from '../helpers/search-index-spy.ts'

const tree = (q: string) => parseSearchQuery(q).tree

describe('withoutRepeats', () => {
  it('keeps each operand of an AND or an OR once, by the tokens it matches, and unwraps a group left with one', () => {
    expect(withoutRepeats(tree('the the the'))).toEqual(tree('the'))
    expect(withoutRepeats(tree('The "the" THE'))).toEqual(tree('The'))
    expect(withoutRepeats(tree('data data platform data'))).toEqual(tree('data platform'))
    expect(withoutRepeats(tree('(a OR a OR b) c (b OR a) (a OR b)'))).toEqual(tree('(a OR b) c (b OR a)'))
    expect(withoutRepeats(tree('"data platform" "data  platform" hiring NOT (x x)'))).toEqual(tree('"data platform" hiring NOT x'))
    // Different terms stay: a hashtag is not its word, a phrase is not its words apart.
    for (const q of ['#hiring hiring', '"data platform" data platform', 'a b c', '(a b) OR (b a)']) expect(withoutRepeats(tree(q))).toEqual(tree(q))
  })
})

describe('the search asks the index each operand once', () => {
  let c: Container
  const asked: QueryNode[] = []
  beforeAll(async () => {
    const config = loadConfig({ PRONET_SEED: 'none', LOG_LEVEL: 'silent', PRONET_SECRET: 's', PRONET_DATA_DIR: '/nonexistent-test-dir', PRONET_CACHE_MB: '0' })
    // Records every query tree the service hands the index.
    const recording = (index: SearchIndex): SearchIndex =>
      beforeEachCall(index, (_name, args) => {
        const first = args[0] as { kind?: unknown } | undefined
        if (first && typeof first === 'object' && 'kind' in first) asked.push(first as QueryNode)
      })
    c = await createContainer(config, { clock: createManualClock(SEARCH_NOW), sqlitePath: ':memory:', wrapSearchIndex: recording })
    const outcomes = await c.writer.write(searchNetwork(100))
    expect(outcomes.every((o) => o.ok)).toBe(true)
  })
  afterAll(async () => c.close())

  const search = async (body: Record<string, unknown>) => {
    asked.length = 0
    const d = await c.search.search(body, async () => {})
    return JSON.parse(Buffer.concat(d.body as Buffer[]).toString()) as { query: string; results: { urn: string }[]; cursor: string | null }
  }

  for (const sortBy of ['relevance', 'date'] as const) {
    it(`${sortBy}: the same page as the word once, with every index call given the single word`, async () => {
      const once = await search({ query: 'the', sortBy })
      expect(once.results.length).toBeGreaterThan(0)
      const repeated = await search({ query: Array(125).fill('the').join(' '), sortBy })
      expect(asked.length).toBeGreaterThan(0)
      for (const q of asked) expect(q).toEqual(tree('the'))
      expect(repeated.results.map((r) => r.urn)).toEqual(once.results.map((r) => r.urn))
      expect(repeated.query).toBe(Array(125).fill('the').join(' '))
    })
  }
})
