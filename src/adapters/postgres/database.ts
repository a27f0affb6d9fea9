/**
 * The PostgreSQL connection pool and the numbered, forward-only migrations of migrations/postgres/.
 * Several nodes may start at once on one empty database: migrations run under a session advisory
 * lock, so exactly one node applies them and the others wait, then find nothing left to do.
 */
import { randomBytes } from 'node:crypto'
import { migrationsDir, pendingMigrations } from '../migrations-dir.ts'
import pg from 'pg'
import { indexText } from './pg-search-text.ts'
import { upgradeStoredDocuments } from './document-upgrade.ts'

export type PgPool = pg.Pool

/** Key of the advisory lock that serialises migrations (and first-start seeding) across nodes. */
export const MIGRATION_LOCK = 7_041_172_001

export interface PostgresOptions {
  /** Connections per node (default 10). */
  max?: number
  /** Server-side statement timeout in ms (default 15 s): a stuck query fails instead of holding a connection. */
  statementTimeoutMs?: number
  /** Application name shown in pg_stat_activity. */
  applicationName?: string
  /**
   * The server ends a session left idle inside a transaction this long (default 10 s). Transactions
   * here idle only between their own round trips (milliseconds); but after a network cut the server
   * would otherwise keep a transaction whose client is gone, and its locks (an account's row), until
   * TCP keepalive notices, hours later, and a settle retrying after the cut could not learn in time
   * whether the lost transaction committed (pg-ledger.ts).
   */
  idleInTransactionTimeoutMs?: number
  /**
   * How long the node waits for any one query's answer (default: the statement timeout and a second).
   * The statement timeout is the server's: a server that stopped answering (hung, or cut off by the
   * network) never applies it, so a call that met an idle pooled connection would wait as long as the
   * stall lasted while calls needing a new connection got a 503 within seconds. Past this the query
   * fails as unavailable (503) and its connection is closed.
   */
  queryTimeoutMs?: number
}

/** pg's own error for a query whose answer did not come within query_timeout. */
const QUERY_TIMEOUT_MESSAGE = 'Query read timeout'

/** A query_timeout that never fires (setTimeout's largest delay): waits that may last minutes on purpose. */
const UNBOUNDED = 2_147_483_647

/** `text` run with no client-side timeout: a lock wait or a migration, which the server does not time out either. */
export const unboundedQuery = (text: string, values?: unknown[]): pg.QueryConfig => ({ text, values, query_timeout: UNBOUNDED }) as pg.QueryConfig

/** Whether `e` is the pool's own query timeout (queryTimeoutMs). */
export const isQueryTimeout = (e: unknown): boolean => e instanceof Error && e.message === QUERY_TIMEOUT_MESSAGE

/**
 * Ends a transaction that failed with `e` on `client`: rolls it back, and says whether the connection
 * must be closed rather than given back (the error to release it with). After the pool's own query
 * timeout the connection may still be running the query, and a ROLLBACK would wait behind it, as long
 * again: it is closed instead, which the server reads as a rollback.
 */
export async function endFailedTransaction(client: pg.ClientBase, e: unknown): Promise<Error | undefined> {
  if (isQueryTimeout(e)) return e as Error
  return client.query('ROLLBACK').then(
    () => undefined,
    (rollbackError: unknown) => (rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError))),
  )
}

// int8 ids (activity ids, ledger ids) come back as strings, never as lossy JS numbers; counts that
// fit are cast to int in SQL where a number is wanted.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => v)

/** Runs `work` in a transaction on one connection, closing a connection that could not even roll back. */
export async function inTransaction<T>(pool: PgPool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  let broken: Error | undefined
  try {
    await client.query('BEGIN')
    try {
      const result = await work(client)
      await client.query('COMMIT')
      return result
    } catch (e) {
      broken = await endFailedTransaction(client, e)
      throw e
    }
  } finally {
    client.release(broken)
  }
}

export function openPostgres(url: string, opts: PostgresOptions = {}): PgPool {
  const statementTimeout = opts.statementTimeoutMs ?? 15_000
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    application_name: opts.applicationName ?? 'pronet',
    statement_timeout: statementTimeout,
    query_timeout: opts.queryTimeoutMs ?? statementTimeout + 1_000,
    idle_in_transaction_session_timeout: opts.idleInTransactionTimeoutMs ?? 10_000,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  })
  // An idle client that loses its connection (server restart) emits 'error' on the pool; without a
  // listener that would crash the process. The pool replaces the client; queries report the outage.
  pool.on('error', () => {})
  // A checked-out client has no such listener (the pool takes its own off while it is lent), and one
  // told to go (pg_terminate_backend, a restart or failover, idle_session_timeout) between two of its
  // queries would emit 'error' with no listener and crash the process. Each client keeps a listener
  // for its life; the failure reaches the next query on it ("not queryable": 503), and the pool drops
  // it when it is given back.
  pool.on('connect', (client) => client.on('error', () => {}))
  return pool
}

