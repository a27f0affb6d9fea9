/**
 * The ledger on PostgreSQL, for several stateless nodes sharing one database. No balance lives in
 * memory: every change is one transaction that locks the account's row, loads the billing state,
 * applies the shared rules of billing-rules.ts and persists the mutations they return before COMMIT.
 * The row lock serialises one account's billing changes across every pool and node (a renewal is
 * granted once; a balance is checked and reserved atomically); different accounts never wait on each
 * other.
 *
 * Holds are kept by the node that granted them, and each node writes, per account, one row of
 * node_holds with their sum, so a node sees the reservations of all the others. The row expires
 * `holdTtlMs` after its holds' arrival instants (the clock of the requests, like every billing
 * instant) plus the time they have been running: a node that dies between hold and settle leaves a
 * row that stops reducing the balance at expiry, is deleted by the account's next hold, and never
 * bills since only a settle debits.
 *
 * Reads that change nothing take no lock: state() reads the account and its lots in one statement
 * (one snapshot) and locks only when a renewal is due; usage() and entries() are single statements.
 *
 * This file wires the parts, each in a file of its own:
 *  - pg-ledger-statements.ts: the SQL and the mapping of rows;
 *  - pg-ledger-transactions.ts: running a transaction on a pooled connection, cut off and retried;
 *  - pg-ledger-batcher.ts: group commit, the holds and settles of many requests in one batch;
 *  - pg-ledger-batching.ts: the transactions of a batch, an account's group in each;
 *  - pg-ledger-free-lines.ts: the usage lines of calls that bill nothing, in batches of their own;
 *  - pg-ledger-node-holds.ts: this node's holds, and its rows of them kept alive;
 *  - pg-ledger-recovery.ts: settles whose connection was lost around COMMIT, retried to a deadline;
 *  - pg-ledger-in-doubt.ts: those still unresolved past it, fenced or compensated in the background;
 *  - pg-ledger-keys.ts: Idempotency-Key claims, and the answers settles keep under them;
 *  - pg-ledger-pruning.ts: keeping settled_requests and idempotency_keys bounded.
 */
import { randomBytes } from 'node:crypto'
import { Histogram, type Registry } from 'prom-client'
import { addPack as addPackRule, changeSubscription as changeRule, renew, type BillingState, type Mutation } from '../../domain/billing/billing-rules.ts'
import { KEY_LEASE_MS, type AnswerToKeep, type Hold, type HoldResult, type Ledger, type SettleResult, type UsageLine } from '../../ports/ledger.ts'
import { metric } from '../metrics.ts'
import type { PgPool } from './database.ts'
import { adaptiveBatchWait, type AdaptiveWaitOptions, type BatchWait } from './batch-wait.ts'
import { createBatcher } from './pg-ledger-batcher.ts'
import { createLocalHolds } from './pg-ledger-local-holds.ts'
import { createNodeHolds } from './pg-ledger-node-holds.ts'
import { createInDoubtCheck } from './pg-ledger-in-doubt.ts'
import { answerBodies, createPgKeyClaims, KEY_RENEW_MS } from './pg-ledger-keys.ts'
import { startPruning } from './pg-ledger-pruning.ts'
import { createFreeLines } from './pg-ledger-free-lines.ts'
import { createRecovery } from './pg-ledger-recovery.ts'
import { inline, readEntries, readUsage, SELECT_STATE, toState, writeSql, type StateRow } from './pg-ledger-statements.ts'
import { beginLocked, commit, createTransactionRunner, failure, type PgLedgerLogger } from './pg-ledger-transactions.ts'

export type { PgLedgerLogger } from './pg-ledger-transactions.ts'

/**
 * A hold stops counting this long after its request's arrival, or after the node that took it last
 * renewed it (every HOLD_RENEW_MS while its call runs, however long: a batch waits up to 90 s). So a
 * node that dies holding credits blocks them, and has every other node refuse the account's calls
 * with 402 for want of them, for at most this long. It is shorter than an Idempotency-Key claim's
 * lease less the claims' renewal period, so the claims of a node that died lapse only after its
 * holds: a client that retries a cut-off call with its key finds the credits that call held free.
 */
