import { describe, expect, it } from 'vitest'
import { createSearchTimeBudget, SEARCH_BANK_SECONDS, SEARCH_MS_PER_RPS } from '../../src/domain/billing/search-time-budget.ts'

describe("an account's share of search time", () => {
  it('starts full, is emptied by the time searches take, refills at rpsLimit × SEARCH_MS_PER_RPS a second, and says how long to wait', () => {
    let t = 1_000
    const budget = createSearchTimeBudget(() => t)
    const rps = 5
    const fill = rps * SEARCH_MS_PER_RPS // ms a second
    const capacity = fill * SEARCH_BANK_SECONDS
    expect(budget.waitMs('a', rps)).toBe(0)
    budget.spend('a', rps, capacity - 1)
    expect(budget.waitMs('a', rps)).toBe(0)
    budget.spend('a', rps, 1 + fill) // one second's fill in debt
    expect(budget.waitMs('a', rps)).toBe(1_000)
    t += 500
    expect(budget.waitMs('a', rps)).toBe(500)
    t += 501
    expect(budget.waitMs('a', rps)).toBe(0)
    // Another account is untouched; a bucket never fills past its capacity.
    expect(budget.waitMs('b', rps)).toBe(0)
    t += 3_600_000
    budget.spend('a', rps, capacity)
    expect(budget.waitMs('a', rps)).toBe(1)
  })

  it('scales with the plan: ten times the rps, ten times the fill', () => {
    let t = 0
    const budget = createSearchTimeBudget(() => t)
    budget.spend('big', 50, 50 * SEARCH_MS_PER_RPS * SEARCH_BANK_SECONDS + 50 * SEARCH_MS_PER_RPS)
    expect(budget.waitMs('big', 50)).toBe(1_000)
    t += 1_001
    expect(budget.waitMs('big', 50)).toBe(0)
  })
})
