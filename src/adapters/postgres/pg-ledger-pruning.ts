/**
 * Keeps settled_requests and idempotency_keys bounded. settled_requests rows are only read within a
 * settle's deadline and while the settle is in doubt, and an Idempotency-Key's answer is repeated
 * for a day, so rows older than the retention (server clock) are deleted in small batches,
 * periodically, so that no one statement holds many locks or runs long.
 */
import type { PgPool } from './database.ts'
import { isPgUnavailable } from './pg-errors.ts'
import type { PgLedgerLogger } from './pg-ledger-transactions.ts'

/** Rows deleted per statement when pruning settled_requests. */
const PRUNE_BATCH = 5_000

export interface PruningOptions {
  pool: PgPool
  /** settled_requests rows older than this (server clock) are deleted, ms. */
  retentionMs: number
  /** Period of the pruning, ms (0: never). */
  pruneEveryMs: number
  logger?: PgLedgerLogger | undefined
  /** Whether the ledger is closed: a pruning under way stops after its current batch. */
  isClosed(): boolean
}

export interface Pruning {
  /** Stops the timer (a pruning under way goes on: see running()). */
  stop(): void
  /** The pruning under way, if any. */
  running(): Promise<void> | undefined
}

export function startPruning({ pool, retentionMs, pruneEveryMs, logger, isClosed }: PruningOptions): Pruning {
  let pruneTimer: NodeJS.Timeout | undefined
  let pruning: Promise<void> | undefined

  /** Deletes the rows of `table` (by `key`) older than the retention, a batch per statement. */
  async function pruneTable(table: string, key: string): Promise<void> {
    for (;;) {
      const r = await pool.query(
        `DELETE FROM ${table} WHERE (${key}) IN (
           SELECT ${key} FROM ${table} WHERE recorded_at < now() - $1 * interval '1 millisecond' LIMIT ${PRUNE_BATCH})`,
        [retentionMs],
      )
      if ((r.rowCount ?? 0) < PRUNE_BATCH || isClosed()) return
    }
  }

  async function prune(): Promise<void> {
    await pruneTable('settled_requests', 'request_id')
    // A day of the server's clock: an answer is repeated for a day of the requests' clock from its
    // first call, and both clocks are the same one outside tests.
    await pruneTable('idempotency_keys', 'account_id, idem_key')
  }

  if (pruneEveryMs > 0) {
    // Jittered, so that nodes started together do not prune together.
    pruneTimer = setInterval(
      () => {
        pruning ??= prune()
          .catch((e: unknown) => {
            if (!isPgUnavailable(e)) logger?.warn({ err: e }, 'pruning settled_requests or idempotency_keys failed; will retry')
          })
          .finally(() => (pruning = undefined))
      },
      Math.round(pruneEveryMs * (0.9 + Math.random() * 0.2)),
    )
    pruneTimer.unref()
  }

  return { stop: () => clearInterval(pruneTimer), running: () => pruning }
}
