import { createSqliteContentStore } from '../../src/adapters/sqlite/sqlite-content-store.ts'
import { openSqlite } from '../../src/adapters/sqlite/database.ts'
import { runContentStoreContract } from './content-store.contract.ts'

runContentStoreContract('sqlite', async () => {
  const db = openSqlite(':memory:')
  const store = createSqliteContentStore(db)
  return {
    store,
    async dispose() {
      await store.close()
      db.close()
    },
  }
})
