/**
 * The transactions of the PostgreSQL ledger's group commit (pg-ledger-batcher.ts forms the batches).
 * An account's holds and settles that wait together form its group: one lock, one load and one set
 * of writes for the lot. Within a group the settles apply first (their holds are released), then the
 * holds, each in arrival order: all of them were in flight together, so any order is one their
 * callers could have seen. A batch carries the groups of several accounts in one transaction: their
 * locks and loads in one round trip, every write and the COMMIT in a second.
 */
import type pg from 'pg'
import { balanceAt, billingInstant, debit, renew, type Mutation } from '../../domain/billing/billing-rules.ts'
import type { AnswerToKeep, Hold, HoldResult, SettleResult, UsageLine } from '../../ports/ledger.ts'
import type { UnsettledHold } from './pg-ledger-hold-renewal.ts'
import { keepAnswerSql } from './pg-ledger-keys.ts'
import { inline, num, recordSettled, RELEASE_AND_LOAD, SELECT_SETTLED, toState, writeSql, type StateRow } from './pg-ledger-statements.ts'
import { beginLockedAll, beginLockedBatch, commit } from './pg-ledger-transactions.ts'

/** A hold or a settle of one account, waiting for the account's next transaction on this node. */
export type Request =
  | { kind: 'hold'; credits: number; at: number; resolve(r: HoldResult): void; reject(e: unknown): void }
  | {
      kind: 'settle'
      hold: Hold & { id: string }
      line: UsageLine
      /** The call's answer, kept under its Idempotency-Key with its debit. */
      keep?: AnswerToKeep | undefined
      resolve(r: SettleResult): void
      reject(e: unknown): void
    }
export type SettleRequest = Extract<Request, { kind: 'settle' }>

export type Outcome = { request: Request; result: HoldResult | SettleResult }

/** How far one run of a transaction got: after a lost connection, it says what may have committed. */
export interface Progress {
  /** A retry: read which settles are recorded (under the account's lock) and apply only the others. */
  check: boolean
  /** Set by a retry run once it holds the lock: request id → credits charged, for the recorded ones. */
  recorded?: Map<string, number>
  /** The writes and COMMIT were sent: from here on a lost connection leaves the outcome unknown. */
  commitSent: boolean
  /** Ids of the holds the run inserts. */
  granted: string[]
}

export const progress = (check: boolean): Progress => ({ check, commitSent: false, granted: [] })

/** What a group's transaction needs besides its requests. */
export interface GroupRules {
  /** New lot ids, for the renewals the requests' instants bring. */
  newLotId: () => string
  /** New hold ids. */
  newHoldId: () => string
  /** Lifetime of a hold whose settle never comes, in ms of the requests' clock. */
  holdTtlMs: number
  /** This node's holds whose settle has not come (see pg-ledger-hold-renewal.ts). */
  unsettled: Map<string, UnsettledHold>
}

export interface GroupRun {
  accountId: string
  requests: readonly Request[]
  /** Filled in as the run goes, for the caller to read after a lost connection. */
  progress: Progress
  rules: GroupRules
}

/** The reads of an account's group, to run right after its lock: its recorded settles (a retry), then its state. */
function groupReads({ accountId, requests, progress: p }: GroupRun): string[] {
  const settles = requests.filter((r) => r.kind === 'settle')
  const releaseAndLoad = inline(RELEASE_AND_LOAD, [accountId, settles.map((s) => s.hold.id)])
  return p.check ? [inline(SELECT_SETTLED, [settles.map((s) => s.line.requestId)]), releaseAndLoad] : [releaseAndLoad]
}

/**
 * What a group's transaction decides once it holds the account's lock and has read `results` (those
 * of groupReads): settles first (each releases its hold and debits at the hold's instant, or is
 * refused when the lots no longer cover it), then holds against the balance less the live holds,
 * those of this group included. A billed settle records its request id in settled_requests, and
 * keeps its answer under its key if it carries one. In a retry (`p.check`) the settles already
 * recorded are answered as recorded and not applied again (their answers committed with them).
 * Returns the outcomes and the writes that make them so.
 */
function decideGroup({ accountId, requests, progress: p, rules }: GroupRun, results: readonly pg.QueryResult[]): { outcomes: Outcome[]; statements: string[] } {
  const { newLotId, newHoldId, holdTtlMs, unsettled } = rules
  const settles = requests.filter((r) => r.kind === 'settle')
  const holdRequests = requests.filter((r) => r.kind === 'hold')
  let row: StateRow
  if (p.check) {
    const [recorded, loaded] = results
    p.recorded = new Map((recorded?.rows ?? []).map((r: { request_id: string; credits: number }) => [r.request_id, r.credits]))
    row = loaded?.rows[0] as StateRow
  } else {
    row = results[0]?.rows[0] as StateRow
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
    mutations.push(...renew(state, s.hold.at, newLotId))
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
    mutations.push(...renew(state, h.at, newLotId))
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
  for (const s of billed) if (s.keep) statements.push(keepAnswerSql(accountId, s.keep, s.line.requestId))
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
  return { outcomes, statements }
}

/** One transaction for one account's group: the lock and the reads, then every write and COMMIT. */
export async function groupTransaction(c: pg.PoolClient, run: GroupRun): Promise<Outcome[]> {
  const results = await beginLockedAll(c, run.accountId, groupReads(run))
  const { outcomes, statements } = decideGroup(run, results)
  run.progress.commitSent = true
  await commit(c, statements)
  return outcomes
}

/**
 * One transaction for the groups of several accounts (a batch): the accounts' locks, taken in the
 * order of their ids (so two batches, on this node or another, never wait for each other in a
 * circle), and every group's reads in one round trip; then every group's writes and COMMIT in a
 * second. Outcomes by group, in the order of `runs`.
 */
export async function batchTransaction(c: pg.PoolClient, runs: readonly GroupRun[]): Promise<Outcome[][]> {
  const ordered = [...runs].sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0))
  const reads = ordered.map(groupReads)
  const results = await beginLockedBatch(
    c,
    ordered.map((r) => r.accountId),
    reads.flat(),
  )
  const decided = new Map<GroupRun, { outcomes: Outcome[]; statements: string[] }>()
  let at = 0
  for (const [i, run] of ordered.entries()) {
    const n = (reads[i] as string[]).length
    decided.set(run, decideGroup(run, results.slice(at, at + n)))
    at += n
  }
  for (const run of runs) run.progress.commitSent = true
  await commit(
    c,
    ordered.flatMap((r) => decided.get(r)!.statements),
  )
  return runs.map((r) => decided.get(r)!.outcomes)
}

/** Answers each request with its outcome. */
export function deliver(outcomes: readonly Outcome[]): void {
  for (const { request, result } of outcomes) (request.resolve as (r: HoldResult | SettleResult) => void)(result)
}

/** A group whose transaction lost its connection, and how far that transaction got. */
export interface LostGroup {
  accountId: string
  group: readonly Request[]
  error: unknown
  progress: Progress
}
