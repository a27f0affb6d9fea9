/**
 * The usage lines of calls that bill nothing (a 429, a 402, an error, a free endpoint, a call whose
 * price came to 0), written together as billing settles are (pg-ledger-batcher.ts): the lines that
 * arrive while one batch is being written go in the next (pg-write-queue.ts), one implicit transaction
 * for the lines of every account. Nothing is debited, so no account is locked. Each call is still
 * answered only once its line has committed. A client sending far past its rate budget is refused as
 * fast as it sends; one transaction, and one flush to disk, per refusal would let it take the
 * database from everyone.
 *
 * A batch that loses its connection hands each of its lines to the recovery, which applies it behind
 * its request id, so a line counts once whether or not the batch committed. A batch the server
 * refuses is rolled back whole, and its lines go again one transaction each, so only a line that
 * cannot be written fails.
 */
import type { AnswerToKeep, SettleResult, UsageLine } from '../../ports/ledger.ts'
import { batchSql } from './pg-ledger-batch-sql.ts'
import { isPgUnavailable } from './pg-errors.ts'
import type { TransactionRunner } from './pg-ledger-transactions.ts'
import type { AnswerBodies } from './pg-ledger-keys.ts'
import { createWriteQueue } from './pg-write-queue.ts'

export interface FreeLinesOptions {
  runner: TransactionRunner
  /** A batch not finished in this long is cut off by closing its socket, ms. */
  runTimeoutMs: number
  /** Writes one line in a transaction of its own (a line of a batch the server refused). */
  alone(line: UsageLine, keep?: AnswerToKeep): Promise<SettleResult>
  /** Takes over a line whose batch found the database out of reach; `sent` when the batch had gone out. */
  recover(line: UsageLine, keep: AnswerToKeep | undefined, sent: boolean, error: unknown): Promise<SettleResult>
  /** A batch committed: how many lines it carried and how long it took (metrics). */
  observeCommit?(lines: number, seconds: number): void
  /** Lines in one batch at most. */
  maxLines?: number
  /** How the answers kept under keys are written. */
  bodies: AnswerBodies
}

export interface FreeLines {
  /** Queues the line (and the answer it keeps) for the next batch; settled, charging 0, once that batch committed. */
  submit(line: UsageLine, keep?: AnswerToKeep): Promise<SettleResult>
}

interface Waiting {
  line: UsageLine
  keep: AnswerToKeep | undefined
  resolve(r: SettleResult): void
  reject(e: unknown): void
}

export function createFreeLines(opts: FreeLinesOptions): FreeLines {
  const queue = createWriteQueue<Waiting>(opts.maxLines ?? 1_000, write)

  const settleWith = (w: Waiting, settled: Promise<SettleResult>): void => void settled.then(w.resolve, w.reject)

  async function write(batch: readonly Waiting[]): Promise<void> {
    const sql = batchSql(
      batch.map((w) => ({ accountId: w.line.accountId, mutations: [], lines: [w.line], billed: [{ line: w.line, keep: w.keep }] })),
      opts.bodies,
    )
    const started = performance.now()
    let sent = false
    try {
      await opts.runner.withClient(async (c) => {
        sent = true
        // One query without BEGIN is one (implicit) transaction.
        await c.query(sql.join(';\n'))
      }, Date.now() + opts.runTimeoutMs)
    } catch (e) {
      if (isPgUnavailable(e)) for (const w of batch) settleWith(w, opts.recover(w.line, w.keep, sent, e))
      else if (batch.length === 1) batch[0]?.reject(e)
      else for (const w of batch) settleWith(w, opts.alone(w.line, w.keep))
      return
    }
    opts.observeCommit?.(batch.length, (performance.now() - started) / 1000)
    for (const w of batch) w.resolve({ ok: true, charged: 0 })
  }

  return {
    submit(line, keep) {
      return new Promise<SettleResult>((resolve, reject) => queue.push({ line, keep, resolve, reject }))
    },
  }
}
