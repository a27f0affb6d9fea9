import { openSqlite } from '../../src/adapters/sqlite/database.ts'
import { createSqliteAccountStore } from '../../src/adapters/sqlite/sqlite-account-store.ts'
import { runAccountStoreContract } from './account-store.contract.ts'

runAccountStoreContract('sqlite', async () => {
  const db = openSqlite(':memory:')
  const store = createSqliteAccountStore(db)
  return {
    store,
    async dispose() {
      await store.close()
      db.close()
    },
  }
})