export const HOLD_TTL_MS = 15_000
/** How long after a failed write of a node's row of holds it is tried again, ms. */
const RENEW_RETRY_MS = 500
/** Period of the renewal of this node's holds (real time): a live node renews three times within a ttl. */
export const HOLD_RENEW_MS = 5_000

/** How long a settle whose transaction lost its connection keeps trying to learn or apply its outcome. */
export const SETTLE_DEADLINE_MS = 15_000
/** How long settled_requests rows are kept (server clock). */
export const SETTLED_RETENTION_MS = 24 * 3_600_000

export interface PgLedgerOptions {
  /** New lot ids (random in production). */
  newLotId: () => string
  /** New hold ids (default: a random prefix and a counter). */
  newHoldId?: () => string
  /** Lifetime of a hold whose settle never comes, in ms of the requests' clock (default HOLD_TTL_MS). */
  holdTtlMs?: number
  /** Period of the renewal of this node's unsettled holds, real ms (default HOLD_RENEW_MS; 0: never). */
  holdRenewMs?: number
  /** Runs of a transaction that meets a serialization failure or a deadlock (default 5). */
  attempts?: number
  /**
   * How long, from the failure, a settle whose transaction failed with a connection-class error keeps
   * retrying on fresh connections before it rejects and its request goes in doubt (default 15 s).
   */
  settleDeadlineMs?: number
  /**
   * A run of a hold or settle transaction not finished in this long is cut off by closing its socket
   * (default 10 s; the server's statement timeout normally answers first). After a network cut
   * nothing answers and nothing closes: without it the run would wait for TCP to give up (minutes),
   * and the account's requests on this node behind it. A run cut off is a lost connection like any
   * other: retried, or in doubt. The server ends the abandoned session, and releases the account's
   * lock, after idle_in_transaction_session_timeout (openPostgres sets 10 s by default).
   */
  runTimeoutMs?: number
  /** Period of the background check of in-doubt requests (default 1000 ms; an unref'd timer). */
  inDoubtCheckMs?: number
  /** Where in-doubt requests and their compensations are reported (pino's warn and error). */
  logger?: PgLedgerLogger
  /** Where the ledger's metrics are registered (none when absent). */
  registry?: Registry
  /** settled_requests rows older than this (server clock) are pruned (default one day). */
  settledRetentionMs?: number
  /** Period of the pruning of settled_requests and idempotency_keys (default one hour, jittered; 0: never). */
  pruneEveryMs?: number
  /** An Idempotency-Key claim lapses this long after its last renewal, in ms of the requests' clock (default KEY_LEASE_MS). */
  keyLeaseMs?: number
  /** Period of the renewal of this node's key claims, real ms (default KEY_RENEW_MS; 0: never). */
  keyRenewMs?: number
  /**
   * How long a batch of holds and settles waits for more after its first, ms (default 0: it starts
   * when it can), 'auto': a short wait only while an account waiting is served by other nodes too
   * (known from the node's views) or the machine's processors are nearly all busy (batch-wait.ts),
   * or what says so each time a batch could start.
   */
  batchWaitMs?: number | 'auto' | BatchWait
  /** How 'auto' decides, where not by default (its wait, thresholds, the machine's counters). */
  autoWait?: Omit<AdaptiveWaitOptions, 'contended'>
  /** Requests in one batch at most (default BATCH_MAX_REQUESTS). */
  batchMaxRequests?: number
  /** Batches of this node in the database at once (default BATCH_CONCURRENCY). */
  batchConcurrency?: number
  /**
   * Whether the node decides from the state its last batch left (default true): holds that leave the
   * account far above empty granted in memory (pg-ledger-local-holds.ts), settles sent with their
   * locks in one round trip and checked there (pg-ledger-guarded.ts). false: every decision is made
   * on what a transaction reads under the account's lock.
   */
  localViews?: boolean
  /**
   * How the bodies of answers kept under keys are written (default: as text where the database's
   * encodings are UTF-8, else base64; see answerBodies). Set, to test either form.
   */
  answerBodies?: 'text' | 'base64'
  /**
   * The requests' clock now. A hold then counts from when it is granted, not from when its request
   * arrived: a call that waited (behind an earlier call with its Idempotency-Key, say) is not held
   * for less than a lifetime. Absent: from the request's arrival.
   */
  now?: () => number
}

