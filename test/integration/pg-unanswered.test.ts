/**
 * A PostgreSQL server that stops answering (hung, or cut off by the network) without closing anything,
 * made deterministic by the TCP proxy of test/helpers/pg-proxy.ts ('hang'). The server's statement
 * timeout never fires then; the pool's own query timeout (database.ts: queryTimeoutMs) must:
 *  - a query on an idle pooled connection fails as unavailable (503), its connection is closed, and
 *    the pool serves again once the server answers: before, it waited as long as the stall lasted
 *    (45 s in a failure probe, then 200 and billed);
 *  - a transaction cut off so is not rolled back on the stuck connection (which would wait as long
 *    again) but closed;
 *  - the waits that may last minutes on purpose (another node's migrations or seeding, under an
 *    advisory lock) are not cut off by it.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { endFailedTransaction, isQueryTimeout, openPostgres, withAdvisoryLock, type PgPool } from '../../src/adapters/postgres/database.ts'
import { isPgUnavailable } from '../../src/adapters/postgres/pg-errors.ts'
import { ADMIN_URL, createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'
import { startPgProxy, type PgProxy } from '../helpers/pg-proxy.ts'

const up = await postgresAvailable()

describe('endFailedTransaction', () => {
  const client = (rollback: () => Promise<unknown>) => {
    const sent: string[] = []
    return {
      sent,
      client: {
        query: (sql: string) => {
          sent.push(sql)
          return rollback()
        },
      } as unknown as pg.ClientBase,
    }
  }

  it('closes the connection after the pool’s own timeout without sending a ROLLBACK behind the stuck query', async () => {
    const timeout = new Error('Query read timeout')
    const c = client(async () => ({}))
    expect(isQueryTimeout(timeout)).toBe(true)
    expect(await endFailedTransaction(c.client, timeout)).toBe(timeout)
    expect(c.sent).toEqual([])
  })

  it('rolls back after any other failure, and closes a connection that cannot roll back', async () => {
    const ok = client(async () => ({}))
    expect(await endFailedTransaction(ok.client, new Error('duplicate key'))).toBeUndefined()
    expect(ok.sent).toEqual(['ROLLBACK'])
    const lost = new Error('Connection terminated unexpectedly')
    const broken = client(async () => Promise.reject(lost))
    expect(await endFailedTransaction(broken.client, new Error('duplicate key'))).toBe(lost)
  })
})

describe.skipIf(!up)('PostgreSQL that stops answering', () => {
  let db: { url: string; drop(): Promise<void> }
  let proxy: PgProxy
  const pools: PgPool[] = []

  beforeAll(async () => {
    db = await createTestDatabase('pronet_hang')
    const admin = new URL(ADMIN_URL)
    proxy = await startPgProxy({ host: admin.hostname, port: Number(admin.port || 5432) })
  })
  afterAll(async () => {
    proxy?.heal()
    await Promise.all(pools.map((p) => p.end().catch(() => {})))
    await proxy?.close()
    await db?.drop()
  })

  const open = (options: Parameters<typeof openPostgres>[1]) => {
    const pool = openPostgres(proxy.url(db.url), options)
    pools.push(pool)
    return pool
  }

  it('fails a query on an idle pooled connection as unavailable, closes that connection, and serves again once the server answers', async () => {
    const pool = open({ max: 2, queryTimeoutMs: 300 })
    await pool.query('SELECT 1')
    expect(pool.idleCount).toBe(1)
    const cut = proxy.arm({ match: (sql) => sql === 'SELECT 2', effect: 'hang', outageMs: 60_000 })
    const failure = await pool.query('SELECT 2').then(
      () => undefined,
      (e: unknown) => e,
    )
    await cut
    expect(isQueryTimeout(failure)).toBe(true)
    expect(isPgUnavailable(failure)).toBe(true)
    // The stuck connection is gone, not lent again to the next query.
    expect(pool.totalCount).toBe(0)
    proxy.heal()
    expect((await pool.query<{ n: number }>('SELECT 3 AS n')).rows[0]?.n).toBe(3)
  })

  it('does not cut off a wait for an advisory lock held by another node longer than the query timeout', async () => {
    const pool = open({ max: 2, queryTimeoutMs: 200 })
    const other = new pg.Client({ connectionString: db.url })
    await other.connect()
    try {
      const key = 7_041_172_999
      await other.query('SELECT pg_advisory_lock($1)', [key])
      let ran = false
      const waiting = withAdvisoryLock(pool, key, async () => {
        ran = true
      })
      // Held for five times the query timeout, then let go.
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      expect(ran).toBe(false)
      await other.query('SELECT pg_advisory_unlock($1)', [key])
      await waiting
      expect(ran).toBe(true)
    } finally {
      await other.end()
    }
  })
})
