/**
 * PostgreSQL for tests: each suite gets a database of its own, created on the machine's server
 * (PRONET_TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres) and dropped after.
 * Under CI=true the server must be there: a missing one fails the run. Elsewhere the suites skip,
 * and say so once on stderr.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'

export const ADMIN_URL = process.env.PRONET_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const CI = process.env.CI === 'true' || process.env.CI === '1'

let reachable: Promise<boolean> | undefined

async function probe(): Promise<boolean> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2_000 })
  try {
    await client.connect()
    await client.query('SELECT 1')
    return true
  } catch (e) {
    if (CI) throw new Error(`CI=true but PostgreSQL is not reachable at ${ADMIN_URL}: ${e instanceof Error ? e.message : String(e)}`)
    process.stderr.write(`\n[notice] PostgreSQL not reachable at ${ADMIN_URL}: PostgreSQL suites are skipped (they run under CI=true).\n`)
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

/** Whether PostgreSQL suites run here (throws under CI when the server is missing). */
export function postgresAvailable(): Promise<boolean> {
  reachable ??= probe()
  return reachable
}

/** A fresh empty database; returns its URL and a function that drops it. */
export async function createTestDatabase(prefix = 'pronet_t'): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: ADMIN_URL })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const a = new pg.Client({ connectionString: ADMIN_URL })
      await a.connect()
      try {
        await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await a.end()
      }
    },
  }
}
