import { openSqlite } from '../../src/adapters/sqlite/database.ts'
import { createSqliteAccountStore } from '../../src/adapters/sqlite/sqlite-account-store.ts'
import { createSqliteIdentityStore } from '../../src/adapters/sqlite/sqlite-identity-store.ts'
import { accountOf, keyOf } from './account-store.contract.ts'
import { runIdentityStoreContract } from './identity-store.contract.ts'

runIdentityStoreContract('sqlite', async () => {
  const db = openSqlite(':memory:')
  const store = createSqliteIdentityStore(db)
  const accounts = createSqliteAccountStore(db)
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
      db.close()
    },
  }
})
