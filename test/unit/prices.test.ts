/**
 * Every price rule lives in the price table: what a call holds from its parsed request, what a
 * delivered call bills, and what a 404 of a missing record bills. The gateway asks these and nothing
 * else, so each rule is checked here once.
 */
import { describe, expect, it } from 'vitest'
import { billed, PRICES, priceOf, pricesWithOverrides, type DataOperation } from '../../src/domain/billing/prices.ts'

const SINGLE_RECORD: DataOperation[] = [
  'profile',
  'profile.reactions',
  'profile.articles',
  'posts',
  'company',
  'company.posts',
  'post.engagement',
  'post.comments',
  'post.reactions',
]

describe('the price table', () => {
  it('a 404 bills 1 on every single-record endpoint, feeds included; never over several records, never on search', () => {
    for (const op of SINGLE_RECORD) expect(billed(PRICES[op], { status: 404, held: 2 }), op).toBe(1)
    for (const op of ['posts.updates', 'company.batch', 'search.posts'] as const) expect(billed(PRICES[op], { status: 404, held: 2 }), op).toBe(0)
  })

  it('an operator override keeps what a 404 bills, and a 404 never bills more than was held', () => {
    const table = pricesWithOverrides('{"profile": 3, "post/comments": 0}')
    expect(billed(table.profile, { status: 404, held: priceOf(table.profile, {}) })).toBe(1)
    expect(billed(table['post.comments'], { status: 404, held: priceOf(table['post.comments'], {}) })).toBe(0)
  })

  it('a delivered call bills what was held: its full price, computed once; the batch bills the entries found', () => {
    const held = priceOf(PRICES['company.posts'], { count: 51 })
    expect(held).toBe(2)
    expect(billed(PRICES['company.posts'], { status: 200, held })).toBe(2)
    const batch = priceOf(PRICES['company.batch'], { units: 4 })
    expect(batch).toBe(4)
    expect(billed(PRICES['company.batch'], { status: 200, held: batch, found: 3 })).toBe(3)
    expect(billed(PRICES['posts.updates'], { status: 200, held: priceOf(PRICES['posts.updates'], { units: 16 }) })).toBe(2)
  })

  it('every other outcome is free, and so are the account endpoints', () => {
    for (const status of [400, 402, 429, 499, 500, 503]) expect(billed(PRICES.profile, { status, held: 1 })).toBe(0)
    expect(billed(PRICES.usage, { status: 200, held: 0 })).toBe(0)
  })

  it('a rule counting what the request does not carry is a fault of the route, not a free call', () => {
    expect(() => priceOf(PRICES.posts, {})).toThrow(/counts the request's count/)
    expect(() => priceOf(PRICES['company.batch'], { count: 3 })).toThrow(/counts the request's units/)
  })
})
