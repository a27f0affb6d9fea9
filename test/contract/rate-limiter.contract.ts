/**
 * The RateLimiter port's contract, run against every adapter as every port's contract is: the exact
 * sliding window (now − 1000 ms, now] at its boundaries, costs above 1, a limit lowered then raised
 * (units are never trimmed), truthful decision fields (remaining, resetAt, retryAfterMs: a take at
 * at + retryAfterMs is admitted, one millisecond earlier it is not), and the lease cap. The property
 * drives random arrival times, costs and limit changes and checks every decision against a model:
 * no rolling second ever admits more than the limit in force.
 */
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { takeThenLease, type RateLimiter } from '../../src/ports/rate-limiter.ts'

export interface RateLimiterHandle {
  limiter: RateLimiter
  dispose(): Promise<void>
}

export interface RateLimiterContractOptions {
  /** Runs of the property (each run is up to 120 takes). */
  propertyRuns?: number
  skip?: boolean
}

const T = 1_800_000_000_000
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export function runRateLimiterContract(name: string, make: () => Promise<RateLimiterHandle>, opts: RateLimiterContractOptions): void {
  describe.skipIf(opts.skip === true)(`RateLimiter contract: ${name}`, () => {
    let h: RateLimiterHandle
    let limiter: RateLimiter
    beforeEach(async () => {
      h = await make()
      limiter = h.limiter
    })
    afterEach(async () => h.dispose())

    it('the window is (now − 1000 ms, now]: a unit leaves exactly 1000 ms after it was taken', async () => {
      expect(await limiter.take('w', 2, 1, T)).toMatchObject({ ok: true, limit: 2, remaining: 1, resetAt: T, retryAfterMs: 0 })
      expect(await limiter.take('w', 2, 1, T + 500)).toMatchObject({ ok: true, remaining: 0, resetAt: T + 1000, retryAfterMs: 0 })
      expect(await limiter.take('w', 2, 1, T + 999)).toMatchObject({ ok: false, limit: 2, remaining: 0, resetAt: T + 1000, retryAfterMs: 1 })
      expect(await limiter.take('w', 2, 1, T + 1000)).toMatchObject({ ok: true, remaining: 0, resetAt: T + 1500 })
      expect(await limiter.take('w', 2, 1, T + 1499)).toMatchObject({ ok: false, retryAfterMs: 1 })
      expect(await limiter.take('w', 2, 1, T + 1500)).toMatchObject({ ok: true, remaining: 0, resetAt: T + 2000 })
      // Idle for longer than the window: the whole budget is back.
      expect(await limiter.take('w', 2, 2, T + 5000)).toMatchObject({ ok: true, remaining: 0, resetAt: T + 6000 })
    })

    it('costs above 1 take that many units, and wait for that many to be free', async () => {
      expect(await limiter.take('c', 5, 3, T)).toMatchObject({ ok: true, remaining: 2, resetAt: T })
      // 3 more need one of the first three to leave: at T + 1000.
      expect(await limiter.take('c', 5, 3, T + 10)).toMatchObject({ ok: false, remaining: 2, resetAt: T + 10, retryAfterMs: 990 })
      expect(await limiter.take('c', 5, 2, T + 10)).toMatchObject({ ok: true, remaining: 0, resetAt: T + 1000 })
      // 4 units need all three of T and one of T + 10 to leave.
      expect(await limiter.take('c', 5, 4, T + 20)).toMatchObject({ ok: false, remaining: 0, resetAt: T + 1000, retryAfterMs: 1000 - 20 + 10 })
      expect(await limiter.take('c', 5, 4, T + 1009)).toMatchObject({ ok: false })
      expect(await limiter.take('c', 5, 4, T + 1010)).toMatchObject({ ok: true, remaining: 1 })
    })

    it('a cost above the limit is never admitted, says so, and takes nothing', async () => {
      const d = await limiter.take('big', 2, 3, T)
      expect(d).toMatchObject({ ok: false, remaining: 2, resetAt: T })
      expect(d.retryAfterMs).toBe(Infinity)
      expect(await limiter.take('big', 2, 2, T)).toMatchObject({ ok: true, remaining: 0 })
    })

    it('a lowered limit keeps every unit: raised again within the second, they still count', async () => {
      expect(await limiter.take('l', 5, 5, T)).toMatchObject({ ok: true, remaining: 0 })
      // Lowered to 2: 5 units held; one more needs four of them gone, i.e. all units of T.
      expect(await limiter.take('l', 2, 1, T + 100)).toMatchObject({ ok: false, limit: 2, remaining: 0, resetAt: T + 1000, retryAfterMs: 900 })
      // Raised back to 5 within the second: still full.
      expect(await limiter.take('l', 5, 1, T + 200)).toMatchObject({ ok: false, limit: 5, remaining: 0, retryAfterMs: 800 })
      // Raised to 6: one unit free.
      expect(await limiter.take('l', 6, 1, T + 300)).toMatchObject({ ok: true, limit: 6, remaining: 0, resetAt: T + 1000 })
      // At T + 1000 the five of T have left; the unit of T + 300 remains.
      expect(await limiter.take('l', 2, 1, T + 999)).toMatchObject({ ok: false })
      expect(await limiter.take('l', 2, 1, T + 1000)).toMatchObject({ ok: true, remaining: 0, resetAt: T + 1300 })
      expect(await limiter.take('l', 2, 1, T + 1001)).toMatchObject({ ok: false, retryAfterMs: 299 })
    })

    it('keys are independent, and a clock set back forgets units stamped in its future', async () => {
      expect((await limiter.take('a', 1, 1, T)).ok).toBe(true)
      expect((await limiter.take('b', 1, 1, T)).ok).toBe(true)
      expect((await limiter.take('a', 1, 1, T + 500)).ok).toBe(false)
      expect((await limiter.take('a', 1, 1, T - 60_000)).ok).toBe(true)
      expect((await limiter.take('b', 1, 1, T + 500)).ok).toBe(false)
    })

    it('calls that reach it out of order (stamped less than a second before the newest unit) count from the newest stamp', async () => {
      expect((await limiter.take('o', 2, 1, T + 500)).ok).toBe(true)
      // Stamped earlier, arrived later: it still takes a unit, stamped T + 500, the budget is spent.
      expect(await limiter.take('o', 2, 1, T + 100)).toMatchObject({ ok: true, remaining: 0, resetAt: T + 1500 })
      // Both units leave at T + 1500; the wait counts from the caller's own instant.
      const d = await limiter.take('o', 2, 1, T + 200)
      expect(d).toMatchObject({ ok: false, remaining: 0, resetAt: T + 1500, retryAfterMs: 1300 })
      expect((await limiter.take('o', 2, 1, T + 1499)).ok).toBe(false)
      expect(await limiter.take('o', 2, 1, T + 200 + d.retryAfterMs)).toMatchObject({ ok: true, remaining: 1 })
    })

    it('a burst of concurrent calls stamped in any order admits exactly the limit (regression: the log was forgotten)', async () => {
      // A key of its own per run: fast-check may draw the same limit and offsets twice (it drew
      // [1, [3]] twice in one full run), and a key named after them found its unit already taken.
      let run = 0
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 12 }), fc.array(fc.integer({ min: 0, max: 80 }), { minLength: 1, maxLength: 60 }), async (limit, offsets) => {
          const key = `burst-${run++}-${limit}-${offsets.join('.')}`
          let admitted = 0
          for (const o of offsets) if ((await limiter.take(key, limit, 1, T + o)).ok) admitted++
          expect(admitted).toBe(Math.min(limit, offsets.length))
        }),
        { numRuns: opts.propertyRuns ?? 200 },
      )
    })

    it('property: out-of-order stamps never let a second of the limiter’s time line admit more than the limit', async () => {
      // Each call is processed at `base` (increasing) but was stamped up to 400 ms earlier; it counts
      // at max(its stamp, the newest unit), so that line is in order and holds every rolling second.
      const step = fc.record({ gap: fc.integer({ min: 0, max: 300 }), lag: fc.integer({ min: 0, max: 400 }), cost: fc.integer({ min: 1, max: 2 }) })
      let run = 0
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.array(step, { minLength: 1, maxLength: 80 }), async (limit, steps) => {
          const key = `ooo${++run}`
          let base = T
          let newest = -Infinity
          const line: { at: number; cost: number }[] = []
          for (const { gap, lag, cost } of steps) {
            base += gap
            const stamp = base - lag
            const d = await limiter.take(key, limit, cost, stamp)
            const at = Math.max(stamp, newest)
            const held = line.filter((u) => u.at > at - 1000).reduce((s, u) => s + u.cost, 0)
            expect(d.ok).toBe(held + cost <= limit)
            if (d.ok) {
              line.push({ at, cost })
              newest = at
              expect(d.remaining).toBe(limit - held - cost)
            } else if (cost <= limit) {
              // Truthful from the caller's instant: a take then, on a copy of the window, is admitted.
              const copy = `${key}-copy${line.length}-${stamp}`
              for (const u of line.filter((x) => x.at > at - 1000)) await limiter.take(copy, 1_000_000, u.cost, u.at)
              expect((await limiter.take(copy, limit, cost, stamp + d.retryAfterMs)).ok).toBe(true)
            }
          }
        }),
        { numRuns: opts.propertyRuns ?? 200 },
      )
    })

    it('Retry-After is truthful: the same take at at + retryAfterMs is admitted', async () => {
      await limiter.take('r', 3, 1, T)
      await limiter.take('r', 3, 2, T + 250)
      const d = await limiter.take('r', 3, 2, T + 400)
      expect(d).toMatchObject({ ok: false, retryAfterMs: 850 })
      expect((await limiter.take('r', 3, 2, T + 400 + d.retryAfterMs - 1)).ok).toBe(false)
      expect((await limiter.take('r', 3, 2, T + 400 + d.retryAfterMs)).ok).toBe(true)
    })

    it('property: every decision matches the model; no rolling second admits more than the limit in force', async () => {
      const step = fc.record({
        gap: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 1500 })),
        cost: fc.integer({ min: 1, max: 3 }),
        // Most takes use the base limit; some lower or raise it for a while.
        delta: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: -3, max: 3 }) }),
      })
      let run = 0
      let probes = 0
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 10 }), fc.array(step, { minLength: 1, maxLength: 120 }), async (base, steps) => {
          const key = `p${++run}`
          const admitted: { at: number; cost: number; limit: number }[] = []
          let now = T
          for (const { gap, cost, delta } of steps) {
            now += gap
            const limit = Math.max(1, base + delta)
            const d = await limiter.take(key, limit, cost, now)
            const window = admitted.filter((a) => a.at > now - 1000).flatMap((a) => Array<number>(a.cost).fill(a.at))
            expect(d.ok).toBe(window.length + cost <= limit)
            expect(d.limit).toBe(limit)
            if (d.ok) {
              admitted.push({ at: now, cost, limit })
              window.push(...Array<number>(cost).fill(now))
              expect(d.remaining).toBe(limit - window.length)
              expect(d.resetAt).toBe(d.remaining > 0 ? now : (window[0] as number) + 1000)
              expect(d.retryAfterMs).toBe(0)
              continue
            }
            expect(d.remaining).toBe(Math.max(0, limit - window.length))
            expect(d.resetAt).toBe(window.length >= limit ? (window[window.length - limit] as number) + 1000 : now)
            if (cost > limit) {
              expect(d.retryAfterMs).toBe(Infinity)
              continue
            }
            // Exactly at retryAfterMs the units are free; one millisecond earlier they are not. A
            // copy of the window on a key of its own answers without disturbing this one.
            const probe = `${key}-probe-${++probes}`
            for (const a of admitted.filter((x) => x.at > now - 1000)) await limiter.take(probe, 1_000_000, a.cost, a.at)
            expect((await limiter.take(probe, limit, cost, now + d.retryAfterMs - 1)).ok).toBe(false)
            expect((await limiter.take(probe, limit, cost, now + d.retryAfterMs)).ok).toBe(true)
          }
          // When each take was admitted, the second up to it (itself included) held at most its limit.
          admitted.forEach((a, i) => {
            const units = admitted.slice(0, i + 1).filter((b) => b.at > a.at - 1000).reduce((s, b) => s + b.cost, 0)
            expect(units).toBeLessThanOrEqual(a.limit)
          })
        }),
        { numRuns: opts.propertyRuns ?? 200 },
      )
    })

    it('leases: at most `limit` at once; a release frees one, once', async () => {
      const a = await limiter.lease('s', 2, 60_000)
      const b = await limiter.lease('s', 2, 60_000)
      expect(a).toBeTypeOf('function')
      expect(b).toBeTypeOf('function')
      expect(await limiter.lease('s', 2, 60_000)).toBeUndefined()
      // Another key has its own cap.
      expect(await limiter.lease('other', 1, 60_000)).toBeTypeOf('function')
      await a!()
      await a!()
      const c = await limiter.lease('s', 2, 60_000)
      expect(c).toBeTypeOf('function')
      // Releasing twice freed only one.
      expect(await limiter.lease('s', 2, 60_000)).toBeUndefined()
      // A raised cap admits more at once; a lowered one admits none while more are held.
      expect(await limiter.lease('s', 3, 60_000)).toBeTypeOf('function')
      expect(await limiter.lease('s', 1, 60_000)).toBeUndefined()
      await b!()
      await c!()
    })

    it('leases: a release is under way when it returns: the next lease, asked for before its promise settles, is granted', async () => {
      let held = await limiter.lease('r', 1, 60_000)
      for (let i = 0; i < 20; i++) {
        expect(held).toBeTypeOf('function')
        const released = held!()
        held = await limiter.lease('r', 1, 60_000)
        await released
      }
      expect(await limiter.lease('r', 1, 60_000)).toBeUndefined()
      await held!()
    })

    it('leases: one never given back holds its place while its ttl runs', async () => {
      expect(await limiter.lease('t', 1, 60_000)).toBeTypeOf('function')
      await sleep(300)
      expect(await limiter.lease('t', 1, 60_000)).toBeUndefined()
    })

    it('leases: one never given back lapses after its ttl', async () => {
      expect(await limiter.lease('x', 1, 250)).toBeTypeOf('function')
      expect(await limiter.lease('x', 1, 250)).toBeUndefined()
      await sleep(400)
      const again = await limiter.lease('x', 1, 250)
      expect(again).toBeTypeOf('function')
      await again!()
    })

    it('take and lease in one step: the lease only with an admitted take; a full cap still takes the units', async () => {
      const lease = { key: 'q', limit: 1, ttlMs: 60_000 }
      const first = await takeThenLease(limiter, 'tq', 2, 1, T, lease)
      expect(first.decision).toMatchObject({ ok: true, remaining: 1 })
      expect(first.release).toBeTypeOf('function')
      // The cap is reached: the take is admitted (its unit is spent), no lease comes with it.
      const second = await takeThenLease(limiter, 'tq', 2, 1, T + 1, lease)
      expect(second.decision).toMatchObject({ ok: true, remaining: 0 })
      expect(second.release).toBeUndefined()
      await first.release!()
      // A refused take takes no lease, though one is free.
      const third = await takeThenLease(limiter, 'tq', 2, 1, T + 2, lease)
      expect(third.decision.ok).toBe(false)
      expect(third.release).toBeUndefined()
      const free = await limiter.lease('q', 1, 60_000)
      expect(free).toBeTypeOf('function')
      await free!()
      // The units taken with leases count in the window as any others.
      expect((await limiter.take('tq', 2, 1, T + 999)).ok).toBe(false)
      expect((await limiter.take('tq', 2, 1, T + 1001)).ok).toBe(true)
    })
  })
}
