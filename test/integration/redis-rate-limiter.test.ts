/**
 * The Redis rate limiter as several nodes see it: separate connections hammering one key never get
 * more than the limit admitted in any second of Redis's clock; nodes count each other through their
 * heartbeats; a lease whose node closed without giving it back lapses; and when Redis goes away
 * each node answers from its share of the budget, says so once in its log and metrics, and goes
 * back to the shared log by itself when Redis returns.
 */
import fc from 'fast-check'
import { Redis } from 'ioredis'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.ts'
import { createRedisRateLimiter, type RedisRateLimiter, type TimedDecision } from '../../src/adapters/redis/redis-rate-limiter.ts'
import { REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.ts'
import { redisServerBinaryAvailable, startRedisServer, type TestRedisServer } from '../helpers/redis-server.ts'

const hasRedis = await redisAvailable()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(20)
  }
}

function recordingLogger() {
  const lines: { level: 'warn' | 'info'; msg: string }[] = []
  return {
    lines,
    warn: (_obj: object, msg: string) => void lines.push({ level: 'warn', msg }),
    info: (_obj: object, msg: string) => void lines.push({ level: 'info', msg }),
  }
}

async function metricValue(registry: Registry, name: string): Promise<number> {
  const m = registry.getSingleMetric(name)
  if (!m) throw new Error(`no metric ${name}`)
  return (await m.get()).values[0]?.value ?? NaN
}

