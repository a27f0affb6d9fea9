/**
 * Whether the Redis that REDIS_URL names has the database its path names. ioredis selects it on
 * connecting, and when Redis refuses (`ERR DB index is out of range`: /99 on a Redis of 16) it only
 * emits an error event and goes on in database 0, where this node's budgets and leases would be
 * shared with nobody else's and mixed into whatever else uses it. A Redis that cannot be reached
 * now is not a failure here: the node starts on its local share and joins when Redis comes (the rate
 * limiter's fallback), and then selects as it does now. A Redis that refuses REDIS_URL's credentials
 * (WRONGPASS, NOAUTH) is reached but will never be joined, so it is refused at start: taken for "not
 * reachable yet", each node would run on its own share of every budget for good, and say nothing.
 */
import { Redis } from 'ioredis'
import { redactUrl, StartupError } from '../../config/startup-failure.ts'

export async function checkRedisDatabase(url: string, connectTimeoutMs = 1000): Promise<void> {
  let refused: string | undefined
  let unauthorised: string | undefined
  const client = new Redis(url, { lazyConnect: true, connectTimeout: connectTimeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false })
  client.on('error', (e: Error) => {
    if (/DB index is out of range|invalid DB index/i.test(e.message)) refused = e.message
    // Redis's reply names neither the user's password nor the one it expected.
    if (/^(WRONGPASS|NOAUTH)\b/.test(e.message)) unauthorised = e.message.split(' ')[0]
  })
  try {
    await client.connect()
  } catch {
    if (unauthorised === undefined) return
  } finally {
    client.disconnect()
  }
  if (unauthorised !== undefined) {
    throw new StartupError(`REDIS_URL ${redactUrl(url)} was refused by Redis (${unauthorised}): check the user name and password it carries`)
  }
  if (refused !== undefined) {
    const db = new URL(url).pathname.slice(1)
    throw new StartupError(`REDIS_URL names database ${db}, which this Redis does not have (${refused}); use one of its databases, such as /0`)
  }
}
