import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { distinct } from '../../src/domain/search/search.service.ts'

describe('distinct (a page without repeated ids)', () => {
  it('keeps the first occurrence of each id in order, as a Set would', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('1', '2', '3', '10', '11', '7260000000000000001'), { maxLength: 60 }), (ids) => {
        const copy = [...ids]
        expect(distinct(ids)).toEqual([...new Set(ids)])
        expect(ids).toEqual(copy)
      }),
    )
  })

  it('returns a page without repeats as it is', () => {
    const ids = ['3', '2', '1']
    expect(distinct(ids)).toBe(ids)
    expect(distinct(['3', '2', '3', '1', '2'])).toEqual(['3', '2', '1'])
  })
})
