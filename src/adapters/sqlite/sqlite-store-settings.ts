/** Store settings in the embedded store's `settings` table (migration 007). */
import type { StoreSettings } from '../../ports/store-settings.ts'
import type { SqliteDb } from './database.ts'

export function createSqliteStoreSettings(db: SqliteDb): StoreSettings {
  const read = db.prepare('SELECT value FROM settings WHERE name = ?').pluck()
  const write = db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value')
  return {
    async get(name) {
      return read.get(name) as string | undefined
    },
    async set(name, value) {
      write.run(name, value)
    },
  }
}
