/**
 * The PostgreSQL ledger's SQL: the statements several parts share, the writes of the billing rules'
 * mutations and of usage lines, the reads of usage and entries, and the mapping of rows to the
 * domain's types. Writes are built as text with their values written in (inline), so that a whole
 * transaction's writes and its COMMIT travel in one round trip.
 */
import type { BillingState, Lot, Mutation, Subscription } from '../../domain/billing/billing-rules.ts'
import { utcDay } from '../../domain/billing/calendar.ts'
import type { LedgerEntry, UsageLine, UsageRow } from '../../ports/ledger.ts'
import type { PgPool } from './database.ts'

export interface StateRow {
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
  /** [node id, credits, expires_at] per row of the other nodes' holds. */
  holds?: [string, number | string, number | string][]
}

/** The account and its lots in one statement, so both come from one snapshot. */
export const STATE_COLUMNS = `a.plan, a.status, a.credits_limit, a.rps_limit, a.anchor_at, a.created_at, a.period_start, a.renewal_at,
  (a.cancel_at_period_end::int <> 0) AS cancel,
  COALESCE((SELECT json_agg(json_build_array(l.id, l.kind, l.credits, l.remaining, l.starts_at, l.expires_at, l.price_cents, l.seq) ORDER BY l.seq)
            FROM credit_lots l WHERE l.account_id = a.id), '[]'::json) AS lots`
export const SELECT_STATE = `SELECT ${STATE_COLUMNS} FROM accounts a WHERE a.id = $1`
/**
 * The account's row lock, which serialises its billing changes across pools and nodes. FOR NO KEY
 * UPDATE rather than FOR UPDATE: it excludes every other ledger transaction of the account just the
 * same, but not the foreign-key checks of rows that merely reference the account.
 */
export const LOCK_ACCOUNT = 'SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE'

/** Which of a group's request ids are recorded as settled: what each charged. */
export const SELECT_SETTLED = `SELECT request_id, credits FROM settled_requests WHERE request_id = ANY($1::text[]) AND state = 'settled'`

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

/**
 * A string as the driver's escapeLiteral writes it: quotes doubled, and backslashes doubled in an E
 * string. escapeLiteral builds it a character at a time, which on the answers kept under keys (JSON
 * text of ten kilobytes, often with an apostrophe) costs more than the rest of the statement; scans
 * and replacements of one character each do the same far quicker.
 */
function quoted(v: string): string {
  const q = v.includes("'") ? v.replaceAll("'", "''") : v
  return v.includes('\\') ? ` E'${q.replaceAll('\\', '\\\\')}'` : `'${q}'`
}

function literal(v: SqlValue | undefined): string {
  if (v === null) return 'NULL'
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new Error(`not an integer: ${v}`)
    // Parenthesised, so that `x -$1` never becomes the comment `x --1`.
    return v < 0 ? `(${v})` : String(v)
  }
  if (typeof v === 'string') return quoted(v)
  if (Array.isArray(v)) return arrayLiteral(v)
  throw new Error('missing SQL value')
}

const INT_MIN = -(2 ** 31)
const INT_MAX = 2 ** 31 - 1

/**
 * An array as one literal in PostgreSQL's array syntax, cast to the type ARRAY[…] of the same values
 * has (text, int, or bigint when a value needs it). A batch's arrays hold a value per call: written
 * as ARRAY[…], each value is a constant of its own for the server to parse, type and fold, while one
 * literal is read by the array type's input function in a single pass. Strings with a double quote
 * or a backslash would need escaping inside such a literal (the JSON of kept answers: longer text for
 * nothing), so their arrays stay ARRAY[…].
 */
