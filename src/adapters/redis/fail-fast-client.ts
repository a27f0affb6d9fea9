/**
 * A Redis connection for work that must not wait for Redis: a command fails at once while Redis is
 * away (no offline queue), one cut off by a dropped connection is not sent again, and the client
 * reconnects in the background. Callers await replies with withReplyDeadline; the command timeout
 * here only lets ioredis drop a command a partitioned Redis never answers, long after its caller
 * moved on.
 */
import { Redis } from 'ioredis'
import { DISCONNECT_TIMEOUT_MS } from './close-client.ts'

export function failFastRedis(url: string, replyTimeoutMs: number, connectTimeoutMs: number): Redis {
  const redis = new Redis(url, {
    commandTimeout: 10 * replyTimeoutMs,
    connectTimeout: connectTimeoutMs,
    disconnectTimeout: DISCONNECT_TIMEOUT_MS,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (times) => Math.min(100 * times, 1000),
  })
  // Failures reach the caller of each command; the event only needs a listener.
  redis.on('error', () => {})
  return redis
}
