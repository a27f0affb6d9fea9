/**
 * Fetch locks shared by every node of a scale-out deployment (REDIS_URL). A lock is a key set with
 * NX and an expiry, holding a token of its taker's; its release deletes the key only while it still
 * holds that token (a Lua compare-and-delete, atomic on the server), so a release that comes after
 * the lock lapsed and another node took it leaves the other's lock alone. A failure note is a key
 * with an expiry too. Every key has one, so nothing is left behind by a node that dies.
 *
 * A command fails rather than waits while Redis is away or slow (no offline queue, a reply deadline):
 * the caller then fetches on its own, as it would without Redis.
 */
import { createHash, randomBytes } from 'node:crypto'
import { lifetimeMs, type FetchLocks } from '../../ports/fetch-locks.ts'
import { closeRedisClient } from './close-client.ts'
import { failFastRedis } from './fail-fast-client.ts'
import { withReplyDeadline } from './reply-deadline.ts'

export interface RedisFetchLocksOptions {
  /** redis://… (REDIS_URL). The locks open their own connection. */
  url: string
  /** Prefix of every key written (default 'pronet:fetch:'). */
  prefix?: string
  /** A command not answered within this many ms fails (default 250). */
  commandTimeoutMs?: number
  /** How long creation waits for the first connection before going on without it (default 1000). */
  connectTimeoutMs?: number
}

/** Deletes KEYS[1] if it holds ARGV[1]; returns how many keys it deleted. */
const RELEASE_LUA = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end"
const RELEASE_SHA = createHash('sha1').update(RELEASE_LUA).digest('hex')

/** Redis takes whole ms: a fractional lifetime is rounded up, never down to nothing. */
const wholeMs = (ms: number): number => Math.ceil(lifetimeMs(ms))

export async function createRedisFetchLocks(opts: RedisFetchLocksOptions): Promise<FetchLocks> {
  const prefix = opts.prefix ?? 'pronet:fetch:'
  const replyTimeoutMs = opts.commandTimeoutMs ?? 250
  const connectTimeoutMs = opts.connectTimeoutMs ?? 1000
  const lockKey = (key: string) => `${prefix}lock:${key}`
  const failureKey = (key: string) => `${prefix}failure:${key}`

  // A SET NX queued while Redis is away and sent after its caller gave up would take a lock no one
  // releases: commands fail at once instead.
  const redis = failFastRedis(opts.url, replyTimeoutMs, connectTimeoutMs)

  await new Promise<void>((resolve) => {
    if (redis.status === 'ready') return resolve()
    const timer = setTimeout(done, connectTimeoutMs)
    redis.once('ready', done)
    function done() {
      clearTimeout(timer)
      redis.off('ready', done)
      resolve()
    }
  })

  const answer = <T>(reply: Promise<T>): Promise<T> => withReplyDeadline(reply, replyTimeoutMs)

  async function release(key: string, token: string): Promise<void> {
    try {
      await answer(redis.evalsha(RELEASE_SHA, 1, key, token))
    } catch (e) {
      if (!(e instanceof Error && e.message.startsWith('NOSCRIPT'))) throw e
      await answer(redis.eval(RELEASE_LUA, 1, key, token))
    }
  }

  return {
    async tryTake(key, ttlMs) {
      const k = lockKey(key)
      const token = randomBytes(16).toString('base64url')
      if ((await answer(redis.set(k, token, 'PX', wholeMs(ttlMs), 'NX'))) !== 'OK') return undefined
      let released = false
      return async () => {
        if (released) return
        released = true
        // A lock that cannot be given back lapses after its ttl.
        await release(k, token).catch(() => {})
      }
    },
    async held(key) {
      return (await answer(redis.exists(lockKey(key)))) === 1
    },
    async noteFailure(key, code, ms) {
      await answer(redis.set(failureKey(key), code, 'PX', wholeMs(ms)))
    },
    async failure(key) {
      return (await answer(redis.get(failureKey(key)))) ?? undefined
    },
    async close() {
      await closeRedisClient(redis)
    },
  }
}
