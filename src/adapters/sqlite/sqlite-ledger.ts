/**
 * The embedded ledger: billing state cached in memory, changed synchronously by the billing rules,
 * persisted by group commit.
 *
 * Every change of this process happens on the event-loop thread, so changes are totally ordered: a
 * hold or debit changes the cached state at once (the next request sees it) and queues its rows. All
 * rows queued in one loop turn form one batch for the committer (one transaction, one fsync under
 * synchronous=FULL): written on this thread, or, for a data file on a machine with CPUs to spare, by
 * a worker thread that writes every batch waiting for it in one transaction, so the event loop keeps
 * serving during the fsync and commits never queue behind each other (container.commitsInWorker). A settle
 * resolves only once its batch is durable, and only then is its response sent; a crash before that
 * loses only changes whose responses were never sent.
 *
 * Another process (the CLI) may change billing rows while the server runs. Every billing transaction
 * bumps `billing_epoch`; the committer flags a batch whose transaction found the epoch moved since its
 * own previous one (and an idle server reads the epoch at most every VERSION_CHECK_MS). The cache is
 * then reloaded once every batch in flight has landed. A queued debit that no longer fits the rows (the CHECK on
 * remaining refuses it) fails alone when the batch is replayed job by job, so a balance never goes
 * below zero and no acknowledged debit is lost; it is then worked out again from the reloaded rows
 * (charged, or refused as insufficient: the late 402), as is a CLI's change worked out from rows the
 * server spent from meanwhile.
 *
 * Idempotency-Key claims are held in this process's memory (sqlite-ledger-keys.ts); a settle that
 * keeps its call's answer queues the answer's row with its debit, so both land in one transaction.
 */
import {
  balanceAt,
  billingInstant,
  debit,
  addPack as addPackRule,
  changeSubscription as changeRule,
  renew,
  type BillingState,
  type Lot,
  type Mutation,
  type NewPack,
  type Subscription,
} from '../../domain/billing/billing-rules.ts'
import type { AnswerToKeep, Hold, HoldResult, Ledger, LedgerEntry, SettleResult, UsageLine, UsageRow } from '../../ports/ledger.ts'
import { Histogram, type Registry } from 'prom-client'
import { metric } from '../metrics.ts'
import { addToCount } from '../../domain/billing/counts.ts'
import type { SqliteDb } from './database.ts'
import { createThreadCommitter, type Committer } from './ledger-committer.ts'
import type { AnswerRow, BatchResult, WriteJob } from './ledger-writes.ts'
import { createSqliteKeyClaims } from './sqlite-ledger-keys.ts'

export const VERSION_CHECK_MS = 50

interface AccountRow {
  plan: Subscription['plan']
  status: Subscription['status']
  credits_limit: number
  rps_limit: number
  anchor_at: number | null
  created_at: number
  period_start: number | null
  renewal_at: number | null
  cancel_at_period_end: number
}

interface LotRow {
  id: string
  kind: 'plan' | 'pack'
  credits: number
  remaining: number
  starts_at: number
  expires_at: number
  price_cents: number | null
  seq: number
}

/** The jobs queued in one loop turn; every job waits on the batch's one promise. */
interface Batch {
  jobs: WriteJob[]
  done: Promise<BatchResult>
  resolve(result: BatchResult): void
}

/** Where a queued job stands: its batch and its place in it. */
interface Ticket {
  batch: Batch
  index: number
}

/**
 * A job refused because another process (the CLI) changed the lots after this one's cached state was
 * read: its debit or adjustment no longer fits the rows (the CHECK on remaining). The batch that met
 * it marked the cache stale, so the change is worked out again from the rows.
 */
class LotsMoved extends Error {}
const LOTS_MOVED_RE = /CHECK constraint failed/
/** Times a change is worked out again after another process moved the lots under it. */
const RECOMPUTE_ATTEMPTS = 5
/** A lot inserted under an id another process on the file has already used (addPack with a lot id). */
const DUPLICATE_LOT_RE = /UNIQUE constraint failed: credit_lots\.id/

