/**
 * Opens the embedded SQLite database and applies the numbered, forward-only migrations of
 * migrations/sqlite/. Every SQLite adapter receives the same handle from the container.
 */
import { closeSync, existsSync, openSync } from 'node:fs'
import Database from 'better-sqlite3'
import { migrationsDir, pendingMigrations } from '../migrations-dir.ts'
import { POST_SEARCH_TOKENIZER } from './fts5-tokenizer.ts'
import { upgradeStoredDocuments } from './document-upgrade.ts'

export type SqliteDb = Database.Database

/** migrations/sqlite at the package root. */
export const sqliteMigrationsDir = (): string => migrationsDir('sqlite')

/**
 * Opens (or creates) a database; `:memory:` gives a private in-memory one for tests. `notice` hears of
 * slow one-time work at open (the search index rebuilt after an upgrade), which would otherwise pass
 * as a silent stall.
 */
export function openSqlite(path: string, opts: { notice?: (line: string) => void } = {}): SqliteDb {
  // A new file is its owner's alone: it holds the API keys' hashes and every account's ledger, as
  // private as the 0600 secret and demo key beside it. SQLite gives the -wal and -shm files its mode.
  if (path !== ':memory:' && !existsSync(path)) closeSync(openSync(path, 'a', 0o600))
  const db = new Database(path)
  if (path !== ':memory:') db.pragma('journal_mode = WAL')
  // FULL: a committed transaction survives power loss; group commit amortises the fsync.
  db.pragma('synchronous = FULL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  db.pragma('cache_size = -65536')
  // temp_store stays at its default: MEMORY makes every FTS5 query that follows a sorted one (ORDER BY
  // rank) on the same connection many times slower.
  migrate(db)
  ensureSearchTokenizers(db, opts.notice ?? (() => {}))
  return db
}

/** The text indexes made again with POST_SEARCH_TOKENIZER where they were made with another (after migrate). */
export function ensureSearchTokenizers(db: SqliteDb, notice: (line: string) => void = () => {}): void {
  ensurePostSearchTokenizer(db, notice)
  ensureTitleSearchTokenizer(db)
}

/**
 * The post index is derived data (post_docs keeps the text): when post_search was made with another
 * tokenizer than POST_SEARCH_TOKENIZER or as contentless_delete (migration 006's, or an older
 * generation of it), it is made again, refilled and merged, once, by the first connection to open the
 * file. Other processes opening it meanwhile wait for that (minutes for millions of posts) and find it
 * done.
 */
function ensurePostSearchTokenizer(db: SqliteDb, notice: (line: string) => void): void {
  // Made by migration 006 or an older generation of this: another tokenizer, or contentless_delete,
  // whose DELETE leaves the deleted posts' tokens in bm25()'s totals (sqlite-content-store.ts).
  remakeOnce(db, 'post_search', (sql) => !sql.includes('contentless_delete'), () => {
    const posts = db.prepare('SELECT count(*) FROM post_docs').pluck().get() as number
    // A new store's index (migration 006's) is made again too, at once and with nothing to say.
    const say = posts > 0 ? notice : () => {}
    say(`rebuilding the post search index for this build's tokenizer (${posts.toLocaleString('en-US')} posts; searches and writes wait for it)…`)
    const started = performance.now()
    db.exec('DROP TABLE post_search')
    db.exec(`CREATE VIRTUAL TABLE post_search USING fts5(text, content = '', tokenize = "${POST_SEARCH_TOKENIZER}")`)
    db.exec('INSERT INTO post_search (rowid, text) SELECT d.id, d.text FROM post_docs d JOIN posts p ON p.id = d.id WHERE p.is_repost = 0')
    // One segment, as a freshly built index is: refilled in one go it is left in many, and every query
    // would read each, which slows phrase, boolean and author searches.
    db.exec("INSERT INTO post_search (post_search) VALUES ('optimize')")
    say(`post search index rebuilt in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  })
}

/**
 * The job title index (profile_title_search, migration 009) reads titles as the post index reads
 * text: made again with POST_SEARCH_TOKENIZER, and refilled from profile_titles, when it was made with
 * another (migration 009 makes it with the base tokenizer, which a SQL file can spell). A title is a
 * few words a member: the refill is quick.
 */
function ensureTitleSearchTokenizer(db: SqliteDb): void {
  remakeOnce(db, 'profile_title_search', () => true, () => {
    db.exec('DROP TABLE profile_title_search')
    db.exec(
      `CREATE VIRTUAL TABLE profile_title_search USING fts5(job_title, content = 'profile_titles', content_rowid = 'k', tokenize = "${POST_SEARCH_TOKENIZER}")`,
    )
    db.exec("INSERT INTO profile_title_search (profile_title_search) VALUES ('rebuild')")
  })
}

/**
 * Runs `remake` once for FTS5 table `table` when it exists and was not made with POST_SEARCH_TOKENIZER
 * (or `fits` says its definition is out of date), in one write transaction: the first connection to
 * open the file does it, others opening it meanwhile wait for it (up to ten minutes) and find it done.
 */
function remakeOnce(db: SqliteDb, table: string, fits: (sql: string) => boolean, remake: () => void): void {
  const definition = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck()
  const current = () => {
    const sql = definition.get(table) as string | undefined
    return sql === undefined || (sql.includes(`tokenize = "${POST_SEARCH_TOKENIZER}"`) && fits(sql))
  }
  if (current()) return
  const busy = db.pragma('busy_timeout', { simple: true }) as number
  db.pragma('busy_timeout = 600000')
  try {
    db.transaction(() => {
      if (!current()) remake()
    }).immediate()
  } finally {
    db.pragma(`busy_timeout = ${busy}`)
  }
}

/** Work a migration needs that SQL cannot do, run in its transaction right after its file. */
const CODE_STEPS: Readonly<Record<number, (db: SqliteDb) => void>> = {
  10: upgradeStoredDocuments,
}

/** Applies every migration file (NNN_name.sql) not yet recorded, each in its own transaction. */
export function migrate(db: SqliteDb, dir: string = sqliteMigrationsDir()): string[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)')
  const done = new Set((db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version))
  const applied: string[] = []
  for (const { version, file, sql } of pendingMigrations(dir, done)) {
    db.transaction(() => {
      db.exec(sql)
      CODE_STEPS[version]?.(db)
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(version, file, Date.now())
    }).immediate()
    applied.push(file)
  }
  return applied
}
