/** The live source's kept answers in the shared `live_answers` table (migration 013), seen by every node. */
import type { LiveAnswer, LiveAnswerStore } from '../../ports/live-answers.ts'
import type { PgPool } from './database.ts'

export interface PgLiveAnswersOptions {
  /**
   * Rows a prune deletes per statement (default 5000), so that a large prune is many short statements
   * rather than one that could outlast the statement timeout and hold its row locks meanwhile.
   */
  pruneBatch?: number
}

export function createPgLiveAnswers(pool: PgPool, opts: PgLiveAnswersOptions = {}): LiveAnswerStore {
  const batch = Math.max(1, opts.pruneBatch ?? 5000)
  return {
    async get(key) {
      const { rows } = await pool.query<{ operation: string; status: number; body: Buffer; fetched_at: string }>(
        'SELECT operation, status, body, fetched_at FROM live_answers WHERE key = $1',
        [key],
      )
      const row = rows[0]
      if (row === undefined) return undefined
      return { key, operation: row.operation, status: row.status as LiveAnswer['status'], body: row.body, fetchedAt: Number(row.fetched_at) }
    },
    async put(a) {
      await pool.query(
        `INSERT INTO live_answers (key, operation, status, body, fetched_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (key) DO UPDATE SET operation = excluded.operation, status = excluded.status, body = excluded.body, fetched_at = excluded.fetched_at
         WHERE excluded.fetched_at >= live_answers.fetched_at`,
        [a.key, a.operation, a.status, a.body, a.fetchedAt],
      )
    },
    async prune(beforeMs) {
      let deleted = 0
      for (;;) {
        // Locking the rows chosen re-reads each one a put is rewriting, so an answer refreshed meanwhile
        // is not deleted; one being written now is skipped rather than waited for.
        const r = await pool.query(
          'DELETE FROM live_answers WHERE key IN (SELECT key FROM live_answers WHERE fetched_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)',
          // An instant between two ms: the integer ms before it are those before its ceiling.
          [Math.ceil(beforeMs), batch],
        )
        const n = r.rowCount ?? 0
        deleted += n
        if (n < batch) return deleted
      }
    },
    async counts() {
      const { rows } = await pool.query<{ operation: string; n: number }>('SELECT operation, count(*)::int AS n FROM live_answers GROUP BY operation')
      const counts: Record<string, number> = {}
      for (const r of rows) counts[r.operation] = r.n
      return counts
    },
  }
}