/** Resolves once the job is durable; throws when its batch was replayed and it could not be written (LotsMoved when the moved lots refused it). */
async function landedOrMoved(t: Ticket): Promise<void> {
  const outcome = (await t.batch.done).outcomes?.[t.index]
  if (outcome && !outcome.ok) throw LOTS_MOVED_RE.test(outcome.error) ? new LotsMoved(outcome.error) : new Error(outcome.error)
}

/** `attempt` again while another process's change to the lots refuses what it worked out (bounded). */
async function recomputing<T>(attempt: () => Promise<T>, attempts = RECOMPUTE_ATTEMPTS): Promise<T> {
  for (let n = RECOMPUTE_ATTEMPTS - attempts + 1; ; n++) {
    try {
      return await attempt()
    } catch (e) {
      if (!(e instanceof LotsMoved) || n >= RECOMPUTE_ATTEMPTS) throw e
    }
  }
}

export interface SqliteLedgerOptions {
  /** Where the group commit's histograms go (pronet_ledger_commit_seconds, pronet_ledger_commit_jobs). */
  registry?: Registry
  /** New lot ids (random in production). */
  newLotId: () => string
  /** Writes the batches; default: on this thread through `db`. */
  committer?: Committer
  /** Called when a batch could not be committed as a whole (for the operator's log). */
  onBatchReplay?: (error: string) => void
}

