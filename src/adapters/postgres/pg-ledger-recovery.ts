/**
 * Lost COMMITs. When the connection drops while a settle's COMMIT is in flight (server stopped,
 * network cut) the transaction may or may not have committed. Every settle that bills or counts
 * anything records its request id in settled_requests (migration 004) in the same transaction (a
 * settle refused for lack of credits records nothing: it only releases its hold), so the answer can
 * be read afterwards, and the primary key makes a settle apply at most once whatever races:
 *  - A settle whose transaction fails with a connection-class error is retried on fresh connections
 *    until the settle deadline has passed since the failure. A run of a billing group first takes the
 *    account's lock, which the lost transaction held since before its COMMIT went out, so once the
 *    lock is granted the lost transaction has ended; it then reads which of the group's request ids
 *    are recorded (those committed: resolved as charged as recorded) and applies only the others,
 *    against the current state (refused as usual when the lots no longer cover them).
 *  - A usage-only line (and a free settle) re-applies behind INSERT … ON CONFLICT DO NOTHING on its
 *    request id: the insert waits for a conflicting transaction still running and applies nothing if
 *    that one committed.
 *  - Holds are not retried: a hold whose transaction fails is answered with the error and never
 *    taken into the node's memory; if it did commit, the node's row of the account counts it until
 *    the row is written again from memory, which is asked for at once.
 *  - Past the deadline the settle rejects with the connection error (the gateway answers 503, not
 *    billed) and goes in doubt (pg-ledger-in-doubt.ts), which makes it end as it was answered.
 */
import type pg from 'pg'
import type { AnswerToKeep, SettleResult, UsageLine } from '../../ports/ledger.ts'
import { isPgUnavailable } from './pg-errors.ts'
import { deliver, groupTransaction, progress, type GroupRules, type LostGroup, type SettleRequest } from './pg-ledger-batching.ts'
import type { InDoubtCheck } from './pg-ledger-in-doubt.ts'
import { keepAnswersSql } from './pg-ledger-keys.ts'
import { inline, recordSettled, writeSql } from './pg-ledger-statements.ts'
import { commit, pause, retryable, rowRefused, type TransactionRunner } from './pg-ledger-transactions.ts'

export interface RecoveryOptions {
  runner: TransactionRunner
  rules: GroupRules
  /** How long, from the failure, a settle that lost its connection keeps retrying, ms. */
  settleDeadlineMs: number
  /** A run not finished in this long is cut off by closing its socket, ms. */
  runTimeoutMs: number
  inDoubt: Pick<InDoubtCheck, 'putInDoubt'>
}

export interface Recovery {
  /**
   * A group's transaction lost its connection: its holds fail now (one that did commit is counted
   * by the node's row until that is written again), its settles are retried (not awaited: the account's next group goes on).
   */
  connectionLost(lost: LostGroup): void
  /**
   * A settle that debits nothing (a usage-only line, or a free settle: the caller releases its hold),
   * with the answer it keeps if any: one implicit transaction without the account's lock, retried
   * after a lost connection.
   */
  settleFree(line: UsageLine, keep?: AnswerToKeep): Promise<SettleResult>
  /**
   * A usage-only line whose transaction failed with the database out of reach (`error`), retried to
   * the deadline; `sent` when that transaction had gone out, so it may have committed.
   */
  retryFree(line: UsageLine, keep: AnswerToKeep | undefined, sent: boolean, error: unknown): Promise<SettleResult>
}

/** Billing settles to retry after their transaction lost its connection. */
interface SettleRecovery {
  accountId: string
  settles: SettleRequest[]
  /** What the last run failed with. */
  error: unknown
  /**
   * Request ids whose outcome is not known (a COMMIT of theirs went out unanswered and no run has
   * read their row under the lock since).
   */
  unknown: Set<string>
  /** Date.now() instant after which they reject and go in doubt. */
  deadline: number
}

