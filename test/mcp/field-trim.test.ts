/** Trimming an answer to the fields asked for, and the session budget's reservations. */
import { describe, expect, it } from 'vitest'
import { createCreditBudget } from '../../packages/mcp/src/credit-budget.ts'
import { trimAnswer } from '../../packages/mcp/src/field-trim.ts'
import { compact } from '../../packages/mcp/src/tool-catalogue.ts'

const page = {
  posts: [
    { id: 'a', content: 'x'.repeat(30), profile: { name: 'Ada', url: 'u1' }, images: [{ url: 'i', width: 1 }] },
    { id: 'b', content: 'short', profile: null, images: [] },
  ],
  hasMore: true,
  paginationToken: 't',
}

describe('trimAnswer', () => {
  it('keeps the paths named, through lists, in the answer\'s own order', () => {
    const r = trimAnswer(page, ['hasMore', 'posts.profile.name', 'posts.id'], null)
    expect(r.value).toEqual({ posts: [{ id: 'a', profile: { name: 'Ada' } }, { id: 'b', profile: null }], hasMore: true })
    expect(Object.keys(r.value as object)).toEqual(['posts', 'hasMore'])
    expect(r.unmatched).toEqual([])
    expect(r.leftOut).toEqual(['paginationToken'])
  })

  it('keeps a field whole when it is named whole, and names the paths that matched nothing', () => {
    const r = trimAnswer(page, ['posts.images', 'posts.imges', 'nothing.here', 'posts.images'], null)
    expect(r.value).toEqual({ posts: [{ images: page.posts[0]?.images }, { images: [] }] })
    expect(r.unmatched).toEqual(['posts.imges', 'nothing.here'])
  })

  it('keeps everything for * or no paths, and cuts long strings only when told to', () => {
    expect(trimAnswer(page, ['*'], null).value).toEqual(page)
    const cut = trimAnswer(page, null, 10)
    expect((cut.value as typeof page).posts[0]?.content).toBe(`${'x'.repeat(10)}… [20 more characters]`)
    expect((cut.value as typeof page).posts[1]?.content).toBe('short')
    expect(cut.cut).toBe(1)
    expect(page.posts[0]?.content).toHaveLength(30)
  })

  it('writes a view compactly for descriptions', () => {
    expect(compact(['posts.id', 'posts.profile.name', 'posts.profile.url', 'hasMore'])).toBe('posts{id, profile{name, url}}, hasMore')
  })
})

describe('createCreditBudget', () => {
  it('counts what calls in flight reserved, and settles them at what they were charged', () => {
    const b = createCreditBudget(5)
    const first = b.reserve(3)
    expect(first.ok).toBe(true)
    // 3 reserved: another 3 would pass 5, though nothing is spent yet.
    expect(b.reserve(3)).toEqual({ ok: false, state: { spent: 0, reserved: 3, limit: 5 } })
    if (first.ok) first.settle(1)
    expect(b.state()).toEqual({ spent: 1, reserved: 0, limit: 5 })
    const second = b.reserve(4)
    expect(second.ok).toBe(true)
    if (second.ok) {
      second.settle(4)
      second.settle(4)
    }
    expect(b.state()).toEqual({ spent: 5, reserved: 0, limit: 5 })
    // A free call passes a spent budget.
    expect(b.reserve(0).ok).toBe(true)
    expect(b.reserve(1).ok).toBe(false)
  })

  it('never refuses without a limit', () => {
    const b = createCreditBudget(null)
    expect(b.reserve(1_000_000).ok).toBe(true)
  })
})
