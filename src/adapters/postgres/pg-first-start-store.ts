/** The first start's record, a setting of the shared store (migration 005), seen by every node. */
import type { FirstStartStore } from '../../ports/first-start-store.ts'
import type { StoreSettings } from '../../ports/store-settings.ts'
import type { PgPool } from './database.ts'
import { createPgStoreSettings } from './pg-store-settings.ts'

const NAME = 'first_start'

export function createPgFirstStartStore(pool: PgPool, settings: StoreSettings = createPgStoreSettings(pool)): FirstStartStore {
  return {
    read: () => settings.get(NAME),
    write: (record) => settings.set(NAME, record),
    async sampleProfileSlug() {
      const { rows } = await pool.query<{ slug: string }>('SELECT slug FROM profiles ORDER BY profile_id LIMIT 1')
      return rows[0]?.slug
    },
  }
}
