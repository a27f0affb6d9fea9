/**
 * Whether the Redis that REDIS_URL names has the database its path names. ioredis selects it on
 * connecting, and when Redis refuses (`ERR DB index is out of range`: /99 on a Redis of 16) it only
 * emits an error event and goes on in database 0, where this node's budgets and leases would be
 * shared with nobody else's and mixed into whatever else uses it. A Redis that cannot be reached
 * now is not a failure here: the node starts on its local share and joins when Redis comes (D4's
 * fallback), and then selects as it does now.
 */
import { Redis } from 'ioredis'
import { StartupError } from '../../config/startup-failure.ts'

export async function checkRedisDatabase(url: string, connectTimeoutMs = 1000): Promise<void> {
  let refused: string | undefined
  const client = new Redis(url, { lazyConnect: true, connectTimeout: connectTimeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false })
  client.on('error', (e: Error) => {
    if (/DB index is out of range|invalid DB index/i.test(e.message)) refused = e.message
  })
  try {
    await client.connect()
  } catch {
    return
  } finally {
    client.disconnect()
  }
  if (refused !== undefined) {
    const db = new URL(url).pathname.slice(1)
    throw new StartupError(`REDIS_URL names database ${db}, which this Redis does not have (${refused}); use one of its databases, such as /0`)
  }
}
