/**
 * The invalidation bus across nodes: Redis pub/sub on one channel. Publishing uses a short-timeout
 * connection and never fails the caller (the change is already stored; the key cache's one-second
 * bound covers a lost message). The subscriber has a connection of its own; after it reconnects it
 * hands its subscribers a 'resync', since messages sent while it was away are gone.
 */
import { Redis } from 'ioredis'
import type { InvalidationBus, InvalidationMessage } from '../../ports/invalidation-bus.ts'
import { closeRedisClient, DISCONNECT_TIMEOUT_MS } from './close-client.ts'
import type { LimiterLogger } from './redis-rate-limiter.ts'

export interface RedisInvalidationBusOptions {
  /** redis://… (REDIS_URL). The bus opens two connections: one publishes, one listens. */
  url: string
  /** Pub/sub channel (default 'pronet:invalidate'); nodes of one deployment share it. */
  channel?: string
  logger?: LimiterLogger
  /** A publish not answered within this many ms is given up (default 500). */
  commandTimeoutMs?: number
  /** How long creation waits for the subscription before going on without it (default 1000). */
  connectTimeoutMs?: number
}

const KINDS = new Set(['key-revoked', 'account-suspended', 'account-resumed', 'subscription-changed', 'test-clock', 'resync'])

function parse(text: string): InvalidationMessage | undefined {
  try {
    const m = JSON.parse(text) as { kind?: unknown; offset?: unknown }
    if (typeof m !== 'object' || m === null || typeof m.kind !== 'string' || !KINDS.has(m.kind)) return undefined
    if (m.kind === 'test-clock' && !Number.isFinite(m.offset)) return undefined
    return m as InvalidationMessage
  } catch {
    return undefined
  }
}

export async function createRedisInvalidationBus(opts: RedisInvalidationBusOptions): Promise<InvalidationBus> {
  const channel = opts.channel ?? 'pronet:invalidate'
  const connectTimeoutMs = opts.connectTimeoutMs ?? 1000
  const retryStrategy = (times: number) => Math.min(100 * times, 1000)
  const publisher = new Redis(opts.url, {
    commandTimeout: opts.commandTimeoutMs ?? 500,
    connectTimeout: connectTimeoutMs,
    disconnectTimeout: DISCONNECT_TIMEOUT_MS,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy,
  })
  // The subscriber queues its SUBSCRIBE until connected and subscribes again after each reconnect.
  const subscriber = new Redis(opts.url, {
    connectTimeout: connectTimeoutMs,
    disconnectTimeout: DISCONNECT_TIMEOUT_MS,
    retryStrategy,
    maxRetriesPerRequest: null,
  })
  publisher.on('error', () => {})
  subscriber.on('error', () => {})

  const handlers = new Set<(message: InvalidationMessage) => void>()
  const deliver = (message: InvalidationMessage) => {
    for (const handler of [...handlers]) {
      try {
        handler(message)
      } catch (err) {
        opts.logger?.warn({ err: err instanceof Error ? err.message : String(err) }, 'invalidation bus: a subscriber failed')
      }
    }
  }
  subscriber.on('message', (from: string, text: string) => {
    if (from !== channel) return
    const message = parse(text)
    if (message) deliver(message)
  })
  // Until creation is over, a connection is the first one; any later one follows a gap.
  let creating = true
  let lost = false
  let closing = false
  subscriber.on('close', () => {
    if (!creating && !lost && !closing) {
      lost = true
      opts.logger?.warn({ channel }, 'invalidation bus: lost its Redis subscription; key caches fall back to their 1 s bound')
    }
  })
  subscriber.on('ready', () => {
    if (!creating) {
      // Once Redis has the subscription again (subscribing twice is harmless), nothing more is
      // missed: forget what may have changed while away.
      subscriber.subscribe(channel).then(
        () => {
          lost = false
          opts.logger?.info({ channel }, 'invalidation bus: subscribed again')
          deliver({ kind: 'resync' })
        },
        () => {},
      )
    }
  })

  const subscribed = subscriber.subscribe(channel).then(
    () => true,
    () => false,
  )
  const publisherReady = new Promise<boolean>((resolve) => {
    if (publisher.status === 'ready') resolve(true)
    else publisher.once('ready', () => resolve(true))
  })
  const both = Promise.all([subscribed, publisherReady]).then(([s, p]) => s && p)
  let waited: NodeJS.Timeout | undefined
  const inTime = await Promise.race([both, new Promise<boolean>((r) => (waited = setTimeout(() => r(false), connectTimeoutMs)))])
  clearTimeout(waited)
  if (!inTime) opts.logger?.warn({ channel }, 'invalidation bus: Redis not reachable yet; subscribing when it is')
  creating = false

  return {
    async publish(message) {
      try {
        await publisher.publish(channel, JSON.stringify(message))
      } catch (err) {
        opts.logger?.warn({ err: err instanceof Error ? err.message : String(err), message }, 'invalidation bus: publish failed; other nodes rely on their 1 s key cache bound')
      }
    },
    subscribe(handler) {
      handlers.add(handler)
      return () => handlers.delete(handler)
    },
    async close() {
      closing = true
      handlers.clear()
      // Not quit(): with Redis away, the subscriber's QUIT would wait behind its queued SUBSCRIBE for
      // a connection that never comes, and the node's shutdown with it.
      await Promise.all([publisher, subscriber].map((c) => closeRedisClient(c)))
    },
  }
}
