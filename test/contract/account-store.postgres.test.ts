import { afterAll, beforeAll, describe } from 'vitest'
import { createPgAccountStore } from '../../src/adapters/postgres/pg-account-store.ts'
import { openTestDatabase, type PgTestDatabase } from '../helpers/pg-content.ts'
import { postgresAvailable } from '../helpers/postgres.ts'
import { runAccountStoreContract } from './account-store.contract.ts'

const available = await postgresAvailable()

describe.skipIf(!available)('postgres account store', () => {
  let db: PgTestDatabase
  beforeAll(async () => {
    db = await openTestDatabase()
  })
  afterAll(async () => {
    await db?.close()
  })

  runAccountStoreContract('postgres', async () => {
    // CASCADE: the ledger's tables (migration 003, another branch) reference accounts.
    await db.pool.query('TRUNCATE accounts, api_keys CASCADE')
    const store = createPgAccountStore(db.pool)
    return {
      store,
      async dispose() {
        await store.close()
      },
    }
  })
})