function arrayLiteral(v: readonly string[] | readonly number[]): string {
  if (v.length === 0) return 'ARRAY[]'
  if (v.every((x: string | number) => typeof x === 'number')) {
    const numbers = v as readonly number[]
    let wide = false
    for (const x of numbers) {
      if (!Number.isSafeInteger(x)) throw new Error(`not an integer: ${x}`)
      if (x < INT_MIN || x > INT_MAX) wide = true
    }
    return `'{${numbers.join(',')}}'::${wide ? 'bigint' : 'int'}[]`
  }
  if (!v.every((x: string | number) => typeof x === 'string')) throw new Error('an array of strings and numbers together')
  const strings = v as readonly string[]
  if (strings.some((x) => x.includes('"') || x.includes('\\'))) return `ARRAY[${strings.map(quoted).join(', ')}]`
  return `${quoted(`{"${strings.join('","')}"}`)}::text[]`
}

/**
 * A statement with its values written in as literals (strings through the driver's escapeLiteral,
 * numbers checked to be integers), so that several statements travel in one simple-protocol query:
 * one round trip for what would be several. In READ COMMITTED each statement of such a query still
 * takes its own snapshot, so a read after the lock sees everything committed before the lock.
 */
export function inline(sql: string, values: readonly SqlValue[]): string {
  return sql.replace(/\$(\d+)/g, (_, i: string) => literal(values[Number(i) - 1]))
}

export const num = (v: string | number): number => Number(v)
const numOrNull = (v: string | number | null): number | null => (v === null ? null : Number(v))

export function toState(accountId: string, row: StateRow): BillingState {
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

/** A usage_daily row being built: the sum of usage lines of one key. */
export interface UsageAggregate extends UsageRow {
  accountId: string
}

/**
 * The SQL of mutations, in their order; runs of debits become one statement each. Usage lines are
 * summed per key (one INSERT … ON CONFLICT may not touch a row twice).
 */
export function writeSql(accountId: string, mutations: readonly Mutation[], usage: readonly UsageLine[] = []): string[] {
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
    for (const u of usage) addUsage(rows, u, { status: u.status, sign: 1 })
    out.push(usageUpsert(rows.values()))
  }
  return out
}

export interface UsageChange {
  /** The status the line is counted under (its own, or the 503 its caller was answered). */
  status: number
  /** 1 adds the line, -1 takes it back. */
  sign: 1 | -1
  /** The credits it counts (default: the line's). */
  credits?: number
}

/** Adds `sign` times the line (counted under `status`) to the aggregate of its key. */
export function addUsage(rows: Map<string, UsageAggregate>, u: UsageLine, { status, sign, credits = u.credits }: UsageChange): void {
  const day = utcDay(u.at)
  const key = JSON.stringify([u.accountId, day, u.endpoint, status])
  const row = rows.get(key) ?? { accountId: u.accountId, day, endpoint: u.endpoint, status, requests: 0, billable: 0, credits: 0 }
  row.requests += sign
  row.billable += credits > 0 ? sign : 0
  row.credits += sign * credits
  rows.set(key, row)
}

/** One INSERT … ON CONFLICT adding each aggregate (a key at most once) to usage_daily. */
export function usageUpsert(rows: Iterable<UsageAggregate>): string {
  const values = [...rows].map((r) => inline('($1, $2, $3, $4, $5, $6, $7)', [r.accountId, r.day, r.endpoint, r.status, r.requests, r.billable, r.credits]))
  return `${UPSERT_USAGE_HEAD} ${values.join(', ')} ${UPSERT_USAGE_TAIL}`
}

/** The settled_requests rows of settles that committed (what they charged), each under its line's account. */
export function recordSettled(settled: readonly { line: UsageLine }[]): string {
  const values = settled.map(({ line }) => inline('($1, $2, $3, $4)', [line.requestId, line.accountId, line.at, line.credits]))
  return `INSERT INTO settled_requests (request_id, account_id, at, credits) VALUES ${values.join(', ')}`
}

export interface UsageQuery {
  accountId: string
  /** First and last UTC day of the report, inclusive (YYYY-MM-DD). */
  fromDay: string
  toDay: string
}

/** The account's usage_daily rows between two days, in the report's order. */
export async function readUsage(pool: PgPool, { accountId, fromDay, toDay }: UsageQuery): Promise<UsageRow[]> {
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
}

/** The account's ledger entries in the order they were written. */
export async function readEntries(pool: PgPool, accountId: string): Promise<LedgerEntry[]> {
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
}
