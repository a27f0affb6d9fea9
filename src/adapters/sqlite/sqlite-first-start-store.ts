/** The first start's record, a store setting (migration 007's `settings` table). */
import type { FirstStartStore } from '../../ports/first-start-store.ts'
import type { StoreSettings } from '../../ports/store-settings.ts'
import type { SqliteDb } from './database.ts'
import { createSqliteStoreSettings } from './sqlite-store-settings.ts'

const NAME = 'first_start'

export function createSqliteFirstStartStore(db: SqliteDb, settings: StoreSettings = createSqliteStoreSettings(db)): FirstStartStore {
  const sample = db.prepare('SELECT slug FROM profiles ORDER BY profile_id LIMIT 1').pluck()
  return {
    read: () => settings.get(NAME),
    write: (record) => settings.set(NAME, record),
    async sampleProfileSlug() {
      return sample.get() as string | undefined
    },
  }
}
