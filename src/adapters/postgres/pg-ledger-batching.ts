/**
 * The transactions of the PostgreSQL ledger's group commit (pg-ledger-batcher.ts forms the batches).
 * An account's holds and settles that wait together form its group: one lock, one load and one set
 * of writes for the lot. Within a group the settles apply first (their holds are released), then the
 * holds, each in arrival order: all of them were in flight together, so any order is one their
 * callers could have seen. A batch carries the groups of several accounts in one transaction: their
 * locks and loads in one round trip, every write and the COMMIT in a second.
 */
import type pg from 'pg'
import { balanceAt, billingInstant, debit, renew, type BillingState, type Mutation } from '../../domain/billing/billing-rules.ts'
import type { AnswerToKeep, Hold, HoldResult, SettleResult, UsageLine } from '../../ports/ledger.ts'
import type { LocalHolds, OtherHolds } from './pg-ledger-local-holds.ts'
import type { HeldCall, NodeHolds } from './pg-ledger-node-holds.ts'
import { inline, num, SELECT_SETTLED, toState, type StateRow } from './pg-ledger-statements.ts'
import { batchSql, type GroupWrites } from './pg-ledger-batch-sql.ts'
import type { AnswerBodies } from './pg-ledger-keys.ts'
import { beginLockedAll, beginLockedBatch, commit } from './pg-ledger-transactions.ts'

/** After the locks: each account's state and the other nodes' holds on it, by a function that keeps its plan (migration 015). */
const LOAD_STATES = 'SELECT * FROM pronet_load_states($1::text[], $2)'

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
  /** Writes this node's row of the account's holds again (its expiry moved on, its sum made exact). */
  | { kind: 'renew'; resolve(r: undefined): void; reject(e: unknown): void }
export type SettleRequest = Extract<Request, { kind: 'settle' }>

export type Outcome = { request: Request; result: HoldResult | SettleResult | undefined }

/** How far one run of a transaction got: after a lost connection, it says what may have committed. */
export interface Progress {
  /** A retry: read which settles are recorded (under the account's lock) and apply only the others. */
  check: boolean
  /** Set by a retry run once it holds the lock: request id → credits charged, for the recorded ones. */
  recorded?: Map<string, number>
  /** The writes and COMMIT were sent: from here on a lost connection leaves the outcome unknown. */
  commitSent: boolean
}

export const progress = (check: boolean): Progress => ({ check, commitSent: false })

/** What a group's transaction needs besides its requests. */
export interface GroupRules {
  /** New lot ids, for the renewals the requests' instants bring. */
  newLotId: () => string
  /** New hold ids. */
  newHoldId: () => string
  /** This node's holds whose settle has not come (see pg-ledger-node-holds.ts). */
  holds: NodeHolds
  /** The requests' clock now (-Infinity when unknown): a hold's lifetime counts from when it is granted. */
  now: () => number
  /** Told the state each batch leaves, so holds can be granted from it in memory for a while. */
  local?: LocalHolds | undefined
  /** How the answers kept under keys are written. */
  bodies: AnswerBodies
}

export interface GroupRun {
  accountId: string
  requests: readonly Request[]
  /** Filled in as the run goes, for the caller to read after a lost connection. */
  progress: Progress
  rules: GroupRules
  /**
   * Whether the run writes this node's row of the account's holds: only a run of the batcher, which
   * never has two of an account in flight. A retry outside it (a settle whose COMMIT went unanswered)
   * leaves the row as it is, a little above what memory holds until the row is written again.
   */
  writesHolds: boolean
}

/** The reads of an account's group, to run right after its lock: its recorded settles (a retry), then its state. */
function groupReads({ accountId, requests, progress: p, rules }: GroupRun): string[] {
  const load = inline(LOAD_STATES, [[accountId], rules.holds.nodeId])
  if (!p.check) return [load]
  const settles = requests.filter((r) => r.kind === 'settle')
  return [inline(SELECT_SETTLED, [settles.map((s) => s.line.requestId)]), load]
}

/** What a group decided: its outcomes, the writes that make them so, and what memory takes on once they commit. */
export interface Decision {
  outcomes: Outcome[]
  writes: GroupWrites
  applied(): void
}

