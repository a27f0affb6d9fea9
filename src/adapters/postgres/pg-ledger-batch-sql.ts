/**
 * The writes of a transaction's groups (pg-ledger-batching.ts), one account's or several. A statement
 * costs the server its parse and plan whatever rows it carries, so each kind of row is written for
 * all the accounts in one: the debits, the usage lines, the settled requests and the nodes' rows of
 * holds. What only some groups have (a renewal's
 * new lot, a kept answer, the sweep of a dead node's row) goes as the group would write it alone.
 */
import type { Mutation } from '../../domain/billing/billing-rules.ts'
import type { UsageLine } from '../../ports/ledger.ts'
import { keepAnswerSql } from './pg-ledger-keys.ts'
import { addUsage, inline, recordSettled, usageUpsert, writeNodeHolds, writeSql, type UsageAggregate } from './pg-ledger-statements.ts'
import type { AnswerToKeep } from '../../ports/ledger.ts'

/** What a group writes, kept apart so a batch can combine the parts of its groups. */
export interface GroupWrites {
  accountId: string
  /** The billing rules' mutations, in order (debits, and any renewal that comes before them). */
  mutations: Mutation[]
  /** Usage lines of the settles that billed. */
  lines: UsageLine[]
  /** Settles that billed, with the answer each keeps under its key, if any. */
  billed: { line: UsageLine; keep?: AnswerToKeep | undefined }[]
  /** The sweep of other nodes' lapsed rows, if one is due. */
  sweep?: string | undefined
  /** This node's row of the account's holds, if the run writes it: [node id, credits, expires_at]. */
  holdsRow?: [string, number, number] | undefined
}

/** The debits of several accounts in one statement: as writeSql's, with the account on each row. */
const DEBITS_MANY = `WITH d AS (SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::bigint[], $5::text[], $6::text[])
                           WITH ORDINALITY AS d(account_id, lot_id, amount, at, request_id, endpoint, n)),
  spent AS (UPDATE credit_lots l SET remaining = l.remaining - s.amount
            FROM (SELECT account_id, lot_id, sum(amount) AS amount FROM d GROUP BY account_id, lot_id) s
            WHERE l.id = s.lot_id AND l.account_id = s.account_id)
  INSERT INTO ledger_entries (account_id, lot_id, at, kind, delta, request_id, endpoint)
  SELECT account_id, lot_id, at, 'debit', -amount, request_id, endpoint FROM d ORDER BY n`

/** The writes of one group or several, each kind of row in one statement for all of them. */
export function batchSql(groups: readonly GroupWrites[]): string[] {
  const statements: string[] = []
  const debits: { accountId: string; d: Extract<Mutation, { type: 'debit' }> }[] = []
  for (const g of groups) {
    // A group whose mutations are all debits joins the combined statement; one with a renewal (a new
    // lot its debits may draw on) writes them in its own order.
    if (g.mutations.every((m) => m.type === 'debit')) for (const m of g.mutations) debits.push({ accountId: g.accountId, d: m as Extract<Mutation, { type: 'debit' }> })
    else statements.push(...writeSql(g.accountId, g.mutations))
  }
  if (debits.length > 0) {
    statements.push(
      inline(DEBITS_MANY, [
        debits.map((x) => x.accountId),
        debits.map((x) => x.d.lotId),
        debits.map((x) => x.d.amount),
        debits.map((x) => x.d.at),
        debits.map((x) => x.d.requestId),
        debits.map((x) => x.d.endpoint),
      ]),
    )
  }
  const usage = new Map<string, UsageAggregate>()
  for (const g of groups) for (const u of g.lines) addUsage(usage, u, { status: u.status, sign: 1 })
  if (usage.size > 0) statements.push(usageUpsert(usage.values()))
  const settled = groups.flatMap((g) => g.billed)
  if (settled.length > 0) statements.push(recordSettled(settled))
  for (const g of groups) for (const b of g.billed) if (b.keep) statements.push(keepAnswerSql(g.accountId, b.keep, b.line.requestId))
  for (const g of groups) if (g.sweep) statements.push(g.sweep)
  const rows = groups.flatMap((g): [string, string, number, number][] => (g.holdsRow ? [[g.accountId, ...g.holdsRow]] : []))
  if (rows.length > 0) statements.push(writeNodeHolds(rows))
  return statements
}
