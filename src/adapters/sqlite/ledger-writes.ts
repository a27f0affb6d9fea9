/**
 * The SQL of the SQLite ledger's group commit: one batch of requests' billing mutations and usage
 * lines written in one transaction. Used on the event-loop thread (in-memory databases) and by the
 * commit worker (files), so both paths write exactly the same rows.
 */
import type { Mutation } from '../../domain/billing/billing-rules.ts'
import { DAY_MS, utcDay } from '../../domain/billing/calendar.ts'
import { KEY_RETENTION_MS, type UsageLine } from '../../ports/ledger.ts'
import type { SqliteDb } from './database.ts'
import type { Statement } from 'better-sqlite3'

/** Debit rows one INSERT carries at most (better-sqlite3 binds them in one call, SQLite steps once). */
const ENTRY_ROWS = 16
const DEBIT_PARAMS = 6

/** A usage_daily row being summed in a batch: account, day, endpoint, status, requests, billable, credits. */
type DailyRow = [string, string, string, number, number, number, number]

/** One request's (or one operator change's) share of a batch. */
export interface WriteJob {
  accountId: string
  mutations: Mutation[]
  usage: UsageLine | undefined
  /** The call's answer, kept under its Idempotency-Key in the same transaction as its debit. */
  answer?: AnswerRow
}

/** A row of idempotency_keys: the answer of the call `requestId`, kept under its account's key. */
export interface AnswerRow {
  key: string
  fingerprint: string
  /** The first call's arrival (the requests' clock): the answer is kept a day from it. */
  createdAt: number
  requestId: string
  status: number
  /** JSON of the answer's own headers. */
  headers: string
  body: Uint8Array
}

/**
 * A job as it crosses to the commit worker. Structured clone copies flat arrays of primitives about
 * three times faster than nested objects, and nearly every job is one request's usage line with its
 * debits (each debit shares the line's instant, request id and endpoint), so that case is one array:
 * `[0, accountId, at, endpoint, status, credits, requestId, keyId or '', lotId, amount, lotId, amount, …]`.
 * Anything else (operator changes, renewals) travels as `[1, accountId, mutations, usage | 0]`.
 */
export type WireJob = (string | number)[] | [1, string, Mutation[], UsageLine | 0, AnswerRow | 0]

export function toWire(job: WriteJob): WireJob {
  const u = job.usage
  if (u && !job.answer && job.mutations.every((m) => m.type === 'debit' && m.at === u.at && m.requestId === u.requestId && m.endpoint === u.endpoint)) {
    const wire: (string | number)[] = [0, u.accountId, u.at, u.endpoint, u.status, u.credits, u.requestId, u.keyId ?? '']
    for (const m of job.mutations) if (m.type === 'debit') wire.push(m.lotId, m.amount)
    return wire
  }
  return [1, job.accountId, job.mutations, u ?? 0, job.answer ?? 0]
}

export function fromWire(wire: WireJob): WriteJob {
  if (wire[0] === 1) {
    const [, accountId, mutations, usage, answer] = wire as [1, string, Mutation[], UsageLine | 0, AnswerRow | 0]
    return { accountId, mutations, usage: usage === 0 ? undefined : usage, ...(answer === 0 ? {} : { answer }) }
  }
  const [, accountId, at, endpoint, status, credits, requestId, keyId] = wire as [0, string, number, string, number, number, string, string]
  const mutations: Mutation[] = []
  for (let i = 8; i < wire.length; i += 2) {
    mutations.push({ type: 'debit', lotId: wire[i] as string, amount: wire[i + 1] as number, at, requestId, endpoint })
  }
  const usage: UsageLine = { accountId, at, endpoint, status, credits, requestId }
  if (keyId !== '') usage.keyId = keyId
  return { accountId, mutations, usage }
}

/** Per job of a replayed batch: committed, or the reason it could not be. */
export type JobOutcome = { ok: true } | { ok: false; error: string }

export interface BatchResult {
  /** The billing epoch after the batch (or after the last job that committed, on replay). */
  epoch: number
  /** Another writer (the CLI) changed billing rows since this writer's previous transaction. */
  foreign: boolean
  /** Present when the batch failed as a whole and was replayed job by job. */
  outcomes?: JobOutcome[]
  error?: string
}

