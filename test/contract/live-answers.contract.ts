/**
 * The LiveAnswerStore port's contract, run against every adapter: an unknown key reads undefined, an
 * answer reads back byte for byte (from a second handle on the same store too: every node serves what
 * one fetched), a row never goes back in time (an older fetch is ignored, a newer or equal one
 * replaces), 404s are kept as 200s are, prune deletes exactly the answers fetched before its instant,
 * and counts are per operation.
 */
import { beforeAll, afterAll, beforeEach, describe, expect, it } from 'vitest'
import type { LiveAnswer, LiveAnswerStore } from '../../src/ports/live-answers.ts'

export interface LiveAnswerStoreHandle {
  /** An adapter that prunes a few rows per statement, so a prune's batches are exercised. */
  store: LiveAnswerStore
  /** Another handle on the same store. */
  other: LiveAnswerStore
  dispose(): Promise<void>
}

const T = 1_800_000_000_000
/** Bytes no text encoding would carry unchanged: a NUL, invalid UTF-8, every byte value. */
const RAW = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0xc3, 0x28, 0x7b, 0x7d, 0x00, ...Array.from({ length: 256 }, (_, i) => i)])

const answer = (key: string, over: Partial<LiveAnswer> = {}): LiveAnswer => ({
  key,
  operation: 'profile',
  status: 200,
  body: Buffer.from(JSON.stringify({ key, n: 1 })),
  fetchedAt: T,
  ...over,
})

export function runLiveAnswerStoreContract(name: string, make: () => Promise<LiveAnswerStoreHandle>): void {
  describe(`LiveAnswerStore contract: ${name}`, () => {
    let h: LiveAnswerStoreHandle
    beforeAll(async () => {
      h = await make()
    })
    afterAll(async () => h?.dispose())
    // Each test starts from an empty store (prune's own behaviour is checked below).
    beforeEach(async () => {
      await h.store.prune(Number.MAX_SAFE_INTEGER)
    })

    it('an unknown key reads undefined; an answer reads back byte for byte, from another handle too', async () => {
      expect(await h.store.get('nope')).toBeUndefined()
      const a = answer('k'.repeat(64), { operation: 'post.comments', body: RAW, fetchedAt: T + 123 })
      await h.store.put(a)
      for (const store of [h.store, h.other]) {
        const got = await store.get(a.key)
        expect(got).toEqual(a)
        expect(Buffer.isBuffer(got?.body)).toBe(true)
        expect(got?.body.equals(RAW)).toBe(true)
        expect(typeof got?.fetchedAt).toBe('number')
      }
      expect(await h.store.get('k'.repeat(63))).toBeUndefined()
    })

    it('keeps a known absence (404) with its own body, and an empty body', async () => {
      const missing = answer('gone', { operation: 'company', status: 404, body: Buffer.from('{"error":"Not found","code":"NOT_FOUND"}') })
      const empty = answer('empty', { body: Buffer.alloc(0) })
      await h.store.put(missing)
      await h.store.put(empty)
      expect(await h.other.get('gone')).toEqual(missing)
      expect((await h.other.get('empty'))?.body.length).toBe(0)
    })

    it('never goes back in time: an older fetch is ignored, a newer or equal one replaces', async () => {
      await h.store.put(answer('r', { fetchedAt: T + 1000, body: Buffer.from('"second"') }))
      // A slower fetch that started earlier finishes later, on another node.
      await h.other.put(answer('r', { fetchedAt: T + 999, status: 404, operation: 'other', body: Buffer.from('"first"') }))
      expect(await h.store.get('r')).toEqual(answer('r', { fetchedAt: T + 1000, body: Buffer.from('"second"') }))

      await h.other.put(answer('r', { fetchedAt: T + 2000, status: 404, operation: 'company', body: Buffer.from('"third"') }))
      expect(await h.store.get('r')).toEqual(answer('r', { fetchedAt: T + 2000, status: 404, operation: 'company', body: Buffer.from('"third"') }))

      await h.store.put(answer('r', { fetchedAt: T + 2000, body: Buffer.from('"same instant"') }))
      expect(await h.other.get('r')).toEqual(answer('r', { fetchedAt: T + 2000, body: Buffer.from('"same instant"') }))
      expect(await h.store.counts()).toEqual({ profile: 1 })
    })

    it('prune deletes exactly the answers fetched before its instant, in as many batches as it takes, and says how many', async () => {
      for (let i = 0; i < 7; i++) await h.store.put(answer(`old${i}`, { fetchedAt: T - 1 - i }))
      await h.store.put(answer('edge', { fetchedAt: T }))
      await h.store.put(answer('new', { fetchedAt: T + 1 }))
      expect(await h.other.prune(T - 100)).toBe(0)
      expect(await h.store.prune(T)).toBe(7)
      for (let i = 0; i < 7; i++) expect(await h.store.get(`old${i}`)).toBeUndefined()
      expect((await h.store.get('edge'))?.fetchedAt).toBe(T)
      expect((await h.store.get('new'))?.fetchedAt).toBe(T + 1)
      expect(await h.store.prune(T)).toBe(0)
      expect(await h.store.prune(T + 1)).toBe(1)
      expect(await h.store.get('edge')).toBeUndefined()
      expect(await h.store.get('new')).toBeDefined()
    })

    it('counts answers by operation, 404s included', async () => {
      expect(await h.store.counts()).toEqual({})
      await h.store.put(answer('a', { operation: 'profile' }))
      await h.store.put(answer('b', { operation: 'profile', status: 404 }))
      await h.other.put(answer('c', { operation: 'post.comments', fetchedAt: T - 10 }))
      // Rewriting a key counts it once, under its latest operation.
      await h.store.put(answer('a', { operation: 'company', fetchedAt: T + 1 }))
      expect(await h.other.counts()).toEqual({ profile: 1, company: 1, 'post.comments': 1 })
      await h.store.prune(T)
      expect(await h.store.counts()).toEqual({ profile: 1, company: 1 })
    })

    it('refuses a key longer than 64 chars and keeps nothing of it', async () => {
      await expect(h.store.put(answer('x'.repeat(65)))).rejects.toThrow()
      expect(await h.store.get('x'.repeat(65))).toBeUndefined()
      expect(await h.store.counts()).toEqual({})
    })
  })
}