function checkCredits(credits: number, what: string): void {
  if (!Number.isSafeInteger(credits) || credits < 0) throw new Error(`${what} must be a non-negative integer of credits`)
}

/** Checked before a request joins a combined transaction, so a bad value fails alone. */
function checkInteger(value: number, what: string): void {
  if (!Number.isSafeInteger(value)) throw new Error(`${what} must be an integer`)
}

/**
 * `pool` is shared with the other adapters and stays open: close() only waits for this ledger's work
 * and refuses more; whoever opened the pool ends it.
 */
export function createPgLedger(pool: PgPool, opts: PgLedgerOptions): Ledger {
  const holdTtlMs = opts.holdTtlMs ?? HOLD_TTL_MS
  const attempts = Math.max(1, opts.attempts ?? 5)
  const newHoldId = opts.newHoldId ?? holdIds()
  const settleDeadlineMs = opts.settleDeadlineMs ?? SETTLE_DEADLINE_MS
  const runTimeoutMs = opts.runTimeoutMs ?? 10_000
  const inDoubtCheckMs = opts.inDoubtCheckMs ?? 1000
  const retentionMs = opts.settledRetentionMs ?? SETTLED_RETENTION_MS
  const pruneEveryMs = opts.pruneEveryMs ?? 3_600_000
  const logger = opts.logger
  const holdRenewMs = opts.holdRenewMs ?? HOLD_RENEW_MS
  let closed = false
  let inFlight = 0
  let idle: (() => void) | undefined
  const isClosed = () => closed

  // Writes the account's row of this node's holds again, in the next batch that has room for it.
  const renewRow = (accountId: string): void => {
    if (closed) return
    batcher
      .submit<never>(accountId, (resolve, reject) => ({ kind: 'renew', resolve: resolve as (r: undefined) => void, reject }))
      // The database out of reach: asked again a little later, until it answers.
      .catch(() => {
        if (!closed) setTimeout(() => holds.stale(accountId), RENEW_RETRY_MS).unref()
      })
  }
  const holds = createNodeHolds({ nodeId: `node_${randomBytes(9).toString('base64url')}`, holdTtlMs, renewMs: holdRenewMs, renew: renewRow })
  /** Forgets a hold whose settle ended outside a batch (free, refused, failed): its row is written again. */
  const release = (hold: Hold & { id: string }): void => {
    if (holds.remove(hold.accountId, hold.id)) holds.stale(hold.accountId)
  }
  const runner = createTransactionRunner({ pool, attempts, runTimeoutMs })
  const inDoubt = createInDoubtCheck({ runner, logger, registry: opts.registry, inDoubtCheckMs, retentionMs, isClosed })
  const now = opts.now ?? (() => Number.NEGATIVE_INFINITY)
  const local = opts.localViews === false ? undefined : createLocalHolds({ holds, newHoldId, now, registry: opts.registry })
  const adaptiveWait = opts.batchWaitMs === 'auto' ? adaptiveBatchWait({ ...opts.autoWait, contended: local?.contended }) : undefined
  const batchWait = opts.batchWaitMs === 'auto' ? adaptiveWait : opts.batchWaitMs
  const rules = { newLotId: opts.newLotId, newHoldId, holds, now, local, bodies: answerBodies(pool, opts.answerBodies) }
  const recovery = createRecovery({ runner, rules, settleDeadlineMs, runTimeoutMs, inDoubt })
  // Observed once per group transaction, never per request; the same series as the embedded ledger's.
  const commitSeconds = metric(opts.registry, 'pronet_ledger_commit_seconds', () =>
    new Histogram({
      name: 'pronet_ledger_commit_seconds',
      help: 'Group commits of the billing ledger: from handing a batch to the committer to its durable acknowledgement (fsync included)',
      buckets: [0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5],
      registers: [],
    }),
  )
  const commitJobs = metric(opts.registry, 'pronet_ledger_commit_jobs', () =>
    new Histogram({ name: 'pronet_ledger_commit_jobs', help: 'Requests and operator changes written per group commit batch', buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256], registers: [] }),
  )
  /** A group commit, of billing requests or of usage-only lines. */
  const observeCommit = (requests: number, seconds: number): void => {
    commitJobs.observe(requests)
    commitSeconds.observe(seconds)
  }
  const batcher = createBatcher({
    runner,
    rules,
    connectionLost(lost) {
      local?.forget(lost.accountId)
      recovery.connectionLost(lost)
    },
    observeCommit,
    waitMs: batchWait,
    maxRequests: opts.batchMaxRequests,
    concurrency: opts.batchConcurrency,
  })
  const freeLines = createFreeLines({
    runner,
    runTimeoutMs,
    alone: (line, keep) => recovery.settleFree(line, keep),
    recover: (line, keep, sent, error) => recovery.retryFree(line, keep, sent, error),
    observeCommit,
    maxLines: opts.batchMaxRequests,
    bodies: rules.bodies,
  })
  const pruning = startPruning({ pool, retentionMs, pruneEveryMs, logger, isClosed })
  const keys = createPgKeyClaims({ pool, leaseMs: opts.keyLeaseMs ?? KEY_LEASE_MS, renewMs: opts.keyRenewMs ?? KEY_RENEW_MS, logger, maxBatch: opts.batchMaxRequests })

  /** Ends the claim of a settle that kept its answer once it resolved (its answer replaced the claim). */
  async function answered(settled: Promise<SettleResult>, keep: AnswerToKeep | undefined): Promise<SettleResult> {
    const result = await settled
    if (keep && result.ok) keys.settled(keep.claim)
    return result
  }

  /** Counts the operation in, so close() can wait for it. */
  async function run<T>(work: () => Promise<T>): Promise<T> {
    if (closed) throw new Error('ledger closed')
    inFlight++
    try {
      return await work()
    } finally {
      if (--inFlight === 0) idle?.()
    }
  }

  /** One locked transaction that applies `change` to the state brought to `at`. */
  function change<T>(accountId: string, at: number, apply: (state: BillingState) => { result: T; mutations: Mutation[] }): Promise<T> {
    local?.forget(accountId)
    return runner.retrying(async (c) => {
      const state = toState(accountId, await beginLocked(c, accountId, inline(SELECT_STATE, [accountId])))
      const renewals = renew(state, at, opts.newLotId)
      const { result, mutations } = apply(state)
      await commit(c, writeSql(accountId, [...renewals, ...mutations]))
      return result
    })
  }

  return {
    state: (accountId, at) =>
      run(async () => {
        const seen = (await pool.query<StateRow>(SELECT_STATE, [accountId])).rows[0]
        if (!seen) return undefined
        const state = toState(accountId, seen)
        // Most reads find the period current: no lock, no transaction.
        if (renew(state, at, opts.newLotId).length === 0) return state
        return change(accountId, at, (locked) => ({ result: locked, mutations: [] }))
      }),

    hold: (accountId, credits, at) =>
      run(() => {
        checkCredits(credits, 'a hold')
        checkInteger(at, 'the instant of a hold')
        const granted = local?.grant(accountId, credits, at)
        if (granted) return Promise.resolve(granted)
        return batcher.submit<HoldResult>(accountId, (resolve, reject) => ({ kind: 'hold', credits, at, resolve, reject }))
      }),

    settle: (hold: Hold | null, line: UsageLine, keep?: AnswerToKeep) =>
      run(async (): Promise<SettleResult> => {
        checkCredits(line.credits, 'a usage line')
        checkInteger(line.at, 'the instant of a usage line')
        checkInteger(line.status, 'the status of a usage line')
        if (hold) checkInteger(hold.at, 'the instant of a hold')
        if (line.credits > (hold?.credits ?? 0)) throw new Error('a request cannot be charged more than it held')
        if (keep) {
          checkInteger(keep.claim.at, 'the instant of a key claim')
          checkInteger(keep.answer.status, 'the status of a kept answer')
          if (keep.claim.accountId !== line.accountId) throw new Error('the key claim and the usage line name different accounts')
          // The first answers kept wait for the database's encodings to be read (once).
          const deciding = rules.bodies.deciding()
          if (deciding) await deciding
        }
        if (!hold) return answered(freeLines.submit(line, keep), keep)
        const id = hold.id
        if (id === undefined) throw new Error('this hold was not taken by the PostgreSQL ledger')
        if (hold.accountId !== line.accountId) throw new Error('the hold and the usage line name different accounts')
        const held = { ...hold, id }
        // Nothing to debit: the line goes with the usage-only lines, and the hold is released from memory.
        if (line.credits === 0) return answered(freeLines.submit(line, keep).finally(() => release(held)), keep)
        // Settled in a batch, the hold is released with the debit; settled otherwise (a retry after a
        // lost connection) or failed, it is released here.
        return answered(
          batcher.submit<SettleResult>(hold.accountId, (resolve, reject) => ({ kind: 'settle', hold: held, line, keep, resolve, reject })).finally(() => release(held)),
          keep,
        )
      }),

    claimKey: (use) =>
      run(() => {
        checkInteger(use.at, 'the instant of a key claim')
        return keys.claim(use)
      }),

    releaseKey: (claim) => run(() => keys.release(claim)),

    addPack: (accountId, pack, lotId) =>
      run(() =>
        change(accountId, pack.purchasedAt, (state) => {
          // Under the account's lock the state holds every lot committed before it, so a pack already
          // granted under this id (by any node) is seen here and answered as stored, adding nothing.
          const stored = lotId === undefined ? undefined : state.lots.find((l) => l.id === lotId)
          if (stored) return { result: { ...stored }, mutations: [] }
          const { lot, mutations } = addPackRule(state, pack, lotId === undefined ? opts.newLotId : () => lotId)
          return { result: { ...lot }, mutations }
        }),
      ),

    changeSubscription: (accountId, patch, at) =>
      run(() => change(accountId, at, (state) => ({ result: state, mutations: changeRule(state, patch, at, opts.newLotId) }))),

    usage: (accountId, fromDay, toDay) => run(() => readUsage(pool, { accountId, fromDay, toDay })),

    entries: (accountId) => run(() => readEntries(pool, accountId)),

    /**
     * Waits for this ledger's work (settles still retrying included), stops the timers, makes one last
     * check of the requests in doubt and logs at error level those it could not resolve: from here on
     * nothing will compensate them (the residual risk described in pg-ledger-in-doubt.ts).
     */
    async close() {
      if (closed) return
      closed = true
      if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve))
      inDoubt.stop()
      pruning.stop()
      adaptiveWait?.stop()
      holds.stop()
      // No call of this node is running any more: the credits its rows hold come back at once, not at their expiry.
      await pool.query('DELETE FROM node_holds WHERE node_id = $1', [holds.nodeId]).catch((e: unknown) => logger?.warn(failure(e), "releasing this node's holds failed; they lapse on their own"))
      keys.stop()
      await keys.running()
      await pruning.running()
      await inDoubt.running()
      await inDoubt.finish()
    },
  }
}

/**
 * Hold ids: a random prefix per ledger and a counter. They name holds in this node's memory only;
 * a random draw per call would cost more than the rest of an in-memory hold.
 */
function holdIds(): () => string {
  const prefix = `hold_${randomBytes(9).toString('base64url')}_`
  let n = 0
  return () => prefix + (n++).toString(36)
}
