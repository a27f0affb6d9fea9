import { describe } from 'vitest'
import { openPostgres } from '../../src/adapters/postgres/database.ts'
import { createPgStoreSettings } from '../../src/adapters/postgres/pg-store-settings.ts'
import { openTestDatabase } from '../helpers/pg-content.ts'
import { postgresAvailable } from '../helpers/postgres.ts'
import { runStoreSettingsContract } from './store-settings.contract.ts'

const available = await postgresAvailable()

describe.skipIf(!available)('postgres store settings', () => {
  runStoreSettingsContract('postgres', async () => {
    const db = await openTestDatabase()
    // Another node's pool on the same database.
    const second = openPostgres(db.url, { max: 1, applicationName: 'pronet-test-other' })
    return {
      settings: createPgStoreSettings(db.pool),
      other: createPgStoreSettings(second),
      async dispose() {
        await second.end()
        await db.close()
      },
    }
  })
})
