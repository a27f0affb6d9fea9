/**
 * The upstream's shared request budget on a manual clock: sleeps are timers that fire only when the
 * test moves the clock, so every instant below is the clock's, never the machine's.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { createMemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.ts'
import { createRedisRateLimiter, type RedisRateLimiter } from '../../src/adapters/redis/redis-rate-limiter.ts'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { ApiError } from '../../src/domain/errors.ts'
import { createUpstreamBudget, type UpstreamBudget } from '../../src/live-source/upstream-budget.ts'
import type { RateLimiter } from '../../src/ports/rate-limiter.ts'
import { REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.ts'

const T0 = 1_800_000_000_000

/** A manual clock and its timers; each node's sleeps are tagged so the test knows when all are asleep. */
function manualTime() {
  const clock = createManualClock(T0)
  const timers: { due: number; node: number; fire: () => void }[] = []
  return {
    clock,
    timers,
    sleepFor: (node: number) => (ms: number) => new Promise<void>((fire) => timers.push({ due: clock.now() + ms, node, fire })),
    /** Fires the earliest timers, moving the clock to them. */
    fireNext(): boolean {
      if (timers.length === 0) return false
      const due = Math.min(...timers.map((t) => t.due))
      clock.set(due)
      for (const t of timers.filter((x) => x.due === due)) {
        timers.splice(timers.indexOf(t), 1)
        t.fire()
      }
      return true
    },
  }
}

type Time = ReturnType<typeof manualTime>

interface Node {
  budget: UpstreamBudget
  pending: number
}

// Exact instants below: without the node's own margin, a unit is free again a second after it was taken.
const node = (time: Time, id: number, limiter: RateLimiter, rps: number, maxWaitMs: number, arrivalMarginMs = 0): Node => ({
  budget: createUpstreamBudget({ limiter, rps, clock: time.clock, sleep: time.sleepFor(id), maxWaitMs, arrivalMarginMs }),
  pending: 0,
})

/** Starts `count` acquires on `n`, recording the clock's instant of each grant and each refusal. */
function burst(time: Time, n: Node, count: number, granted: number[], refused: unknown[]): Promise<void>[] {
  return Array.from({ length: count }, () => {
    n.pending++
    return n.budget.acquire().then(
      () => void granted.push(time.clock.now()),
      (e: unknown) => void refused.push(e),
    ).finally(() => n.pending--)
  })
}

/**
 * Runs until every acquire has settled: the clock moves only once every node still holding waiters is
 * asleep (a node asking Redis is not), so no grant is ever stamped at a later instant than its own.
 */
async function runAll(time: Time, nodes: Node[]): Promise<void> {
  for (let rounds = 0; nodes.some((n) => n.pending > 0); rounds++) {
    if (rounds > 100_000) throw new Error('the budget never settled')
    const asleep = () => nodes.every((n, i) => n.pending === 0 || time.timers.some((t) => t.node === i))
    for (let spins = 0; !asleep(); spins++) {
      if (spins > 5_000) throw new Error('a node neither slept nor settled')
      await new Promise((r) => setTimeout(r, spins < 50 ? 0 : 1))
    }
    if (nodes.some((n) => n.pending > 0)) time.fireNext()
  }
}

/** The most grants any rolling second (t − 1000 ms, t] holds. */
const busiestSecond = (granted: number[]): number =>
  Math.max(0, ...granted.map((t) => granted.filter((u) => u > t - 1000 && u <= t).length))

const retryAfterOf = (e: unknown): number => {
  expect(e).toBeInstanceOf(ApiError)
  const err = e as ApiError
  expect([err.status, err.code]).toEqual([503, 'SERVICE_UNAVAILABLE'])
  return Number(err.headers?.['retry-after'])
}

