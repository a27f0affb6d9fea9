/**
 * The crash test's reader of an embedded store: the SQLite file of a data directory, opened read-only
 * for each read, as the rows the checks take (crash-checks.ts).
 */
import Database from 'better-sqlite3'
import { join } from 'node:path'
import type { LedgerRows } from './crash-checks.ts'

function read<T>(dir: string, work: (db: Database.Database) => T): T {
  // Read-only: the server, not the test, recovers the WAL left by the crash on its next start.
  const db = new Database(join(dir, 'pronet.db'), { readonly: true, fileMustExist: true })
  try {
    return work(db)
  } finally {
    db.close()
  }
}

const remainingOf = (db: Database.Database, accountId: string) =>
  db.prepare('SELECT SUM(remaining) FROM credit_lots WHERE account_id = ?').pluck().get(accountId) as number

export function sqliteCrashReader(dir: string) {
  return {
    ledger: (accountId: string): LedgerRows =>
      read(dir, (db) => ({
        lots: db
          .prepare(
            `SELECT l.id, l.account_id AS accountId, l.remaining,
                    (SELECT COALESCE(SUM(e.delta), 0) FROM ledger_entries e WHERE e.lot_id = l.id) AS total
             FROM credit_lots l`,
          )
          .all() as LedgerRows['lots'],
        orphans: db.prepare('SELECT COUNT(*) FROM ledger_entries e WHERE NOT EXISTS (SELECT 1 FROM credit_lots l WHERE l.id = e.lot_id)').pluck().get() as number,
        twice: db
          .prepare(
            `SELECT request_id AS requestId, lot_id AS lotId, COUNT(*) AS n FROM ledger_entries
             WHERE kind = 'debit' GROUP BY request_id, lot_id HAVING COUNT(*) > 1`,
          )
          .all(),
        debits: db
          .prepare(`SELECT request_id AS requestId, lot_id AS lotId, delta, endpoint FROM ledger_entries WHERE account_id = ? AND kind = 'debit'`)
          .all(accountId) as LedgerRows['debits'],
        kept: db.prepare('SELECT idem_key AS key, request_id AS requestId, status, body FROM idempotency_keys WHERE account_id = ?').all(accountId) as LedgerRows['kept'],
        usage: db.prepare('SELECT endpoint, status, requests, billable, credits FROM usage_daily WHERE account_id = ?').all(accountId) as LedgerRows['usage'],
        remaining: remainingOf(db, accountId),
      })),
    remaining: (accountId: string): number => read(dir, (db) => remainingOf(db, accountId)),
    slugs: (): string[] => read(dir, (db) => db.prepare('SELECT slug FROM profiles ORDER BY slug').pluck().all() as string[]),
  }
}
