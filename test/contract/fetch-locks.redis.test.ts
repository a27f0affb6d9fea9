/**
 * The FetchLocks contract on Redis, with two connections standing for two nodes, and what only Redis
 * has: every key under the prefix and with an expiry, and a Redis that cannot be reached failing each
 * call at once rather than holding it. A generous command timeout keeps a busy test machine from
 * failing a command.
 */
import { Redis } from 'ioredis'
import { describe, expect, it } from 'vitest'
import { createRedisFetchLocks } from '../../src/adapters/redis/redis-fetch-locks.ts'
import { REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.ts'
import { runFetchLocksContract } from './fetch-locks.contract.ts'

const hasRedis = await redisAvailable()
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

runFetchLocksContract(
  'redis',
  async () => {
    const prefix = uniquePrefix('fetch-locks')
    const locks = await createRedisFetchLocks({ url: REDIS_URL, prefix, commandTimeoutMs: 5_000 })
    const other = await createRedisFetchLocks({ url: REDIS_URL, prefix, commandTimeoutMs: 5_000 })
    return {
      locks,
      other,
      pass: sleep,
      async dispose() {
        await locks.close()
        await other.close()
      },
    }
  },
  { skip: !hasRedis },
)

describe.skipIf(!hasRedis)('redis fetch locks', () => {
  it('writes every key under its prefix, each with an expiry no longer than asked', async () => {
    const prefix = uniquePrefix('fetch-locks-keys')
    const locks = await createRedisFetchLocks({ url: REDIS_URL, prefix, commandTimeoutMs: 5_000 })
    const raw = new Redis(REDIS_URL, { maxRetriesPerRequest: 0 })
    try {
      const release = await locks.tryTake('rec', 10_000)
      await locks.noteFailure('rec', 'UPSTREAM_TIMEOUT', 5_000)
      expect((await raw.keys(`${prefix}*`)).sort()).toEqual([`${prefix}failure:rec`, `${prefix}lock:rec`])
      const lockTtl = await raw.pttl(`${prefix}lock:rec`)
      const failureTtl = await raw.pttl(`${prefix}failure:rec`)
      expect(lockTtl).toBeGreaterThan(0)
      expect(lockTtl).toBeLessThanOrEqual(10_000)
      expect(failureTtl).toBeGreaterThan(0)
      expect(failureTtl).toBeLessThanOrEqual(5_000)
      await release?.()
      expect(await raw.keys(`${prefix}*`)).toEqual([`${prefix}failure:rec`])
    } finally {
      await locks.close()
      raw.disconnect()
    }
  })

  it('the default prefix is pronet:fetch:', async () => {
    const locks = await createRedisFetchLocks({ url: REDIS_URL, commandTimeoutMs: 5_000 })
    const raw = new Redis(REDIS_URL, { maxRetriesPerRequest: 0 })
    const key = uniquePrefix('fetch-locks-default')
    try {
      const release = await locks.tryTake(key, 10_000)
      expect(await raw.exists(`pronet:fetch:lock:${key}`)).toBe(1)
      await release?.()
      expect(await raw.exists(`pronet:fetch:lock:${key}`)).toBe(0)
    } finally {
      await locks.close()
      raw.disconnect()
    }
  })
})

describe('redis fetch locks with no Redis to reach', () => {
  it('fail each call, and close', async () => {
    // Nothing listens on port 1: every connection attempt is refused.
    const locks = await createRedisFetchLocks({ url: 'redis://127.0.0.1:1', connectTimeoutMs: 100 })
    try {
      await expect(locks.tryTake('k', 1_000)).rejects.toThrow()
      await expect(locks.held('k')).rejects.toThrow()
      await expect(locks.noteFailure('k', 'X', 1_000)).rejects.toThrow()
      await expect(locks.failure('k')).rejects.toThrow()
    } finally {
      await locks.close()
    }
  })
})
