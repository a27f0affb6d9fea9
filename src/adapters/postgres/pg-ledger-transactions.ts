/**
 * How the PostgreSQL ledger runs a transaction: on one pooled connection, cut off by closing its
 * socket when it runs past its time (after a network cut nothing answers and nothing closes), run
 * again after a serialization failure or a deadlock, and in two round trips (BEGIN, the account's
 * lock and the reads; then every write and COMMIT). Also which errors mean what, for the callers
 * that decide between retrying, failing alone and putting a settle in doubt.
 */
import pg from 'pg'
import { endFailedTransaction, type PgPool } from './database.ts'
import { isPgUnavailable } from './pg-errors.ts'
import { inline, type StateRow } from './pg-ledger-statements.ts'

/** The two methods of a pino logger the ledger uses. */
export interface PgLedgerLogger {
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

/**
 * How a background task's failure is logged: the database out of reach by its message alone (the
 * task retries every few seconds through an outage, and a stack says nothing more), anything else
 * with its stack.
 */
export const failure = (e: unknown): Record<string, unknown> => (isPgUnavailable(e) ? { cause: e instanceof Error ? e.message : String(e) } : { err: e })

/** The least time a retry run is given, even right at the deadline. */
const MIN_RUN_MS = 250

/** SQLSTATEs after which a transaction was rolled back whole and may simply run again. */
const RETRYABLE = new Set(['40001', '40P01'])
export const retryable = (e: unknown): boolean => e instanceof pg.DatabaseError && RETRYABLE.has(e.code ?? '')

/** The server refused a value or a row (classes 22 and 23: data exception, integrity constraint). */
export const rowRefused = (e: unknown): boolean => e instanceof pg.DatabaseError && /^2[23]/.test(e.code ?? '')

export const ignore = (): void => {}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Waits before retry `n` (50 ms, doubling, at most 1 s), never past the deadline. */
export const pause = (n: number, deadline: number) => sleep(Math.max(0, Math.min(50 * 2 ** n, 1000, deadline - Date.now())))

/** Closes a client's socket under it: its running query fails as a lost connection does. */
function sever(client: pg.PoolClient): void {
  ;(client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy()
}

/** A pooled connection within `ms`; one that comes later is given back at once. */
function connectWithin(pool: PgPool, ms: number): Promise<pg.PoolClient> {
  return new Promise((resolve, reject) => {
    let late = false
    const timer = setTimeout(() => {
      late = true
      reject(new Error('timeout exceeded when trying to connect'))
    }, ms)
    pool.connect().then(
      (c) => {
        clearTimeout(timer)
        if (late) c.release()
        else resolve(c)
      },
      (e: unknown) => {
        clearTimeout(timer)
        reject(e)
      },
    )
  })
}

export interface TransactionRunnerOptions {
  pool: PgPool
  /** Runs of a transaction that meets a serialization failure or a deadlock. */
  attempts: number
  /** A guarded run not finished in this long is cut off by closing its socket. */
  runTimeoutMs: number
}

export interface TransactionRunner {
  /**
   * Runs `work` on one pooled connection and gives it back; whatever `work` leaves open is rolled
   * back, and a connection that cannot even roll back is destroyed rather than returned to the pool.
   * With `until` (a Date.now() instant), connecting and the work are cut off then (at least
   * MIN_RUN_MS from now) by closing the socket, so a dead network cannot hold a retry past its
   * deadline.
   */
  withClient<T>(work: (c: pg.PoolClient) => Promise<T>, until?: number): Promise<T>
  /**
   * Runs `work` on one connection; after a serialization failure or a deadlock (the transaction was
   * rolled back whole) it runs again from the start. `guarded`: each run is cut off after runTimeoutMs.
   */
  retrying<T>(work: (c: pg.PoolClient) => Promise<T>, guarded?: boolean): Promise<T>
  /** The end of a retry run: runTimeoutMs from now, but not past the deadline. */
  runUntil(deadline: number): number
}

export function createTransactionRunner({ pool, attempts, runTimeoutMs }: TransactionRunnerOptions): TransactionRunner {
  // While checked out the client has a listener for 'error' (the pool's is removed then): a
  // connection lost mid-query must fail the query, not the process.
  async function withClient<T>(work: (c: pg.PoolClient) => Promise<T>, until?: number): Promise<T> {
    const budget = () => Math.max((until ?? 0) - Date.now(), MIN_RUN_MS)
    const client = until === undefined ? await pool.connect() : await connectWithin(pool, budget())
    client.on('error', ignore)
    const timer = until === undefined ? undefined : setTimeout(() => sever(client), budget())
    const giveBack = (broken?: Error) => {
      client.removeListener('error', ignore)
      client.release(broken)
    }
    try {
      const result = await work(client)
      giveBack()
      return result
    } catch (e) {
      giveBack(await endFailedTransaction(client, e))
      throw e
    } finally {
      clearTimeout(timer)
    }
  }

  async function retrying<T>(work: (c: pg.PoolClient) => Promise<T>, guarded = false): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await withClient(work, guarded ? Date.now() + runTimeoutMs : undefined)
      } catch (e) {
        if (attempt < attempts && retryable(e)) {
          await sleep(Math.random() * 5 * attempt)
          continue
        }
        throw e
      }
    }
  }

  const runUntil = (deadline: number) => Math.min(deadline, Date.now() + runTimeoutMs)

  return { withClient, retrying, runUntil }
}

/** BEGIN, the account's lock and `reads` in one round trip; the results of the reads. */
export async function beginLockedAll(c: pg.PoolClient, accountId: string, reads: readonly string[]): Promise<pg.QueryResult[]> {
  const results = (await c.query(`BEGIN; ${inline(LOCK_ACCOUNTS, [[accountId]])}; ${reads.join('; ')}`)) as unknown as pg.QueryResult[]
  if (results[1]?.rowCount !== 1) throw new Error(`unknown account ${accountId}`)
  return results.slice(2)
}

/**
 * The locks of accounts, in the order of their ids, and a row per account that exists (a function of
 * migration 015, so the statement keeps its plan).
 */
export const LOCK_ACCOUNTS = 'SELECT unnest(pronet_lock_accounts($1::text[])) AS id'

/** BEGIN, the locks of `accountIds` (sorted, distinct) and `reads` in one round trip; the results of the reads. */
export async function beginLockedBatch(c: pg.PoolClient, accountIds: readonly string[], reads: readonly string[]): Promise<pg.QueryResult[]> {
  const results = (await c.query(`BEGIN; ${inline(LOCK_ACCOUNTS, [accountIds])}; ${reads.join('; ')}`)) as unknown as pg.QueryResult[]
  if (results[1]?.rowCount !== accountIds.length) throw new UnknownAccountError(accountIds, (results[1]?.rows ?? []).map((r: { id: string }) => r.id))
  return results.slice(2)
}

/** A batch named an account that does not exist (any more): each account's group runs again alone. */
export class UnknownAccountError extends Error {
  constructor(asked: readonly string[], found: readonly string[]) {
    super(`unknown account ${asked.filter((id) => !found.includes(id)).join(', ')}`)
  }
}

/** BEGIN, the account's lock and `read` in one round trip; the read's first row. */
export async function beginLocked(c: pg.PoolClient, accountId: string, read: string): Promise<StateRow> {
  return (await beginLockedAll(c, accountId, [read]))[0]?.rows[0] as StateRow
}

/** Every write and the COMMIT in one round trip; a failing statement skips the rest, COMMIT included. */
export async function commit(c: pg.PoolClient, statements: readonly string[]): Promise<void> {
  await c.query([...statements, 'COMMIT'].join(';\n'))
}
