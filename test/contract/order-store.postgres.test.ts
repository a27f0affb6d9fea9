import { afterAll, beforeAll, describe } from 'vitest'
import { openPostgres, type PgPool } from '../../src/adapters/postgres/database.ts'
import { createPgOrderStore } from '../../src/adapters/postgres/pg-order-store.ts'
import { openTestDatabase, type PgTestDatabase } from '../helpers/pg-content.ts'
import { postgresAvailable } from '../helpers/postgres.ts'
import { runOrderStoreContract } from './order-store.contract.ts'

const available = await postgresAvailable()
let accounts = 0

describe.skipIf(!available)('postgres order store', () => {
  let db: PgTestDatabase
  beforeAll(async () => {
    db = await openTestDatabase('pronet_orders')
  })
  afterAll(async () => {
    await db?.close()
  })

  runOrderStoreContract('postgres', async () => {
    await db.pool.query('TRUNCATE orders, order_events')
    // A second pool stands for another node on the same database.
    const pools: PgPool[] = []
    return {
      store: createPgOrderStore(db.pool),
      async another() {
        const pool = openPostgres(db.url, { max: 4 })
        pools.push(pool)
        return createPgOrderStore(pool)
      },
      async createAccount() {
        const id = `acc_${++accounts}`
        await db.pool.query(
          `INSERT INTO accounts (id, name, created_at, plan, status, credits_limit, rps_limit, anchor_at) VALUES ($1, 't', 0, 'free', 'free', 1000, 5, 0)`,
          [id],
        )
        return id
      },
      async dispose() {
        for (const pool of pools) await pool.end()
      },
    }
  })
})
