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
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import {
  addPack as addPackRule,
  balanceAt,
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
import type { PgPool } from './database.ts'

/** A hold stops counting this long after its request's arrival: longer than any request runs (a batch: 120 s). */
export const HOLD_TTL_MS = 5 * 60_000

/** SQLSTATEs after which a transaction was rolled back whole and may simply run again. */
const RETRYABLE = new Set(['40001', '40P01'])

/** The server refused a value or a row (classes 22 and 23: data exception, integrity constraint). */
const rowRefused = (e: unknown): boolean => e instanceof pg.DatabaseError && /^2[23]/.test(e.code ?? '')

export interface PgLedgerOptions {
  /** New lot ids (random in production). */
  newLotId: () => string
  /** New hold ids (default: random). */
  newHoldId?: () => string
  /** Lifetime of a hold whose settle never comes, in ms of the requests' clock (default HOLD_TTL_MS). */
  holdTtlMs?: number
  /** Runs of a transaction that meets a serialization failure or a deadlock (default 5). */
  attempts?: number
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

interface UsageAggregate {
  accountId: string
  day: string
  endpoint: string
  status: number
  requests: number
  billable: number
  credits: number
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
    for (const u of usage) {
      const day = utcDay(u.at)
      const key = JSON.stringify([u.accountId, day, u.endpoint, u.status])
      const row = rows.get(key) ?? { accountId: u.accountId, day, endpoint: u.endpoint, status: u.status, requests: 0, billable: 0, credits: 0 }
      row.requests += 1
      row.billable += u.credits > 0 ? 1 : 0
      row.credits += u.credits
      rows.set(key, row)
    }
    const values = [...rows.values()].map((r) => inline('($1, $2, $3, $4, $5, $6, $7)', [r.accountId, r.day, r.endpoint, r.status, r.requests, r.billable, r.credits]))
    out.push(`${UPSERT_USAGE_HEAD} ${values.join(', ')} ${UPSERT_USAGE_TAIL}`)
  }
  return out
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

type Outcome = { request: Request; result: HoldResult | SettleResult }

/**
 * `pool` is shared with the other adapters and stays open: close() only waits for this ledger's work
 * and refuses more; whoever opened the pool ends it.
 */
export function createPgLedger(pool: PgPool, opts: PgLedgerOptions): Ledger {
  const holdTtlMs = opts.holdTtlMs ?? HOLD_TTL_MS
  const attempts = Math.max(1, opts.attempts ?? 5)
  const newHoldId = opts.newHoldId ?? (() => `hold_${randomBytes(12).toString('base64url')}`)
  let closed = false
  let inFlight = 0
  let idle: (() => void) | undefined
  /** Per account: requests waiting for its next transaction, while one runs on this node. */
  const waiting = new Map<string, Request[]>()

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

  /**
   * Runs `work` on one connection; after a serialization failure or a deadlock (the transaction was
   * rolled back whole) it runs again from the start. Whatever `work` leaves open is rolled back.
   */
  async function retrying<T>(work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await pool.connect()
      try {
        const result = await work(client)
        client.release()
        return result
      } catch (e) {
        // A connection that cannot even roll back is destroyed rather than returned to the pool.
        const broken = await client.query('ROLLBACK').then(
          () => undefined,
          (r: unknown) => (r instanceof Error ? r : new Error(String(r))),
        )
        client.release(broken)
        if (attempt < attempts && e instanceof pg.DatabaseError && RETRYABLE.has(e.code ?? '')) {
          await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt))
          continue
        }
        throw e
      }
    }
  }

  /** BEGIN, the account's lock and `read` in one round trip; the read's first row. */
  async function beginLocked(c: pg.PoolClient, accountId: string, read: string): Promise<StateRow> {
    const results = (await c.query(`BEGIN; ${inline(LOCK_ACCOUNT, [accountId])}; ${read}`)) as unknown as pg.QueryResult[]
    if (results[1]?.rowCount !== 1) throw new Error(`unknown account ${accountId}`)
    return results[2]?.rows[0] as StateRow
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
   * against the balance less the live holds, those of this group included.
   */
  async function combined(c: pg.PoolClient, accountId: string, requests: readonly Request[]): Promise<Outcome[]> {
    const settles = requests.filter((r) => r.kind === 'settle')
    const holdRequests = requests.filter((r) => r.kind === 'hold')
    const row = await beginLocked(c, accountId, inline(RELEASE_AND_LOAD, [accountId, settles.map((s) => s.hold.id)]))
    const state = toState(accountId, row)
    const mutations: Mutation[] = []
    const lines: UsageLine[] = []
    const outcomes: Outcome[] = []
    for (const s of settles) {
      mutations.push(...renew(state, s.hold.at, opts.newLotId))
      const debits = debit(state, s.line.credits, s.hold.at, { requestId: s.line.requestId, endpoint: s.line.endpoint })
      // Refused: the hold's release is committed, nothing is billed or counted; the caller records
      // the request's own line (the gateway: a free 402) with settle(null, …).
      if (!debits) outcomes.push({ request: s, result: { ok: false, reason: 'insufficient' } })
      else {
        mutations.push(...debits)
        lines.push(s.line)
        outcomes.push({ request: s, result: { ok: true, charged: s.line.credits } })
      }
    }
    const live = (row.holds ?? []).map(([, credits, expiresAt]) => ({ credits, expiresAt: num(expiresAt) }))
    const granted: { id: string; credits: number; at: number; expiresAt: number }[] = []
    let sweepBefore: number | undefined
    for (const h of holdRequests) {
      mutations.push(...renew(state, h.at, opts.newLotId))
      // Holds of dead nodes (expired by this request's instant) do not count; their rows go below.
      if (live.some((x) => x.expiresAt <= h.at)) sweepBefore = Math.min(sweepBefore ?? h.at, h.at)
      const held = live.reduce((sum, x) => (x.expiresAt > h.at ? sum + x.credits : sum), 0)
      const balance = balanceAt(state, h.at)
      if (balance.total - held < h.credits) {
        outcomes.push({ request: h, result: { ok: false, balance } })
        continue
      }
      const hold = { id: newHoldId(), credits: h.credits, at: h.at, expiresAt: h.at + holdTtlMs }
      live.push(hold)
      granted.push(hold)
      outcomes.push({ request: h, result: { ok: true, hold: { id: hold.id, accountId, credits: h.credits, at: h.at } } })
    }
    const statements = writeSql(accountId, mutations, lines)
    if (sweepBefore !== undefined) {
      statements.push(inline('DELETE FROM credit_holds WHERE account_id = $1 AND expires_at <= $2', [accountId, sweepBefore]))
    }
    if (granted.length > 0) {
      const values = granted.map((g) => inline('($1, $2, $3, $4, $5)', [g.id, accountId, g.credits, g.at, g.expiresAt]))
      statements.push(`INSERT INTO credit_holds (id, account_id, credits, at, expires_at) VALUES ${values.join(', ')}`)
    }
    await commit(c, statements)
    return outcomes
  }

  function deliver(outcomes: readonly Outcome[]): void {
    for (const { request, result } of outcomes) (request.resolve as (r: HoldResult | SettleResult) => void)(result)
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
      try {
        deliver(await retrying((c) => combined(c, accountId, group)))
      } catch (e) {
        // Run again request by request only when the server refused a row (so the transaction was
        // certainly rolled back, and one request is likely the cause). After a lost connection the
        // COMMIT may have happened, and running again could bill twice; after a timeout or an
        // outage, running each request alone would only take longer to fail.
        if (group.length === 1 || !rowRefused(e)) {
          for (const r of group) r.reject(e)
          continue
        }
        for (const r of group) {
          try {
            deliver(await retrying((c) => combined(c, accountId, [r])))
          } catch (alone) {
            r.reject(alone)
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
        if (!hold) {
          await pool.query(writeSql(line.accountId, [], [line]).join(''))
          return { ok: true, charged: 0 }
        }
        const id = hold.id
        if (id === undefined) throw new Error('this hold was not taken by the PostgreSQL ledger')
        if (hold.accountId !== line.accountId) throw new Error('the hold and the usage line name different accounts')
        if (line.credits === 0) {
          // Nothing to debit: releasing the hold and counting the line need no lock. One query
          // without BEGIN is one (implicit) transaction.
          const release = inline('DELETE FROM credit_holds WHERE id = $1 AND account_id = $2', [id, hold.accountId])
          await pool.query([release, ...writeSql(line.accountId, [], [line])].join(';\n'))
          return { ok: true, charged: 0 }
        }
        return submit<SettleResult>(hold.accountId, (resolve, reject) => ({ kind: 'settle', hold: { ...hold, id }, line, resolve, reject }))
      }),

    addPack: (accountId, pack) =>
      run(() =>
        change(accountId, pack.purchasedAt, (state) => {
          const { lot, mutations } = addPackRule(state, pack, opts.newLotId)
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

    async close() {
      if (closed) return
      closed = true
      if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve))
    },
  }
}
