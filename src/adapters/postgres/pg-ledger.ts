/**
 * The ledger on PostgreSQL, for several stateless nodes sharing one database. No balance lives in
 * memory: every change is one transaction that locks the account's row (SELECT … FOR NO KEY UPDATE),
 * loads the billing state, applies the shared rules of billing-rules.ts and persists the mutations
 * they return before COMMIT. The row lock serialises one account's billing changes across every pool
 * and node (a renewal is granted once; a balance is checked and reserved atomically); different
 * accounts never wait on each other. FOR NO KEY UPDATE rather than FOR UPDATE: it excludes every
 * other ledger transaction of the account just the same, but not the foreign-key checks of rows that
 * merely reference the account.
 *
 * Holds are rows (credit_holds), so a node sees the reservations of all the others. A hold expires
 * `holdTtlMs` after its request's arrival instant (the clock of the requests, like every billing
 * instant): a node that dies between hold and settle leaves a row that stops reducing the balance at
 * expiry, is deleted by the account's next hold, and never bills since only a settle debits.
 *
 * Throughput: the row lock makes one account's transactions take turns, so a node combines the holds
 * and settles of an account that arrive while its previous transaction runs into the next one (group
 * commit per account, as the SQLite ledger does per process): one lock, one load, one round trip of
 * writes and one COMMIT for the lot. Within a combined transaction the settles apply first (their
 * holds are released), then the holds, each in arrival order: all of them were in flight together, so
 * any order is one their callers could have seen. Each transaction is two round trips: BEGIN, the lock
 * and the load in one simple-protocol query, then every write and COMMIT in another. A combined
 * transaction that fails is run again one request per transaction, so only the request that cannot
 * be written fails (a debit of a request id already billed, say).
 *
 * Reads that change nothing take no lock: state() reads the account and its lots in one statement
 * (one snapshot) and locks only when a renewal is due; usage() and entries() are single statements.
 *
 * Lost COMMITs. When the connection drops while a settle's COMMIT is in flight (server stopped,
 * network cut) the transaction may or may not have committed. Every settle that bills or counts
 * anything records its request id in settled_requests (migration 004) in the same transaction (a
 * settle refused for lack of credits records nothing: it only releases its hold), so the answer can
 * be read afterwards, and the primary key makes a settle apply at most once whatever races:
 *  - A settle whose transaction fails with a connection-class error (isPgUnavailable) is retried on
 *    fresh connections until `settleDeadlineMs` (default 15 s) has passed since the failure. A run of
 *    a billing group first takes the account's lock, which the lost transaction held since before its
 *    COMMIT went out, so once the lock is granted the lost transaction has ended; it then reads which
 *    of the group's request ids are recorded (those committed: resolved as charged as recorded) and
 *    applies only the others, against the current state (refused as usual when the lots no longer
 *    cover them). A usage-only line (and a free settle) re-applies behind INSERT … ON CONFLICT DO
 *    NOTHING on its request id: the insert waits for a conflicting transaction still running and
 *    applies nothing if that one committed.
 *  - A network cut answers nothing and closes nothing: each run of a hold or settle transaction is
 *    cut off client-side after `runTimeoutMs` (default 10 s) by closing its socket, which then counts
 *    as a lost connection; the server ends the abandoned session, and releases the account's lock,
 *    after idle_in_transaction_session_timeout (openPostgres sets 10 s).
 *  - Holds are not retried: a hold whose transaction fails is answered with the error; if it did
 *    commit, its row is an orphan that nobody can settle (its id never reached a caller), that stops
 *    counting at expiry, and that the background check below deletes as soon as it can.
 *  - Past the deadline the settle rejects with the connection error (the gateway answers 503, not
 *    billed) and its request id is kept "in doubt" in memory. While any are, a check runs every
 *    `inDoubtCheckMs` (default 1 s; an unref'd timer, stopped by close()). Per account, under the
 *    account's lock, it inserts a fence row ('void') for each id that has no row, so that a lost
 *    transaction still running on the server can never commit afterwards, and for every id that DID
 *    commit it gives the debited credits back to the same lots ('adjust' entries naming the request,
 *    never above a lot's credits) and moves the request's usage line to status 503, free, all in one
 *    transaction; each such compensation is logged at error level and counted
 *    (pronet_ledger_in_doubt_compensated_total). An id that had not committed is counted once under
 *    503 too (what its caller was answered), and its hold row is deleted. Either way the request ends
 *    as the gateway answered it: 503, not billed.
 *  - Residual risk: the in-doubt ids live only in this process. A node that crashes (or is closed while
 *    the database is still unreachable) with ids in doubt leaves any that had committed billed although
 *    their callers were answered 503; close() logs the ids it could not resolve at error level, and
 *    settled_requests still holds the rows for a day, but nothing compensates them automatically.
 *
 * settled_requests stays bounded: its rows are only read within the deadline and while in doubt, so
 * rows older than `settledRetentionMs` (default one day, server clock) are deleted in small batches
 * every `pruneEveryMs` (default one hour, jittered, unref'd timer; 0 turns it off). An id still in
 * doubt after half the retention is dropped from the check with an error log, so a pruned row can
 * never be mistaken for "did not commit".
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { Counter, Gauge, type Registry } from 'prom-client'
import { metric } from '../metrics.ts'
import {
  addPack as addPackRule,
  balanceAt,
  billingInstant,
  changeSubscription as changeRule,
  debit,
  renew,
  type BillingState,
  type Lot,
  type Mutation,
  type Subscription,
} from '../../domain/billing/billing-rules.ts'
import { utcDay } from '../../domain/billing/calendar.ts'
import type { Hold, HoldResult, Ledger, LedgerEntry, SettleResult, UsageLine, UsageRow } from '../../ports/ledger.ts'
import { endFailedTransaction, type PgPool } from './database.ts'
import { isPgUnavailable } from './pg-errors.ts'

/**
 * A hold stops counting this long after its request's arrival, or after the node that took it last
 * renewed it (every HOLD_RENEW_MS while its call runs, however long: a batch waits up to 90 s). So a
 * node that dies holding credits blocks them for at most this long; they were blocked for 5 minutes,
 * refusing the account's calls with 402 on every other node meanwhile.
 */
export const HOLD_TTL_MS = 30_000
/** Period of the renewal of this node's holds (real time). */
export const HOLD_RENEW_MS = 10_000

