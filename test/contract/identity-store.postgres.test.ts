import { afterAll, beforeAll, describe } from 'vitest'
import { createPgAccountStore } from '../../src/adapters/postgres/pg-account-store.ts'
import { createPgIdentityStore } from '../../src/adapters/postgres/pg-identity-store.ts'
import { openTestDatabase, type PgTestDatabase } from '../helpers/pg-content.ts'
import { postgresAvailable } from '../helpers/postgres.ts'
import { accountOf, keyOf } from './account-store.contract.ts'
import { runIdentityStoreContract } from './identity-store.contract.ts'

const available = await postgresAvailable()

describe.skipIf(!available)('postgres identity store', () => {
  let db: PgTestDatabase
  beforeAll(async () => {
    db = await openTestDatabase()
  })
  afterAll(async () => {
    await db?.close()
  })

  runIdentityStoreContract('postgres', async () => {
    // CASCADE: the ledger's tables, and tables of other features, reference accounts and users.
    await db.pool.query('TRUNCATE users, memberships, console_sessions, email_tokens, sign_in_failures, accounts, api_keys CASCADE')
    const store = createPgIdentityStore(db.pool)
    const accounts = createPgAccountStore(db.pool)
    return {
      store,
      async makeAccount(n) {
        const account = accountOf(n)
        await accounts.createAccount(account, keyOf(n, account.id))
        return account.id
      },
      async dispose() {
        await store.close()
        await accounts.close()
      },
    }
  })
})
