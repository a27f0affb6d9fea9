/**
 * pageAfter: where a relevance page starts in the ranking as it is now, after the previous page's
 * last results (the cursor's anchors), so that results leaving the set never make a page skip one.
 */
import { describe, expect, it } from 'vitest'
import { pageAfter } from '../../src/domain/search/search.service.ts'

const ranking = (...ids: string[]) => ids
const abc = ranking('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j')

describe('pageAfter', () => {
  it('a first page, or one without anchors, starts at the offset', () => {
    expect(pageAfter(abc, 0, 3, undefined)).toEqual({ ids: ['a', 'b', 'c'], more: true, next: 3 })
    expect(pageAfter(abc, 3, 3, undefined)).toEqual({ ids: ['d', 'e', 'f'], more: true, next: 6 })
    expect(pageAfter(abc, 8, 3, [])).toEqual({ ids: ['i', 'j'], more: false, next: 10 })
  })

  it('goes on after the last anchor where it now ranks', () => {
    // Page 1 was a b c d e; b has left since: every later rank moved up one.
    expect(pageAfter(ranking('a', 'c', 'd', 'e', 'f', 'g'), 5, 2, ['c', 'd', 'e'])).toEqual({ ids: ['f', 'g'], more: false, next: 6 })
  })

  it('when the last anchor has left, after the latest one still there', () => {
    // Page 1 was a b c d e; a and e have left.
    expect(pageAfter(ranking('b', 'c', 'd', 'f', 'g', 'h'), 5, 2, ['c', 'd', 'e'])).toEqual({ ids: ['f', 'g'], more: true, next: 5 })
  })

  it('when every anchor has left, as many ranks before the offset (a repeat at worst, never a skip)', () => {
    // Page 1 was a b c d e; c d e have left.
    expect(pageAfter(ranking('a', 'b', 'f', 'g', 'h'), 5, 2, ['c', 'd', 'e'])).toEqual({ ids: ['f', 'g'], more: true, next: 4 })
    // A cursor from before anchors were lists carries the last result alone.
    expect(pageAfter(ranking('a', 'b', 'c', 'd', 'f', 'g'), 5, 2, ['e'])).toEqual({ ids: ['f', 'g'], more: false, next: 6 })
  })
})
