/** Store settings in the shared `settings` table (migration 005), seen by every node. */
import type { StoreSettings } from '../../ports/store-settings.ts'
import type { PgPool } from './database.ts'

export function createPgStoreSettings(pool: PgPool): StoreSettings {
  return {
    async get(name) {
      const { rows } = await pool.query<{ value: string }>('SELECT value FROM settings WHERE name = $1', [name])
      return rows[0]?.value
    },
    async set(name, value) {
      await pool.query('INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value', [name, value])
    },
  }
}
