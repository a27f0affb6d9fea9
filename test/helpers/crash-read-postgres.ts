/**
 * The crash test's reader of a PostgreSQL store, as the rows the checks take (crash-checks.ts) plus
 * what only this store has: the nodes' rows of the credit holds of requests in flight, the settles recorded by request
 * id, and the Idempotency-Key claims of calls still running. One read is one snapshot (a repeatable
 * read transaction), so its rows agree with each other; bigint columns come back as strings and are
 * turned into numbers here.
 */
import pg from 'pg'
import type { LedgerRows } from './crash-checks.ts'

/** A node's row of its holds on an account: their sum, and the instant (requests' clock) it stops counting. */
export interface HoldRow {
  nodeId: string
  credits: number
  expiresAt: number
}

export interface PgLedgerRows {
  rows: LedgerRows
  /** Every node_holds row, whatever the account. */
  holds: HoldRow[]
  /** The account's settled_requests rows. */
  settled: { requestId: string; credits: number; state: string }[]
  /** Keys of the account whose claim is still running (no answer kept). */
  claimed: string[]
  /** The account's 'adjust' entries (compensations of settles in doubt). */
  adjustments: number
}

const REMAINING = 'SELECT COALESCE(SUM(remaining), 0)::bigint AS n FROM credit_lots WHERE account_id = $1'
const HOLDS = 'SELECT node_id, credits, expires_at FROM node_holds ORDER BY node_id'

const holdRows = (r: pg.QueryResult<{ node_id: string; credits: string; expires_at: string }>): HoldRow[] =>
  r.rows.map((h) => ({ nodeId: h.node_id, credits: Number(h.credits), expiresAt: Number(h.expires_at) }))

/** `client` is connected to the test's database and stays the caller's. */
export function postgresCrashReader(client: pg.Client) {
  const one = async (sql: string, params: unknown[] = []) => Number((await client.query<{ n: string }>(sql, params)).rows[0]!.n)

  return {
    /**
     * Waits until every session of the killed server has ended: its open transactions rolled back, a
     * COMMIT it had already sent applied. Until then what a read sees could still change.
     */
    async settled(timeoutMs = 30_000): Promise<void> {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const left = await client.query<{ pid: number; state: string; query: string }>(
          `SELECT pid, state, query FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
        )
        if (left.rows.length === 0) return
        if (Date.now() > deadline) throw new Error(`sessions of the killed server still open: ${JSON.stringify(left.rows)}`)
        await new Promise((r) => setTimeout(r, 50))
      }
    },

    async ledger(accountId: string): Promise<PgLedgerRows> {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
      try {
        const lots = await client.query<{ id: string; remaining: number; total: string }>(
          `SELECT l.id, l.remaining, (SELECT COALESCE(SUM(e.delta), 0) FROM ledger_entries e WHERE e.lot_id = l.id)::bigint AS total
           FROM credit_lots l`,
        )
        const orphans = await one('SELECT COUNT(*) AS n FROM ledger_entries e WHERE NOT EXISTS (SELECT 1 FROM credit_lots l WHERE l.id = e.lot_id)')
        const twice = await client.query(
          `SELECT request_id AS "requestId", lot_id AS "lotId", COUNT(*)::int AS n FROM ledger_entries
           WHERE kind = 'debit' GROUP BY request_id, lot_id HAVING COUNT(*) > 1`,
        )
        const debits = await client.query<LedgerRows['debits'][number]>(
          `SELECT request_id AS "requestId", lot_id AS "lotId", delta, endpoint FROM ledger_entries WHERE account_id = $1 AND kind = 'debit'`,
          [accountId],
        )
        const kept = await client.query<LedgerRows['kept'][number]>(
          `SELECT idem_key AS key, request_id AS "requestId", status, body FROM idempotency_keys WHERE account_id = $1 AND state = 'done'`,
          [accountId],
        )
        const usage = await client.query<{ endpoint: string; status: number; requests: string; billable: string; credits: string }>(
          'SELECT endpoint, status, requests, billable, credits FROM usage_daily WHERE account_id = $1',
          [accountId],
        )
        const remaining = await one(REMAINING, [accountId])
        const holds = holdRows(await client.query(HOLDS))
        const settled = await client.query<{ requestId: string; credits: number; state: string }>(
          'SELECT request_id AS "requestId", credits, state FROM settled_requests WHERE account_id = $1',
          [accountId],
        )
        const claimed = await client.query<{ key: string }>(`SELECT idem_key AS key FROM idempotency_keys WHERE account_id = $1 AND state = 'running'`, [accountId])
        const adjustments = await one(`SELECT COUNT(*) AS n FROM ledger_entries WHERE account_id = $1 AND kind = 'adjust'`, [accountId])
        return {
          rows: {
            lots: lots.rows.map((l) => ({ id: l.id, remaining: l.remaining, total: Number(l.total) })),
            orphans,
            twice: twice.rows,
            debits: debits.rows,
            kept: kept.rows,
            usage: usage.rows.map((u) => ({
              endpoint: u.endpoint,
              status: u.status,
              requests: Number(u.requests),
              billable: Number(u.billable),
              credits: Number(u.credits),
            })),
            remaining,
          },
          holds,
          settled: settled.rows,
          claimed: claimed.rows.map((c) => c.key),
          adjustments,
        }
      } finally {
        await client.query('COMMIT')
      }
    },

    remaining: (accountId: string): Promise<number> => one(REMAINING, [accountId]),
    holds: async (): Promise<HoldRow[]> => holdRows(await client.query(HOLDS)),
    claimed: async (accountId: string): Promise<string[]> =>
      (await client.query<{ key: string }>(`SELECT idem_key AS key FROM idempotency_keys WHERE account_id = $1 AND state = 'running'`, [accountId])).rows.map((r) => r.key),
    slugs: async (): Promise<string[]> => (await client.query<{ slug: string }>('SELECT slug FROM profiles ORDER BY slug')).rows.map((r) => r.slug),
  }
}
