/**
 * A Redis connection for work that must not wait for Redis: a command fails at once while Redis is
 * away (no offline queue), one cut off by a dropped connection is not sent again, and the client
 * reconnects in the background. Callers await replies with withReplyDeadline; the command timeout
 * here only lets ioredis drop a command a partitioned Redis never answers, long after its caller
 * moved on.
 */
import { Redis } from 'ioredis'
import { DISCONNECT_TIMEOUT_MS } from './close-client.ts'

export function failFastRedis(url: string, replyTimeoutMs: number, connectTimeoutMs: number, options: { autoPipelining?: boolean } = {}): Redis {
  const redis = new Redis(url, {
    // The commands of one event-loop turn in one write (and one read of their replies), rather than a
    // system call each: under load, a node's calls take their budgets in a handful of writes.
    enableAutoPipelining: options.autoPipelining ?? false,
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
