import { openSqlite } from '../../src/adapters/sqlite/database.ts'
import { createSqliteContentStore } from '../../src/adapters/sqlite/sqlite-content-store.ts'
import { createSqliteSearchIndex } from '../../src/adapters/sqlite/sqlite-search-index.ts'
import { runSearchIndexContract } from './search-index.contract.ts'

runSearchIndexContract('sqlite', async () => {
  const db = openSqlite(':memory:')
  const store = createSqliteContentStore(db)
  return {
    store,
    index: createSqliteSearchIndex(db),
    async dispose() {
      await store.close()
      db.close()
    },
  }
})
