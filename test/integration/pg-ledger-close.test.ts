/**
 * A node that closes with no call running gives its holds back at once: right after a settle that
 * released its hold outside a batch (a free settle: a call that billed 0 after holding its price),
 * its row must not go on counting that hold until it lapses.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migratePostgres, openPostgres, type PgPool } from '../../src/adapters/postgres/database.ts'
import { createPgLedger } from '../../src/adapters/postgres/pg-ledger.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'

const up = await postgresAvailable()
const T0 = Date.UTC(2027, 2, 10, 12)
const newLotId = () => `lot_${randomBytes(6).toString('hex')}`

describe.skipIf(!up)('PostgreSQL ledger: close() after a free settle', () => {
  let db: { url: string; drop(): Promise<void> }
  let direct: PgPool

  beforeAll(async () => {
    db = await createTestDatabase('pronet_ledger_close')
    direct = openPostgres(db.url, { max: 4 })
    await migratePostgres(direct)
  })
  afterAll(async () => {
    await direct?.end()
    await db?.drop()
  })

  it('a node that closed with no call running holds nothing', async () => {
    const id = `acc_${randomBytes(6).toString('hex')}`
    await direct.query(
      `INSERT INTO accounts (id, name, created_at, suspended_at, plan, status, credits_limit, rps_limit, anchor_at)
       VALUES ($1, 't', $2, NULL, 'custom', 'active', 10, 10, $2)`,
      [id, T0],
    )
    const pool = openPostgres(db.url, { max: 4 })
    const ledger = createPgLedger(pool, { newLotId })
    const held = await ledger.hold(id, 10, T0)
    if (!held.ok) throw new Error('refused')
    // The call answered a 500: it bills nothing and releases its hold in memory.
    expect(await ledger.settle(held.hold, { accountId: id, at: T0, endpoint: '/api/v1/profile', status: 500, credits: 0, requestId: `c-${id}` })).toEqual({ ok: true, charged: 0 })
    await ledger.close()
    await pool.end()
    const rows = await direct.query<{ credits: string; expires_at: string }>('SELECT credits, expires_at FROM node_holds WHERE account_id = $1', [id])
    expect(rows.rows.filter((r) => r.credits !== '0')).toEqual([])
  })
})
