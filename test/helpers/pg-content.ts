/**
 * One migrated PostgreSQL database per test file, emptied between tests: creating a database per test
 * would cost more than the tests themselves.
 */
import { migratePostgres, openPostgres, type PgPool } from '../../src/adapters/postgres/database.ts'
import { createTestDatabase } from './postgres.ts'

export interface PgTestDatabase {
  pool: PgPool
  url: string
  /** Removes every content row and resets the search totals (the epoch keeps counting). */
  emptyContent(): Promise<void>
  close(): Promise<void>
}

export async function openTestDatabase(prefix = 'pronet_t'): Promise<PgTestDatabase> {
  const db = await createTestDatabase(prefix)
  const pool = openPostgres(db.url, { max: 4, applicationName: 'pronet-test' })
  try {
    await migratePostgres(pool)
  } catch (e) {
    await pool.end()
    await db.drop()
    throw e
  }
  return {
    pool,
    url: db.url,
    async emptyContent() {
      await pool.query(
        `TRUNCATE profiles, companies, posts, post_docs, articles, comments, post_reactions, profile_reactions;
         UPDATE content_epoch SET search_docs = 0, search_tokens = 0`,
      )
    },
    async close() {
      await pool.end()
      await db.drop()
    },
  }
}
