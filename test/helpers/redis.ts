/**
 * Redis for tests: the machine's server (PRONET_TEST_REDIS_URL, default redis://127.0.0.1:6379).
 * Suites keep apart by key prefix (uniquePrefix), never by flushing. Under CI=true the server must be
 * there: a missing one fails the run; elsewhere the suites skip, and say so once on stderr.
 */
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'

export const REDIS_URL = process.env.PRONET_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const CI = process.env.CI === 'true' || process.env.CI === '1'

let reachable: Promise<boolean> | undefined

async function probe(): Promise<boolean> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2_000, retryStrategy: () => null })
  try {
    await client.connect()
    await client.ping()
    return true
  } catch (e) {
    if (CI) throw new Error(`CI=true but Redis is not reachable at ${REDIS_URL}: ${e instanceof Error ? e.message : String(e)}`)
    process.stderr.write(`\n[notice] Redis not reachable at ${REDIS_URL}: Redis suites are skipped (they run under CI=true).\n`)
    return false
  } finally {
    client.disconnect()
  }
}

/** Whether Redis suites run here (throws under CI when the server is missing). */
export function redisAvailable(): Promise<boolean> {
  reachable ??= probe()
  return reachable
}

/** A key prefix no other suite or run uses. */
export const uniquePrefix = (name: string): string => `pronet-test:${name}:${randomBytes(4).toString('hex')}:`
