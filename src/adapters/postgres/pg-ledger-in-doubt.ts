/**
 * Settles in doubt: a settle that rejected after losing its connection (the gateway answered 503,
 * not billed) may still have committed. Its request id is kept here, in memory, and while any is
 * kept a background check runs. Per account, under the account's lock, it inserts a fence row
 * ('void') for each id that has no row, so that a lost transaction still running on the server can
 * never commit afterwards; for every id that did commit it gives the debited credits back to the
 * same lots ('adjust' entries naming the request, never above a lot's credits) and moves the
 * request's usage line to status 503, free; an id that had not committed is counted once under 503
 * (what its caller was answered). Either way the request ends as the gateway answered it. Each
 * compensation is logged at error level and counted (pronet_ledger_in_doubt_compensated_total). Holds
 * are not its concern: the ledger forgets the hold of a settle that rejected, and has the node's row
 * of the account written again from memory (pg-ledger-node-holds.ts).
 *
 * A settle that kept its answer under an Idempotency-Key loses the answer in the transaction that
 * gives its debit back. Unless the answer was already repeated to the client that retried with the
 * key: then the client has what it was billed for, and the settle stands as it committed.
 *
 * Residual risk: the ids live only in this process. A node that crashes (or is closed while the
 * database is still unreachable) with ids in doubt leaves any that had committed billed although
 * their callers were answered 503 (those that kept an answer under a key keep it: a retry with the
 * key is answered with it, free); close() logs them at error level and settled_requests keeps
 * their rows for a day by default, but nothing compensates them automatically. An id still in doubt
 * after half the retention of settled_requests is given up with an error log, so a pruned row is
 * never mistaken for "did not commit".
 */
import type pg from 'pg'
import { keySpendRows } from './pg-ledger-batch-sql.ts'
import { Counter, Gauge, type Registry } from 'prom-client'
import { metric } from '../metrics.ts'
import type { UsageLine } from '../../ports/ledger.ts'
import { isPgUnavailable } from './pg-errors.ts'
import { addUsage, inline, LOCK_ACCOUNT, num, SELECT_SETTLED, usageUpsert, type UsageAggregate } from './pg-ledger-statements.ts'
import { commit, failure, ignore, type PgLedgerLogger, type TransactionRunner } from './pg-ledger-transactions.ts'

/** The response a settle that rejects with a connection error becomes (the gateway's 503). */
const UNAVAILABLE_STATUS = 503
/** In-doubt ids resolved per transaction of the background check. */
const CHECK_BATCH = 500
/**
 * A run of the background check that has not finished in this long is cut off (its socket closed):
 * longer than the server's statement timeout (15 s by default), so a lock wait fails there first.
 */
const CHECK_TIMEOUT_MS = 20_000

/** A settle that rejected after losing its connection, until the background check has resolved it. */
interface Doubt {
  line: UsageLine
  /** A COMMIT went out unanswered (false: its transactions are known to have been rolled back). */
  unknown: boolean
  /** Date.now() when it went in doubt. */
  since: number
}

/** A settle that rejected after losing its connection. */
export interface InDoubtSettle {
  line: UsageLine
  /** A COMMIT of its went out unanswered. */
  unknown: boolean
  /** What it rejected with. */
  error: unknown
}

export interface InDoubtOptions {
  runner: Pick<TransactionRunner, 'withClient'>
  logger?: PgLedgerLogger | undefined
  /** Where the check's metrics are registered (none when absent). */
  registry?: Registry | undefined
  /** Period of the background check, ms. */
  inDoubtCheckMs: number
  /** How long settled_requests rows are kept (server clock), ms. */
  retentionMs: number
  /** Whether the ledger is closed: no new check starts then (close() runs the last one). */
  isClosed(): boolean
}

export interface InDoubtCheck {
  /** Keeps a settle that rejected after a lost connection for the background check. */
  putInDoubt(settle: InDoubtSettle): void
  /** Stops the timer (a check under way goes on: see running()). */
  stop(): void
  /** The check under way, if any. */
  running(): Promise<void> | undefined
  /**
   * The last check, at close(): logs at error level the settles it could not resolve, since from
   * here on nothing will compensate them.
   */
  finish(): Promise<void>
}

