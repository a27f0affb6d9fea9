/**
 * Group commit on PostgreSQL, as the embedded ledger has it: holds and settles of every account that
 * arrive while earlier ones are being written wait together, and go to the database as one batch,
 * one transaction of two round trips (pg-ledger-batching.ts), however many requests and accounts it
 * carries. A batch starts on the event loop's next turn once one of the `concurrency` slots is free,
 * or, with `waitMs`, that long after its first request (or as soon as `maxRequests` are waiting).
 * The wait may change as the node runs (batch-wait.ts): it is read each time a batch could start.
 * Each request is answered only once its batch has committed.
 *
 * A batch that fails with the database out of reach hands each account's group to the recovery (its
 * settles retried, its holds failed). A batch refused by the server runs again one account at a time,
 * and a group refused again one request at a time, so only the request that cannot be written fails
 * (a debit of a request id already billed, say).
 */
import { batchTransaction, deliver, groupTransaction, progress, type GroupRules, type GroupRun, type LostGroup, type Outcome, type Request } from './pg-ledger-batching.ts'
import type { HoldResult, SettleResult } from '../../ports/ledger.ts'
import { isPgUnavailable } from './pg-errors.ts'
import { rowRefused, type TransactionRunner } from './pg-ledger-transactions.ts'
import { guardable, guardedTransaction } from './pg-ledger-guarded.ts'
import type { LocalView } from './pg-ledger-local-holds.ts'
import type { BatchWait } from './batch-wait.ts'

export interface BatcherOptions {
  runner: TransactionRunner
  rules: GroupRules
  /** Takes over a group whose transaction lost its connection (see pg-ledger-recovery.ts). */
  connectionLost(lost: LostGroup): void
  /** A batch committed: how many requests it carried and how long it took (metrics). */
  observeCommit?(requests: number, seconds: number): void
  /**
   * How long a batch waits for more requests after its first, ms (0: it starts when a slot is free),
   * or what says so each time from the accounts whose requests are waiting.
   */
  waitMs?: number | BatchWait
  /** Requests in one batch at most; a full batch starts without waiting. */
  maxRequests?: number
  /** Batches of this node in the database at once. */
  concurrency?: number
}

export interface Batcher {
  /** Queues the request `make` builds for the next batch; its answer once that batch committed. */
  submit<T extends HoldResult | SettleResult>(accountId: string, make: (resolve: (r: T) => void, reject: (e: unknown) => void) => Request): Promise<T>
}

/** Requests in one batch at most, by default: one transaction's SQL stays a few hundred kB. */
export const BATCH_MAX_REQUESTS = 1_000
/** Batches of one node in the database at once, by default: one commits while the next takes its locks. */
export const BATCH_CONCURRENCY = 2

