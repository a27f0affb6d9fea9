/**
 * The sliding-window limiter as a property: whatever the arrival times and costs, no one-second
 * window (t − 1000 ms, t] ever holds more than `limit` admitted units, a refusal's retryAfterMs is
 * exact (admitted then, not a millisecond earlier), and the reported remaining units are the truth.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createMemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.ts'

const step = fc.record({ gap: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 1500 })), cost: fc.integer({ min: 1, max: 3 }) })

describe('memory rate limiter', () => {
  it('never admits more than limit units in any rolling second', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 12 }), fc.array(step, { minLength: 1, maxLength: 200 }), async (limit, steps) => {
        const limiter = createMemoryRateLimiter()
        const admitted: { at: number; cost: number }[] = []
        let now = 1_700_000_000_000
        for (const { gap, cost } of steps) {
          now += gap
          const d = await limiter.take('k', limit, cost, now)
          const inWindow = admitted.filter((a) => a.at > now - 1000).reduce((s, a) => s + a.cost, 0)
          // The decision matches the truth of the window.
          expect(d.ok).toBe(inWindow + cost <= limit)
          if (d.ok) {
            admitted.push({ at: now, cost })
            expect(d.remaining).toBe(limit - inWindow - cost)
            const window = admitted.filter((a) => a.at > now - 1000).flatMap((a) => Array<number>(a.cost).fill(a.at))
            // Reset: now while units are left, else when the oldest unit leaves the window.
            expect(d.resetAt).toBe(d.remaining > 0 ? now : (window[0] as number) + 1000)
          } else if (cost <= limit) {
            // Exactly at retryAfterMs the units are free; one millisecond earlier they are not.
            const probe = createMemoryRateLimiter()
            for (const a of admitted.filter((x) => x.at > now - 1000)) await probe.take('k', limit, a.cost, a.at)
            expect((await probe.take('k', limit, cost, now + d.retryAfterMs - 1)).ok).toBe(false)
            expect((await probe.take('k', limit, cost, now + d.retryAfterMs)).ok).toBe(true)
          }
        }
        // Every rolling window of the admitted log holds at most `limit` units.
        for (const a of admitted) {
          const units = admitted.filter((b) => b.at > a.at - 1000 && b.at <= a.at).reduce((s, b) => s + b.cost, 0)
          expect(units).toBeLessThanOrEqual(limit)
        }
      }),
      { numRuns: 300 },
    )
  })

  it('keys are independent, and a clock set back forgets the future', async () => {
    const limiter = createMemoryRateLimiter()
    expect((await limiter.take('a', 1, 1, 5000)).ok).toBe(true)
    expect((await limiter.take('b', 1, 1, 5000)).ok).toBe(true)
    expect((await limiter.take('a', 1, 1, 5500)).ok).toBe(false)
    expect((await limiter.take('a', 1, 1, 1000)).ok).toBe(true)
  })

  it('a cost above the limit is never admitted and says so', async () => {
    const d = await createMemoryRateLimiter().take('a', 1, 2, 0)
    expect(d.ok).toBe(false)
    expect(d.retryAfterMs).toBe(Infinity)
  })
})