describe.skipIf(!hasRedis)('redis rate limiter across nodes (shared Redis)', () => {
  // Generous timeouts: on a busy machine a slow answer must not send these nodes to their fallback.
  const node = (prefix: string, extra: Partial<Parameters<typeof createRedisRateLimiter>[0]> = {}) =>
    createRedisRateLimiter({ url: REDIS_URL, prefix, commandTimeoutMs: 5_000, ...extra })

  it('nodes hammering one key concurrently never get more than the limit in any second of Redis time', async () => {
    const prefix = uniquePrefix('rl-hammer')
    const nodes = await Promise.all([1, 2, 3, 4].map(() => node(prefix)))
    const limit = 25
    const admitted: TimedDecision[] = []
    const costs = new Map<TimedDecision, number>()
    let refused = 0
    const stopAt = Date.now() + 1_600
    await Promise.all(
      nodes.flatMap((limiter, n) =>
        [0, 1, 2].map(async (lane) => {
          let i = 0
          while (Date.now() < stopAt) {
            const cost = 1 + ((n + lane + i++) % 2)
            const d = await limiter.take('rps:acc_hammer', limit, cost, 0)
            if (d.ok) {
              admitted.push(d)
              costs.set(d, cost)
            } else {
              refused++
              expect(d.retryAfterMs).toBeGreaterThan(0)
              expect(d.retryAfterMs).toBeLessThanOrEqual(1000)
            }
          }
        }),
      ),
    )
    expect(admitted.length).toBeGreaterThanOrEqual(limit / 2)
    expect(refused).toBeGreaterThan(0)
    for (const a of admitted) {
      const units = admitted.filter((b) => b.at > a.at - 1000 && b.at <= a.at).reduce((s, b) => s + (costs.get(b) ?? 0), 0)
      expect(units).toBeLessThanOrEqual(limit)
    }
    // A busy window was full: the budget was shared, not multiplied by four.
    const busiest = Math.max(...admitted.map((a) => admitted.filter((b) => b.at > a.at - 1000 && b.at <= a.at).reduce((s, b) => s + (costs.get(b) ?? 0), 0)))
    expect(busiest).toBeGreaterThanOrEqual(limit - 1)
    for (const limiter of nodes) expect(limiter.status().fallback).toBe(false)
    await Promise.all(nodes.map((l) => l.close()))
  })

  it("Redis's clock decides by default: the caller's `at` is ignored", async () => {
    const limiter = await node(uniquePrefix('rl-servertime'))
    const first = await limiter.take('k', 1, 1, 0)
    expect(first.ok).toBe(true)
    expect(first.at).toBeGreaterThan(1_600_000_000_000)
    // Ten seconds later by the caller's clock, but not by Redis's.
    expect((await limiter.take('k', 1, 1, 10_000)).ok).toBe(false)
    await limiter.close()
  })

  it('logs and leases expire in Redis, so idle accounts cost no memory', async () => {
    const prefix = uniquePrefix('rl-expiry')
    const limiter = await node(prefix)
    const client = new Redis(REDIS_URL)
    await limiter.take('rps:acc_idle', 5, 2, 0)
    const pttl = await client.pttl(`${prefix}rl:rps:acc_idle`)
    expect(pttl).toBeGreaterThan(0)
    expect(pttl).toBeLessThanOrEqual(2_000)
    expect(await client.llen(`${prefix}rl:rps:acc_idle`)).toBe(2)
    const release = await limiter.lease('search:acc_idle', 3, 5_000)
    const leaseTtl = await client.pttl(`${prefix}lease:search:acc_idle`)
    expect(leaseTtl).toBeGreaterThan(0)
    expect(leaseTtl).toBeLessThanOrEqual(5_000)
    await release!()
    expect(await client.exists(`${prefix}lease:search:acc_idle`)).toBe(0)
    client.disconnect()
    await limiter.close()
  })

  it('nodes count each other through their heartbeats; a closed node leaves the count', async () => {
    const prefix = uniquePrefix('rl-nodes')
    const nodes = await Promise.all([1, 2, 3].map(() => node(prefix)))
    await Promise.all(nodes.map((l) => l.heartbeat()))
    for (const l of nodes) expect(l.status()).toEqual({ fallback: false, nodes: 3 })
    await nodes[2]!.close()
    await nodes[0]!.heartbeat()
    expect(nodes[0]!.status().nodes).toBe(2)
    await Promise.all(nodes.slice(0, 2).map((l) => l.close()))
  })

  it('a lease held by a node that closed without giving it back lapses after its ttl', async () => {
    const prefix = uniquePrefix('rl-lease')
    const dying = await node(prefix)
    const other = await node(prefix)
    expect(await dying.lease('search:acc_1', 1, 400)).toBeTypeOf('function')
    await dying.close()
    expect(await other.lease('search:acc_1', 1, 400)).toBeUndefined()
    await sleep(550)
    const release = await other.lease('search:acc_1', 1, 400)
    expect(release).toBeTypeOf('function')
    await release!()
    await other.close()
  })

  // Two nodes' connections are not ordered with each other: on a loaded machine the kernel may hand
  // Redis the second node's command first, however soon after the first node's it was written. What
  // orders a client's next call after the release is the first node's own connection: its answer
  // leaves after the release was written, so anything it learns later from Redis comes after it.
  it('a lease given back on one node, its reply not awaited, is free on another node once the first node hears from Redis again', async () => {
    const prefix = uniquePrefix('rl-handover')
    const [a, b] = [await node(prefix), await node(prefix)]
    try {
      let held = await a.lease('search:acc_1', 1, 60_000)
      for (let i = 0; i < 30; i++) {
        expect(held, `lease ${i}`).toBeTypeOf('function')
        const [giver, taker] = i % 2 === 0 ? [a, b] : [b, a]
        const released = held!()
        await giver.take('rps:acc_2', 1_000_000, 1, Date.now())
        held = await taker.lease('search:acc_1', 1, 60_000)
        await released
      }
      await held!()
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })

  it('the takes of one turn go to Redis as one command, decided in the order they were made', async () => {
    const prefix = uniquePrefix('rl-turn')
    const limiter = await createRedisRateLimiter({ url: REDIS_URL, prefix, clock: 'caller', commandTimeoutMs: 5_000 })
    const monitor = await new Redis(REDIS_URL).monitor()
    const commands: string[][] = []
    // MONITOR also shows the commands a script runs; only the scripts themselves are counted.
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (/^eval/i.test(args[0] ?? '') && args.some((a) => a.startsWith(prefix))) commands.push(args)
    })
    try {
      const T = 1_960_000_000_000
      // Two keys interleaved, 12 takes each against a limit of 5, all made in one turn.
      const taken = Array.from({ length: 24 }, (_, i) => limiter.take(`rps:acc_${i % 2}`, 5, 1, T + i))
      const decisions = await Promise.all(taken)
      for (const k of [0, 1]) {
        const mine = decisions.filter((_, i) => i % 2 === k)
        expect(mine.map((d) => d.ok)).toEqual([...Array(5).fill(true), ...Array(7).fill(false)])
        expect(mine.slice(0, 5).map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0])
        expect(mine.slice(5).every((d) => d.remaining === 0 && d.retryAfterMs > 0)).toBe(true)
      }
      // One more, in a later turn, goes alone.
      expect(await limiter.take('rps:acc_0', 5, 1, T + 30)).toMatchObject({ ok: false, remaining: 0 })
      await until('the monitor to see both commands', () => commands.length >= 2)
      expect(commands).toHaveLength(2)
      expect(commands[0]![0]!.toLowerCase()).toBe('evalsha')
      expect(commands[0]![2]).toBe('24')
      expect(commands[1]![2]).toBe('1')
      expect(limiter.status().fallback).toBe(false)
      const client = new Redis(REDIS_URL)
      expect([await client.llen(`${prefix}rl:rps:acc_0`), await client.llen(`${prefix}rl:rps:acc_1`)]).toEqual([5, 5])
      client.disconnect()
    } finally {
      monitor.disconnect()
      await limiter.close()
    }
  })
  it('property: takes sent together in one command decide exactly as the memory limiter taking them one by one', async () => {
    // The script keeps each key's log in its memory between the takes of one command and writes it
    // back once at the end; the commands after it read what it wrote. Clocks set back (a second or
    // more: the log is forgotten) and calls out of order (less than a second) are in the mix. Beside
    // the decisions, each stored log is checked against the list the takes would leave one by one
    // (units dropped only when a unit is taken), so a log that keeps what it should not is seen too.
    const step = fc.record({
      key: fc.integer({ min: 0, max: 2 }),
      cost: fc.integer({ min: 1, max: 3 }),
      delta: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: -2, max: 2 }) }),
      gap: fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 0, max: 400 }) }, { weight: 1, arbitrary: fc.integer({ min: -1_500, max: -1 }) }),
    })
    const prefix = uniquePrefix('rl-many')
    const limiter = await createRedisRateLimiter({ url: REDIS_URL, prefix, clock: 'caller', commandTimeoutMs: 5_000 })
    const client = new Redis(REDIS_URL)
    /** The log as the takes leave it one by one, as the script's own comments describe it. */
    const logs = new Map<string, number[]>()
    const expectLog = (key: string, limit: number, cost: number, at: number) => {
      const log = logs.get(key) ?? []
      let now = at
      const newest = log.at(-1)
      if (newest !== undefined && newest - at >= 1000) log.length = 0
      else if (newest !== undefined && newest > at) now = newest
      let gone = 0
      while (gone < log.length && (log[gone] as number) <= now - 1000) gone++
      if (log.length - gone + cost <= limit) {
        log.splice(0, gone)
        log.push(...Array<number>(cost).fill(now))
      }
      logs.set(key, log)
    }
    let run = 0
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 8 }),
          fc.array(fc.array(step, { minLength: 1, maxLength: 40, size: 'medium' }), { minLength: 1, maxLength: 5 }),
          async (base, commands) => {
            const model = createMemoryRateLimiter()
            run++
            let at = 1_960_000_000_000
            for (const takes of commands) {
              const args = takes.map((t) => {
                at += t.gap
                return { key: `k${run}-${t.key}`, limit: Math.max(1, base + t.delta), cost: t.cost, at }
              })
              // Made in one turn: one command (a single take goes alone).
              const decided = await Promise.all(args.map((a) => limiter.take(a.key, a.limit, a.cost, a.at)))
              for (const [i, a] of args.entries()) {
                const expected = await model.take(a.key, a.limit, a.cost, a.at)
                expect({ ...decided[i], at: undefined }).toEqual({ ...expected, at: undefined })
                expectLog(a.key, a.limit, a.cost, a.at)
              }
              for (const key of new Set(args.map((a) => a.key))) {
                expect((await client.lrange(`${prefix}rl:${key}`, 0, -1)).map(Number)).toEqual(logs.get(key))
              }
            }
            await model.close()
          },
        ),
        { numRuns: 150 },
      )
      expect(limiter.status().fallback).toBe(false)
    } finally {
      client.disconnect()
      await limiter.close()
    }
  })
})