/** The rows of a group's reads (those of groupReads): its state, and in a retry its settles already recorded. */
function readRows(p: Progress, results: readonly pg.QueryResult[]): StateRow {
  if (!p.check) return results[0]?.rows[0] as StateRow
  const [recorded, loaded] = results
  p.recorded = new Map((recorded?.rows ?? []).map((r: { request_id: string; credits: number }) => [r.request_id, r.credits]))
  return loaded?.rows[0] as StateRow
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
function decideGroup(run: GroupRun, row: StateRow): Decision {
  const others = (row.holds ?? []).map(([node, credits, expiresAt]) => ({ node, credits: num(credits), expiresAt: num(expiresAt) }))
  return decideFrom(run, toState(run.accountId, row), others)
}

/**
 * decideGroup from a state and the other nodes' rows already at hand: those read under the lock, or
 * (`fromView`) those this node's last batch left, which pg-ledger-guarded.ts checks under the lock.
 * `state` is changed as the requests apply.
 */
export function decideFrom(
  { accountId, requests, progress: p, rules, writesHolds }: GroupRun,
  state: BillingState,
  others: readonly OtherHolds[],
  fromView = false,
): Decision {
  const { newLotId, newHoldId, holds: mine } = rules
  const settles = requests.filter((r) => r.kind === 'settle')
  const holdRequests = requests.filter((r) => r.kind === 'hold')
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
  // This node's holds once the group is applied: every settle releases its hold (billed or refused).
  const current = new Map<string, HeldCall>(mine.of(accountId) ?? [])
  for (const s of settles) current.delete(s.hold.id)
  let mineHeld = 0
  for (const h of current.values()) mineHeld += h.credits
  // The other nodes' rows; one whose expiry has passed by a request's instant is a node that died:
  // it does not count, and its row goes below.
  const lapsed = (x: { expiresAt: number }, at: number) => x.expiresAt <= at
  const granted: { id: string; call: HeldCall }[] = []
  const now = Date.now()
  const grantedAt = holdRequests.length > 0 ? rules.now() : Number.NEGATIVE_INFINITY
  let sweepBefore: number | undefined
  let latest = 0
  for (const r of requests) if (r.kind !== 'renew') latest = Math.max(latest, r.kind === 'hold' ? r.at : r.hold.at)
  if (holdRequests.length > 0) latest = Math.max(latest, grantedAt)
  for (const h of holdRequests) {
    mutations.push(...renew(state, h.at, newLotId))
    if (others.some((x) => lapsed(x, h.at))) sweepBefore = Math.min(sweepBefore ?? h.at, h.at)
    const held = others.reduce((sum, x) => (lapsed(x, h.at) ? sum : sum + x.credits), mineHeld)
    const balance = balanceAt(state, h.at)
    if (balance.total - held < h.credits) {
      outcomes.push({ request: h, result: { ok: false, balance, held } })
      continue
    }
    const id = newHoldId()
    const call = { credits: h.credits, at: Math.max(h.at, grantedAt), granted: now }
    current.set(id, call)
    mineHeld += h.credits
    granted.push({ id, call })
    // The request is billed at its billing instant: a lot this node's clock sees as starting a few ms
    // ahead (another node opened it) is live there. The hold's lapse is counted from this node's instant.
    outcomes.push({ request: h, result: { ok: true, hold: { id, accountId, credits: h.credits, at: billingInstant(state, h.at) } } })
  }
  for (const r of requests) if (r.kind === 'renew') outcomes.push({ request: r, result: undefined })
  if (!writesHolds && holdRequests.length > 0) throw new Error('holds are granted only by a run that writes the node\'s row')
  const writes: GroupWrites = {
    accountId,
    mutations,
    lines,
    billed: billed.map((s) => ({ line: s.line, keep: s.keep })),
    sweep:
      sweepBefore === undefined
        ? undefined
        : inline(
            'DELETE FROM node_holds WHERE account_id = $1 AND node_id <> $2 AND expires_at <= $3; DELETE FROM credit_holds WHERE account_id = $1 AND expires_at <= $3',
            [accountId, mine.nodeId, sweepBefore],
          ),
    holdsRow: writesHolds ? [mine.nodeId, mineHeld, mine.expiry(current.values(), latest, now)] : undefined,
  }
  return {
    outcomes,
    writes,
    applied() {
      for (const s of settles) mine.remove(accountId, s.hold.id)
      for (const g of granted) mine.add(accountId, g.id, g.call)
      if (!writesHolds) rules.local?.forget(accountId)
      else if (fromView) rules.local?.advanced(accountId, state, latest)
      else rules.local?.seen(accountId, state, others, latest)
      // The row still counts the settled holds until it is written again.
      if (!writesHolds && settles.length > 0) mine.stale(accountId)
    },
  }
}

/** One transaction for one account's group: the lock and the reads, then every write and COMMIT. */
export async function groupTransaction(c: pg.PoolClient, run: GroupRun): Promise<Outcome[]> {
  const results = await beginLockedAll(c, run.accountId, groupReads(run))
  const endTurn = await run.rules.holds.turn([run.accountId])
  try {
    const decision = decideGroup(run, readRows(run.progress, results))
    run.progress.commitSent = true
    await commit(c, batchSql([decision.writes], run.rules.bodies))
    decision.applied()
    return decision.outcomes
  } finally {
    endTurn()
  }
}

/**
 * One transaction for the groups of several accounts (a batch, never a retry): the accounts' locks,
 * taken in the order of their ids (so two batches, on this node or another, never wait for each
 * other in a circle), and their states in one round trip; then every group's writes, combined
 * (pg-ledger-batch-sql.ts), and COMMIT in a second. Outcomes by group, in the order of `runs`.
 */
export async function batchTransaction(c: pg.PoolClient, runs: readonly GroupRun[]): Promise<Outcome[][]> {
  const rules = (runs[0] as GroupRun).rules
  if (runs.some((r) => r.progress.check)) throw new Error('a retry runs one account at a time')
  const ids = runs.map((r) => r.accountId).sort()
  const [loaded] = await beginLockedBatch(c, ids, [inline(LOAD_STATES, [ids, rules.holds.nodeId])])
  const rows = new Map((loaded?.rows ?? []).map((r: StateRow & { id: string }) => [r.id, r]))
  const endTurn = await rules.holds.turn(ids)
  try {
    const decided = new Map<GroupRun, Decision>(runs.map((run) => [run, decideGroup(run, rows.get(run.accountId) as StateRow)]))
    for (const run of runs) run.progress.commitSent = true
    await commit(c, batchSql([...decided.values()].map((d) => d.writes), rules.bodies))
    for (const d of decided.values()) d.applied()
    return runs.map((r) => decided.get(r)!.outcomes)
  } finally {
    endTurn()
  }
}

/** Answers each request with its outcome. */
export function deliver(outcomes: readonly Outcome[]): void {
  for (const { request, result } of outcomes) (request.resolve as (r: HoldResult | SettleResult | undefined) => void)(result)
}

/** A group whose transaction lost its connection, and how far that transaction got. */
export interface LostGroup {
  accountId: string
  group: readonly Request[]
  error: unknown
  progress: Progress
}
