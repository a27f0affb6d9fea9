/**
 * Group commit per account. The account's row lock makes its transactions take turns, so this node
 * combines the holds and settles of an account that arrive while its previous transaction runs into
 * the next one (as the SQLite ledger does per process): one lock, one load, one round trip of writes
 * and one COMMIT for the lot. Within a combined transaction the settles apply first (their holds are
 * released), then the holds, each in arrival order: all of them were in flight together, so any order
 * is one their callers could have seen. A combined transaction that fails is run again one request
 * per transaction, so only the request that cannot be written fails (a debit of a request id already
 * billed, say).
 */
import type pg from 'pg'
import { balanceAt, billingInstant, debit, renew, type Mutation } from '../../domain/billing/billing-rules.ts'
import type { AnswerToKeep, Hold, HoldResult, SettleResult, UsageLine } from '../../ports/ledger.ts'
import { isPgUnavailable } from './pg-errors.ts'
import type { UnsettledHold } from './pg-ledger-hold-renewal.ts'
import { keepAnswerSql } from './pg-ledger-keys.ts'
import { inline, num, recordSettled, RELEASE_AND_LOAD, SELECT_SETTLED, toState, writeSql, type StateRow } from './pg-ledger-statements.ts'
import { beginLocked, beginLockedAll, commit, rowRefused, type TransactionRunner } from './pg-ledger-transactions.ts'

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

/**
 * One transaction for a group of one account's holds and settles: settles first (each releases its
 * hold and debits at the hold's instant, or is refused when the lots no longer cover it), then holds
 * against the balance less the live holds, those of this group included. A billed settle records
 * its request id in settled_requests, and keeps its answer under its key if it carries one. In a
 * retry (`p.check`) the settles already recorded are answered as recorded and not applied again
 * (their answers committed with them).
 */
export async function groupTransaction(c: pg.PoolClient, { accountId, requests, progress: p, rules }: GroupRun): Promise<Outcome[]> {
  const { newLotId, newHoldId, holdTtlMs, unsettled } = rules
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
  p.commitSent = true
  await commit(c, statements)
  return outcomes
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

export interface BatcherOptions {
  runner: TransactionRunner
  rules: GroupRules
  /** Takes over a group whose transaction lost its connection (see pg-ledger-recovery.ts). */
  connectionLost(lost: LostGroup): void
  /** A group's transaction committed: how many requests it carried and how long it took (metrics). */
  observeCommit?(requests: number, seconds: number): void
}

export interface Batcher {
  /** Queues the request `make` builds for the account's next transaction on this node; its answer. */
  submit<T extends HoldResult | SettleResult>(accountId: string, make: (resolve: (r: T) => void, reject: (e: unknown) => void) => Request): Promise<T>
}

export function createBatcher({ runner, rules, connectionLost, observeCommit }: BatcherOptions): Batcher {
  /** Per account: requests waiting for its next transaction, while one runs on this node. */
  const waiting = new Map<string, Request[]>()

  /** Runs `requests` in one transaction (retried after a serialization failure); `p` says how far it got. */
  async function runCombined(accountId: string, requests: readonly Request[], p: Progress): Promise<Outcome[]> {
    const started = performance.now()
    const outcomes = await runner.retrying((c) => {
      p.commitSent = false
      p.granted = []
      return groupTransaction(c, { accountId, requests, progress: p, rules })
    }, true)
    observeCommit?.(requests.length, (performance.now() - started) / 1000)
    return outcomes
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
          connectionLost({ accountId, group, error: e, progress: p })
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
            if (isPgUnavailable(e2)) connectionLost({ accountId, group: [r], error: e2, progress: alone })
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

  return { submit }
}
