/**
 * The embedded ledger: billing state cached in memory, changed synchronously by the billing rules,
 * and persisted by group commit.
 *
 * better-sqlite3 runs on the one event-loop thread, so every change of this process is totally
 * ordered: a hold or debit changes the in-memory state at once (the next request sees it) and queues
 * its SQL; all changes queued in one loop turn are written in one transaction (one fsync under
 * synchronous=FULL), and only then are the waiting responses released. A crash before the commit loses
 * only changes whose responses were never sent.
 *
 * Another process (the CLI) may change billing rows while the server runs. PRAGMA data_version shows
 * that (read at most every VERSION_CHECK_MS); the cache is then dropped and reloaded. If a queued
 * debit no longer fits the rows (the CHECK on remaining refuses it), the batch is replayed one
 * request at a time and only the requests that no longer fit fail (free), so a balance never goes
 * below zero and no acknowledged debit is lost.
 */
import {
  balanceAt,
  debit,
  addPack as addPackRule,
  changeSubscription as changeRule,
  renew,
  type BillingState,
  type Lot,
  type Mutation,
  type Subscription,
} from '../../domain/billing/billing-rules.ts'
import { utcDay } from '../../domain/billing/calendar.ts'
import type { Hold, Ledger, LedgerEntry, UsageLine, UsageRow } from '../../ports/ledger.ts'
import type { SqliteDb } from './database.ts'

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

interface Job {
  mutations: Mutation[]
  accountId: string
  usage: UsageLine | undefined
  resolve(): void
  reject(e: unknown): void
}

export interface SqliteLedgerOptions {
  /** New lot ids (random in production). */
  newLotId: () => string
  /** Called when a batch could not be committed as a whole (for the operator's log). */
  onBatchReplay?: (error: unknown) => void
}

