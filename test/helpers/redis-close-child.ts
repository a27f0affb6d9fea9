/**
 * A process of its own for redis-unreachable-close.test.ts: creates the rate limiter and the
 * invalidation bus on the Redis URL given as its argument, closes both, prints "closed", and then
 * must end by itself. It never calls process.exit, so a socket or timer the adapters leave behind
 * keeps it running, which the test sees as a process that does not exit.
 */
import { createRedisInvalidationBus } from '../../src/adapters/redis/redis-invalidation-bus.ts'
import { createRedisRateLimiter } from '../../src/adapters/redis/redis-rate-limiter.ts'

const url = process.argv[2]
if (!url) throw new Error('usage: redis-close-child.ts <redis url>')

const limiter = await createRedisRateLimiter({ url, connectTimeoutMs: 300 })
const bus = await createRedisInvalidationBus({ url, connectTimeoutMs: 300 })
// Used once while Redis is away, as a serving node would: the limiter answers locally, the publish fails quietly.
await limiter.take('k', 5, 1, Date.now())
await bus.publish({ kind: 'resync' })
await Promise.all([limiter.close(), bus.close()])
process.stdout.write('closed\n')