describe.skipIf(!hasRedis || !redisServerBinaryAvailable())('redis rate limiter when Redis goes away and comes back', () => {
  let server: TestRedisServer
  const limiters: RedisRateLimiter[] = []
  beforeAll(async () => {
    server = await startRedisServer()
  })
  afterAll(async () => {
    await Promise.all(limiters.map((l) => l.close()))
    await server?.stop()
  })

  it('answers from its share of the budget while Redis is away, says so once, and recovers by itself', async () => {
    const registry = new Registry()
    const log = recordingLogger()
    const prefix = uniquePrefix('rl-fallback')
    // The server is killed, so failures come at once; the long timeout only guards a busy machine.
    const opts = { url: server.url, prefix, clock: 'caller' as const, heartbeatMs: 200, commandTimeoutMs: 2_000 }
    const a = await createRedisRateLimiter({ ...opts, registry, logger: log })
    limiters.push(a, await createRedisRateLimiter(opts), await createRedisRateLimiter(opts))
    await Promise.all(limiters.map((l) => l.heartbeat()))
    expect(a.status()).toEqual({ fallback: false, nodes: 3 })
    expect(await metricValue(registry, 'pronet_rate_limiter_nodes')).toBe(3)
    expect(await metricValue(registry, 'pronet_rate_limiter_fallback')).toBe(0)

    const T = 1_800_000_000_000
    // Shared: what one node takes, the others cannot.
    expect((await a.take('rps:acc', 10, 10, T)).ok).toBe(true)
    expect((await limiters[1]!.take('rps:acc', 10, 1, T + 1)).ok).toBe(false)

    await server.stop()
    // Every call still answers: a fresh second of this node's share, floor(10 / 3) = 3 units.
    const during = []
    for (let i = 0; i < 5; i++) during.push(await a.take('rps:acc', 10, 1, T + 2_000 + i))
    expect(during.map((d) => d.ok)).toEqual([true, true, true, false, false])
    expect(during[0]).toMatchObject({ limit: 10, remaining: 2 })
    expect(during[3]).toMatchObject({ ok: false, limit: 10, remaining: 0, retryAfterMs: 1000 - 3 })
    // A cost the plan affords is never above the share (engagement, 2 units, on 5 rps over 3 nodes:
    // floor(5 / 3) = 1 would refuse it for as long as Redis is away): admitted, and the next one is
    // admitted at its Retry-After.
    expect(await a.take('rps:acc_small', 5, 2, T + 2_000)).toMatchObject({ ok: true, limit: 5 })
    const next = await a.take('rps:acc_small', 5, 2, T + 2_100)
    expect(next).toMatchObject({ ok: false, limit: 5, retryAfterMs: 900 })
    expect(await a.take('rps:acc_small', 5, 2, T + 2_100 + next.retryAfterMs)).toMatchObject({ ok: true })
    // A cost above the plan's own limit never fits, in the share or in Redis.
    expect((await a.take('rps:acc_tiny', 1, 2, T + 2_000)).ok).toBe(false)
    // Leases too: 3 of 10.
    const leases = []
    for (let i = 0; i < 4; i++) leases.push(await a.lease('search:acc', 10, 60_000))
    expect(leases.map((l) => typeof l)).toEqual(['function', 'function', 'function', 'undefined'])
    await leases[0]!()
    expect(await a.lease('search:acc', 10, 60_000)).toBeTypeOf('function')

    expect(a.status().fallback).toBe(true)
    expect(await metricValue(registry, 'pronet_rate_limiter_fallback')).toBe(1)
    expect(await metricValue(registry, 'pronet_rate_limiter_redis_errors_total')).toBeGreaterThanOrEqual(1)
    expect(await metricValue(registry, 'pronet_rate_limiter_fallback_decisions_total')).toBeGreaterThanOrEqual(10)
    // Let a few failed heartbeats pass: still one warning.
    await sleep(700)
    expect(log.lines).toEqual([{ level: 'warn', msg: expect.stringContaining('Redis unreachable') }])

    await server.start()
    await until('the node to use Redis again', () => !a.status().fallback)
    expect(await metricValue(registry, 'pronet_rate_limiter_fallback')).toBe(0)
    expect(log.lines).toEqual([
      { level: 'warn', msg: expect.stringContaining('Redis unreachable') },
      { level: 'info', msg: expect.stringContaining('Redis is back') },
    ])
    // The restarted (empty) Redis holds the shared log again: another node sees what this one took.
    await until('every node back on Redis', () => limiters.every((l) => !l.status().fallback))
    expect((await a.take('rps:acc', 10, 10, T + 5_000)).ok).toBe(true)
    expect((await limiters[2]!.take('rps:acc', 10, 1, T + 5_001)).ok).toBe(false)
    const client = new Redis(server.url)
    expect(await client.llen(`${prefix}rl:rps:acc`)).toBe(10)
    client.disconnect()
    await until('the node count to come back', () => a.status().nodes === 3)
  })

  it('a node stalled past the command timeout still reads the answer Redis sent in time (no false fallback)', async () => {
    const log = recordingLogger()
    const prefix = uniquePrefix('rl-stall')
    const limiter = await createRedisRateLimiter({ url: server.url, prefix, clock: 'caller', commandTimeoutMs: 50, logger: log })
    limiters.push(limiter)
    await until('the node to be on Redis', () => !limiter.status().fallback)
    const T = 1_950_000_000_000
    for (let i = 0; i < 3; i++) {
      const taken = limiter.take('rps:acc_s', 10, 1, T + i)
      // Takes leave at the end of the turn they were made in.
      await new Promise((r) => setImmediate(r))
      // The command is on the wire; Redis answers at once, but this process is busy for 4 timeouts.
      const stallUntil = performance.now() + 200
      while (performance.now() < stallUntil);
      expect(await taken).toMatchObject({ ok: true, remaining: 10 - (i + 1) })
    }
    expect(limiter.status().fallback).toBe(false)
    expect(log.lines).toEqual([])
    const client = new Redis(server.url)
    expect(await client.llen(`${prefix}rl:rps:acc_s`)).toBe(3)
    client.disconnect()
  })

  it('a Redis that stops answering (connections open, no replies) costs one command timeout, then the local share', async () => {
    const log = recordingLogger()
    const limiter = await createRedisRateLimiter({ url: server.url, prefix: uniquePrefix('rl-pause'), clock: 'caller', commandTimeoutMs: 150, heartbeatMs: 200, logger: log })
    limiters.push(limiter)
    await until('the node to be on Redis', () => !limiter.status().fallback)
    const T = 1_900_000_000_000
    server.pause()
    try {
      // The first call waits for its timeout and answers locally; the next ones do not wait at all.
      const first = await limiter.take('rps:acc_p', 4, 1, T)
      expect(first).toMatchObject({ ok: true, limit: 4 })
      expect(limiter.status().fallback).toBe(true)
      expect(log.lines[0]).toMatchObject({ level: 'warn', msg: expect.stringContaining('Redis unreachable') })
      const lease = await limiter.lease('search:acc_p', 8, 60_000)
      expect(lease).toBeTypeOf('function')
      await lease!()
    } finally {
      server.resume()
    }
    await until('the node to use Redis again', () => !limiter.status().fallback)
    expect(log.lines.at(-1)).toMatchObject({ level: 'info', msg: expect.stringContaining('Redis is back') })
    expect((await limiter.take('rps:acc_p', 4, 4, T + 10_000)).ok).toBe(true)
  })
})
