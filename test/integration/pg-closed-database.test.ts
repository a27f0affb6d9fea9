/**
 * A PostgreSQL database closed to connections for a while (ALTER DATABASE … ALLOW_CONNECTIONS false,
 * as during maintenance or a failover: connect fails with SQLSTATE 55000) is an outage like any other:
 * 503 SERVICE_UNAVAILABLE with Retry-After, nothing billed, and service again once it reopens. A
 * black-box probe saw it answered as a 500 INTERNAL_ERROR.
 */
// @one-backend: a PostgreSQL database of its own, which it closes (vitest.config.ts runs it once)
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fixtureRecords } from '../helpers/ingest-fixtures.ts'
import { ADMIN_URL, createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'

describe.skipIf(!(await postgresAvailable()))('a PostgreSQL database that refuses connections', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let t: TestApp
  let admin: pg.Client
  const name = () => new URL(db.url).pathname.slice(1)

  beforeAll(async () => {
    db = await createTestDatabase('pronet_closed')
    t = await makeTestApp({ env: { DATABASE_URL: db.url }, records: fixtureRecords() })
    admin = new pg.Client({ connectionString: ADMIN_URL })
    await admin.connect()
  })
  afterAll(async () => {
    await admin.query(`ALTER DATABASE ${name()} ALLOW_CONNECTIONS true`).catch(() => {})
    await admin.end()
    await t.close()
    await db.drop()
  })

  it('answers 503 with Retry-After while it is closed, bills nothing, and serves again once it opens', async () => {
    expect((await t.get('/api/v1/profile?profileUrlOrUrn=member-1')).statusCode).toBe(200)
    const before = (await t.c.ledger.entries(t.accountId)).length

    await admin.query(`ALTER DATABASE ${name()} ALLOW_CONNECTIONS false`)
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name()])
    const statuses: number[] = []
    // Each call is answered once the store has given up reaching the database (about 5 s).
    for (let i = 0; i < 2; i++) {
      const res = await t.get('/api/v1/profile?profileUrlOrUrn=member-1')
      statuses.push(res.statusCode)
      expect(res.statusCode, res.body).toBe(503)
      expect(res.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' })
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1)
      expect(res.headers['x-credits-charged']).toBe('0')
    }
    expect(statuses).toEqual([503, 503])

    await admin.query(`ALTER DATABASE ${name()} ALLOW_CONNECTIONS true`)
    let back = 0
    for (let i = 0; i < 50 && back !== 200; i++) {
      back = (await t.get('/api/v1/profile?profileUrlOrUrn=member-1')).statusCode
      if (back !== 200) await new Promise((r) => setTimeout(r, 100))
    }
    expect(back).toBe(200)
    // The one call served after reopening is the only new debit.
    const debits = (await t.c.ledger.entries(t.accountId)).slice(before).filter((e) => e.kind === 'debit')
    expect(debits).toHaveLength(1)
  }, 60_000)
})