export function createBatcher(opts: BatcherOptions): Batcher {
  const { runner, rules, connectionLost, observeCommit } = opts
  const maxRequests = Math.max(1, opts.maxRequests ?? BATCH_MAX_REQUESTS)
  const concurrency = Math.max(1, opts.concurrency ?? BATCH_CONCURRENCY)
  /** Requests waiting for a batch, by account, in arrival order. */
  const waiting = new Map<string, Request[]>()
  const given = opts.waitMs ?? 0
  const waitOf = typeof given === 'function' ? () => Math.max(0, given(waiting.keys())) : () => Math.max(0, given)
  /** Accounts with a batch of this node in the database, and how many. */
  const inFlight = new Map<string, number>()
  /**
   * Accounts whose batch in flight was decided from this node's view: no other batch of theirs starts
   * until it ends, so every batch decides on memory that the one before it has updated.
   */
  const exclusive = new Set<string>()
  let count = 0
  let running = 0
  let timer: NodeJS.Timeout | undefined
  /** Whether the waiting requests may go now (pump sets it while there is no wait). */
  let due = false
  let scheduled = false
  /**
   * Batches start on the next turn of the event loop, never in the middle of one: the callers a batch
   * just answered send their next requests in that turn, and they go together, not the first alone.
   */
  const schedule = (): void => {
    if (scheduled) return
    scheduled = true
    setImmediate(() => {
      scheduled = false
      pump()
    })
  }

  /** The waiting requests, up to maxRequests (an account's group is never split across batches). */
  function take(): GroupRun[] {
    const runs: GroupRun[] = []
    let taken = 0
    for (const [accountId, requests] of waiting) {
      if (taken > 0 && taken + requests.length > maxRequests) break
      const run: GroupRun = { accountId, requests, progress: progress(false), rules, writesHolds: true }
      // Settles that can go in one round trip wait for the account's batch in flight: decided before
      // it commits, they would find the account changed (by it) and go the longer way.
      if (exclusive.has(accountId) || (inFlight.has(accountId) && guardable(run, rules.local?.forSettles(accountId)))) continue
      runs.push(run)
      taken += requests.length
      waiting.delete(accountId)
    }
    count -= taken
    return runs
  }

  function pump(): void {
    // Nothing waiting, nothing to decide: the wait may depend on the accounts waiting.
    if (count === 0) return
    const waitMs = waitOf()
    if (waitMs === 0) due = true
    while (running < concurrency && count > 0 && (due || count >= maxRequests)) {
      const runs = take()
      if (runs.length === 0) break
      if (count === 0 && waitMs > 0) {
        due = false
        clearTimeout(timer)
        timer = undefined
      }
      running++
      void runBatch(runs).finally(() => {
        running--
        for (const run of runs) {
          exclusive.delete(run.accountId)
          const n = (inFlight.get(run.accountId) ?? 1) - 1
          if (n > 0) inFlight.set(run.accountId, n)
          else inFlight.delete(run.accountId)
        }
        schedule()
      })
    }
    if (count > 0 && waitMs > 0 && timer === undefined && !due) {
      timer = setTimeout(() => {
        timer = undefined
        due = true
        pump()
      }, waitMs)
    }
  }

  /** The views every group of the batch can be decided from, or undefined: the batch reads under its locks. */
  function viewsFor(runs: readonly GroupRun[]): Map<string, LocalView> | undefined {
    if (!rules.local) return undefined
    const views = new Map<string, LocalView>()
    for (const run of runs) {
      const view = rules.local.forSettles(run.accountId)
      if (!guardable(run, view)) return undefined
      views.set(run.accountId, view)
    }
    return views
  }

  async function runBatch(runs: GroupRun[]): Promise<void> {
    const requests = runs.reduce((n, r) => n + r.requests.length, 0)
    const started = performance.now()
    const views = runs.some((r) => inFlight.has(r.accountId)) ? undefined : viewsFor(runs)
    for (const run of runs) {
      inFlight.set(run.accountId, (inFlight.get(run.accountId) ?? 0) + 1)
      if (views) exclusive.add(run.accountId)
    }
    try {
      let guarded = views !== undefined
      const outcomes = await runner.retrying(async (c) => {
        for (const run of runs) {
          run.progress = progress(false)
        }
        if (views && guarded) {
          // Once: a run again (after a serialization failure) reads under the lock.
          guarded = false
          const done = await guardedTransaction(c, runs, views)
          if (done) {
            rules.local?.guardPassed()
            return done
          }
          for (const run of runs) rules.local?.guardFailed(run.accountId)
        }
        return runs.length === 1 ? groupTransaction(c, runs[0] as GroupRun).then((o) => [o]) : batchTransaction(c, runs)
      }, true)
      observeCommit?.(requests, (performance.now() - started) / 1000)
      for (const o of outcomes) deliver(o)
    } catch (e) {
      if (isPgUnavailable(e)) {
        for (const run of runs) connectionLost({ accountId: run.accountId, group: run.requests, error: e, progress: run.progress })
        return
      }
      if (runs.length > 1) {
        for (const run of runs) await runGroup(run.accountId, run.requests)
        return
      }
      const run = runs[0] as GroupRun
      // Run again request by request only when the server refused a row (so the transaction was
      // certainly rolled back, and one request is likely the cause). After an outage, running each
      // request alone would only take longer to fail.
      if (run.requests.length === 1 || !rowRefused(e)) {
        for (const r of run.requests) r.reject(e)
        return
      }
      for (const r of run.requests) await runGroup(run.accountId, [r], true)
    }
  }

  /** One account's group in a transaction of its own; refused by a row, each request alone (unless `alone` already). */
  async function runGroup(accountId: string, requests: readonly Request[], alone = false): Promise<void> {
    const run: GroupRun = { accountId, requests, progress: progress(false), rules, writesHolds: true }
    let outcomes: Outcome[]
    try {
      outcomes = await runner.retrying((c) => {
        run.progress = progress(false)
        return groupTransaction(c, run)
      }, true)
    } catch (e) {
      if (isPgUnavailable(e)) return connectionLost({ accountId, group: requests, error: e, progress: run.progress })
      if (alone || requests.length === 1 || !rowRefused(e)) {
        for (const r of requests) r.reject(e)
        return
      }
      for (const r of requests) await runGroup(accountId, [r], true)
      return
    }
    deliver(outcomes)
  }

  function submit<T extends HoldResult | SettleResult>(accountId: string, make: (resolve: (r: T) => void, reject: (e: unknown) => void) => Request): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const request = make(resolve, reject)
      const queue = waiting.get(accountId)
      if (queue) queue.push(request)
      else waiting.set(accountId, [request])
      count++
      schedule()
    })
  }

  return { submit }
}
