import { describe, expect, it } from 'vitest'
import { createResponseCache, ENTRY_OVERHEAD, entryCost } from '../../src/domain/content/response-cache.ts'

const body = (text: string) => ({ body: Buffer.from(text) })
/** The tests of hits, versions and eviction order count bodies alone, to keep their budgets small and plain. */
const bodiesOnly = (_key: string, b: Buffer) => b.length

describe('response cache', () => {
  it('serves a hit without computing again, and recomputes after the version moves', async () => {
    let version = 'a'
    let computed = 0
    const cache = createResponseCache({ maxBytes: 1000, version: () => version, cost: bodiesOnly })
    const get = () => cache.through('k', async () => body(`v${++computed}`))
    expect((await get()).body.toString()).toBe('v1')
    expect((await get()).body.toString()).toBe('v1')
    version = 'b'
    expect((await get()).body.toString()).toBe('v2')
    expect(cache.stats()).toMatchObject({ entries: 1, hits: 1, misses: 2 })
  })

  it('never keeps a body computed while the version moved', async () => {
    let version = 'a'
    let computed = 0
    const cache = createResponseCache({ maxBytes: 1000, version: () => version, cost: bodiesOnly })
    await cache.through('k', async () => {
      version = 'b'
      return body(`v${++computed}`)
    })
    expect((await cache.through('k', async () => body(`v${++computed}`))).body.toString()).toBe('v2')
  })

  it('stays within its byte budget, evicting the least recently used', async () => {
    const cache = createResponseCache({ maxBytes: 100, version: () => 'v', cost: bodiesOnly })
    for (const k of ['a', 'b', 'c']) await cache.through(k, async () => body('x'.repeat(20)))
    await cache.through('a', async () => body('fresh')) // a is now most recent
    for (const k of ['d', 'e', 'f']) await cache.through(k, async () => body('x'.repeat(20)))
    expect(cache.stats().bytes).toBeLessThanOrEqual(100)
    let recomputed = false
    await cache.through('a', async () => {
      recomputed = true
      return body('x')
    })
    expect(recomputed).toBe(false)
    await cache.through('b', async () => {
      recomputed = true
      return body('x')
    })
    expect(recomputed).toBe(true)
  })

  it('second chance: an entry read since eviction last passed over it stays one more round, then goes unless read again', async () => {
    const run = async (later: string[]) => {
      const cache = createResponseCache({ maxBytes: 60, version: () => 'v', cost: bodiesOnly })
      // Four bodies fit (a body above a quarter of the budget is never kept).
      const put = (k: string) => cache.through(k, async () => body('x'.repeat(15)))
      for (const k of ['a', 'b', 'c', 'd']) await put(k)
      expect(cache.stats().entries).toBe(4)
      await put('a') // a hit: marked
      for (const k of later) await put(k)
      expect(cache.stats().bytes).toBeLessThanOrEqual(60)
      const before = cache.stats().hits
      await put('a')
      return cache.stats().hits > before
    }
    // e evicts b (a was marked: moved young), f evicts c, g d, h e; i meets a unmarked and evicts it.
    expect(await run(['e'])).toBe(true)
    expect(await run(['e', 'f', 'g', 'h'])).toBe(true)
    expect(await run(['e', 'f', 'g', 'h', 'i'])).toBe(false)
  })

  it('a budget of 0 disables caching; errors are never cached', async () => {
    let computed = 0
    const off = createResponseCache({ maxBytes: 0, version: () => 'v', cost: bodiesOnly })
    await off.through('k', async () => body(String(++computed)))
    await off.through('k', async () => body(String(++computed)))
    expect(computed).toBe(2)
    const on = createResponseCache({ maxBytes: 100, version: () => 'v', cost: bodiesOnly })
    await expect(on.through('k', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect((await on.through('k', async () => body('ok'))).body.toString()).toBe('ok')
  })

  it('many: serves cached bodies, fills the rest once, never caches what fill could not find', async () => {
    let version = 'a'
    const asked: string[][] = []
    const store = new Map([['1', 'one'], ['2', 'two'], ['3', 'three']])
    const cache = createResponseCache({ maxBytes: 1000, version: () => version, cost: bodiesOnly })
    const fill = async (missing: string[]) => {
      asked.push(missing)
      return new Map(missing.flatMap((id) => (store.has(id) ? [[id, Buffer.from(store.get(id) as string)] as const] : [])))
    }
    const text = (bodies: (Buffer | undefined)[]) => bodies.map((b) => b?.toString())
    expect(text(await cache.many('p|', ['1', '2', '9'], fill))).toEqual(['one', 'two', undefined])
    expect(text(await cache.many('p|', ['2', '3', '9'], fill))).toEqual(['two', 'three', undefined])
    expect(asked).toEqual([['1', '2', '9'], ['3', '9']])
    // Another prefix is another key space; a version change drops everything.
    await cache.many('q|', ['1'], fill)
    store.set('1', 'uno')
    version = 'b'
    expect(text(await cache.many('p|', ['1'], fill))).toEqual(['uno'])
    expect(asked.slice(2)).toEqual([['1'], ['1']])
  })

  it('many: a body read while the version moved is returned but not kept; a budget of 0 always fills', async () => {
    let version = 'a'
    let reads = 0
    const cache = createResponseCache({ maxBytes: 1000, version: () => version, cost: bodiesOnly })
    const fill = async (missing: string[]) => {
      reads++
      version = `v${reads}`
      return new Map(missing.map((id) => [id, Buffer.from(`body${reads}`)]))
    }
    expect((await cache.many('p|', ['1'], fill))[0]?.toString()).toBe('body1')
    expect((await cache.many('p|', ['1'], fill))[0]?.toString()).toBe('body2')
    const off = createResponseCache({ maxBytes: 0, version: () => 'v', cost: bodiesOnly })
    let offReads = 0
    const offFill = async (missing: string[]) => (offReads++, new Map(missing.map((id) => [id, Buffer.from('x')])))
    await off.many('p|', ['1'], offFill)
    await off.many('p|', ['1'], offFill)
    expect(offReads).toBe(2)
    expect(off.stats().entries).toBe(0)
  })

  it('a body computed before a write is not kept, even when another lookup already moved the cache to the new version', async () => {
    let version = 'a'
    const cache = createResponseCache({ maxBytes: 1000, version: () => version, cost: bodiesOnly })
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    // k is read under version a, and the write lands while it is being computed…
    const slow = cache.through('k', async () => {
      await gate
      return body('old k')
    })
    version = 'b'
    // …and another lookup meets the new version first.
    await cache.through('other', async () => body('x'))
    release()
    expect((await slow).body.toString()).toBe('old k')
    expect((await cache.through('k', async () => body('new k'))).body.toString()).toBe('new k')
  })

  it('counts each entry with its key and what holds it, so many small bodies stay within the budget', async () => {
    const maxBytes = 100_000
    const cache = createResponseCache({ maxBytes, version: () => 'v' })
    const empty = '{"articles":[],"hasMore":false}'
    const key = (i: number) => `GET /api/v1/profile/articles?profileUrlOrUrn=x&count=1&start=${i}`
    for (let i = 0; i < 10_000; i++) await cache.through(key(i), async () => body(empty))
    await cache.many('search-item|', ['7300000000000000001', '7300000000000000002'], async (ids) => new Map(ids.map((id) => [id, Buffer.from(empty)])))
    const { entries, bytes } = cache.stats()
    // Counting bodies alone, the budget held 3,225 of these 31-byte answers (about 1.2 MB of memory).
    expect(bytes).toBeLessThanOrEqual(maxBytes)
    expect(entries * (empty.length + ENTRY_OVERHEAD)).toBeLessThanOrEqual(maxBytes)
    expect(entries).toBeGreaterThan(0)
    expect(entryCost('ab', Buffer.from('xyz'))).toBe(3 + 4 + ENTRY_OVERHEAD)
    // The newest are kept, and a hit on one is served as before.
    let recomputed = false
    await cache.through(key(9_999), async () => {
      recomputed = true
      return body('x')
    })
    expect(recomputed).toBe(false)
  })
})