export function createInDoubtCheck({ runner, logger, registry, inDoubtCheckMs, retentionMs, isClosed }: InDoubtOptions): InDoubtCheck {
  const compensatedTotal = metric(registry, 'pronet_ledger_in_doubt_compensated_total', () =>
    new Counter({
      name: 'pronet_ledger_in_doubt_compensated_total',
      help: 'Settles whose COMMIT had been lost and that committed although their callers were answered 503: credits given back, usage moved to 503',
      registers: [],
    }),
  )
  const inDoubtGauge = metric(registry, 'pronet_ledger_in_doubt_requests', () =>
    new Gauge({ name: 'pronet_ledger_in_doubt_requests', help: 'Settles of this node whose outcome is not yet resolved by the background check', registers: [] }),
  )
  /** By request id: settles rejected after a lost connection, for the background check. */
  const doubts = new Map<string, Doubt>()
  let checkTimer: NodeJS.Timeout | undefined
  let checking: Promise<void> | undefined

  function putInDoubt({ line, unknown, error }: InDoubtSettle): void {
    doubts.set(line.requestId, { line, unknown, since: Date.now() })
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
    if (checkTimer || isClosed()) return
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

  /** One pass over the in-doubt requests, account by account. */
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
    const accounts = new Set([...doubts.values()].map((d) => d.line.accountId))
    for (const accountId of accounts) {
      const mine = [...doubts.values()].filter((d) => d.line.accountId === accountId).slice(0, CHECK_BATCH)
      try {
        await resolveAccount(accountId, mine)
      } catch (e) {
        // Still unreachable: the next pass tries again.
        if (isPgUnavailable(e)) break
        logger?.error({ ...failure(e), accountId, requestIds: mine.map((d) => d.line.requestId) }, 'in-doubt settles could not be checked; will retry')
        continue
      }
      for (const d of mine) doubts.delete(d.line.requestId)
    }
    inDoubtGauge.set(doubts.size)
    if (doubts.size === 0) unwatch()
  }

  /**
   * One transaction under the account's lock: fences the in-doubt ids without a row, gives back the
   * debits of those that committed and moves their usage lines to 503, counts the others once under
   * 503.
   */
  async function resolveAccount(accountId: string, mine: readonly Doubt[]): Promise<void> {
    const ids = mine.map((d) => d.line.requestId)
    const outcome = await runner.withClient(async (c) => {
      const reads: string[] = [inline(LOCK_ACCOUNT, [accountId])]
      if (mine.length > 0) {
        const fences = mine.map((d) => inline(`($1, $2, $3, 0, 'void')`, [d.line.requestId, accountId, d.line.at]))
        reads.push(
          `INSERT INTO settled_requests (request_id, account_id, at, credits, state) VALUES ${fences.join(', ')}
           ON CONFLICT (request_id) DO NOTHING RETURNING request_id`,
          inline(SELECT_SETTLED, [ids]),
          // Locked: a repeat reading one of these answers waits for this transaction, then finds it
          // kept (and the debit standing) or deleted with its debit given back.
          inline('SELECT request_id, replayed FROM idempotency_keys WHERE account_id = $1 AND request_id = ANY($2::text[]) FOR UPDATE', [
            accountId,
            ids,
          ]),
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
      const answers = (results[4]?.rows ?? []) as { request_id: string; replayed: boolean }[]
      // A committed settle whose kept answer was already repeated to its client stands: the client has
      // the answer it was billed for. The others are given back, their answers deleted with them.
      const delivered = new Set(answers.filter((a) => a.replayed).map((a) => a.request_id))
      const committed = new Map(
        (results[3]?.rows ?? []).flatMap((r: { request_id: string; credits: number }) => (delivered.has(r.request_id) ? [] : [[r.request_id, r.credits] as const])),
      )
      const debits = ((results[5]?.rows ?? []) as CommittedDebit[]).filter((d) => !delivered.has(d.request_id))
      const { statements, given } = resolutionWrites({ accountId, mine, fenced, committed, debits })
      const dropped = answers.filter((a) => committed.has(a.request_id)).map((a) => a.request_id)
      if (dropped.length > 0) statements.push(inline('DELETE FROM idempotency_keys WHERE account_id = $1 AND request_id = ANY($2::text[])', [accountId, dropped]))
      await commit(c, statements)
      return { fenced, committed, given, delivered }
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
    const stood = mine.filter((d) => outcome.delivered.has(d.line.requestId))
    if (stood.length > 0) {
      logger?.warn(
        { accountId, requestIds: stood.map((d) => d.line.requestId) },
        'settles in doubt had committed and their kept answers were repeated to their clients (Idempotency-Key): billed as committed',
      )
    }
    const rolledBack = mine.filter((d) => outcome.fenced.has(d.line.requestId))
    if (rolledBack.some((d) => d.unknown)) {
      logger?.warn(
        { accountId, requestIds: rolledBack.filter((d) => d.unknown).map((d) => d.line.requestId) },
        'settles in doubt had not committed: fenced, counted under 503',
      )
    }
  }

  async function finish(): Promise<void> {
    if (doubts.size > 0) await checkDoubts().catch(ignore)
    unwatch()
    if (doubts.size > 0) {
      logger?.error(
        { requestIds: [...doubts.keys()], accounts: [...new Set([...doubts.values()].map((d) => d.line.accountId))] },
        'ledger closed with settles still in doubt: any that committed stay billed although their callers were answered 503; reconcile them by hand',
      )
    }
  }

  return { putInDoubt, stop: unwatch, running: () => checking, finish }
}

/** A debit entry of an in-doubt request that committed, with its lot's credits and remaining now. */
interface CommittedDebit {
  request_id: string
  lot_id: string
  amount: number
  at: string
  endpoint: string | null
  credits: number
  remaining: number
}

interface Resolution {
  accountId: string
  /** The in-doubt settles being resolved. */
  mine: readonly Doubt[]
  /** Ids fenced by this transaction: they had not committed. */
  fenced: ReadonlySet<string>
  /** Ids that had committed, with what each charged. */
  committed: ReadonlyMap<string, number>
  /** The debits of those that committed, in ledger order. */
  debits: readonly CommittedDebit[]
}

/** The writes that resolve one account's in-doubt settles, in order, and the credits given back per request. */
function resolutionWrites({ accountId, mine, fenced, committed, debits }: Resolution): { statements: string[]; given: Map<string, number> } {
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
      addUsage(usage, d.line, { status: d.line.status, sign: -1, credits: charged })
      addUsage(usage, d.line, { status: UNAVAILABLE_STATUS, sign: 1, credits: 0 })
    } else if (fenced.has(id)) {
      addUsage(usage, d.line, { status: UNAVAILABLE_STATUS, sign: 1, credits: 0 })
    }
  }
  const changed = [...usage.values()].filter((u) => u.requests !== 0 || u.billable !== 0 || u.credits !== 0)
  if (changed.length > 0) {
    statements.push(usageUpsert(changed))
    const days = [...new Set(changed.map((u) => u.day))]
    statements.push(inline('DELETE FROM usage_daily WHERE account_id = $1 AND day = ANY($2::text[]) AND requests = 0', [accountId, days]))
  }
  // The key's spend this month gives back what the request was charged, as its lots do.
  const unspent = keySpendRows(
    mine.flatMap((d) => {
      const charged = committed.get(d.line.requestId)
      return charged === undefined ? [] : [{ ...d.line, credits: charged }]
    }),
    -1,
  )
  if (unspent.length > 0) {
    statements.push(
      inline('SELECT pronet_add_key_spend($1::text[], $2::text[], $3::bigint[])', [unspent.map((r) => r.keyId), unspent.map((r) => r.month), unspent.map((r) => r.credits)]),
    )
  }
  if (committed.size > 0) {
    statements.push(inline(`UPDATE settled_requests SET state = 'compensated' WHERE request_id = ANY($1::text[])`, [[...committed.keys()]]))
  }
  return { statements, given }
}