export function createLedgerWrites(db: SqliteDb) {
  const updateSubscription = db.prepare(
    `UPDATE accounts SET plan = @plan, status = @status, credits_limit = @creditsLimit, rps_limit = @rpsLimit,
       anchor_at = @anchorAt, period_start = @periodStart, renewal_at = @renewalAt, cancel_at_period_end = @cancel
     WHERE id = @accountId`,
  )
  const insertLot = db.prepare(
    `INSERT INTO credit_lots (id, account_id, kind, credits, remaining, starts_at, expires_at, price_cents, seq)
     VALUES (@id, @accountId, @kind, @credits, @credits, @startsAt, @expiresAt, @priceCents, @seq)`,
  )
  const insertEntry = db.prepare(
    'INSERT INTO ledger_entries (account_id, lot_id, at, kind, delta, request_id, endpoint) VALUES (?, ?, ?, ?, ?, ?, ?)',
  )
  /** INSERT statements of 1..ENTRY_ROWS debit rows, prepared when first needed. */
  const insertEntries = new Map<number, Statement>()
  const entriesOf = (rows: number): Statement => {
    let statement = insertEntries.get(rows)
    if (!statement) {
      statement = db.prepare(
        `INSERT INTO ledger_entries (account_id, lot_id, at, kind, delta, request_id, endpoint) VALUES ${Array(rows).fill("(?, ?, ?, 'debit', ?, ?, ?)").join(', ')}`,
      )
      insertEntries.set(rows, statement)
    }
    return statement
  }
  /** Debit rows not yet inserted (six parameters each), in ledger order. */
  const debitRows: (string | number)[] = []
  function insertDebits(): void {
    for (let at = 0; at < debitRows.length; ) {
      const rows = Math.min(ENTRY_ROWS, (debitRows.length - at) / DEBIT_PARAMS)
      const end = at + rows * DEBIT_PARAMS
      entriesOf(rows).run(at === 0 && end === debitRows.length ? debitRows : debitRows.slice(at, end))
      at = end
    }
    debitRows.length = 0
  }
  const spend = db.prepare('UPDATE credit_lots SET remaining = remaining - ? WHERE id = ?')
  const adjustLot = db.prepare('UPDATE credit_lots SET credits = ?, remaining = remaining + ? WHERE id = ?')
  const expireLot = db.prepare('UPDATE credit_lots SET expires_at = ? WHERE id = ?')
  const insertEvent = db.prepare('INSERT INTO subscription_events (account_id, at, change) VALUES (?, ?, ?)')
  const upsertUsage = db.prepare(
    `INSERT INTO usage_daily (account_id, day, endpoint, status, requests, billable, credits) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (account_id, day, endpoint, status) DO UPDATE SET
       requests = requests + excluded.requests, billable = billable + excluded.billable, credits = credits + excluded.credits`,
  )
  const upsertAnswer = db.prepare(
    `INSERT INTO idempotency_keys (account_id, idem_key, fingerprint, created_at, request_id, status, headers, body)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (account_id, idem_key) DO UPDATE SET fingerprint = excluded.fingerprint, created_at = excluded.created_at,
       request_id = excluded.request_id, status = excluded.status, headers = excluded.headers, body = excluded.body`,
  )
  const addKeySpend = db.prepare(
    `INSERT INTO key_spend (key_id, month, credits) VALUES (?, ?, ?)
     ON CONFLICT (key_id, month) DO UPDATE SET credits = credits + excluded.credits`,
  )
  const pruneAnswers = db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?')
  const bumpEpoch = db.prepare('UPDATE billing_epoch SET n = n + 1 WHERE id = 1 RETURNING n').pluck()
  const readEpoch = db.prepare('SELECT n FROM billing_epoch WHERE id = 1').pluck()
  /** The epoch after this writer's last transaction: any other value at the next one is another writer's. */
  let ownEpoch = readEpoch.get() as number
  let foreign = false

  function persist(accountId: string, m: Mutation, spent: Map<string, number>): void {
    if (m.type === 'debit') {
      // Debits (nearly every row of a batch) are inserted several to a statement; anything else
      // goes in after the debits queued before it, so ledger ids keep the order of the batch.
      debitRows.push(accountId, m.lotId, m.at, -m.amount, m.requestId, m.endpoint)
      spent.set(m.lotId, (spent.get(m.lotId) ?? 0) + m.amount)
      return
    }
    insertDebits()
    switch (m.type) {
      case 'subscription': {
        const s = m.subscription
        updateSubscription.run({ ...s, accountId, cancel: s.cancelAtPeriodEnd ? 1 : 0 })
        return
      }
      case 'grant':
        insertLot.run({ ...m.lot, accountId })
        insertEntry.run(accountId, m.lot.id, m.at, 'grant', m.lot.credits, null, null)
        return
      case 'adjust':
        adjustLot.run(m.credits, m.delta, m.lotId)
        insertEntry.run(accountId, m.lotId, m.at, 'adjust', m.delta, null, null)
        return
      case 'lotExpires':
        expireLot.run(m.expiresAt, m.lotId)
        return
      case 'event':
        insertEvent.run(accountId, m.at, JSON.stringify(m.change))
        return
    }
  }

  // Nearly every line of a batch falls on the day of the one before it.
  let lastDay = { n: NaN, day: '' }
  const dayOf = (at: number): string => {
    const n = Math.floor(at / DAY_MS)
    if (n !== lastDay.n) lastDay = { n, day: utcDay(at) }
    return lastDay.day
  }

  /**
   * One transaction: debits of one lot become one UPDATE, usage lines one upsert per key. Run with
   * `.immediate` (BEGIN IMMEDIATE), as every write transaction on a file another process may write
   * (the CLI's ingest or billing commands): a deferred one reads first, and once the other process
   * has committed since that read SQLite refuses its write at once with SQLITE_BUSY_SNAPSHOT, which
   * no busy timeout waits out. Taking the write lock first makes it wait its turn instead.
   */
  const writeBatch = db.transaction((jobs: readonly WriteJob[]): number => {
    if ((readEpoch.get() as number) !== ownEpoch) foreign = true
    // Left over from a batch that failed part-way (it is replayed job by job).
    debitRows.length = 0
    const spent = new Map<string, number>()
    const usage = new Map<string, DailyRow>()
    /** Credits billed per key and month ('key\u0000month'). */
    const keySpend = new Map<string, number>()
    let lastRow: DailyRow | undefined
    let latestAnswer = -Infinity
    for (const job of jobs) {
      for (const m of job.mutations) persist(job.accountId, m, spent)
      const a = job.answer
      if (a) {
        // A structured clone (the commit worker's) brings a Buffer over as a plain Uint8Array.
        const body = Buffer.isBuffer(a.body) ? a.body : Buffer.from(a.body.buffer, a.body.byteOffset, a.body.byteLength)
        upsertAnswer.run(job.accountId, a.key, a.fingerprint, a.createdAt, a.requestId, a.status, a.headers, body)
        latestAnswer = Math.max(latestAnswer, a.createdAt)
      }
      const u = job.usage
      if (u) {
        const day = dayOf(u.at)
        // Nearly every line of a batch is of the same row as the one before it: no key to build for it.
        let row = lastRow
        if (row === undefined || row[0] !== u.accountId || row[1] !== day || row[2] !== u.endpoint || row[3] !== u.status) {
          const key = `${u.accountId}\u0000${day}\u0000${u.endpoint}\u0000${u.status}`
          row = usage.get(key)
          if (row === undefined) {
            row = [u.accountId, day, u.endpoint, u.status, 0, 0, 0]
            usage.set(key, row)
          }
          lastRow = row
        }
        row[4] += 1
        row[5] += u.credits > 0 ? 1 : 0
        row[6] += u.credits
        if (u.keyId !== undefined && u.credits > 0) {
          const k = `${u.keyId}\u0000${day.slice(0, 7)}`
          keySpend.set(k, (keySpend.get(k) ?? 0) + u.credits)
        }
      }
    }
    insertDebits()
    // The CHECK (remaining >= 0) refuses a debit the rows cannot cover and rolls the batch back.
    for (const [lotId, amount] of spent) spend.run(amount, lotId)
    for (const row of usage.values()) upsertUsage.run(...row)
    for (const [k, credits] of keySpend) {
      const cut = k.indexOf('\u0000')
      addKeySpend.run(k.slice(0, cut), k.slice(cut + 1), credits)
    }
    // Answers past their day go as new ones come: the index finds none to delete at once when there are none.
    if (latestAnswer > -Infinity) pruneAnswers.run(latestAnswer - KEY_RETENTION_MS)
    ownEpoch = bumpEpoch.get() as number
    return ownEpoch
  })

  return {
    /**
     * Writes the batch in one transaction; if that fails (rows changed underneath by another
     * process, or a disk error), replays it one job per transaction so only the jobs that cannot be
     * written fail.
     */
    write(jobs: readonly WriteJob[]): BatchResult {
      foreign = false
      try {
        const epoch = writeBatch.immediate(jobs)
        return { epoch, foreign }
      } catch (e) {
        let epoch = -1
        const outcomes = jobs.map((job): JobOutcome => {
          try {
            epoch = writeBatch.immediate([job])
            return { ok: true }
          } catch (err) {
            return { ok: false, error: err instanceof Error ? err.message : String(err) }
          }
        })
        return { epoch, foreign, outcomes, error: e instanceof Error ? e.message : String(e) }
      }
    },
  }
}
