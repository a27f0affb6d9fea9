/** The first start's record in the shared `settings` table (migration 005), seen by every node. */
import type { FirstStartStore } from '../../ports/first-start-store.ts'
import type { PgPool } from './database.ts'

const NAME = 'first_start'

export function createPgFirstStartStore(pool: PgPool): FirstStartStore {
  return {
    async read() {
      const { rows } = await pool.query<{ value: string }>('SELECT value FROM settings WHERE name = $1', [NAME])
      return rows[0]?.value
    },
    async write(record) {
      await pool.query('INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value', [NAME, record])
    },
    async sampleProfileSlug() {
      const { rows } = await pool.query<{ slug: string }>('SELECT slug FROM profiles ORDER BY profile_id LIMIT 1')
      return rows[0]?.slug
    },
  }
}
