/**
 * The FetchLocks port's contract, run against every adapter: one holder per key at a time, across
 * handles (nodes); a release frees the key, once; a lock lapses after its ttl and can then be taken
 * by another, whose lock the first holder's late release leaves alone; failure notes are read by
 * every handle while they last and are independent of the lock; lifetimes that are not positive are
 * refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FetchLocks } from '../../src/ports/fetch-locks.ts'

export interface FetchLocksHandle {
  locks: FetchLocks
  /** Another node's locks on the same keys (the same object where locks are one process's own). */
  other: FetchLocks
  /** Lets at least `ms` pass on the adapter's clock. */
  pass(ms: number): Promise<void>
  dispose(): Promise<void>
}

/** Long enough never to lapse during a test, however slow the machine. */
const LONG = 30_000
/** Short enough to wait out in a test. */
const SHORT = 40

export function runFetchLocksContract(name: string, make: () => Promise<FetchLocksHandle>, opts: { skip?: boolean } = {}): void {
  describe.skipIf(opts.skip === true)(`FetchLocks contract: ${name}`, () => {
    let h: FetchLocksHandle
    beforeAll(async () => {
      h = await make()
    })
    afterAll(async () => h?.dispose())

    it('one holder per key, on every node; a release frees the key', async () => {
      expect(await h.locks.held('a')).toBe(false)
      const release = await h.locks.tryTake('a', LONG)
      expect(release).toBeTypeOf('function')
      expect(await h.locks.held('a')).toBe(true)
      expect(await h.other.held('a')).toBe(true)
      expect(await h.locks.tryTake('a', LONG)).toBeUndefined()
      expect(await h.other.tryTake('a', LONG)).toBeUndefined()
      // Keys are independent.
      expect(await h.other.held('b')).toBe(false)
      const releaseB = await h.other.tryTake('b', LONG)
      expect(releaseB).toBeTypeOf('function')

      await release?.()
      expect(await h.other.held('a')).toBe(false)
      expect(await h.locks.held('b')).toBe(true)
      const again = await h.other.tryTake('a', LONG)
      expect(again).toBeTypeOf('function')
      // A second call of the first release does not free the lock taken since.
      await release?.()
      expect(await h.locks.held('a')).toBe(true)
      await again?.()
      await releaseB?.()
      expect(await h.locks.held('a')).toBe(false)
      expect(await h.locks.held('b')).toBe(false)
    })

    it('a lock lapses after its ttl; a late release then leaves the next holder’s lock alone', async () => {
      const stale = await h.locks.tryTake('lapse', SHORT)
      expect(stale).toBeTypeOf('function')
      await h.pass(SHORT + 20)
      expect(await h.other.held('lapse')).toBe(false)
      const next = await h.other.tryTake('lapse', LONG)
      expect(next).toBeTypeOf('function')
      await stale?.()
      expect(await h.locks.held('lapse')).toBe(true)
      expect(await h.locks.tryTake('lapse', LONG)).toBeUndefined()
      await next?.()
      expect(await h.locks.held('lapse')).toBe(false)
    })

    it('a failure is read by every node while it lasts, the latest note wins, and it is no lock', async () => {
      expect(await h.locks.failure('f')).toBeUndefined()
      await h.locks.noteFailure('f', 'UPSTREAM_UNAVAILABLE', LONG)
      expect(await h.other.failure('f')).toBe('UPSTREAM_UNAVAILABLE')
      expect(await h.other.failure('g')).toBeUndefined()
      expect(await h.other.held('f')).toBe(false)
      await h.other.noteFailure('f', 'UPSTREAM_TIMEOUT', SHORT)
      expect(await h.locks.failure('f')).toBe('UPSTREAM_TIMEOUT')
      await h.pass(SHORT + 20)
      expect(await h.locks.failure('f')).toBeUndefined()
      expect(await h.other.failure('f')).toBeUndefined()

      // A lock and a failure note on one key live apart.
      const release = await h.locks.tryTake('both', LONG)
      await h.locks.noteFailure('both', 'UPSTREAM_BAD_ANSWER', LONG)
      await release?.()
      expect(await h.other.failure('both')).toBe('UPSTREAM_BAD_ANSWER')
      expect(await h.other.held('both')).toBe(false)
    })

    it('refuses a lifetime that is not a positive number, taking and noting nothing', async () => {
      for (const ms of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        await expect(h.locks.tryTake('bad', ms)).rejects.toThrow(RangeError)
        await expect(h.locks.noteFailure('bad', 'X', ms)).rejects.toThrow(RangeError)
      }
      expect(await h.other.held('bad')).toBe(false)
      expect(await h.other.failure('bad')).toBeUndefined()
      // A fraction of a ms is a lifetime still.
      const release = await h.locks.tryTake('bad', LONG + 0.5)
      expect(await h.other.held('bad')).toBe(true)
      await release?.()
    })
  })
}
