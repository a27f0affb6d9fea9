/** The first start's record in the embedded store's `settings` table (migration 007). */
import type { FirstStartStore } from '../../ports/first-start-store.ts'
import type { SqliteDb } from './database.ts'

const NAME = 'first_start'

export function createSqliteFirstStartStore(db: SqliteDb): FirstStartStore {
  const read = db.prepare('SELECT value FROM settings WHERE name = ?').pluck()
  const write = db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value')
  const sample = db.prepare('SELECT slug FROM profiles ORDER BY profile_id LIMIT 1').pluck()
  return {
    async read() {
      return read.get(NAME) as string | undefined
    },
    async write(record) {
      write.run(NAME, record)
    },
    async sampleProfileSlug() {
      return sample.get() as string | undefined
    },
  }
}
