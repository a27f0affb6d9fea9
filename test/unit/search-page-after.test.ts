/**
 * pageAfter: where a relevance page starts in the ranking as it is now, after the previous page's
 * last results (the cursor's anchors), so that results leaving the set never make a page skip one.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MARKS, STRAGGLERS, packIds, pageAfter, unpackIds } from '../../src/domain/search/search.service.ts'
import { createTokenSigner } from '../../src/domain/tokens.ts'

const ranking = (...ids: string[]) => ids
const abc = ranking('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j')

describe('pageAfter', () => {
  it('a first page, or one without anchors, starts at the offset', () => {
    expect(pageAfter(abc, 0, 3, undefined)).toMatchObject({ ids: ['a', 'b', 'c'], more: true, next: 3 })
    expect(pageAfter(abc, 3, 3, undefined)).toMatchObject({ ids: ['d', 'e', 'f'], more: true, next: 6 })
    expect(pageAfter(abc, 8, 3, [])).toMatchObject({ ids: ['i', 'j'], more: false, next: 10 })
  })

  it('goes on after the last anchor where it now ranks', () => {
    // Page 1 was a b c d e; b has left since: every later rank moved up one.
    expect(pageAfter(ranking('a', 'c', 'd', 'e', 'f', 'g'), 5, 2, ['c', 'd', 'e'])).toMatchObject({ ids: ['f', 'g'], more: false, next: 6 })
  })

  it('when the last anchor has left, after the latest one still there', () => {
    // Page 1 was a b c d e; a and e have left.
    expect(pageAfter(ranking('b', 'c', 'd', 'f', 'g', 'h'), 5, 2, ['c', 'd', 'e'])).toMatchObject({ ids: ['f', 'g'], more: true, next: 5 })
  })

  it('when every anchor has left, as many ranks before the offset (a repeat at worst, never a skip)', () => {
    // Page 1 was a b c d e; c d e have left.
    expect(pageAfter(ranking('a', 'b', 'f', 'g', 'h'), 5, 2, ['c', 'd', 'e'])).toMatchObject({ ids: ['f', 'g'], more: true, next: 4 })
    // A cursor from before anchors were lists carries the last result alone.
    expect(pageAfter(ranking('a', 'b', 'c', 'd', 'f', 'g'), 5, 2, ['e'])).toMatchObject({ ids: ['f', 'g'], more: false, next: 6 })
  })

  // The cases a paging probe found (pages of 10 over posts ranked p0, p1, …): every fourth and later
  // result of the page before that left made the next page skip one (the cursor kept the last three).
  const posts = (n: number) => Array.from({ length: n }, (_, i) => `p${i}`)
  const without = (ranking: string[], gone: string[]) => ranking.filter((id) => !gone.includes(id))

  it('the last six of the page before left: the next page is the next ten, none skipped', () => {
    const page1 = posts(10)
    expect(pageAfter(without(posts(30), page1.slice(4)), 10, 10, page1).ids).toEqual(posts(20).slice(10))
  })

  it('the whole page before left, and the one before it was intact: the next ten', () => {
    const page2 = posts(10).slice(5)
    expect(pageAfter(without(posts(30), page2), 10, 5, page2)).toMatchObject({ ids: ['p10', 'p11', 'p12', 'p13', 'p14'], more: true, next: 10 })
  })

  it('keeps, for the cursor, the ranks just above where the next page starts (up to 50)', () => {
    expect(pageAfter(posts(10), 0, 3, undefined).mark).toEqual(['p0', 'p1', 'p2'])
    // p1 left; the page leaves out the three kept and shows p3 p4: the ranks above the next page are p0 p2 p3 p4.
    expect(pageAfter(without(posts(10), ['p1']), 3, 2, ['p0', 'p1', 'p2'])).toEqual({ ids: ['p3', 'p4'], more: true, next: 4, mark: ['p0', 'p2', 'p3', 'p4'], after: [] })
    expect(pageAfter(posts(200), 100, 30, undefined).mark).toEqual(posts(130).slice(80))
  })

  it('a page that ends among posts already shown goes on past them, and keeps those still below it', () => {
    // Page 1 showed p0 … p3; since, p0 fell below p1 and e (shown before, not kept) fell between p2 and p3.
    const page = pageAfter(['p1', 'p0', 'p2', 'e', 'p3', 'p4', 'p5'], 4, 1, ['p0', 'p1', 'p2', 'p3'])
    expect(page).toEqual({ ids: ['e'], more: true, next: 5, mark: ['p1', 'p0', 'p2', 'e', 'p3'], after: [] })
    const stops = pageAfter(['p1', 'x', 'p0', 'y', 'p2', 'p3', 'p4'], 3, 1, ['p0', 'p1', 'p2'])
    expect(stops).toEqual({ ids: ['x'], more: true, next: 3, mark: ['p1', 'x', 'p0'], after: ['p2'] })
    expect(pageAfter(['p1', 'x', 'p0', 'y', 'p2', 'p3', 'p4'], stops.next, 3, stops.mark, stops.after).ids).toEqual(['y', 'p3', 'p4'])
  })

  it('results of the page before that moved down (edited to score lower) are no mark, and are not shown again', () => {
    const page1 = posts(10)
    // p4 … p9 now rank after p15.
    const ranking = [...posts(4), ...posts(16).slice(10), ...page1.slice(4), ...posts(30).slice(16)]
    expect(pageAfter(ranking, 10, 10, page1).ids).toEqual(['p10', 'p11', 'p12', 'p13', 'p14', 'p15', 'p16', 'p17', 'p18', 'p19'])
  })

  it('a walk never skips a post that stays, whatever leaves or moves down between its pages, up to 40 a page (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 120 }),
        fc.array(
          fc.record({
            want: fc.integer({ min: 1, max: 12 }),
            leave: fc.array(fc.nat(), { maxLength: 8 }),
            down: fc.array(fc.record({ from: fc.nat(), by: fc.integer({ min: 1, max: 30 }) }), { maxLength: 3 }),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        (n, steps) => {
          let ranking = posts(n)
          const left = new Set<string>()
          const moved = new Set<string>()
          const shown: string[] = []
          let offset = 0
          let last: string[] | undefined
          let also: string[] = []
          // Changes come between the first pages (a walk a change made each time could go on to the depth cap).
          for (let k = 0; ; k++) {
            const step = steps[k] ?? { want: steps[0]!.want, leave: [], down: [] }
            const page = pageAfter(ranking, offset, step.want, last, also)
            shown.push(...page.ids)
            if (!page.more) break
            offset = page.next
            last = page.mark.length > 0 ? page.mark : undefined
            also = page.after
            // Between pages: some posts leave (anywhere), some move down.
            for (const x of step.leave) if (ranking.length > 0) left.add(ranking.splice(x % ranking.length, 1)[0]!)
            for (const { from, by } of step.down) {
              if (ranking.length === 0) continue
              const [id] = ranking.splice(from % ranking.length, 1)
              ranking.splice(Math.min(ranking.length, (from % (ranking.length + 1)) + by), 0, id!)
              moved.add(id!)
            }
            expect(k).toBeLessThan(steps.length + n + 1)
          }
          const stayed = posts(n).filter((id) => !left.has(id))
          expect(stayed.filter((id) => !shown.includes(id))).toEqual([])
          // Shown twice: a post that moved (edited lower; the result set is live), or, when posts moved down among the
          // ranks a page ended in, posts of the page before left below it past the STRAGGLERS kept (at
          // most a cursor's worth for each move). Posts leaving alone never make one show twice.
          const twice = shown.filter((id, i) => shown.indexOf(id) !== i)
          const unmoved = twice.filter((id) => !moved.has(id))
          if (moved.size === 0) expect(unmoved).toEqual([])
          else expect(unmoved.length).toBeLessThanOrEqual(moved.size * MARKS)
        },
      ),
      { numRuns: 3000 },
    )
  })

  /** Walks `ranking()` page by page as the search service does, calling `between(page)` between pages. */
  const walk = (ranking: () => string[], sizes: (page: number) => number, between: (page: number, ids: string[]) => void) => {
    const shown: string[] = []
    let offset = 0
    let last: string[] | undefined
    let also: string[] = []
    for (let k = 0; k < 1000; k++) {
      const page = pageAfter(ranking(), offset, sizes(k), last, also)
      shown.push(...page.ids)
      if (!page.more) break
      ;[offset, last, also] = [page.next, page.mark, page.after]
      between(k, page.ids)
    }
    return shown
  }

  it('a post of the page before edited to rank first, page after page, costs one repeat each and skips nothing (a paging probe)', () => {
    let ranking = posts(500)
    const shown = walk(
      () => ranking,
      () => 50,
      (k, ids) => {
        if (k === 0) return
        const raised = ids.at(-1)!
        ranking = [raised, ...ranking.filter((id) => id !== raised)]
      },
    )
    expect(new Set(shown).size).toBe(500)
    // It showed 100 distinct posts in 500 results when the page started at the raised post.
    expect(shown.length - 500).toBeLessThanOrEqual(9)
  })

  it('45 posts of page 1 falling among posts not shown yet, then 6 leaving, skip none of those (a paging probe)', () => {
    const named = (p: string, n: number) => Array.from({ length: n }, (_, i) => `${p}${i}`)
    const [A, B, C, D] = [named('A', 50), named('B', 5), named('C', 45), named('D', 20)]
    let ranking = [...A, ...B, ...C, ...D]
    const shown = walk(
      () => ranking,
      (k) => (k === 0 ? 50 : 5),
      (k) => {
        // After page 1, A0 … A44 fall to tie with the Cs (interleaved); after page 2, B0 … B4 and A49 leave.
        if (k === 0) ranking = [...A.slice(45), ...B, ...C.flatMap((c, i) => (i < 45 ? [c, A[i]!] : [c])), ...D]
        if (k === 1) ranking = ranking.filter((id) => !B.includes(id) && id !== 'A49')
      },
    )
    expect([...C, ...D].filter((id) => !shown.includes(id))).toEqual([])
  })

  it("a cursor's page packs into 8 bytes an id and unpacks as it was; anything else is no page", () => {
    const ids = ['7123456789012345678', '1', '9223372036854775807']
    expect(unpackIds(packIds(ids))).toEqual(ids)
    expect(packIds(posts(0))).toBe('')
    for (const bad of ['', 'AAAA', '!!!!!!!!!!!', 42, null]) expect(unpackIds(bad)).toBeUndefined()
  })

  it('the largest relevance cursor stays within the 1,024 characters a request may send back', () => {
    const id = '9223372036854775807'
    const position = { m: 'r', n: 499, s: id, o: 9_999, t: id, k: 'newest', a: packIds(Array.from({ length: MARKS - STRAGGLERS }, () => id)), x: packIds(Array.from({ length: STRAGGLERS }, () => id)) }
    const cursor = createTokenSigner('secret').issue(`search|${'q'.repeat(500)}`, position)
    expect(cursor.length).toBeLessThanOrEqual(1024)
  })
})
