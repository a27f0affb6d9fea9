/** The live source's kept answers in the embedded store's `live_answers` table (migration 015). */
import type { LiveAnswer, LiveAnswerStore } from '../../ports/live-answers.ts'
import type { SqliteDb } from './database.ts'

export interface SqliteLiveAnswersOptions {
  /**
   * Rows a prune deletes per statement (default 2000). Each statement holds the store's write lock
   * and this thread while it runs; between them other writers and requests get their turn.
   */
  pruneBatch?: number
}

interface Row {
  operation: string
  status: number
  body: Buffer
  fetchedAt: number
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

export function createSqliteLiveAnswers(db: SqliteDb, opts: SqliteLiveAnswersOptions = {}): LiveAnswerStore {
  const batch = Math.max(1, opts.pruneBatch ?? 2000)
  const select = db.prepare('SELECT operation, status, body, fetched_at AS fetchedAt FROM live_answers WHERE key = ?')
  const upsert = db.prepare(
    `INSERT INTO live_answers (key, operation, status, body, fetched_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET operation = excluded.operation, status = excluded.status, body = excluded.body, fetched_at = excluded.fetched_at
     WHERE excluded.fetched_at >= live_answers.fetched_at`,
  )
  const deleteOld = db.prepare('DELETE FROM live_answers WHERE key IN (SELECT key FROM live_answers WHERE fetched_at < ? LIMIT ?)')
  const byOperation = db.prepare('SELECT operation, count(*) AS n FROM live_answers GROUP BY operation')
  return {
    async get(key) {
      const row = select.get(key) as Row | undefined
      if (row === undefined) return undefined
      return { key, operation: row.operation, status: row.status as LiveAnswer['status'], body: row.body, fetchedAt: row.fetchedAt }
    },
    async put(a) {
      upsert.run(a.key, a.operation, a.status, a.body, a.fetchedAt)
    },
    async prune(beforeMs) {
      let deleted = 0
      for (;;) {
        const n = deleteOld.run(beforeMs, batch).changes
        deleted += n
        if (n < batch) return deleted
        await nextTurn()
      }
    },
    async counts() {
      const counts: Record<string, number> = {}
      for (const r of byOperation.all() as { operation: string; n: number }[]) counts[r.operation] = r.n
      return counts
    },
  }
}