/** How long a settle whose transaction lost its connection keeps trying to learn or apply its outcome. */
export const SETTLE_DEADLINE_MS = 15_000
/** How long settled_requests rows are kept (server clock). */
export const SETTLED_RETENTION_MS = 24 * 3_600_000
/** The response a settle that rejects with a connection error becomes (the gateway's 503). */
const UNAVAILABLE_STATUS = 503
/** Rows deleted per statement when pruning settled_requests. */
const PRUNE_BATCH = 5_000
/** In-doubt ids resolved per transaction of the background check. */
const CHECK_BATCH = 500
/**
 * A run of the background check that has not finished in this long is cut off (its socket closed):
 * longer than the server's statement timeout (15 s by default), so a lock wait fails there first.
 */
const CHECK_TIMEOUT_MS = 20_000
/**
 * How a background task's failure is logged: the database out of reach by its message alone (the
 * task retries every few seconds through an outage, and a stack says nothing more), anything else
 * with its stack.
 */
const failure = (e: unknown): Record<string, unknown> => (isPgUnavailable(e) ? { cause: e instanceof Error ? e.message : String(e) } : { err: e })

/** The least time a retry run is given, even right at the deadline. */
const MIN_RUN_MS = 250

/** SQLSTATEs after which a transaction was rolled back whole and may simply run again. */
const RETRYABLE = new Set(['40001', '40P01'])
const retryable = (e: unknown): boolean => e instanceof pg.DatabaseError && RETRYABLE.has(e.code ?? '')

/** The server refused a value or a row (classes 22 and 23: data exception, integrity constraint). */
const rowRefused = (e: unknown): boolean => e instanceof pg.DatabaseError && /^2[23]/.test(e.code ?? '')

export interface PgLedgerOptions {
  /** New lot ids (random in production). */
  newLotId: () => string
  /** New hold ids (default: random). */
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
   * other: retried, or in doubt.
   */
  runTimeoutMs?: number
  /** Period of the background check of in-doubt requests (default 1000 ms). */
  inDoubtCheckMs?: number
  /** Where in-doubt requests and their compensations are reported (pino's warn and error). */
  logger?: PgLedgerLogger
  /** Where the ledger's metrics are registered (none when absent). */
  registry?: Registry
  /** settled_requests rows older than this (server clock) are pruned (default one day). */
  settledRetentionMs?: number
  /** Period of the pruning of settled_requests (default one hour; 0: never). */
  pruneEveryMs?: number
}