export function createRecovery({ runner, rules, settleDeadlineMs, runTimeoutMs, inDoubt }: RecoveryOptions): Recovery {
  const { withClient, runUntil } = runner
  const { putInDoubt } = inDoubt

  function connectionLost({ accountId, group, error, progress: p }: LostGroup): void {
    // The holds it granted were never given to their callers, nor taken into memory; if the COMMIT
    // did go through, the node's row counts them until it is written again from memory.
    if (p.commitSent) rules.holds.stale(accountId)
    const settles: SettleRequest[] = []
    for (const r of group) {
      if (r.kind === 'settle') settles.push(r)
      else r.reject(error)
    }
    if (settles.length === 0) return
    const unknown = new Set(p.commitSent ? settles.map((s) => s.line.requestId) : [])
    void recoverSettles({ accountId, settles, error, unknown, deadline: Date.now() + settleDeadlineMs })
  }

  /** Retries billing settles whose transaction lost its connection until each is resolved or the deadline passes. */
  async function recoverSettles({ accountId, settles, error, unknown, deadline }: SettleRecovery): Promise<void> {
    let pending = settles
    let last = error
    for (let n = 0; pending.length > 0 && Date.now() < deadline; n++) {
      await pause(n, deadline)
      const p = progress(true)
      try {
        deliver(await withClient((c) => groupTransaction(c, { accountId, requests: pending, progress: p, rules, writesHolds: false }), runUntil(deadline)))
        return
      } catch (e) {
        last = e
        if (p.recorded) {
          // Read under the account's lock, which the lost transaction held before its COMMIT went
          // out: that transaction has ended, so what the read says is final for every request.
          const open: SettleRequest[] = []
          for (const s of pending) {
            const charged = p.recorded.get(s.line.requestId)
            if (charged !== undefined) s.resolve({ ok: true, charged })
            else {
              unknown.delete(s.line.requestId)
              open.push(s)
            }
          }
          pending = open
        }
        if (p.commitSent) for (const s of pending) unknown.add(s.line.requestId)
        if (isPgUnavailable(e) || retryable(e)) continue
        if (rowRefused(e) && pending.length > 1) {
          // As on the first run: one request is likely the cause; each goes on alone.
          for (const s of pending) await recoverSettles({ accountId, settles: [s], error: e, unknown, deadline })
          return
        }
        // Refused by the server, so rolled back: only an outcome still unknown from an earlier run
        // goes in doubt.
        for (const s of pending) {
          if (unknown.has(s.line.requestId)) putInDoubt({ line: s.line, unknown: true, error: e })
          s.reject(e)
        }
        return
      }
    }
    // The deadline passed with the database out of reach: the caller is answered 503.
    for (const s of pending) {
      putInDoubt({ line: s.line, unknown: unknown.has(s.line.requestId), error: last })
      s.reject(last)
    }
  }

  /** A usage-only line's writes (with the answer it keeps), and the row that records it. */
  function freeWrites(line: UsageLine, keep?: AnswerToKeep): { writes: string[]; record: string } {
    const kept = keep ? [keepAnswersSql([{ accountId: line.accountId, keep, requestId: line.requestId }], rules.bodies)] : []
    return { writes: [...writeSql(line.accountId, [], [line]), ...kept], record: recordSettled([{ line }]) }
  }

  async function settleFree(line: UsageLine, keep?: AnswerToKeep): Promise<SettleResult> {
    const { writes, record } = freeWrites(line, keep)
    let sent = false
    try {
      await withClient(async (c) => {
        sent = true
        // One query without BEGIN is one (implicit) transaction.
        await c.query([...writes, record].join(';\n'))
      }, Date.now() + runTimeoutMs)
      return { ok: true, charged: 0 }
    } catch (e) {
      if (!isPgUnavailable(e)) throw e
      return retryFree(line, keep, sent, e)
    }
  }

  // After a lost connection it is retried until the deadline behind INSERT … ON CONFLICT DO NOTHING
  // on its request id, which waits for a conflicting transaction still running and lets nothing
  // apply twice.
  async function retryFree(line: UsageLine, keep: AnswerToKeep | undefined, sent: boolean, error: unknown): Promise<SettleResult> {
    const { writes, record } = freeWrites(line, keep)
    let last = error
    let unknown = sent
    const deadline = Date.now() + settleDeadlineMs
    for (let n = 0; Date.now() < deadline; n++) {
      await pause(n, deadline)
      let commitSent = false
      try {
        await withClient(async (c) => {
          const [, inserted] = (await c.query(`BEGIN; ${record} ON CONFLICT (request_id) DO NOTHING RETURNING request_id`)) as unknown as pg.QueryResult[]
          // Recorded already: an earlier run committed.
          if (inserted?.rowCount === 0) return void (await c.query('ROLLBACK'))
          commitSent = true
          await commit(c, writes)
        }, runUntil(deadline))
        return { ok: true, charged: 0 }
      } catch (e2) {
        last = e2
        unknown ||= commitSent
        if (isPgUnavailable(e2) || retryable(e2)) continue
        // Refused by the server, so rolled back: in doubt only if an earlier run's outcome is unknown.
        if (unknown) putInDoubt({ line, unknown: true, error: e2 })
        throw e2
      }
    }
    // The deadline passed with the database out of reach: the caller is answered 503.
    putInDoubt({ line, unknown, error: last })
    throw last
  }

  return { connectionLost, settleFree, retryFree }
}
