/**
 * The writes of a transaction's groups (pg-ledger-batching.ts), one account's or several. A statement
 * costs the server its parse and plan whatever rows it carries, so each kind of row is written for
 * all the accounts in one call of a function whose plans the connection keeps: the debits, the usage
 * lines, the settled requests and the nodes' rows of holds. What only some groups have (a renewal's
 * new lot, a kept answer, the sweep of a dead node's row) goes as the group would write it alone.
 */
import type { Mutation } from '../../domain/billing/billing-rules.ts'
import type { UsageLine } from '../../ports/ledger.ts'
import { keepAnswersSql, type AnswerBodies } from './pg-ledger-keys.ts'
import { addUsage, inline, writeSql, type UsageAggregate } from './pg-ledger-statements.ts'
import type { AnswerToKeep } from '../../ports/ledger.ts'
import { monthOf } from '../../ports/key-caps.ts'

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

/** Calls of the ledger's write functions (migration 015), whose statements keep their plans per connection. */
const DEBITS_MANY = 'SELECT pronet_debit_many($1::text[], $2::text[], $3::int[], $4::bigint[], $5::text[], $6::text[])'
const ADD_USAGE = 'SELECT pronet_add_usage($1::text[], $2::text[], $3::text[], $4::int[], $5::bigint[], $6::bigint[], $7::bigint[])'
const RECORD_SETTLED = 'SELECT pronet_record_settled($1::text[], $2::text[], $3::bigint[], $4::int[])'
const ADD_KEY_SPEND = 'SELECT pronet_add_key_spend($1::text[], $2::text[], $3::bigint[])'
const WRITE_NODE_HOLDS = 'SELECT pronet_write_node_holds($1::text[], $2::text[], $3::bigint[], $4::bigint[])'

const byUsageKey = (a: UsageAggregate, b: UsageAggregate): number =>
  a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : a.day < b.day ? -1 : a.day > b.day ? 1 : a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : a.status - b.status

/** A call of `fn` with one array per column: `columns` read from each of `rows`. */
function callWith<T>(fn: string, rows: readonly T[], columns: readonly ((row: T) => string | number)[]): string {
  return inline(fn, columns.map((column) => rows.map(column) as string[] | number[]))
}

/** The writes of one group or several, each kind of row in one statement for all of them; `bodies` says how kept answers are written. */
export function batchSql(groups: readonly GroupWrites[], bodies: AnswerBodies): string[] {
  const statements: string[] = []
  const debits: { accountId: string; d: Extract<Mutation, { type: 'debit' }> }[] = []
  for (const g of groups) {
    // A group whose mutations are all debits joins the combined statement; one with a renewal (a new
    // lot its debits may draw on) writes them in its own order.
    if (g.mutations.every((m) => m.type === 'debit')) for (const m of g.mutations) debits.push({ accountId: g.accountId, d: m as Extract<Mutation, { type: 'debit' }> })
    else statements.push(...writeSql(g.accountId, g.mutations))
  }
  if (debits.length > 0) {
    statements.push(callWith(DEBITS_MANY, debits, [(x) => x.accountId, (x) => x.d.lotId, (x) => x.d.amount, (x) => x.d.at, (x) => x.d.requestId, (x) => x.d.endpoint]))
  }
  const usage = new Map<string, UsageAggregate>()
  for (const g of groups) for (const u of g.lines) addUsage(usage, u, { status: u.status, sign: 1 })
  if (usage.size > 0) {
    // In one order in every batch, billing or usage-only: a batch of usage-only lines takes no account
    // lock, so two batches that update the same usage rows must lock them in the same order, or they
    // could wait for each other until PostgreSQL broke the deadlock.
    const rows = [...usage.values()].sort(byUsageKey)
    statements.push(callWith(ADD_USAGE, rows, [(r) => r.accountId, (r) => r.day, (r) => r.endpoint, (r) => r.status, (r) => r.requests, (r) => r.billable, (r) => r.credits]))
  }
  const settled = groups.flatMap((g) => g.billed.map((b) => b.line))
  if (settled.length > 0) statements.push(callWith(RECORD_SETTLED, settled, [(l) => l.requestId, (l) => l.accountId, (l) => l.at, (l) => l.credits]))
  const spend = keySpendRows(settled)
  if (spend.length > 0) statements.push(callWith(ADD_KEY_SPEND, spend, [(r) => r.keyId, (r) => r.month, (r) => r.credits]))
  const kept = groups.flatMap((g) => g.billed.flatMap((b) => (b.keep ? [{ accountId: g.accountId, keep: b.keep, requestId: b.line.requestId }] : [])))
  if (kept.length > 0) statements.push(keepAnswersSql(kept, bodies))
  for (const g of groups) if (g.sweep) statements.push(g.sweep)
  const holds = groups.flatMap((g): [string, string, number, number][] => (g.holdsRow ? [[g.accountId, ...g.holdsRow]] : []))
  if (holds.length > 0) statements.push(callWith(WRITE_NODE_HOLDS, holds, [(r) => r[0], (r) => r[1], (r) => r[2], (r) => r[3]]))
  return statements
}

/** The credits of billed lines per key and month (a pair at most once: one upsert may not touch a row twice). */
export function keySpendRows(lines: readonly UsageLine[], sign: 1 | -1 = 1): { keyId: string; month: string; credits: number }[] {
  const rows = new Map<string, { keyId: string; month: string; credits: number }>()
  for (const l of lines) {
    if (l.keyId === undefined || l.credits <= 0) continue
    const month = monthOf(l.at)
    const k = `${l.keyId}\u0000${month}`
    const row = rows.get(k)
    if (row) row.credits += sign * l.credits
    else rows.set(k, { keyId: l.keyId, month, credits: sign * l.credits })
  }
  return [...rows.values()]
}
