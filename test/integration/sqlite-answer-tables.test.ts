/**
 * The embedded store's tables of whole answers (kept under Idempotency-Keys; from the live source's
 * upstream) are ordinary tables with a unique index on their key, so a key is looked up in an index
 * of keys, not in a tree holding the answers. A store made before keeps its rows across the upgrade.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import Database from 'better-sqlite3'
import { migrate, sqliteMigrationsDir, type SqliteDb } from '../../src/adapters/sqlite/database.ts'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'pronet-answer-tables-'))
  dirs.push(dir)
  return dir
}

/** A store as the builds before this change made it: the migrations up to 015. */
function storeBefore(): SqliteDb {
  const older = tempDir()
  for (const f of readdirSync(sqliteMigrationsDir())) if (Number(f.slice(0, 3)) <= 15) cpSync(join(sqliteMigrationsDir(), f), join(older, f))
  const db = new Database(join(tempDir(), 'pronet.db'))
  migrate(db, older)
  return db
}

const tableSql = (db: SqliteDb, name: string) => db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(name) as string
const plan = (db: SqliteDb, sql: string, ...args: unknown[]) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join('; ')

describe('the tables of kept answers', () => {
  it('keep their rows across the upgrade, become rowid tables, and look keys up in their unique index', () => {
    const db = storeBefore()
    expect(tableSql(db, 'idempotency_keys')).toMatch(/WITHOUT ROWID/)
    const body = Buffer.alloc(9_000, 7)
    db.prepare('INSERT INTO idempotency_keys (account_id, idem_key, fingerprint, created_at, request_id, status, headers, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
      'acc_1',
      'key-1',
      'fp',
      1_000,
      'req-1',
      200,
      '{"content-type":"application/json"}',
      body,
    )
    db.prepare('INSERT INTO live_answers (key, operation, status, body, fetched_at) VALUES (?, ?, ?, ?, ?)').run('k'.repeat(64), 'profile', 200, body, 2_000)

    // This upgrade, and the migrations that came after it.
    expect(migrate(db)).toEqual(['016_answers_in_rowid_tables.sql', '017_key_caps.sql', '018_webhooks.sql', '019_webhook_tests.sql'])
    for (const table of ['idempotency_keys', 'live_answers']) expect(tableSql(db, table)).not.toMatch(/WITHOUT ROWID/)
    expect(db.prepare('SELECT account_id, idem_key, fingerprint, created_at, request_id, status, headers, body FROM idempotency_keys').all()).toEqual([
      { account_id: 'acc_1', idem_key: 'key-1', fingerprint: 'fp', created_at: 1_000, request_id: 'req-1', status: 200, headers: '{"content-type":"application/json"}', body },
    ])
    expect(db.prepare('SELECT key, operation, status, body, fetched_at FROM live_answers').all()).toEqual([
      { key: 'k'.repeat(64), operation: 'profile', status: 200, body, fetched_at: 2_000 },
    ])
    expect(plan(db, 'SELECT body FROM idempotency_keys WHERE account_id = ? AND idem_key = ?', 'a', 'k')).toMatch(/USING INDEX idempotency_keys_by_key/)
    expect(plan(db, 'SELECT body FROM live_answers WHERE key = ?', 'k')).toMatch(/USING INDEX live_answers_by_key/)
    expect(plan(db, 'DELETE FROM idempotency_keys WHERE created_at < ?', 1)).toMatch(/USING INDEX idempotency_keys_by_age/)

    // A key is still one row: an upsert replaces it, a plain insert of it again is refused.
    db.prepare(
      `INSERT INTO idempotency_keys (account_id, idem_key, fingerprint, created_at, request_id, status, headers, body) VALUES ('acc_1', 'key-1', 'fp2', 3000, 'req-2', 200, '{}', x'00')
       ON CONFLICT (account_id, idem_key) DO UPDATE SET fingerprint = excluded.fingerprint, request_id = excluded.request_id`,
    ).run()
    expect(db.prepare('SELECT fingerprint, request_id FROM idempotency_keys').all()).toEqual([{ fingerprint: 'fp2', request_id: 'req-2' }])
    expect(() => db.prepare(`INSERT INTO live_answers (key, operation, status, body, fetched_at) VALUES (?, 'profile', 404, x'00', 1)`).run('k'.repeat(64))).toThrow(/UNIQUE/)
    expect(() => db.prepare(`INSERT INTO live_answers (key, operation, status, body, fetched_at) VALUES (?, 'profile', 404, x'00', 1)`).run('k'.repeat(65))).toThrow(/CHECK/)
    db.close()
  })
})