export function createSqliteLedger(db: SqliteDb, opts: SqliteLedgerOptions): Ledger {
  const selectAccount = db.prepare(
    `SELECT plan, status, credits_limit, rps_limit, anchor_at, created_at, period_start, renewal_at, cancel_at_period_end
     FROM accounts WHERE id = ?`,
  )
  const selectLots = db.prepare('SELECT id, kind, credits, remaining, starts_at, expires_at, price_cents, seq FROM credit_lots WHERE account_id = ?')
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
    `INSERT INTO ledger_entries (account_id, lot_id, at, kind, delta, request_id, endpoint) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  )
  const spend = db.prepare('UPDATE credit_lots SET remaining = remaining - ? WHERE id = ?')
  const adjustLot = db.prepare('UPDATE credit_lots SET credits = ?, remaining = remaining + ? WHERE id = ?')
  const expireLot = db.prepare('UPDATE credit_lots SET expires_at = ? WHERE id = ?')
  const insertEvent = db.prepare('INSERT INTO subscription_events (account_id, at, change) VALUES (?, ?, ?)')
  const upsertUsage = db.prepare(
    `INSERT INTO usage_daily (account_id, day, endpoint, status, requests, billable, credits) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (account_id, day, endpoint, status) DO UPDATE SET
       requests = requests + excluded.requests, billable = billable + excluded.billable, credits = credits + excluded.credits`,
  )
  const selectUsage = db.prepare(
    `SELECT day, endpoint, status, requests, billable, credits FROM usage_daily
     WHERE account_id = ? AND day >= ? AND day <= ? ORDER BY day, endpoint, status`,
  )
  const selectEntries = db.prepare(
    `SELECT id, lot_id AS lotId, at, kind, delta, request_id AS requestId, endpoint FROM ledger_entries WHERE account_id = ? ORDER BY id`,
  )
  const dataVersion = db.prepare('PRAGMA data_version').pluck()

  const cache = new Map<string, BillingState>()
  /** Credits held per account by requests in flight. */
  const held = new Map<string, number>()
  let pending: Job[] = []
  let scheduled = false
  let closed = false
  let lastVersion = dataVersion.get() as number
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

  /** Drops the cache when another connection committed since the last look (at most every 50 ms). */
  function noticeOtherWriters(): void {
    const t = performance.now()
    if (t - lastCheck < VERSION_CHECK_MS) return
    lastCheck = t
    const version = dataVersion.get() as number
    if (version !== lastVersion) {
      lastVersion = version
      // Our queued changes go first so the reload sees them.
      flushNow()
      cache.clear()
    }
  }

  /** The cached state brought to `at`; renewals are queued like any other change. */
  function current(accountId: string, at: number): BillingState | undefined {
    noticeOtherWriters()
    let state = cache.get(accountId)
    if (!state) {
      state = load(accountId)
      if (!state) return undefined
      cache.set(accountId, state)
    }
    const mutations = renew(state, at, opts.newLotId)
    // Failure is handled by the replay (which drops the cache); nobody waits on a renewal alone.
    if (mutations.length > 0) enqueue(accountId, mutations, undefined).catch(() => {})
    return state
  }

  function enqueue(accountId: string, mutations: Mutation[], usage: UsageLine | undefined): Promise<void> {
    if (closed) return Promise.reject(new Error('ledger closed'))
    return new Promise<void>((resolve, reject) => {
      pending.push({ accountId, mutations, usage, resolve, reject })
      if (!scheduled) {
        scheduled = true
        setImmediate(flushNow)
      }
    })
  }

  function persist(accountId: string, m: Mutation, spent: Map<string, number>): void {
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
      case 'debit':
        insertEntry.run(accountId, m.lotId, m.at, 'debit', -m.amount, m.requestId, m.endpoint)
        spent.set(m.lotId, (spent.get(m.lotId) ?? 0) + m.amount)
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

  /** Writes jobs in one transaction: debits of one lot become one UPDATE, usage lines one upsert per key. */
  const writeJobs = db.transaction((jobs: Job[]) => {
    const spent = new Map<string, number>()
    const usage = new Map<string, [string, string, string, number, number, number, number]>()
    for (const job of jobs) {
      for (const m of job.mutations) persist(job.accountId, m, spent)
      const u = job.usage
      if (u) {
        const day = utcDay(u.at)
        const key = `${u.accountId}\u0000${day}\u0000${u.endpoint}\u0000${u.status}`
        const row = usage.get(key)
        if (row) {
          row[4] += 1
          row[5] += u.credits > 0 ? 1 : 0
          row[6] += u.credits
        } else usage.set(key, [u.accountId, day, u.endpoint, u.status, 1, u.credits > 0 ? 1 : 0, u.credits])
      }
    }
    // The CHECK (remaining >= 0) refuses a debit the rows cannot cover and rolls the batch back.
    for (const [lotId, amount] of spent) spend.run(amount, lotId)
    for (const row of usage.values()) upsertUsage.run(...row)
  })

  function flushNow(): void {
    scheduled = false
    if (pending.length === 0) return
    const jobs = pending
    pending = []
    try {
      writeJobs(jobs)
      for (const job of jobs) job.resolve()
      return
    } catch (e) {
      opts.onBatchReplay?.(e)
    }
    // The batch did not fit the rows (another process changed them) or the disk refused it: the
    // in-memory state is no longer trustworthy. Replay each request alone; those that fail are
    // refused to their callers, whose responses then bill nothing.
    cache.clear()
    for (const job of jobs) {
      try {
        writeJobs([job])
        job.resolve()
      } catch (e) {
        job.reject(e)
      }
    }
  }

  return {
    async state(accountId, at) {
      return current(accountId, at)
    },

    async hold(accountId, credits, at) {
      const state = current(accountId, at)
      if (!state) throw new Error(`unknown account ${accountId}`)
      const balance = balanceAt(state, at)
      const reserved = held.get(accountId) ?? 0
      if (balance.total - reserved < credits) return { ok: false, balance }
      held.set(accountId, reserved + credits)
      return { ok: true, hold: { accountId, credits, at } }
    },

    async settle(hold: Hold | null, line: UsageLine) {
      if (hold) {
        const left = (held.get(hold.accountId) ?? 0) - hold.credits
        if (left > 0) held.set(hold.accountId, left)
        else held.delete(hold.accountId)
      }
      if (line.credits > (hold?.credits ?? 0)) throw new Error('a request cannot be charged more than it held')
      let mutations: Mutation[] = []
      if (line.credits > 0 && hold) {
        const state = current(hold.accountId, hold.at)
        const debits = state && debit(state, line.credits, hold.at, { requestId: line.requestId, endpoint: line.endpoint })
        if (!debits) return { ok: false, reason: 'insufficient' }
        mutations = debits
      }
      try {
        await enqueue(line.accountId, mutations, line)
      } catch (e) {
        if (mutations.length > 0) cache.delete(line.accountId)
        throw e
      }
      return { ok: true, charged: line.credits }
    },

    async addPack(accountId, pack) {
      const state = current(accountId, pack.purchasedAt)
      if (!state) throw new Error(`unknown account ${accountId}`)
      const { lot, mutations } = addPackRule(state, pack, opts.newLotId)
      await enqueue(accountId, mutations, undefined)
      return { ...lot }
    },

    async changeSubscription(accountId, patch, at) {
      const state = current(accountId, at)
      if (!state) throw new Error(`unknown account ${accountId}`)
      await enqueue(accountId, changeRule(state, patch, at, opts.newLotId), undefined)
      return state
    },

    async usage(accountId, fromDay, toDay) {
      flushNow()
      return selectUsage.all(accountId, fromDay, toDay) as UsageRow[]
    },

    async entries(accountId) {
      flushNow()
      return selectEntries.all(accountId) as LedgerEntry[]
    },

    async close() {
      flushNow()
      closed = true
    },
  }
}
