/**
 * A pooled PostgreSQL client whose session the server ends while the client is checked out between
 * two queries (pg_terminate_backend, a restart, a failover, idle_session_timeout): node-postgres emits
 * 'error' on it, and the pool has taken its own listener off while it is lent. Without one of ours
 * that was an uncaught error and the node died (found by a crash probe: two nodes under load, backends
 * terminated every 0.3 s). The failure must reach the next query on that client instead, as an outage
 * (503), and the pool must go on with a fresh connection.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openPostgres, type PgPool } from '../../src/adapters/postgres/database.ts'
import { isPgUnavailable } from '../../src/adapters/postgres/pg-errors.ts'
import { ADMIN_URL, createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'

describe.skipIf(!(await postgresAvailable()))('a checked-out PostgreSQL client whose session is terminated', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let pool: PgPool
  let admin: pg.Client

  beforeAll(async () => {
    db = await createTestDatabase('pronet_term')
    pool = openPostgres(db.url, { max: 2 })
    admin = new pg.Client({ connectionString: ADMIN_URL })
    await admin.connect()
  })
  afterAll(async () => {
    await admin.end()
    await pool.end()
    await db.drop()
  })

  it('does not take the process down: the next query on it fails as an outage, and the pool serves on', async () => {
    const uncaught: unknown[] = []
    const onUncaught = (e: unknown) => uncaught.push(e)
    process.on('uncaughtException', onUncaught)
    try {
      const client = await pool.connect()
      const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid
      // Terminated while lent and idle, between two of its queries.
      await admin.query('SELECT pg_terminate_backend($1)', [pid])
      // The server's FATAL message arrives, then the socket closes.
      await new Promise((r) => setTimeout(r, 300))
      const failure = await client.query('SELECT 1').then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(failure).toBeDefined()
      expect(isPgUnavailable(failure), String(failure)).toBe(true)
      client.release()
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1)
    } finally {
      process.off('uncaughtException', onUncaught)
    }
    expect(uncaught).toEqual([])
  })
})