/** The two methods of a pino logger the ledger uses. */
export interface PgLedgerLogger {
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

const ignore = (): void => {}

/** Closes a client's socket under it: its running query fails as a lost connection does. */
function sever(client: pg.PoolClient): void {
  ;(client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy()
}

interface StateRow {
  plan: Subscription['plan']
  status: Subscription['status']
  credits_limit: number
  rps_limit: number
  anchor_at: string | null
  created_at: string
  period_start: string | null
  renewal_at: string | null
  cancel: boolean
  /** [id, kind, credits, remaining, starts_at, expires_at, price_cents, seq] per lot, by seq. */
  lots: [string, Lot['kind'], number, number, number, number, number | null, number][]
  /** [id, credits, expires_at] per hold not released by this transaction. */
  holds?: [string, number, number][]
}

/** The account and its lots in one statement, so both come from one snapshot. */
const STATE_COLUMNS = `a.plan, a.status, a.credits_limit, a.rps_limit, a.anchor_at, a.created_at, a.period_start, a.renewal_at,
  (a.cancel_at_period_end::int <> 0) AS cancel,
  COALESCE((SELECT json_agg(json_build_array(l.id, l.kind, l.credits, l.remaining, l.starts_at, l.expires_at, l.price_cents, l.seq) ORDER BY l.seq)
            FROM credit_lots l WHERE l.account_id = a.id), '[]'::json) AS lots`
const SELECT_STATE = `SELECT ${STATE_COLUMNS} FROM accounts a WHERE a.id = $1`
const LOCK_ACCOUNT = 'SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE'
/**
 * After the lock: releases the holds being settled ($2) and reads the state and the other holds. The
 * CTE's DELETE is not visible to the SELECT (one snapshot), hence the explicit exclusion.
 */
const RELEASE_AND_LOAD = `WITH released AS (DELETE FROM credit_holds WHERE account_id = $1 AND id = ANY($2::text[]))
  SELECT ${STATE_COLUMNS},
    COALESCE((SELECT json_agg(json_build_array(h.id, h.credits, h.expires_at)) FROM credit_holds h
              WHERE h.account_id = a.id AND NOT (h.id = ANY($2::text[]))), '[]'::json) AS holds
  FROM accounts a WHERE a.id = $1`

/** Which of a group's request ids are recorded as settled: what each charged. */
const SELECT_SETTLED = `SELECT request_id, credits FROM settled_requests WHERE request_id = ANY($1::text[]) AND state = 'settled'`

const UPSERT_USAGE_HEAD = 'INSERT INTO usage_daily (account_id, day, endpoint, status, requests, billable, credits) VALUES'
const UPSERT_USAGE_TAIL = `ON CONFLICT (account_id, day, endpoint, status) DO UPDATE SET
  requests = usage_daily.requests + EXCLUDED.requests,
  billable = usage_daily.billable + EXCLUDED.billable,
  credits = usage_daily.credits + EXCLUDED.credits`

/**
 * Consecutive debits in one statement: the lots' UPDATE (one per lot: the CHECK on remaining refuses
 * an overdraft) and the entries in their order, so ledger ids follow the order of the debits.
 */
const DEBITS = `WITH d AS (SELECT * FROM unnest($2::text[], $3::int[], $4::bigint[], $5::text[], $6::text[])
                           WITH ORDINALITY AS d(lot_id, amount, at, request_id, endpoint, n)),
  spent AS (UPDATE credit_lots l SET remaining = l.remaining - s.amount
            FROM (SELECT lot_id, sum(amount) AS amount FROM d GROUP BY lot_id) s WHERE l.id = s.lot_id AND l.account_id = $1)
  INSERT INTO ledger_entries (account_id, lot_id, at, kind, delta, request_id, endpoint)
  SELECT $1, lot_id, at, 'debit', -amount, request_id, endpoint FROM d ORDER BY n`

type SqlValue = string | number | null | readonly string[] | readonly number[]

function literal(v: SqlValue | undefined): string {
  if (v === null) return 'NULL'
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new Error(`not an integer: ${v}`)
    // Parenthesised, so that `x -$1` never becomes the comment `x --1`.
    return v < 0 ? `(${v})` : String(v)
  }
  if (typeof v === 'string') return pg.escapeLiteral(v)
  if (Array.isArray(v)) return `ARRAY[${v.map((x: string | number) => literal(x)).join(', ')}]`
  throw new Error('missing SQL value')
}

/**
 * A statement with its values written in as literals (strings through the driver's escapeLiteral,
 * numbers checked to be integers), so that several statements travel in one simple-protocol query:
 * one round trip for what would be several. In READ COMMITTED each statement of such a query still
 * takes its own snapshot, so a read after the lock sees everything committed before the lock.
 */
function inline(sql: string, values: readonly SqlValue[]): string {
  return sql.replace(/\$(\d+)/g, (_, i: string) => literal(values[Number(i) - 1]))
}

const num = (v: string | number): number => Number(v)
const numOrNull = (v: string | number | null): number | null => (v === null ? null : Number(v))

function toState(accountId: string, row: StateRow): BillingState {
  return {
    accountId,
    subscription: {
      plan: row.plan,
      status: row.status,
      creditsLimit: row.credits_limit,
      rpsLimit: row.rps_limit,
      anchorAt: num(row.anchor_at ?? row.created_at),
      periodStart: numOrNull(row.period_start),
      renewalAt: numOrNull(row.renewal_at),
      cancelAtPeriodEnd: row.cancel,
    },
    lots: row.lots.map(([id, kind, credits, remaining, startsAt, expiresAt, priceCents, seq]) => ({
      id,
      kind,
      credits,
      remaining,
      startsAt: num(startsAt),
      expiresAt: num(expiresAt),
      priceCents: numOrNull(priceCents),
      seq,
    })),
  }
}

interface UsageAggregate extends UsageRow {
  accountId: string
}

/**
 * The SQL of mutations, in their order; runs of debits become one statement each. Usage lines are
 * summed per key (one INSERT … ON CONFLICT may not touch a row twice).
 */
function writeSql(accountId: string, mutations: readonly Mutation[], usage: readonly UsageLine[] = []): string[] {
  const out: string[] = []
  let debits: Extract<Mutation, { type: 'debit' }>[] = []
  const flushDebits = () => {
    if (debits.length === 0) return
    out.push(
      inline(DEBITS, [
        accountId,
        debits.map((d) => d.lotId),
        debits.map((d) => d.amount),
        debits.map((d) => d.at),
        debits.map((d) => d.requestId),
        debits.map((d) => d.endpoint),
      ]),
    )
    debits = []
  }
  for (const m of mutations) {
    if (m.type === 'debit') {
      debits.push(m)
      continue
    }
    flushDebits()
    switch (m.type) {
      case 'subscription': {
        const s = m.subscription
        // '1'/'0' read as boolean or integer, whichever type the accounts migration gave the column.
        out.push(
          inline(
            `UPDATE accounts SET plan = $2, status = $3, credits_limit = $4, rps_limit = $5, anchor_at = $6, period_start = $7,
               renewal_at = $8, cancel_at_period_end = $9 WHERE id = $1`,
            [accountId, s.plan, s.status, s.creditsLimit, s.rpsLimit, s.anchorAt, s.periodStart, s.renewalAt, s.cancelAtPeriodEnd ? '1' : '0'],
          ),
        )
        break
      }
      case 'grant': {
        const l = m.lot
        out.push(
          inline(
            `INSERT INTO credit_lots (id, account_id, kind, credits, remaining, starts_at, expires_at, price_cents, seq)
             VALUES ($1, $2, $3, $4, $4, $5, $6, $7, $8)`,
            [l.id, accountId, l.kind, l.credits, l.startsAt, l.expiresAt, l.priceCents, l.seq],
          ),
          inline(`INSERT INTO ledger_entries (account_id, lot_id, at, kind, delta) VALUES ($1, $2, $3, 'grant', $4)`, [accountId, l.id, m.at, l.credits]),
        )
        break
      }
      case 'adjust':
        out.push(
          inline('UPDATE credit_lots SET credits = $3, remaining = remaining + $4 WHERE id = $2 AND account_id = $1', [accountId, m.lotId, m.credits, m.delta]),
          inline(`INSERT INTO ledger_entries (account_id, lot_id, at, kind, delta) VALUES ($1, $2, $3, 'adjust', $4)`, [accountId, m.lotId, m.at, m.delta]),
        )
        break
      case 'lotExpires':
        out.push(inline('UPDATE credit_lots SET expires_at = $3 WHERE id = $2 AND account_id = $1', [accountId, m.lotId, m.expiresAt]))
        break
      case 'event':
        out.push(inline('INSERT INTO subscription_events (account_id, at, change) VALUES ($1, $2, $3)', [accountId, m.at, JSON.stringify(m.change)]))
        break
    }
  }
  flushDebits()
  if (usage.length > 0) {
    const rows = new Map<string, UsageAggregate>()
    for (const u of usage) addUsage(rows, u, u.status, 1)
    out.push(usageUpsert(rows.values()))
  }
  return out
}

/** Adds `sign` times the line (counted under `status`) to the aggregate of its key. */
function addUsage(rows: Map<string, UsageAggregate>, u: UsageLine, status: number, sign: 1 | -1, credits = u.credits): void {
  const day = utcDay(u.at)
  const key = JSON.stringify([u.accountId, day, u.endpoint, status])
  const row = rows.get(key) ?? { accountId: u.accountId, day, endpoint: u.endpoint, status, requests: 0, billable: 0, credits: 0 }
  row.requests += sign
  row.billable += credits > 0 ? sign : 0
  row.credits += sign * credits
  rows.set(key, row)
}

/** One INSERT … ON CONFLICT adding each aggregate (a key at most once) to usage_daily. */
function usageUpsert(rows: Iterable<UsageAggregate>): string {
  const values = [...rows].map((r) => inline('($1, $2, $3, $4, $5, $6, $7)', [r.accountId, r.day, r.endpoint, r.status, r.requests, r.billable, r.credits]))
  return `${UPSERT_USAGE_HEAD} ${values.join(', ')} ${UPSERT_USAGE_TAIL}`
}

/** The settled_requests rows of settles that committed (what they charged). */
function recordSettled(accountId: string, settled: readonly { line: UsageLine }[]): string {
  const values = settled.map(({ line }) => inline('($1, $2, $3, $4)', [line.requestId, accountId, line.at, line.credits]))
  return `INSERT INTO settled_requests (request_id, account_id, at, credits) VALUES ${values.join(', ')}`
}

function checkCredits(credits: number, what: string): void {
  if (!Number.isSafeInteger(credits) || credits < 0) throw new Error(`${what} must be a non-negative integer of credits`)
}

/** Checked before a request joins a combined transaction, so a bad value fails alone. */
function checkInteger(value: number, what: string): void {
  if (!Number.isSafeInteger(value)) throw new Error(`${what} must be an integer`)
}

/** A hold or a settle of one account, waiting for the account's next transaction on this node. */
type Request =
  | { kind: 'hold'; credits: number; at: number; resolve(r: HoldResult): void; reject(e: unknown): void }
  | { kind: 'settle'; hold: Hold & { id: string }; line: UsageLine; resolve(r: SettleResult): void; reject(e: unknown): void }
type SettleRequest = Extract<Request, { kind: 'settle' }>

type Outcome = { request: Request; result: HoldResult | SettleResult }

/** How far one run of a transaction got: after a lost connection, it says what may have committed. */
interface Progress {
  /** A retry: read which settles are recorded (under the account's lock) and apply only the others. */
  check: boolean
  /** Set by a retry run once it holds the lock: request id → credits charged, for the recorded ones. */
  recorded?: Map<string, number>
  /** The writes and COMMIT were sent: from here on a lost connection leaves the outcome unknown. */
  commitSent: boolean
  /** Ids of the holds the run inserts. */
  granted: string[]
}

const progress = (check: boolean): Progress => ({ check, commitSent: false, granted: [] })

/** A settle that rejected after losing its connection, until the background check has resolved it. */
interface Doubt {
  line: UsageLine
  holdId: string | null
  /** A COMMIT went out unanswered (false: its transactions are known to have been rolled back). */
  unknown: boolean
  /** Date.now() when it went in doubt. */
  since: number
}

/**
 * `pool` is shared with the other adapters and stays open: close() only waits for this ledger's work
 * and refuses more; whoever opened the pool ends it.
 */
export function createPgLedger(pool: PgPool, opts: PgLedgerOptions): Ledger {
  const holdTtlMs = opts.holdTtlMs ?? HOLD_TTL_MS
  const attempts = Math.max(1, opts.attempts ?? 5)
  const newHoldId = opts.newHoldId ?? (() => `hold_${randomBytes(12).toString('base64url')}`)
  const settleDeadlineMs = opts.settleDeadlineMs ?? SETTLE_DEADLINE_MS
  const runTimeoutMs = opts.runTimeoutMs ?? 10_000
  const inDoubtCheckMs = opts.inDoubtCheckMs ?? 1000
  const retentionMs = opts.settledRetentionMs ?? SETTLED_RETENTION_MS
  const pruneEveryMs = opts.pruneEveryMs ?? 3_600_000
  const logger = opts.logger
  const holdRenewMs = opts.holdRenewMs ?? HOLD_RENEW_MS
  /**
   * Holds this node granted whose settle has not come: their rows' expiry is moved on every
   * holdRenewMs to their arrival instant plus the real time since plus holdTtlMs, so a call that runs
   * long keeps its credits while one of a node that died lapses holdTtlMs after its last renewal.
   */
  const unsettled = new Map<string, { at: number; granted: number }>()
  let renewing: Promise<unknown> | undefined
  const renewTimer =
    holdRenewMs > 0
      ? setInterval(() => {
          if (unsettled.size === 0 || renewing) return
          const now = Date.now()
          const ids: string[] = []
          const expiries: number[] = []
          for (const [id, h] of unsettled) {
            // A settle that never came (it cannot: the gateway settles every call) is let go after an hour.
            if (now - h.granted > 3_600_000) unsettled.delete(id)
            else {
              ids.push(id)
              expiries.push(h.at + (now - h.granted) + holdTtlMs)
            }
          }
          renewing = pool
            .query(
              `UPDATE credit_holds h SET expires_at = GREATEST(h.expires_at, u.expires_at)
               FROM unnest($1::text[], $2::bigint[]) AS u(id, expires_at) WHERE h.id = u.id`,
              [ids, expiries],
            )
            .catch((e: unknown) => logger?.warn(failure(e), 'renewing this node\'s holds failed; will retry'))
            .finally(() => (renewing = undefined))
        }, holdRenewMs)
      : undefined
  renewTimer?.unref()
  const compensatedTotal = metric(opts.registry, 'pronet_ledger_in_doubt_compensated_total', () =>
    new Counter({
      name: 'pronet_ledger_in_doubt_compensated_total',
      help: 'Settles whose COMMIT had been lost and that committed although their callers were answered 503: credits given back, usage moved to 503',
      registers: [],
    }),
  )
  const inDoubtGauge = metric(opts.registry, 'pronet_ledger_in_doubt_requests', () =>
    new Gauge({ name: 'pronet_ledger_in_doubt_requests', help: 'Settles of this node whose outcome is not yet resolved by the background check', registers: [] }),
  )
  let closed = false
  let inFlight = 0
  let idle: (() => void) | undefined
  /** Per account: requests waiting for its next transaction, while one runs on this node. */
  const waiting = new Map<string, Request[]>()
  /** By request id: settles rejected after a lost connection, for the background check. */
  const doubts = new Map<string, Doubt>()
  /** Per account: holds that may have committed although their callers were answered with an error. */
  const orphanHolds = new Map<string, Set<string>>()
  let checkTimer: NodeJS.Timeout | undefined
  let checking: Promise<void> | undefined
  let pruneTimer: NodeJS.Timeout | undefined
  let pruning: Promise<void> | undefined

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

  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

  /** A pooled connection within `ms`; one that comes later is given back at once. */
  function connectWithin(ms: number): Promise<pg.PoolClient> {
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

  /**
   * Runs `work` on one pooled connection and gives it back; whatever `work` leaves open is rolled
   * back, and a connection that cannot even roll back is destroyed rather than returned to the pool.
   * With `until` (a Date.now() instant), connecting and the work are cut off then (at least
   * MIN_RUN_MS from now) by closing the socket, so a dead network cannot hold a retry past its
   * deadline. While checked out the client has a listener for 'error' (the pool's is removed then):
   * a connection lost mid-query must fail the query, not the process.
   */
  async function withClient<T>(work: (c: pg.PoolClient) => Promise<T>, until?: number): Promise<T> {
    const budget = () => Math.max((until ?? 0) - Date.now(), MIN_RUN_MS)
    const client = until === undefined ? await pool.connect() : await connectWithin(budget())
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

  /**
   * Runs `work` on one connection; after a serialization failure or a deadlock (the transaction was
   * rolled back whole) it runs again from the start. `guarded`: each run is cut off after runTimeoutMs.
   */
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

  /** BEGIN, the account's lock and `reads` in one round trip; the results of the reads. */
  async function beginLockedAll(c: pg.PoolClient, accountId: string, reads: readonly string[]): Promise<pg.QueryResult[]> {
    const results = (await c.query(`BEGIN; ${inline(LOCK_ACCOUNT, [accountId])}; ${reads.join('; ')}`)) as unknown as pg.QueryResult[]
    if (results[1]?.rowCount !== 1) throw new Error(`unknown account ${accountId}`)
    return results.slice(2)
  }

  /** BEGIN, the account's lock and `read` in one round trip; the read's first row. */
  async function beginLocked(c: pg.PoolClient, accountId: string, read: string): Promise<StateRow> {
    return (await beginLockedAll(c, accountId, [read]))[0]?.rows[0] as StateRow
  }

  /** Every write and the COMMIT in one round trip; a failing statement skips the rest, COMMIT included. */
  async function commit(c: pg.PoolClient, statements: readonly string[]): Promise<void> {
    await c.query([...statements, 'COMMIT'].join(';\n'))
  }

  /** One locked transaction that applies `change` to the state brought to `at`. */
  function change<T>(accountId: string, at: number, apply: (state: BillingState) => { result: T; mutations: Mutation[] }): Promise<T> {
    return retrying(async (c) => {
      const state = toState(accountId, await beginLocked(c, accountId, inline(SELECT_STATE, [accountId])))
      const renewals = renew(state, at, opts.newLotId)
      const { result, mutations } = apply(state)
      await commit(c, writeSql(accountId, [...renewals, ...mutations]))
      return result
    })
  }

  /**
   * One transaction for a group of one account's holds and settles: settles first (each releases its
   * hold and debits at the hold's instant, or is refused when the lots no longer cover it), then holds
   * against the balance less the live holds, those of this group included. A billed settle records
   * its request id in settled_requests. In a retry (`p.check`) the settles already recorded are
   * answered as recorded and not applied again.
   */
  async function combined(c: pg.PoolClient, accountId: string, requests: readonly Request[], p: Progress): Promise<Outcome[]> {
    const settles = requests.filter((r) => r.kind === 'settle')
    const holdRequests = requests.filter((r) => r.kind === 'hold')
    const releaseAndLoad = inline(RELEASE_AND_LOAD, [accountId, settles.map((s) => s.hold.id)])
    let row: StateRow
    if (p.check) {
      const [recorded, loaded] = await beginLockedAll(c, accountId, [inline(SELECT_SETTLED, [settles.map((s) => s.line.requestId)]), releaseAndLoad])
      p.recorded = new Map((recorded?.rows ?? []).map((r: { request_id: string; credits: number }) => [r.request_id, r.credits]))
      row = loaded?.rows[0] as StateRow
    } else {
      row = await beginLocked(c, accountId, releaseAndLoad)
    }
    const state = toState(accountId, row)
    const mutations: Mutation[] = []
    const lines: UsageLine[] = []
    const billed: SettleRequest[] = []
    const outcomes: Outcome[] = []
    for (const s of settles) {
      const recorded = p.recorded?.get(s.line.requestId)
      if (recorded !== undefined) {
        outcomes.push({ request: s, result: { ok: true, charged: recorded } })
        continue
      }
      mutations.push(...renew(state, s.hold.at, opts.newLotId))
      const debits = debit(state, s.line.credits, s.hold.at, { requestId: s.line.requestId, endpoint: s.line.endpoint })
      // Refused: the hold's release is committed, nothing is billed, counted or recorded; the caller
      // records the request's own line (the gateway: a free 402) with settle(null, …).
      if (!debits) outcomes.push({ request: s, result: { ok: false, reason: 'insufficient' } })
      else {
        mutations.push(...debits)
        lines.push(s.line)
        billed.push(s)
        outcomes.push({ request: s, result: { ok: true, charged: s.line.credits } })
      }
    }
    // A hold this node granted and has not settled is a call still running here: it counts (and its
    // row stays) whatever its recorded expiry, which is in the requests' clock and may look lapsed
    // when that clock jumps ahead (a test clock) before the renewal moves it.
    const live = (row.holds ?? []).map(([id, credits, expiresAt]) => ({ id, credits, expiresAt: num(expiresAt), ours: unsettled.has(id) }))
    const lapsed = (x: { expiresAt: number; ours: boolean }, at: number) => !x.ours && x.expiresAt <= at
    const granted: { id: string; credits: number; at: number; expiresAt: number }[] = []
    let sweepBefore: number | undefined
    for (const h of holdRequests) {
      mutations.push(...renew(state, h.at, opts.newLotId))
      // Holds of dead nodes (expired by this request's instant) do not count; their rows go below.
      if (live.some((x) => lapsed(x, h.at))) sweepBefore = Math.min(sweepBefore ?? h.at, h.at)
      const held = live.reduce((sum, x) => (lapsed(x, h.at) ? sum : sum + x.credits), 0)
      const balance = balanceAt(state, h.at)
      if (balance.total - held < h.credits) {
        outcomes.push({ request: h, result: { ok: false, balance, held } })
        continue
      }
      const hold = { id: newHoldId(), credits: h.credits, at: h.at, expiresAt: h.at + holdTtlMs }
      live.push({ ...hold, ours: true })
      granted.push(hold)
      // The request is billed at its billing instant: a lot this node's clock sees as starting a few ms
      // ahead (another node opened it) is live there. The hold's row keeps this node's instant, which
      // its lapse is counted from.
      const at = billingInstant(state, h.at)
      unsettled.set(hold.id, { at: h.at, granted: Date.now() })
      outcomes.push({ request: h, result: { ok: true, hold: { id: hold.id, accountId, credits: h.credits, at } } })
    }
    const statements = writeSql(accountId, mutations, lines)
    if (billed.length > 0) statements.push(recordSettled(accountId, billed))
    if (sweepBefore !== undefined) {
      statements.push(
        inline('DELETE FROM credit_holds WHERE account_id = $1 AND expires_at <= $2 AND NOT (id = ANY($3::text[]))', [
          accountId,
          sweepBefore,
          live.filter((x) => x.ours).map((x) => x.id),
        ]),
      )
    }
    if (granted.length > 0) {
      const values = granted.map((g) => inline('($1, $2, $3, $4, $5)', [g.id, accountId, g.credits, g.at, g.expiresAt]))
      statements.push(`INSERT INTO credit_holds (id, account_id, credits, at, expires_at) VALUES ${values.join(', ')}`)
    }
    p.granted = granted.map((g) => g.id)
    p.commitSent = true
    await commit(c, statements)
    return outcomes
  }

  function deliver(outcomes: readonly Outcome[]): void {
    for (const { request, result } of outcomes) (request.resolve as (r: HoldResult | SettleResult) => void)(result)
  }

  /** Runs `requests` in one transaction (retried after a serialization failure); `p` says how far it got. */
  function runCombined(accountId: string, requests: readonly Request[], p: Progress): Promise<Outcome[]> {
    return retrying((c) => {
      p.commitSent = false
      p.granted = []
      return combined(c, accountId, requests, p)
    }, true)
  }

  /** The end of a retry run: runTimeoutMs from now, but not past the deadline. */
  const runUntil = (deadline: number) => Math.min(deadline, Date.now() + runTimeoutMs)

  /**
   * A group's transaction lost its connection: its holds fail now (a hold that did commit is an
   * orphan, deleted later), its settles are retried (not awaited: the account's next group goes on).
   */
  function connectionLost(accountId: string, group: readonly Request[], error: unknown, p: Progress): void {
    // Their callers are answered with the error and never settle them: not ours to keep alive.
    for (const id of p.granted) unsettled.delete(id)
    if (p.commitSent && p.granted.length > 0) {
      const orphans = orphanHolds.get(accountId) ?? new Set<string>()
      for (const id of p.granted) orphans.add(id)
      orphanHolds.set(accountId, orphans)
      watch()
    }
    const settles: SettleRequest[] = []
    for (const r of group) {
      if (r.kind === 'hold') r.reject(error)
      else settles.push(r)
    }
    if (settles.length === 0) return
    const unknown = new Set(p.commitSent ? settles.map((s) => s.line.requestId) : [])
    void recoverSettles(accountId, settles, error, unknown, Date.now() + settleDeadlineMs)
  }

  /** Waits before retry `n` (50 ms, doubling, at most 1 s), never past the deadline. */
  const pause = (n: number, deadline: number) => sleep(Math.max(0, Math.min(50 * 2 ** n, 1000, deadline - Date.now())))

  /**
   * Retries billing settles whose transaction lost its connection until each is resolved or the
   * deadline passes. `unknown`: request ids whose outcome is not known (a COMMIT of theirs went out
   * unanswered and no run has read their row under the lock since).
   */
  async function recoverSettles(accountId: string, settles: SettleRequest[], error: unknown, unknown: Set<string>, deadline: number): Promise<void> {
    let pending = settles
    let last = error
    for (let n = 0; pending.length > 0 && Date.now() < deadline; n++) {
      await pause(n, deadline)
      const p = progress(true)
      try {
        deliver(await withClient((c) => combined(c, accountId, pending, p), runUntil(deadline)))
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
          for (const s of pending) await recoverSettles(accountId, [s], e, unknown, deadline)
          return
        }
        // Refused by the server, so rolled back: only an outcome still unknown from an earlier run
        // goes in doubt.
        for (const s of pending) {
          if (unknown.has(s.line.requestId)) putInDoubt(s.line, s.hold.id, true, e)
          s.reject(e)
        }
        return
      }
    }
    // The deadline passed with the database out of reach: the caller is answered 503.
    for (const s of pending) {
      putInDoubt(s.line, s.hold.id, unknown.has(s.line.requestId), last)
      s.reject(last)
    }
  }

  /** Runs the account's waiting requests, group after group, until none is left. */
  async function drain(accountId: string): Promise<void> {
    for (;;) {
      const group = waiting.get(accountId) as Request[]
      if (group.length === 0) {
        waiting.delete(accountId)
        return
      }
      waiting.set(accountId, [])
      const p = progress(false)
      try {
        deliver(await runCombined(accountId, group, p))
      } catch (e) {
        if (isPgUnavailable(e)) {
          connectionLost(accountId, group, e, p)
          continue
        }
        // Run again request by request only when the server refused a row (so the transaction was
        // certainly rolled back, and one request is likely the cause). After an outage, running each
        // request alone would only take longer to fail.
        if (group.length === 1 || !rowRefused(e)) {
          for (const r of group) r.reject(e)
          continue
        }
        for (const r of group) {
          const alone = progress(false)
          try {
            deliver(await runCombined(accountId, [r], alone))
          } catch (e2) {
            if (isPgUnavailable(e2)) connectionLost(accountId, [r], e2, alone)
            else r.reject(e2)
          }
        }
      }
    }
  }

  function submit<T extends HoldResult | SettleResult>(accountId: string, make: (resolve: (r: T) => void, reject: (e: unknown) => void) => Request): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const queue = waiting.get(accountId)
      const request = make(resolve, reject)
      if (queue) {
        queue.push(request)
        return
      }
      waiting.set(accountId, [request])
      void drain(accountId)
    })
  }

  /**
   * A settle that debits nothing (a usage-only line, or a free settle releasing its hold): one
   * implicit transaction without the account's lock. After a lost connection it is retried until the
   * deadline behind INSERT … ON CONFLICT DO NOTHING on its request id, which waits for a conflicting
   * transaction still running and lets nothing apply twice.
   */
  async function settleFree(line: UsageLine, holdId: string | null): Promise<SettleResult> {
    const release = holdId === null ? [] : [inline('DELETE FROM credit_holds WHERE id = $1 AND account_id = $2', [holdId, line.accountId])]
    const writes = [...release, ...writeSql(line.accountId, [], [line])]
    const record = recordSettled(line.accountId, [{ line }])
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
      let last = e
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
          if (unknown) putInDoubt(line, holdId, true, e2)
          throw e2
        }
      }
      // The deadline passed with the database out of reach: the caller is answered 503.
      putInDoubt(line, holdId, unknown, last)
      throw last
    }
  }

  /** Keeps a settle that rejected after a lost connection for the background check. */
  function putInDoubt(line: UsageLine, holdId: string | null, unknown: boolean, error: unknown): void {
    doubts.set(line.requestId, { line, holdId, unknown, since: Date.now() })
    // One line per call (its request id is what reconciliation looks for), without a stack: the cause
    // is the outage, which the error handler already reports once per kind and interval.
    const cause = error instanceof Error ? error.message : String(error)
    logger?.warn(
      { cause, requestId: line.requestId, accountId: line.accountId, credits: line.credits, outcome: unknown ? 'unknown' : 'rolled back' },
      unknown
        ? 'settle rejected after losing its connection with its COMMIT in flight: in doubt until the database answers'
        : 'settle rejected after losing its connection (not committed); recorded as 503 once the database answers',
    )
    watch()
  }

  /** Starts the background check while anything waits for it (not once closed: close() checks last). */
  function watch(): void {
    inDoubtGauge.set(doubts.size)
    if (checkTimer || closed) return
    checkTimer = setInterval(() => {
      checking ??= checkDoubts()
        .catch((e: unknown) => logger?.error(failure(e), 'checking the settles in doubt failed; will retry'))
        .finally(() => (checking = undefined))
    }, inDoubtCheckMs)
    checkTimer.unref()
  }

  function unwatch(): void {
    clearInterval(checkTimer)
    checkTimer = undefined
  }

  /** One pass over the in-doubt requests and orphan holds, account by account. */
  async function checkDoubts(): Promise<void> {
    for (const [id, d] of doubts) {
      if (Date.now() - d.since > retentionMs / 2) {
        // Its row may be pruned soon: "no row" would no longer mean "did not commit".
        doubts.delete(id)
        logger?.error(
          { requestId: id, accountId: d.line.accountId, credits: d.line.credits },
          'settle in doubt for too long: given up; reconcile it by hand from settled_requests and ledger_entries',
        )
      }
    }
    const accounts = new Set([...[...doubts.values()].map((d) => d.line.accountId), ...orphanHolds.keys()])
    for (const accountId of accounts) {
      const mine = [...doubts.values()].filter((d) => d.line.accountId === accountId).slice(0, CHECK_BATCH)
      const holds = [...(orphanHolds.get(accountId) ?? [])]
      try {
        await resolveAccount(accountId, mine, holds)
      } catch (e) {
        // Still unreachable: the next pass tries again.
        if (isPgUnavailable(e)) break
        logger?.error({ ...failure(e), accountId, requestIds: mine.map((d) => d.line.requestId) }, 'in-doubt settles could not be checked; will retry')
        continue
      }
      for (const d of mine) doubts.delete(d.line.requestId)
      const left = orphanHolds.get(accountId)
      for (const id of holds) left?.delete(id)
      if (left?.size === 0) orphanHolds.delete(accountId)
    }
    inDoubtGauge.set(doubts.size)
    if (doubts.size === 0 && orphanHolds.size === 0) unwatch()
  }

  /**
   * One transaction under the account's lock: fences the in-doubt ids without a row, gives back the
   * debits of those that committed and moves their usage lines to 503, counts the others once under
   * 503, and deletes the holds of all of them and the orphan holds.
   */
  async function resolveAccount(accountId: string, mine: readonly Doubt[], orphans: readonly string[]): Promise<void> {
    const ids = mine.map((d) => d.line.requestId)
    const holdIds = [...orphans, ...mine.flatMap((d) => (d.holdId === null ? [] : [d.holdId]))]
    const outcome = await withClient(async (c) => {
      const reads: string[] = [inline(LOCK_ACCOUNT, [accountId])]
      if (mine.length > 0) {
        const fences = mine.map((d) => inline(`($1, $2, $3, 0, 'void')`, [d.line.requestId, accountId, d.line.at]))
        reads.push(
          `INSERT INTO settled_requests (request_id, account_id, at, credits, state) VALUES ${fences.join(', ')}
           ON CONFLICT (request_id) DO NOTHING RETURNING request_id`,
          inline(SELECT_SETTLED, [ids]),
          inline(
            `SELECT e.request_id, e.lot_id, -e.delta AS amount, e.at, e.endpoint, l.credits, l.remaining
             FROM ledger_entries e JOIN credit_lots l ON l.id = e.lot_id
             WHERE e.kind = 'debit' AND e.request_id = ANY($1::text[])
               AND e.request_id IN (SELECT request_id FROM settled_requests WHERE request_id = ANY($1::text[]) AND state = 'settled')
             ORDER BY e.id`,
            [ids],
          ),
        )
      }
      // The lock may find no account (a usage line of a deleted one): nothing to give back then.
      const results = (await c.query(`BEGIN; ${reads.join(';\n')}`)) as unknown as pg.QueryResult[]
      const fenced = new Set((results[2]?.rows ?? []).map((r: { request_id: string }) => r.request_id))
      const committed = new Map((results[3]?.rows ?? []).map((r: { request_id: string; credits: number }) => [r.request_id, r.credits]))
      const debits = (results[4]?.rows ?? []) as { request_id: string; lot_id: string; amount: number; at: string; endpoint: string | null; credits: number; remaining: number }[]

      // Give each debit back to its lot, never above the lot's credits (an operator may have lowered
      // them since: what would have been left had the request not been billed).
      const room = new Map<string, number>()
      const entries: string[] = []
      const restored = new Map<string, number>()
      const given = new Map<string, number>()
      for (const d of debits) {
        const left = room.get(d.lot_id) ?? Math.max(0, d.credits - d.remaining)
        const back = Math.min(d.amount, left)
        room.set(d.lot_id, left - back)
        given.set(d.request_id, (given.get(d.request_id) ?? 0) + back)
        if (back === 0) continue
        restored.set(d.lot_id, (restored.get(d.lot_id) ?? 0) + back)
        entries.push(inline(`($1, $2, $3, 'adjust', $4, $5, $6)`, [accountId, d.lot_id, num(d.at), back, d.request_id, d.endpoint]))
      }
      const statements: string[] = []
      for (const [lotId, back] of restored) {
        statements.push(inline('UPDATE credit_lots SET remaining = remaining + $3 WHERE id = $2 AND account_id = $1', [accountId, lotId, back]))
      }
      if (entries.length > 0) {
        statements.push(`INSERT INTO ledger_entries (account_id, lot_id, at, kind, delta, request_id, endpoint) VALUES ${entries.join(', ')}`)
      }
      // Usage: a committed line moves to 503, free; a line that never committed is counted under 503.
      const usage = new Map<string, UsageAggregate>()
      for (const d of mine) {
        const id = d.line.requestId
        const charged = committed.get(id)
        if (charged !== undefined) {
          addUsage(usage, d.line, d.line.status, -1, charged)
          addUsage(usage, d.line, UNAVAILABLE_STATUS, 1, 0)
        } else if (fenced.has(id)) {
          addUsage(usage, d.line, UNAVAILABLE_STATUS, 1, 0)
        }
      }
      const changed = [...usage.values()].filter((u) => u.requests !== 0 || u.billable !== 0 || u.credits !== 0)
      if (changed.length > 0) {
        statements.push(usageUpsert(changed))
        const days = [...new Set(changed.map((u) => u.day))]
        statements.push(inline('DELETE FROM usage_daily WHERE account_id = $1 AND day = ANY($2::text[]) AND requests = 0', [accountId, days]))
      }
      if (committed.size > 0) {
        statements.push(inline(`UPDATE settled_requests SET state = 'compensated' WHERE request_id = ANY($1::text[])`, [[...committed.keys()]]))
      }
      if (holdIds.length > 0) statements.push(inline('DELETE FROM credit_holds WHERE account_id = $1 AND id = ANY($2::text[])', [accountId, holdIds]))
      await commit(c, statements)
      return { fenced, committed, given }
    }, Date.now() + CHECK_TIMEOUT_MS)

    const compensated = mine.filter((d) => outcome.committed.has(d.line.requestId))
    if (compensated.length > 0) {
      compensatedTotal.inc(compensated.length)
      logger?.error(
        {
          accountId,
          requestIds: compensated.map((d) => d.line.requestId),
          charged: compensated.map((d) => outcome.committed.get(d.line.requestId)),
          givenBack: compensated.map((d) => outcome.given.get(d.line.requestId) ?? 0),
        },
        'settles whose COMMIT was lost had committed although their callers were answered 503: debits given back, usage moved to 503',
      )
    }
    const rolledBack = mine.filter((d) => outcome.fenced.has(d.line.requestId))
    if (rolledBack.some((d) => d.unknown)) {
      logger?.warn(
        { accountId, requestIds: rolledBack.filter((d) => d.unknown).map((d) => d.line.requestId) },
        'settles in doubt had not committed: fenced, counted under 503, holds released',
      )
    }
  }

  /** Deletes settled_requests rows older than the retention, a batch per statement. */
  async function prune(): Promise<void> {
    for (;;) {
      const r = await pool.query(
        `DELETE FROM settled_requests WHERE request_id IN (
           SELECT request_id FROM settled_requests WHERE recorded_at < now() - $1 * interval '1 millisecond' LIMIT ${PRUNE_BATCH})`,
        [retentionMs],
      )
      if ((r.rowCount ?? 0) < PRUNE_BATCH || closed) return
    }
  }

  if (pruneEveryMs > 0) {
    // Jittered, so that nodes started together do not prune together.
    pruneTimer = setInterval(
      () => {
        pruning ??= prune()
          .catch((e: unknown) => {
            if (!isPgUnavailable(e)) logger?.warn({ err: e }, 'pruning settled_requests failed; will retry')
          })
          .finally(() => (pruning = undefined))
      },
      Math.round(pruneEveryMs * (0.9 + Math.random() * 0.2)),
    )
    pruneTimer.unref()
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
        return submit<HoldResult>(accountId, (resolve, reject) => ({ kind: 'hold', credits, at, resolve, reject }))
      }),

    settle: (hold: Hold | null, line: UsageLine) =>
      run(async (): Promise<SettleResult> => {
        checkCredits(line.credits, 'a usage line')
        checkInteger(line.at, 'the instant of a usage line')
        checkInteger(line.status, 'the status of a usage line')
        if (hold) checkInteger(hold.at, 'the instant of a hold')
        if (line.credits > (hold?.credits ?? 0)) throw new Error('a request cannot be charged more than it held')
        if (!hold) return settleFree(line, null)
        const id = hold.id
        if (id === undefined) throw new Error('this hold was not taken by the PostgreSQL ledger')
        unsettled.delete(id)
        if (hold.accountId !== line.accountId) throw new Error('the hold and the usage line name different accounts')
        // Nothing to debit: releasing the hold and counting the line need no lock.
        if (line.credits === 0) return settleFree(line, id)
        return submit<SettleResult>(hold.accountId, (resolve, reject) => ({ kind: 'settle', hold: { ...hold, id }, line, resolve, reject }))
      }),

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

    usage: (accountId, fromDay, toDay) =>
      run(async () => {
        const r = await pool.query<{ day: string; endpoint: string; status: number; requests: string; billable: string; credits: string }>(
          `SELECT day, endpoint, status, requests, billable, credits FROM usage_daily
           WHERE account_id = $1 AND day >= $2 AND day <= $3 ORDER BY day, endpoint, status`,
          [accountId, fromDay, toDay],
        )
        return r.rows.map(
          (u): UsageRow => ({
            day: u.day,
            endpoint: u.endpoint,
            status: u.status,
            requests: num(u.requests),
            billable: num(u.billable),
            credits: num(u.credits),
          }),
        )
      }),

    entries: (accountId) =>
      run(async () => {
        const r = await pool.query<{
          id: string
          lot_id: string
          at: string
          kind: LedgerEntry['kind']
          delta: number
          request_id: string | null
          endpoint: string | null
        }>('SELECT id, lot_id, at, kind, delta, request_id, endpoint FROM ledger_entries WHERE account_id = $1 ORDER BY id', [accountId])
        return r.rows.map(
          (e): LedgerEntry => ({
            id: num(e.id),
            lotId: e.lot_id,
            at: num(e.at),
            kind: e.kind,
            delta: e.delta,
            requestId: e.request_id,
            endpoint: e.endpoint,
          }),
        )
      }),

    /**
     * Waits for this ledger's work (settles still retrying included), stops the timers, makes one last
     * check of the requests in doubt and logs at error level those it could not resolve: from here on
     * nothing will compensate them (the residual risk described at the top of this file).
     */
    async close() {
      if (closed) return
      closed = true
      if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve))
      unwatch()
      clearInterval(pruneTimer)
      clearInterval(renewTimer)
      await renewing
      await pruning
      await checking
      if (doubts.size > 0 || orphanHolds.size > 0) await checkDoubts().catch(ignore)
      unwatch()
      if (doubts.size > 0) {
        logger?.error(
          { requestIds: [...doubts.keys()], accounts: [...new Set([...doubts.values()].map((d) => d.line.accountId))] },
          'ledger closed with settles still in doubt: any that committed stay billed although their callers were answered 503; reconcile them by hand',
        )
      }
    },
  }
}
