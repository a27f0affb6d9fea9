/**
 * The shared rate limiter of a scale-out deployment (REDIS_URL): every node takes units from
 * one exact sliding log per key in Redis, kept by an atomic Lua script, so the budget holds across
 * nodes as it does in one process. Time is Redis's own clock by default (nodes with skewed clocks
 * still agree), or the caller's `at` (the operator's test clock, deterministic tests). The takes a
 * node makes in one turn of its event loop reach Redis as one script call (one write, one reply),
 * decided in the order they were made.
 *
 * Failure policy: a Redis command that fails or times out never fails or stalls the request. The
 * node answers from a local memory limiter with its share of each budget, max(1, floor(limit /
 * nodes)), where `nodes` is the number of live nodes last counted in Redis (every node renews a
 * heartbeat each second). The heartbeat also notices when Redis is back, and the node returns to
 * the shared log. Both transitions are logged once and shown in metrics.
 */
import { randomBytes } from 'node:crypto'
import { Counter, Gauge, type Registry } from 'prom-client'
import { metric } from '../metrics.ts'
import type { RateDecision, RateLimiter } from '../../ports/rate-limiter.ts'
import { createMemoryRateLimiter } from '../memory/memory-rate-limiter.ts'
import { closeRedisClient } from './close-client.ts'
import { failFastRedis } from './fail-fast-client.ts'
import { withReplyDeadline } from './reply-deadline.ts'
import { HEARTBEAT, LEASE, TAKE, TAKE_AND_LEASE, type LuaScript } from './redis-scripts.ts'
import { turnBatches } from './turn-batches.ts'

const WINDOW_MS = 1000

/** The two methods of a pino logger the limiter uses. */
export interface LimiterLogger {
  warn(obj: object, msg: string): void
  info(obj: object, msg: string): void
}

export interface RedisRateLimiterOptions {
  /** redis://… (REDIS_URL). The limiter opens its own connection. */
  url: string
  /**
   * 'redis' (default): Redis's clock (TIME) decides the window, and `take`'s `at` is ignored while
   * Redis answers. 'caller': the `at` argument decides (PRONET_TEST_CLOCK=1; tests).
   */
  clock?: 'redis' | 'caller'
  /** Prefix of every key this limiter writes (default 'pronet:'). */
  prefix?: string
  logger?: LimiterLogger
  /** Where the limiter's metrics are registered (none when absent). */
  registry?: Registry
  /**
   * A command not answered within this many ms, and by the next read of the node's sockets after
   * that (reply-deadline.ts), counts as a failure (default 150).
   */
  commandTimeoutMs?: number
  /** How long the first connection may take before the node starts on its local share (default 1000). */
  connectTimeoutMs?: number
  /** Heartbeat period (default 1000 ms); a node not heard from for nodeTtlMs (default 3000) is gone. */
  heartbeatMs?: number
  nodeTtlMs?: number
  /**
   * How long a log outlives its newest unit (default 2000 ms with Redis's clock; 60 s with the
   * caller's, whose clock may stand still while real time passes, as a manual test clock does).
   */
  keyTtlMs?: number
  /** Nodes assumed until Redis has been counted once (default 1). */
  assumedNodes?: number
  /** This node's id in the heartbeat set (default random). */
  nodeId?: string
}

/** A decision and the instant it was made at (Redis's clock unless in caller mode or falling back). */
export type TimedDecision = RateDecision & { at: number }

export interface RedisRateLimiter extends RateLimiter {
  take(key: string, limit: number, cost: number, at: number): Promise<TimedDecision>
  /** Whether decisions come from the local share now, and the live nodes last counted. */
  status(): { fallback: boolean; nodes: number }
  /** Renews this node's heartbeat and counts the nodes now (the timer does this every heartbeatMs). */
  heartbeat(): Promise<void>
}

/** take's reply: ok, remaining, resetAt, retryAfterMs ('inf' when never), the instant decided at. */
type TakeReply = [number | string, number | string, string, string, string]

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/**
 * Connects (waiting at most connectTimeoutMs for the first connection; a node that cannot reach
 * Redis starts on its local share and keeps trying) and starts the heartbeat.
 */
