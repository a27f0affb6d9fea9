/**
 * The RateLimiter contract on Redis in caller-clock mode (the `at` argument decides the window, so
 * the same deterministic expectations hold). A generous command timeout keeps a busy test machine
 * from tripping the fallback; each run checks that every decision came from Redis.
 */
import { expect } from 'vitest'
import { createRedisRateLimiter } from '../../src/adapters/redis/redis-rate-limiter.ts'
import { REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.ts'
import { runRateLimiterContract } from './rate-limiter.contract.ts'

const hasRedis = await redisAvailable()

runRateLimiterContract(
  'redis (caller clock)',
  async () => {
    const limiter = await createRedisRateLimiter({ url: REDIS_URL, clock: 'caller', prefix: uniquePrefix('rl-contract'), commandTimeoutMs: 5_000 })
    return {
      limiter,
      async dispose() {
        expect(limiter.status().fallback).toBe(false)
        await limiter.close()
      },
    }
  },
  { propertyRuns: 150, skip: !hasRedis },
)