/** migrations/postgres at the package root. */
export const postgresMigrationsDir = (): string => migrationsDir('postgres')

/** Work a migration needs that SQL cannot do, run in its transaction right after its file. */
const CODE_STEPS: Readonly<Record<number, (client: pg.ClientBase) => Promise<void>>> = {
  8: upgradeStoredDocuments,
}

/** Applies every migration file (NNN_name.sql) not yet recorded, each in its own transaction. */
export async function migratePostgres(pool: PgPool, dir: string = postgresMigrationsDir()): Promise<string[]> {
  const client = await pool.connect()
  try {
    // Another node's migrations may take a while; a large one may take longer than a statement should.
    await client.query('SET statement_timeout = 0')
    // Nor any client-side one: the lock wait and the migrations themselves may take minutes.
    await client.query(unboundedQuery('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]))
    try {
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)',
      )
      const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version))
      const applied: string[] = []
      for (const { version, file, sql } of pendingMigrations(dir, done)) {
        await client.query('BEGIN')
        try {
          await client.query(unboundedQuery(sql))
          await CODE_STEPS[version]?.(client)
          await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [version, file, Date.now()])
          await client.query('COMMIT')
        } catch (e) {
          await client.query('ROLLBACK')
          throw new Error(`migration ${file} failed: ${e instanceof Error ? e.message : String(e)}`)
        }
        applied.push(file)
      }
      if (done.has(TITLE_VECTORS_MIGRATION) || applied.some((f) => Number(f.slice(0, 3)) === TITLE_VECTORS_MIGRATION)) await fillTitleVectors(client)
      return applied
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK])
      await client.query('RESET statement_timeout')
    }
  } finally {
    client.release()
  }
}

/** The migration that made profiles.title_vector (007_profile_titles.sql). */
const TITLE_VECTORS_MIGRATION = 7
/** Titles a statement of fillTitleVectors fills. */
const TITLES_PER_FILL = 1_000

/**
 * Fills the title_vector of each profile whose title has none (migration 007): titles written before
 * it, or since by a node that predates it. SQL cannot tokenize as the search model does, so the node
 * that holds the migration lock does it, a thousand a statement; at later starts the partial index
 * profiles_title_unfilled is empty and this is one lookup. A row whose title changed meanwhile is
 * skipped (the writer filled it, or the next round reads the new title).
 */
async function fillTitleVectors(client: pg.PoolClient): Promise<void> {
  for (;;) {
    const { rows } = await client.query<{ id: string; title: string }>(
      'SELECT profile_id AS id, job_title AS title FROM profiles WHERE job_title IS NOT NULL AND title_vector IS NULL LIMIT $1',
      [TITLES_PER_FILL],
    )
    if (rows.length === 0) return
    await client.query(
      `UPDATE profiles p SET title_vector = v.vector::tsvector
       FROM unnest($1::text[], $2::text[], $3::text[]) AS v (id, title, vector)
       WHERE p.profile_id = v.id AND p.job_title = v.title AND p.title_vector IS NULL`,
      [rows.map((r) => r.id), rows.map((r) => r.title), rows.map((r) => indexText(r.title).vector)],
    )
  }
}

/** Key of the advisory lock that lets exactly one of several starting nodes seed an empty database. */
export const SEED_LOCK = 7_041_172_002

/** Runs `work` holding a session advisory lock (other nodes asking for it wait). */
export async function withAdvisoryLock<T>(pool: PgPool, key: number, work: () => Promise<T>): Promise<T> {
  const client = await pool.connect()
  try {
    // Waiting for another node's seeding may take minutes: no statement timeout on the wait.
    await client.query('SET statement_timeout = 0')
    await client.query(unboundedQuery('SELECT pg_advisory_lock($1)', [key]))
    try {
      return await work()
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [key])
      await client.query('RESET statement_timeout')
    }
  } finally {
    client.release()
  }
}

/** The secret shared by every node: generated by the first that asks, then read by all (migration 005). */
export async function sharedSecret(pool: PgPool): Promise<string> {
  const candidate = randomBytes(32).toString('base64url')
  await pool.query("INSERT INTO settings (name, value) VALUES ('secret', $1) ON CONFLICT (name) DO NOTHING", [candidate])
  const { rows } = await pool.query<{ value: string }>("SELECT value FROM settings WHERE name = 'secret'")
  return rows[0]?.value ?? candidate
}
