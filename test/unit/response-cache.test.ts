import { describe, expect, it } from 'vitest'
import { createResponseCache } from '../../src/domain/content/response-cache.ts'

const body = (text: string) => ({ body: Buffer.from(text) })

describe('response cache', () => {
  it('serves a hit without computing again, and recomputes after the version moves', async () => {
    let version = 'a'
    let computed = 0
    const cache = createResponseCache({ maxBytes: 1000, version: () => version })
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
    const cache = createResponseCache({ maxBytes: 1000, version: () => version })
    await cache.through('k', async () => {
      version = 'b'
      return body(`v${++computed}`)
    })
    expect((await cache.through('k', async () => body(`v${++computed}`))).body.toString()).toBe('v2')
  })

  it('stays within its byte budget, evicting the least recently used', async () => {
    const cache = createResponseCache({ maxBytes: 100, version: () => 'v' })
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

  it('a budget of 0 disables caching; errors are never cached', async () => {
    let computed = 0
    const off = createResponseCache({ maxBytes: 0, version: () => 'v' })
    await off.through('k', async () => body(String(++computed)))
    await off.through('k', async () => body(String(++computed)))
    expect(computed).toBe(2)
    const on = createResponseCache({ maxBytes: 100, version: () => 'v' })
    await expect(on.through('k', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect((await on.through('k', async () => body('ok'))).body.toString()).toBe('ok')
  })
})