describe('upstream budget (one node)', () => {
  it('a burst of 100 concurrent acquires never passes rps in any rolling second, and all are served', async () => {
    const time = manualTime()
    const n = node(time, 0, createMemoryRateLimiter(), 7, 60_000)
    const granted: number[] = []
    const refused: unknown[] = []
    const all = burst(time, n, 100, granted, refused)
    await runAll(time, [n])
    await Promise.all(all)
    expect(refused).toEqual([])
    expect(granted).toHaveLength(100)
    expect(busiestSecond(granted)).toBe(7)
    // Served as the budget frees, not later: the 100th grant comes in the 15th second.
    expect(Math.max(...granted) - T0).toBe(14_000)
  })

  it('a waiter is served when the unit frees, not before', async () => {
    const time = manualTime()
    const n = node(time, 0, createMemoryRateLimiter(), 2, 5_000)
    const granted: number[] = []
    const refused: unknown[] = []
    const first = burst(time, n, 2, granted, refused)
    await runAll(time, [n])
    await Promise.all(first)
    time.clock.advance(300)
    const third = burst(time, n, 1, granted, refused)
    await runAll(time, [n])
    await Promise.all(third)
    expect(granted.map((t) => t - T0)).toEqual([0, 0, 1000])
    expect(refused).toEqual([])
  })

  it("the node keeps its own sends a margin over a second apart, so none lands in the upstream's window early; an engagement call takes two units", async () => {
    const time = manualTime()
    const n = node(time, 0, createMemoryRateLimiter(), 2, 5_000, 50)
    const granted: number[] = []
    const refused: unknown[] = []
    const all = burst(time, n, 3, granted, refused)
    await runAll(time, [n])
    await Promise.all(all)
    expect(granted.map((t) => t - T0)).toEqual([0, 0, 1050])
    n.pending++
    const two = n.budget.acquire(2).then(() => time.clock.now() - T0).finally(() => n.pending--)
    await runAll(time, [n])
    // Two units of a budget of 2 need the window empty: the unit sent at 1050 leaves it a second and the margin later.
    expect(await two).toBe(2100)
    await expect(n.budget.acquire(3)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' })
    expect(refused).toEqual([])
  })

  it('past maxWaitMs a caller is refused 503 at once, with a Retry-After no earlier than its turn', async () => {
    const time = manualTime()
    const limiter = createMemoryRateLimiter()
    const n = node(time, 0, limiter, 3, 1_500)
    const granted: number[] = []
    const refused: unknown[] = []
    const all = burst(time, n, 12, granted, refused)
    await runAll(time, [n])
    await Promise.all(all)
    // Three now, three when they free a second later; the sixth waiter on would need two seconds.
    expect(granted.map((t) => t - T0)).toEqual([0, 0, 0, 1000, 1000, 1000])
    expect(refused).toHaveLength(6)
    const waits = refused.map(retryAfterOf)
    for (const s of waits) expect(s).toBeGreaterThanOrEqual(2)
    // Truthful: no unit is free before the earliest Retry-After given.
    const soonest = Math.min(...waits)
    expect((await limiter.take('upstream:budget', 3, 1, T0 + soonest * 1000 - 1)).ok).toBe(false)
  })

  it('with no wait allowed, a spent budget refuses at once', async () => {
    const time = manualTime()
    const n = node(time, 0, createMemoryRateLimiter(), 1, 0)
    const granted: number[] = []
    const refused: unknown[] = []
    const all = burst(time, n, 3, granted, refused)
    await runAll(time, [n])
    await Promise.all(all)
    expect(granted).toEqual([T0])
    expect(refused.map(retryAfterOf)).toEqual([1, 1])
  })

  it('pause holds every caller until the upstream allows, and refuses those who cannot wait that long', async () => {
    const time = manualTime()
    const n = node(time, 0, createMemoryRateLimiter(), 10, 4_000)
    const granted: number[] = []
    const refused: unknown[] = []
    n.budget.pause(3_000)
    const waiting = burst(time, n, 4, granted, refused)
    await runAll(time, [n])
    await Promise.all(waiting)
    expect(granted.map((t) => t - T0)).toEqual([3000, 3000, 3000, 3000])

    n.budget.pause(10_000)
    const refusedNow = burst(time, n, 2, granted, refused)
    await runAll(time, [n])
    await Promise.all(refusedNow)
    expect(granted).toHaveLength(4)
    expect(refused.map(retryAfterOf)).toEqual([10, 10])
    expect(time.clock.now() - T0).toBe(3000)
  })

  it('a pause that arrives while callers wait turns away those it outlasts', async () => {
    const time = manualTime()
    const n = node(time, 0, createMemoryRateLimiter(), 1, 2_500)
    const granted: number[] = []
    const refused: unknown[] = []
    const all = burst(time, n, 3, granted, refused)
    // The first is served, the second sleeps a second for the unit; then the upstream asks for five.
    for (let i = 0; i < 20 && time.timers.length === 0; i++) await new Promise((r) => setTimeout(r, 0))
    n.budget.pause(5_000)
    await runAll(time, [n])
    await Promise.all(all)
    expect(granted).toEqual([T0])
    // Each is told the pause's end: once the one ahead is turned away, the next is first in line.
    expect(refused.map(retryAfterOf)).toEqual([5, 5])
  })
})

describe('upstream budget (two nodes sharing Redis)', async () => {
  const available = await redisAvailable()
  const limiters: RedisRateLimiter[] = []
  afterAll(async () => {
    await Promise.all(limiters.map((l) => l.close()))
  })

  it.skipIf(!available)('two nodes spending one budget never pass it together', async () => {
    const time = manualTime()
    const prefix = uniquePrefix('upstream-budget')
    for (let i = 0; i < 2; i++) limiters.push(await createRedisRateLimiter({ url: REDIS_URL, clock: 'caller', prefix, nodeId: `node-${i}`, commandTimeoutMs: 2_000 }))
    const nodes = limiters.map((l, i) => node(time, i, l, 4, 60_000))
    const granted: number[][] = [[], []]
    const refused: unknown[] = []
    const all = nodes.flatMap((n, i) => burst(time, n, 20, granted[i] as number[], refused))
    await runAll(time, nodes)
    await Promise.all(all)
    expect(limiters.map((l) => l.status().fallback)).toEqual([false, false])
    expect(refused).toEqual([])
    expect(granted.map((g) => g.length)).toEqual([20, 20])
    // Each node alone could take the whole budget; together they still hold to it.
    expect(busiestSecond([...(granted[0] as number[]), ...(granted[1] as number[])])).toBe(4)
  })
})