export function createSqliteLedger(db: SqliteDb, opts: SqliteLedgerOptions): Ledger {
  const selectAccount = db.prepare(
    `SELECT plan, status, credits_limit, rps_limit, anchor_at, created_at, period_start, renewal_at, cancel_at_period_end
     FROM accounts WHERE id = ?`,
  )
  const selectLots = db.prepare('SELECT id, kind, credits, remaining, starts_at, expires_at, price_cents, seq FROM credit_lots WHERE account_id = ?')
  const selectUsage = db.prepare(
    `SELECT day, endpoint, status, requests, billable, credits FROM usage_daily
     WHERE account_id = ? AND day >= ? AND day <= ? ORDER BY day, endpoint, status`,
  )
  const selectEntries = db.prepare(
    `SELECT id, lot_id AS lotId, at, kind, delta, request_id AS requestId, endpoint FROM ledger_entries WHERE account_id = ? ORDER BY id`,
  )
  const readEpoch = db.prepare('SELECT n FROM billing_epoch WHERE id = 1').pluck()
  const committer = opts.committer ?? createThreadCommitter(db)
  const keys = createSqliteKeyClaims(db)
  // Observed once per batch (a few hundred times a second under load), never per request.
  const commitSeconds = metric(opts.registry, 'pronet_ledger_commit_seconds', () =>
    new Histogram({
      name: 'pronet_ledger_commit_seconds',
      help: 'Group commits of the billing ledger: from handing a batch to the committer to its durable acknowledgement (fsync included)',
      buckets: [0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5],
      registers: [],
    }),
  )
  const commitJobs = metric(opts.registry, 'pronet_ledger_commit_jobs', () =>
    new Histogram({ name: 'pronet_ledger_commit_jobs', help: 'Requests and operator changes written per group commit batch', buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256], registers: [] }),
  )

  const cache = new Map<string, BillingState>()
  // Both counts are changed through addToCount, which keeps an account's 0 (counts.ts).
  /** Credits held per account by requests in flight. */
  const held = new Map<string, number>()
  /** Jobs not yet durable, per account: such an account is not (re)loaded from disk until they are. */
  const unsettled = new Map<string, number>()
  let pending: Batch | undefined
  let scheduled = false
  let closed = false
  /** Batches handed to the committer, and acknowledged, in order. */
  let posted = 0
  let acknowledged = 0
  const ackWaiters: { upTo: number; resolve(): void }[] = []
  /** The billing epoch after our last acknowledged batch. */
  let epoch = readEpoch.get() as number
  /** Set when another writer changed billing rows (or a batch was replayed): the cache must be reloaded. */
  let stale = false
  let refreshing: Promise<void> | undefined
  let paused = false
  let lastCheck = performance.now()

  function load(accountId: string): BillingState | undefined {
    const row = selectAccount.get(accountId) as AccountRow | undefined
    if (!row) return undefined
    const lots = (selectLots.all(accountId) as LotRow[]).map(
      (r): Lot => ({
        id: r.id,
        kind: r.kind,
        credits: r.credits,
        remaining: r.remaining,
        startsAt: r.starts_at,
        expiresAt: r.expires_at,
        priceCents: r.price_cents,
        seq: r.seq,
      }),
    )
    return {
      accountId,
      subscription: {
        plan: row.plan,
        status: row.status,
        creditsLimit: row.credits_limit,
        rpsLimit: row.rps_limit,
        anchorAt: row.anchor_at ?? row.created_at,
        periodStart: row.period_start,
        renewalAt: row.renewal_at,
        cancelAtPeriodEnd: row.cancel_at_period_end === 1,
      },
      lots,
    }
  }

  /** Resolves once everything queued so far is durable (after any reload in progress). */
  async function landed(): Promise<void> {
    if (refreshing) await refreshing
    while (pending || acknowledged < posted) {
      flush()
      await waitAcknowledged(posted)
      if (refreshing) await refreshing
    }
  }

  /** An idle server looks for other writers' epochs; a busy one learns of them from its batches. */
  function noticeOtherWriters(): void {
    const t = performance.now()
    if (t - lastCheck < VERSION_CHECK_MS) return
    lastCheck = t
    if (acknowledged === posted && !pending && (readEpoch.get() as number) !== epoch) stale = true
  }

  /** Drops the cache once every batch in flight has landed; queued changes wait for the reload. */
  function refresh(): Promise<void> {
    refreshing ??= (async () => {
      paused = true
      try {
        await waitAcknowledged(posted)
        cache.clear()
        epoch = readEpoch.get() as number
        stale = false
      } finally {
        paused = false
        refreshing = undefined
        schedule()
      }
    })()
    return refreshing
  }

  function waitAcknowledged(upTo: number): Promise<void> {
    if (acknowledged >= upTo) return Promise.resolve()
    return new Promise<void>((resolve) => ackWaiters.push({ upTo, resolve }))
  }

  /**
   * The cached state brought to `at` when nothing has to be waited for first (no reload due, the
   * account in the cache), else undefined: then `current`. Most calls are answered here, with no
   * promise to wait on.
   */
  function cachedNow(accountId: string, at: number): BillingState | undefined {
    noticeOtherWriters()
    if (stale) return undefined
    const state = cache.get(accountId)
    if (!state) return undefined
    const mutations = renew(state, at, opts.newLotId)
    if (mutations.length > 0 && !closed) enqueue(accountId, mutations, undefined)
    return state
  }

  /** The cached state brought to `at`; renewals are queued like any other change. */
  async function current(accountId: string, at: number): Promise<BillingState | undefined> {
    noticeOtherWriters()
    if (stale) await refresh()
    let state = cache.get(accountId)
    if (!state) {
      // Rows of this account still on their way to disk would be missing from a load.
      while ((unsettled.get(accountId) ?? 0) > 0) await landed()
      state = cache.get(accountId) ?? load(accountId)
      if (!state) return undefined
      cache.set(accountId, state)
    }
    const mutations = renew(state, at, opts.newLotId)
    // Nobody waits on a renewal alone; a failed batch marks the cache stale and it is reloaded.
    if (mutations.length > 0 && !closed) enqueue(accountId, mutations, undefined)
    return state
  }

  function schedule(): void {
    if (!scheduled && pending) {
      scheduled = true
      setImmediate(flush)
    }
  }

  function enqueue(accountId: string, mutations: Mutation[], usage: UsageLine | undefined, answer?: AnswerRow): Ticket {
    if (closed) throw new Error('ledger closed')
    if (!pending) {
      let resolve!: (result: BatchResult) => void
      const done = new Promise<BatchResult>((r) => (resolve = r))
      pending = { jobs: [], done, resolve }
    }
    const index = pending.jobs.push(answer ? { accountId, mutations, usage, answer } : { accountId, mutations, usage }) - 1
    addToCount(unsettled, accountId, 1)
    schedule()
    return { batch: pending, index }
  }

  function flush(): void {
    scheduled = false
    if (!pending || paused) return
    const batch = pending
    pending = undefined
    posted++
    const number = posted
    const started = performance.now()
    commitJobs.observe(batch.jobs.length)
    committer
      .write(batch.jobs)
      .finally(() => commitSeconds.observe((performance.now() - started) / 1000))
      .then(
      (result) => landedBatch(number, batch, result),
      (error: unknown) =>
        landedBatch(number, batch, {
          epoch: -1,
          foreign: false,
          error: String(error),
          outcomes: batch.jobs.map(() => ({ ok: false, error: String(error) })),
        }),
    )
  }

  function landedBatch(number: number, batch: Batch, result: BatchResult): void {
    acknowledged = number
    for (const job of batch.jobs) {
      addToCount(unsettled, job.accountId, -1)
    }
    if (result.outcomes) {
      // The batch did not fit the rows or the disk refused it: the cache is not to be trusted.
      opts.onBatchReplay?.(result.error ?? 'unknown error')
      stale = true
    } else if (result.foreign) stale = true
    if (result.epoch >= 0) epoch = result.epoch
    batch.resolve(result)
    for (let i = ackWaiters.length - 1; i >= 0; i--) {
      const w = ackWaiters[i] as (typeof ackWaiters)[number]
      if (w.upTo <= acknowledged) {
        ackWaiters.splice(i, 1)
        w.resolve()
      }
    }
  }

  async function mustGet(accountId: string, at: number): Promise<BillingState> {
    const state = await current(accountId, at)
    if (!state) throw new Error(`unknown account ${accountId}`)
    return state
  }

  /**
   * A pack granted under the caller's lot id at most once. A lot already in the cache may be another
   * call's grant still on its way to disk, so it is answered only once everything queued has landed
   * (a batch that failed marks the cache stale, and the next read comes from the rows). Another
   * process on the file may have granted it since the cache was read: the primary key on the lot's
   * id refuses this insert, the batch's replay marks the cache stale, and the lot is read back.
   */
  async function addPackOnce(accountId: string, pack: NewPack, lotId: string): Promise<Lot> {
    let refused: unknown
    for (let attempt = 1; attempt <= RECOMPUTE_ATTEMPTS; attempt++) {
      const state = await mustGet(accountId, pack.purchasedAt)
      if (state.lots.some((l) => l.id === lotId)) {
        await landed()
        const stored = (await mustGet(accountId, pack.purchasedAt)).lots.find((l) => l.id === lotId)
        if (stored) return { ...stored }
        continue
      }
      const { lot, mutations } = addPackRule(state, pack, () => lotId)
      try {
        await landedOrMoved(enqueue(accountId, mutations, undefined))
        return { ...lot }
      } catch (e) {
        if (!DUPLICATE_LOT_RE.test(e instanceof Error ? e.message : String(e))) throw e
        refused = e
      }
    }
    throw refused ?? new Error(`pack ${lotId} could not be granted`)
  }

  function holdOn(state: BillingState, accountId: string, credits: number, at: number): HoldResult {
    const balance = balanceAt(state, at)
    const reserved = held.get(accountId) ?? 0
    if (balance.total - reserved < credits) return { ok: false, balance, held: reserved }
    held.set(accountId, reserved + credits)
    return { ok: true, hold: { accountId, credits, at: billingInstant(state, at) } }
  }

  /** The settle's debit and usage line queued: what it waits on, or a refusal when the balance cannot cover it. */
  function queueSettle(state: BillingState | undefined, hold: Hold | null, line: UsageLine, keep: AnswerToKeep | undefined): Ticket | SettleResult {
    let mutations: Mutation[] = []
    if (line.credits > 0 && hold) {
      const debits = state && debit(state, line.credits, hold.at, { requestId: line.requestId, endpoint: line.endpoint })
      if (!debits) return { ok: false, reason: 'insufficient' }
      mutations = debits
    }
    return enqueue(line.accountId, mutations, line, keep && keys.row(keep, line.requestId))
  }

  /** A settle worked out from the state as `current` gives it. */
  async function settleFromCurrent(hold: Hold | null, line: UsageLine, keep: AnswerToKeep | undefined): Promise<SettleResult> {
    const state = line.credits > 0 && hold ? await current(hold.accountId, hold.at) : undefined
    const queued = queueSettle(state, hold, line, keep)
    if (!('batch' in queued)) return queued
    await landedOrMoved(queued)
    // Durable with its debit: the key is answered from the row from here on.
    if (keep) keys.release(keep.claim)
    return { ok: true, charged: line.credits }
  }

  return {
    state(accountId, at) {
      const state = cachedNow(accountId, at)
      return state ? Promise.resolve(state) : current(accountId, at)
    },

    hold(accountId, credits, at) {
      const state = cachedNow(accountId, at)
      if (state) return Promise.resolve(holdOn(state, accountId, credits, at))
      return mustGet(accountId, at).then((s) => holdOn(s, accountId, credits, at))
    },

    settle(hold: Hold | null, line: UsageLine, keep?: AnswerToKeep): Promise<SettleResult> {
      if (hold) {
        addToCount(held, hold.accountId, -hold.credits)
      }
      if (line.credits > (hold?.credits ?? 0)) return Promise.reject(new Error('a request cannot be charged more than it held'))
      // A debit worked out before the CLI lowered the lots (a credits limit cut under load) is worked
      // out again from the rows: charged if it still fits, else the late 402 an in-process change
      // gives, rather than a 500 whose usage line would be lost.
      const debits = line.credits > 0 && hold !== null
      const state = debits ? cachedNow(hold.accountId, hold.at) : undefined
      if (debits && !state) return recomputing(() => settleFromCurrent(hold, line, keep))
      // Nothing to wait for before it is queued (the usual case): the first attempt without a promise of its own.
      let queued: Ticket | SettleResult
      try {
        queued = queueSettle(state, hold, line, keep)
      } catch (e) {
        return Promise.reject(e)
      }
      if (!('batch' in queued)) return Promise.resolve(queued)
      const ticket = queued
      return ticket.batch.done.then((result): SettleResult | Promise<SettleResult> => {
        const outcome = result.outcomes?.[ticket.index]
        if (outcome && !outcome.ok) {
          if (!LOTS_MOVED_RE.test(outcome.error)) throw new Error(outcome.error)
          // Worked out again from the rows, for the attempts left.
          return recomputing(() => settleFromCurrent(hold, line, keep), RECOMPUTE_ATTEMPTS - 1)
        }
        if (keep) keys.release(keep.claim)
        return { ok: true, charged: line.credits }
      })
    },

    async claimKey(use) {
      return keys.claim(use)
    },

    async releaseKey(claim) {
      keys.release(claim)
    },

    async addPack(accountId, pack, lotId) {
      if (lotId !== undefined) return addPackOnce(accountId, pack, lotId)
      const state = await mustGet(accountId, pack.purchasedAt)
      const { lot, mutations } = addPackRule(state, pack, opts.newLotId)
      await landedOrMoved(enqueue(accountId, mutations, undefined))
      return { ...lot }
    },

    async changeSubscription(accountId, patch, at) {
      // From the CLI beside a billing server, the plan lot's adjustment is worked out from rows the
      // server may spend from before it commits: refused by the CHECK, it is worked out again.
      return recomputing(async () => {
        const state = await mustGet(accountId, at)
        await landedOrMoved(enqueue(accountId, changeRule(state, patch, at, opts.newLotId), undefined))
        return state
      })
    },

    async usage(accountId, fromDay, toDay) {
      await landed()
      return selectUsage.all(accountId, fromDay, toDay) as UsageRow[]
    },

    async entries(accountId) {
      await landed()
      return selectEntries.all(accountId) as LedgerEntry[]
    },

    async close() {
      if (closed) return
      await landed()
      closed = true
      await committer.close()
    },
  }
}
