/**
 * The PostgreSQL ledger when the connection is lost around a settle's COMMIT, made deterministic by a
 * TCP proxy between the ledger's pool and the server (test/helpers/pg-setting.proxy.ts) that cuts every
 * connection right after (or instead of) forwarding the COMMIT, then refuses connections for a while:
 *  (a) a COMMIT that was applied but whose reply was lost resolves as settled once the database
 *      answers again: one debit, usage counted once;
 *  (b) a transaction that never reached COMMIT is applied once, on a fresh connection;
 *  (b') a network cut (nothing answers, nothing closes) while the COMMIT is on its way: the run is
 *      cut off client-side, the server ends the session left idle in its transaction (and its lock
 *      on the account), and the retry applies the settle once;
 *  (c) past the deadline the settle rejects; once the database answers, a settle that had committed
 *      is compensated (credits back on the same lot by an 'adjust' entry, usage moved to a free 503),
 *      one that had not is fenced and counted under 503, and the ledger stays append-only and
 *      balanced per lot.
 * Verification reads go straight to PostgreSQL, never through the setting.proxy.
 */
import type { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { isPgUnavailable } from '../../src/adapters/postgres/pg-errors.ts'
import type { Hold, Ledger, UsageLine } from '../../src/ports/ledger.ts'
import { postgresAvailable } from '../helpers/postgres.ts'
import { lostCommitSetting, settleCommit, T0 } from '../helpers/pg-lost-commit.ts'

const up = await postgresAvailable()
const DAY = '2027-03-10'

/** The single implicit transaction of a usage-only line or a free settle (no BEGIN, no COMMIT). */
/** The implicit transaction of usage-only lines: a batch of them (pronet_record_settled), or one written alone. */
const freeSettle = (sql: string) => !sql.startsWith('BEGIN') && (sql.includes('pronet_record_settled(') || sql.includes('INSERT INTO settled_requests'))

// Each case twice: settles decided from the node's view and sent in one round trip with their
// guard, and settles read under their lock first (the COMMIT in a second round trip).
describe.skipIf(!up).each([
  { views: 'decided from the node’s view', localViews: true },
  { views: 'read under the lock', localViews: false },
])('PostgreSQL ledger: a connection lost around COMMIT, settles $views', ({ localViews }) => {
  const setting = lostCommitSetting(`pronet_doubt_${localViews ? 'views' : 'locked'}`)
  const node: typeof setting.node = (options = {}, idle) => setting.node({ localViews, ...options }, idle)
  const { account } = setting
  let seq = 0

  const line = (accountId: string, credits: number, status = 200, endpoint = '/api/v1/profile'): UsageLine => ({
    accountId,
    at: T0,
    endpoint,
    status,
    credits,
    requestId: `lost-${++seq}`,
  })

  async function hold(ledger: Ledger, accountId: string, credits: number): Promise<Hold> {
    const held = await ledger.hold(accountId, credits, T0)
    if (!held.ok) throw new Error('refused')
    return held.hold
  }

  const entries = async (accountId: string) =>
    (
      await setting.direct.query<{ lot_id: string; kind: string; delta: number; request_id: string | null }>(
        'SELECT lot_id, kind, delta, request_id FROM ledger_entries WHERE account_id = $1 ORDER BY id',
        [accountId],
      )
    ).rows

  const usage = async (accountId: string) =>
    (
      await setting.direct.query<{ status: number; requests: number; billable: number; credits: number }>(
        'SELECT status, requests::int, billable::int, credits::int FROM usage_daily WHERE account_id = $1 AND day = $2 ORDER BY endpoint, status',
        [accountId, DAY],
      )
    ).rows

  const settledRow = async (requestId: string) =>
    (await setting.direct.query<{ credits: number; state: string }>('SELECT credits, state FROM settled_requests WHERE request_id = $1', [requestId])).rows[0]

  /** Hold rows that reserve credits (a hold of 0 credits reserves nothing). */
  const holdsLeft = async (accountId: string) =>
    (await setting.direct.query<{ n: number }>('SELECT COALESCE(SUM(credits), 0)::int AS n FROM node_holds WHERE account_id = $1', [accountId])).rows[0]?.n

  /** Per lot, SUM(delta) = remaining and remaining within [0, credits]; returns the lots' remaining. */
  async function balanced(accountId: string): Promise<number[]> {
    const r = await setting.direct.query<{ id: string; credits: number; remaining: number; sum: string | null }>(
      `SELECT l.id, l.credits, l.remaining, (SELECT sum(e.delta) FROM ledger_entries e WHERE e.lot_id = l.id) AS sum
       FROM credit_lots l WHERE l.account_id = $1 ORDER BY l.seq`,
      [accountId],
    )
    for (const lot of r.rows) {
      expect(Number(lot.sum), `lot ${lot.id}`).toBe(lot.remaining)
      expect(lot.remaining).toBeGreaterThanOrEqual(0)
      expect(lot.remaining).toBeLessThanOrEqual(lot.credits)
    }
    return r.rows.map((l) => l.remaining)
  }

  async function until(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
    const end = Date.now() + ms
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  async function metricValue(registry: Registry, name: string): Promise<number> {
    const m = await registry.getSingleMetric(name)?.get()
    return m?.values.reduce((s, v) => s + v.value, 0) ?? Number.NaN
  }

  it('(a) a COMMIT applied whose reply was lost resolves as settled once the database answers: one debit, usage once', async () => {
    const n = node()
    try {
      const id = await account(10)
      const h = await hold(n.ledger, id, 3)
      const l = line(id, 3)
      const fired = setting.proxy.arm({ match: settleCommit, effect: 'apply', outageMs: 400 })
      const before = setting.proxy.connections
      let answered = false
      const settled = n.ledger.settle(h, l).finally(() => (answered = true))
      await fired
      // The lost transaction did commit, while its caller is still waiting for an answer.
      await until('the lost COMMIT to be on disk', async () => (await settledRow(l.requestId)) !== undefined, 300)
      expect(answered).toBe(false)
      expect(await settled).toEqual({ ok: true, charged: 3 })
      // The answer came over a connection opened after the outage.
      expect(setting.proxy.connections).toBeGreaterThan(before)
      const debits = (await entries(id)).filter((e) => e.kind === 'debit')
      expect(debits).toEqual([expect.objectContaining({ delta: -3, request_id: l.requestId })])
      expect(await balanced(id)).toEqual([7])
      expect(await usage(id)).toEqual([{ status: 200, requests: 1, billable: 1, credits: 3 }])
      expect(await settledRow(l.requestId)).toEqual({ credits: 3, state: 'settled' })
      // Settled by the retry, outside a batch: the node's row of holds follows in the next one.
      await until('the hold to be released', async () => (await holdsLeft(id)) === 0)
      expect(n.logs).toEqual([])
    } finally {
      await n.close()
    }
  })

  it('(a) a combined group whose COMMIT was lost: its settles resolve as recorded, its hold fails and its credits stop being held', async () => {
    const n = node()
    try {
      const id = await account(10)
      const holds = [await hold(n.ledger, id, 1), await hold(n.ledger, id, 2), await hold(n.ledger, id, 1)]
      const lines = [line(id, 1), line(id, 2, 200, '/api/v1/company'), line(id, 0, 500)]
      const fired = setting.proxy.arm({ match: settleCommit, effect: 'apply', outageMs: 400 })
      // Sent in one turn of the event loop, the three travel together in one transaction.
      const [a, b, late] = await Promise.allSettled([
        n.ledger.settle(holds[0] as Hold, lines[0] as UsageLine),
        n.ledger.settle(holds[1] as Hold, lines[1] as UsageLine),
        n.ledger.hold(id, 1, T0),
      ])
      await fired
      expect(a).toEqual({ status: 'fulfilled', value: { ok: true, charged: 1 } })
      expect(b).toEqual({ status: 'fulfilled', value: { ok: true, charged: 2 } })
      // The hold in the lost transaction is answered with the connection error (the gateway: 503).
      expect(late.status).toBe('rejected')
      expect(isPgUnavailable((late as PromiseRejectedResult).reason)).toBe(true)
      // A free settle of the third hold, after the outage.
      expect(await n.ledger.settle(holds[2] as Hold, lines[2] as UsageLine)).toEqual({ ok: true, charged: 0 })
      const debits = (await entries(id)).filter((e) => e.kind === 'debit')
      expect(debits.map((d) => [d.request_id, d.delta])).toEqual([
        [lines[0]?.requestId, -1],
        [lines[1]?.requestId, -2],
      ])
      expect(await balanced(id)).toEqual([7])
      expect(await usage(id)).toEqual([
        { status: 200, requests: 1, billable: 1, credits: 2 },
        { status: 200, requests: 1, billable: 1, credits: 1 },
        { status: 500, requests: 1, billable: 0, credits: 0 },
      ])
      // The lost transaction did count the late hold in the node's row: nobody can settle it, and the
      // row is written again from memory.
      await until('the orphan hold to be released', async () => (await holdsLeft(id)) === 0)
      expect((await n.ledger.hold(id, 7, T0)).ok).toBe(true)
    } finally {
      await n.close()
    }
  })

  it('(a) a usage-only line whose implicit transaction committed unanswered is counted once', async () => {
    const n = node()
    try {
      const id = await account(10)
      const l = line(id, 0, 402)
      const fired = setting.proxy.arm({ match: freeSettle, effect: 'apply', outageMs: 300 })
      expect(await n.ledger.settle(null, l)).toEqual({ ok: true, charged: 0 })
      await fired
      expect(await usage(id)).toEqual([{ status: 402, requests: 1, billable: 0, credits: 0 }])
      expect(await settledRow(l.requestId)).toEqual({ credits: 0, state: 'settled' })
    } finally {
      await n.close()
    }
  })

  it('(a) usage-only lines of two accounts, batched, whose transaction committed unanswered are each counted once', async () => {
    const n = node()
    try {
      const [a, b] = [await account(10), await account(10)]
      const lines = [line(a, 0, 429), line(a, 0, 429), line(b, 0, 402), line(b, 0, 404)]
      const fired = setting.proxy.arm({ match: (sql) => freeSettle(sql) && lines.every((l) => sql.includes(l.requestId)), effect: 'apply', outageMs: 300 })
      // Settled in one turn: one batch, one transaction, for all four.
      const settled = Promise.all(lines.map((l) => n.ledger.settle(null, l)))
      await fired
      expect(await settled).toEqual(lines.map(() => ({ ok: true, charged: 0 })))
      expect(await usage(a)).toEqual([{ status: 429, requests: 2, billable: 0, credits: 0 }])
      expect(await usage(b)).toEqual([
        { status: 402, requests: 1, billable: 0, credits: 0 },
        { status: 404, requests: 1, billable: 0, credits: 0 },
      ])
      for (const l of lines) expect(await settledRow(l.requestId)).toEqual({ credits: 0, state: 'settled' })
    } finally {
      await n.close()
    }
  })

  it('(b) a settle whose transaction never reached COMMIT is applied once on a fresh connection', async () => {
    const n = node()
    try {
      const id = await account(10)
      const h = await hold(n.ledger, id, 4)
      const l = line(id, 4)
      const fired = setting.proxy.arm({ match: settleCommit, effect: 'drop', outageMs: 300 })
      const settled = n.ledger.settle(h, l)
      await fired
      // Nothing of it reached the server: its transaction was rolled back there.
      expect(await settledRow(l.requestId)).toBeUndefined()
      expect(await settled).toEqual({ ok: true, charged: 4 })
      expect((await entries(id)).filter((e) => e.kind === 'debit')).toEqual([expect.objectContaining({ delta: -4, request_id: l.requestId })])
      expect(await balanced(id)).toEqual([6])
      expect(await usage(id)).toEqual([{ status: 200, requests: 1, billable: 1, credits: 4 }])
      // Settled on a fresh connection, outside a batch: the node's row of holds follows in the next one.
      await until('the hold to be released', async () => (await holdsLeft(id)) === 0)
    } finally {
      await n.close()
    }
  })

  it('(b) a free settle whose query never arrived releases its hold and counts its line once', async () => {
    const n = node()
    try {
      const id = await account(10)
      const h = await hold(n.ledger, id, 10)
      const l = line(id, 0, 500)
      const fired = setting.proxy.arm({ match: freeSettle, effect: 'drop', outageMs: 300 })
      expect(await n.ledger.settle(h, l)).toEqual({ ok: true, charged: 0 })
      await fired
      expect(await usage(id)).toEqual([{ status: 500, requests: 1, billable: 0, credits: 0 }])
      // A free settle releases its hold in memory at once; the node's row of holds follows in the next batch.
      await until('the hold to be released', async () => (await holdsLeft(id)) === 0)
      expect(await entries(id)).toEqual([expect.objectContaining({ kind: 'grant', delta: 10 })])
    } finally {
      await n.close()
    }
  })

  it("(b') a network cut while the COMMIT is on its way: cut off client-side, the server ends the idle transaction, applied once", async () => {
    // A settle read under its lock: its COMMIT goes in a second round trip, after the lock was taken.
    const n = node({ runTimeoutMs: 400, settleDeadlineMs: 8_000, localViews: false }, 1_000)
    try {
      const id = await account(10)
      const h = await hold(n.ledger, id, 2)
      const l = line(id, 2)
      const fired = setting.proxy.arm({ match: settleCommit, effect: 'hang', outageMs: 600 })
      const started = Date.now()
      const settled = n.ledger.settle(h, l)
      await fired
      // The session that took the account's lock is still there, idle in its transaction.
      const idleInTransaction = async () =>
        (
          await setting.direct.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'`,
          )
        ).rows[0]?.n
      expect(await idleInTransaction()).toBe(1)
      expect(await settled).toEqual({ ok: true, charged: 2 })
      // Not before the server ended that session (idle_in_transaction_session_timeout: 1 s). A
      // transaction begun since (the node writing its row of holds again) may be between its round trips.
      expect(Date.now() - started).toBeGreaterThanOrEqual(900)
      const lingering = await setting.direct.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'
           AND xact_start < now() - interval '800 milliseconds'`,
      )
      expect(lingering.rows[0]?.n).toBe(0)
      expect((await entries(id)).filter((e) => e.kind === 'debit')).toEqual([expect.objectContaining({ delta: -2, request_id: l.requestId })])
      expect(await balanced(id)).toEqual([8])
      expect(await usage(id)).toEqual([{ status: 200, requests: 1, billable: 1, credits: 2 }])
      expect(n.logs).toEqual([])
    } finally {
      setting.proxy.heal()
      await n.close()
    }
  })

  it('(c) past the deadline the settle rejects; once reachable a committed one is compensated and one that was not is fenced', async () => {
    const n = node({ settleDeadlineMs: 600 })
    try {
      const id = await account(10)
      const h1 = await hold(n.ledger, id, 3)
      const h2 = await hold(n.ledger, id, 2)
      // Made with a key: its spend this month goes up with the debit and back down with the compensation.
      const keyId = `key_${id}`
      const committed = { ...line(id, 3), keyId }
      const rolledBack = { ...line(id, 2), keyId }
      const keySpend = async () =>
        (await setting.direct.query<{ n: number }>('SELECT COALESCE(SUM(credits), 0)::int AS n FROM key_spend WHERE key_id = $1', [keyId])).rows[0]?.n
      const fired = setting.proxy.arm({ match: settleCommit, effect: 'apply', outageMs: 2_500 })
      const first = n.ledger.settle(h1, committed)
      await fired
      // During the outage: this one never gets a connection, so it certainly did not commit.
      const second = n.ledger.settle(h2, rolledBack)
      const [r1, r2] = await Promise.allSettled([first, second])
      for (const r of [r1, r2]) {
        expect(r.status).toBe('rejected')
        expect(isPgUnavailable((r as PromiseRejectedResult).reason)).toBe(true)
      }
      // Rejected, yet the first is on disk (the database is reached directly, around the proxy).
      expect((await entries(id)).filter((e) => e.kind === 'debit')).toHaveLength(1)
      expect(await settledRow(committed.requestId)).toEqual({ credits: 3, state: 'settled' })
      expect(await keySpend()).toBe(3)
      expect(await metricValue(n.registry, 'pronet_ledger_in_doubt_requests')).toBe(2)

      await until('the compensation', async () => (await settledRow(committed.requestId))?.state === 'compensated')
      const all = await entries(id)
      const lot = all[0]?.lot_id
      expect(all).toEqual([
        { lot_id: lot, kind: 'grant', delta: 10, request_id: null },
        { lot_id: lot, kind: 'debit', delta: -3, request_id: committed.requestId },
        { lot_id: lot, kind: 'adjust', delta: 3, request_id: committed.requestId },
      ])
      expect(await balanced(id)).toEqual([10])
      expect(await keySpend()).toBe(0)
      expect(await settledRow(rolledBack.requestId)).toEqual({ credits: 0, state: 'void' })
      // Both requests as the gateway answered them: 503, free; nothing left under 200.
      expect(await usage(id)).toEqual([{ status: 503, requests: 2, billable: 0, credits: 0 }])
      await until('the holds to be released', async () => (await holdsLeft(id)) === 0)
      expect((await n.ledger.hold(id, 10, T0)).ok).toBe(true)

      expect(await metricValue(n.registry, 'pronet_ledger_in_doubt_compensated_total')).toBe(1)
      await until('the gauge to drop', async () => (await metricValue(n.registry, 'pronet_ledger_in_doubt_requests')) === 0)
      const errors = n.logs.filter((x) => x.level === 'error')
      expect(errors).toEqual([expect.objectContaining({ obj: expect.objectContaining({ accountId: id, requestIds: [committed.requestId] }) })])
      // One warning per request in doubt; the background check meets them in whichever order their settles were refused.
      expect(n.logs.filter((x) => x.level === 'warn').map((x) => x.obj.requestId as string).sort()).toEqual([committed.requestId, rolledBack.requestId].sort())
      // Append-only still holds for the compensation's rows.
      await expect(setting.direct.query(`UPDATE ledger_entries SET delta = 0 WHERE account_id = $1`, [id])).rejects.toThrow(/append-only/)
      // A second compensation of the same request on the same lot is refused by the database.
      await expect(
        setting.direct.query(`INSERT INTO ledger_entries (account_id, lot_id, at, kind, delta, request_id) VALUES ($1, $2, $3, 'adjust', 3, $4)`, [
          id,
          lot,
          T0,
          committed.requestId,
        ]),
      ).rejects.toThrow(/ledger_request_once/)
    } finally {
      await n.close()
    }
  })

  it('(c) a usage-only line in doubt that had committed is moved to a free 503', async () => {
    const n = node({ settleDeadlineMs: 300 })
    try {
      const id = await account(10)
      const l = line(id, 0, 402)
      const fired = setting.proxy.arm({ match: freeSettle, effect: 'apply', outageMs: 1_500 })
      const settled = n.ledger.settle(null, l)
      await fired
      await expect(settled).rejects.toSatisfy(isPgUnavailable)
      expect(await usage(id)).toEqual([{ status: 402, requests: 1, billable: 0, credits: 0 }])
      await until('the compensation', async () => (await settledRow(l.requestId))?.state === 'compensated')
      expect(await usage(id)).toEqual([{ status: 503, requests: 1, billable: 0, credits: 0 }])
    } finally {
      await n.close()
    }
  })

  it('closing while the database is still unreachable logs the requests left in doubt', async () => {
    const n = node({ settleDeadlineMs: 300 })
    let closed = false
    try {
      const id = await account(10)
      const h = await hold(n.ledger, id, 1)
      const l = line(id, 1)
      const fired = setting.proxy.arm({ match: settleCommit, effect: 'apply', outageMs: 60_000 })
      const settled = n.ledger.settle(h, l)
      await fired
      await expect(settled).rejects.toSatisfy(isPgUnavailable)
      await n.close()
      closed = true
      expect(n.logs.filter((x) => x.level === 'error')).toEqual([
        expect.objectContaining({ obj: expect.objectContaining({ requestIds: [l.requestId] }), msg: expect.stringMatching(/closed with settles still in doubt/) }),
      ])
      // Not compensated: the residual risk, left to the operator.
      expect(await settledRow(l.requestId)).toEqual({ credits: 1, state: 'settled' })
    } finally {
      setting.proxy.heal()
      if (!closed) await n.close()
    }
  })

  it('settled_requests rows older than the retention are pruned', async () => {
    const n = node({ settledRetentionMs: 1, pruneEveryMs: 100 })
    try {
      const id = await account(10)
      const l = line(id, 0, 404)
      await n.ledger.settle(null, l)
      await until('the row to be pruned', async () => (await settledRow(l.requestId)) === undefined, 5_000)
      expect(await usage(id)).toEqual([{ status: 404, requests: 1, billable: 0, credits: 0 }])
    } finally {
      await n.close()
    }
  })
})