export async function createRedisRateLimiter(opts: RedisRateLimiterOptions): Promise<RedisRateLimiter> {
  const callerClock = opts.clock === 'caller'
  const prefix = opts.prefix ?? 'pronet:'
  const logger = opts.logger
  const heartbeatMs = opts.heartbeatMs ?? 1000
  const nodeTtlMs = opts.nodeTtlMs ?? 3000
  const keyTtlMs = String(opts.keyTtlMs ?? (callerClock ? 60_000 : 2 * WINDOW_MS))
  const nodeId = opts.nodeId ?? `node-${randomBytes(6).toString('hex')}`
  const nodesKey = `${prefix}nodes`
  const replyTimeoutMs = opts.commandTimeoutMs ?? 150
  let leaseSeq = 0

  const fallbackGauge = metric(opts.registry, 'pronet_rate_limiter_fallback', () =>
    new Gauge({ name: 'pronet_rate_limiter_fallback', help: '1 while this node answers rate budgets from its local share because Redis is unreachable', registers: [] }),
  )
  const nodesGauge = metric(opts.registry, 'pronet_rate_limiter_nodes', () =>
    new Gauge({ name: 'pronet_rate_limiter_nodes', help: 'Live nodes last counted in Redis (divides the budgets while falling back)', registers: [] }),
  )
  const errors = metric(opts.registry, 'pronet_rate_limiter_redis_errors_total', () =>
    new Counter({ name: 'pronet_rate_limiter_redis_errors_total', help: 'Redis commands of the rate limiter that failed or timed out', registers: [] }),
  )
  const localDecisions = metric(opts.registry, 'pronet_rate_limiter_fallback_decisions_total', () =>
    new Counter({ name: 'pronet_rate_limiter_fallback_decisions_total', help: 'Takes and leases answered from the local share', registers: [] }),
  )

  // A request never waits for a connection: while Redis is away, its node answers from its own share.
  const redis = failFastRedis(opts.url, replyTimeoutMs, opts.connectTimeoutMs ?? 1000)

  let fallback = false
  let closed = false
  let nodes = Math.max(1, opts.assumedNodes ?? 1)
  nodesGauge.set(nodes)
  fallbackGauge.set(0)
  let local = createMemoryRateLimiter()

  const answer = <T>(reply: Promise<T>): Promise<T> => withReplyDeadline(reply, replyTimeoutMs)

  async function run(s: LuaScript, key: string | string[], args: (string | number)[]): Promise<unknown> {
    const keys = typeof key === 'string' ? [key] : key
    try {
      return await answer(redis.evalsha(s.sha, keys.length, ...keys, ...args))
    } catch (e) {
      if (errorText(e).startsWith('NOSCRIPT')) return answer(redis.eval(s.lua, keys.length, ...keys, ...args))
      throw e
    }
  }

  /** Takes of one event-loop turn go to Redis as one command (turn-batches.ts). */
  const takes = turnBatches<{ key: string; args: (string | number)[] }, TakeReply>(async (items) => {
    const replies = (await run(TAKE, items.map((t) => t.key), items.flatMap((t) => t.args))) as string
    return replies.split(';').map((r) => r.split(' ') as TakeReply)
  })

  /** A take's reply as a decision. */
  const decisionOf = (r: readonly [...TakeReply, ...unknown[]], limit: number): TimedDecision => ({
    ok: Number(r[0]) === 1,
    limit,
    remaining: Number(r[1]),
    resetAt: Number(r[2]),
    retryAfterMs: r[3] === 'inf' ? Infinity : Number(r[3]),
    at: Number(r[4]),
  })

  /**
   * Gives a lease back, once; one that cannot be (Redis away) lapses after its ttl. The ZREM is
   * written to the connection as the function is called (the client has no offline queue and does
   * not pipeline), so every command this node sends after it reaches Redis after it.
   */
  const giveBack = (redisKey: string, id: string) => {
    let released = false
    return async () => {
      if (released) return
      released = true
      await answer(redis.zrem(redisKey, id)).catch((e: unknown) => failed(e))
    }
  }

  function failed(e: unknown): void {
    errors.inc()
    if (fallback || closed) return
    fallback = true
    fallbackGauge.set(1)
    logger?.warn(
      { err: errorText(e), nodes },
      `rate limiter: Redis unreachable; answering from this node's share of each budget (1/${nodes})`,
    )
  }

  function recovered(): void {
    if (!fallback) return
    fallback = false
    fallbackGauge.set(0)
    // The local logs only matter during an outage; a fresh limiter frees what the last one held.
    const old = local
    local = createMemoryRateLimiter()
    void old.close()
    logger?.info({ nodes }, 'rate limiter: Redis is back; budgets are shared again')
  }

  /**
   * This node's part of a budget while Redis is away: the limit divided among the nodes, but never less
   * than what a call the plan affords costs: an engagement (2 units) on a 5-per-second plan over three
   * nodes would otherwise meet a share of 1 and be refused for as long as Redis stayed away, each time
   * with a Retry-After that does not hold.
   */
  const share = (limit: number, cost: number): number => Math.max(1, Math.floor(limit / nodes), Math.min(limit, cost))

  async function localTake(key: string, limit: number, cost: number, at: number): Promise<TimedDecision> {
    localDecisions.inc()
    const d = await local.take(key, share(limit, cost), cost, at)
    return { ...d, limit, at }
  }

  let beating: Promise<void> | undefined
  async function heartbeat(): Promise<void> {
    if (closed) return
    beating ??= (async () => {
      try {
        const n = Number(await run(HEARTBEAT, nodesKey, [nodeId, nodeTtlMs]))
        if (Number.isFinite(n) && n >= 1) {
          nodes = n
          nodesGauge.set(n)
        }
        recovered()
      } catch (e) {
        failed(e)
      } finally {
        beating = undefined
      }
    })()
    return beating
  }

  // Back as soon as ioredis has reconnected, not at the next tick.
  redis.on('ready', () => {
    if (fallback) void heartbeat()
  })

  await new Promise<void>((resolve) => {
    if (redis.status === 'ready') return resolve()
    const timer = setTimeout(done, opts.connectTimeoutMs ?? 1000)
    redis.once('ready', done)
    function done() {
      clearTimeout(timer)
      redis.off('ready', done)
      resolve()
    }
  })
  await heartbeat()
  const ticker = setInterval(() => void heartbeat(), heartbeatMs)
  ticker.unref()

  return {
    async take(key, limit, cost, at) {
      if (!fallback) {
        try {
          return decisionOf(await takes.add({ key: `${prefix}rl:${key}`, args: [limit, cost, callerClock ? String(at) : '', keyTtlMs] }), limit)
        } catch (e) {
          failed(e)
        }
      }
      return localTake(key, limit, cost, at)
    },

    async lease(key, limit, ttlMs) {
      if (!fallback) {
        const redisKey = `${prefix}lease:${key}`
        const id = `${nodeId}:${++leaseSeq}`
        try {
          return Number(await run(LEASE, redisKey, [limit, ttlMs, id])) === 1 ? giveBack(redisKey, id) : undefined
        } catch (e) {
          failed(e)
        }
      }
      localDecisions.inc()
      return local.lease(key, share(limit, 1), ttlMs)
    },

    async takeAndLease(key, limit, cost, at, lease) {
      if (!fallback) {
        const leaseKey = `${prefix}lease:${lease.key}`
        const id = `${nodeId}:${++leaseSeq}`
        try {
          const r = (await run(TAKE_AND_LEASE, [`${prefix}rl:${key}`, leaseKey], [
            limit,
            cost,
            callerClock ? String(at) : '',
            keyTtlMs,
            lease.limit,
            lease.ttlMs,
            id,
          ])) as [...TakeReply, number]
          return { decision: decisionOf(r, limit), release: Number(r[5]) === 1 ? giveBack(leaseKey, id) : undefined }
        } catch (e) {
          failed(e)
        }
      }
      const decision = await localTake(key, limit, cost, at)
      localDecisions.inc()
      return { decision, release: decision.ok ? await local.lease(lease.key, share(lease.limit, 1), lease.ttlMs) : undefined }
    },

    status: () => ({ fallback, nodes }),
    heartbeat,

    async close() {
      if (closed) return
      clearInterval(ticker)
      await beating
      closed = true
      // Leave the node count at once rather than when the heartbeat lapses.
      if (redis.status === 'ready') await answer(redis.zrem(nodesKey, nodeId)).catch(() => {})
      await closeRedisClient(redis)
      await local.close()
    },
  }
}
