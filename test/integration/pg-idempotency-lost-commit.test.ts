/**
 * Answers kept under an Idempotency-Key when PostgreSQL loses a settle's COMMIT (the TCP proxy of
 * test/helpers/pg-setting.proxy.ts cuts the connection right after, or instead of, forwarding it). The
 * answer is written in the settle's transaction, so it follows the debit through every recovery:
 *  (a) a COMMIT applied whose reply was lost: the settle resolves as settled, and the answer is kept once;
 *  (b) a transaction that never reached COMMIT is applied once on a fresh connection, answer included;
 *  (c) past the deadline the settle rejects (its caller is answered 503); the background check finds
 *      it committed and gives the debit back, deleting the answer in the same transaction, so the key
 *      runs afresh;
 *  (c') unless the answer had meanwhile been repeated to a retry with the key: the client has what it
 *      was billed for, and the settle stands as it committed.
 * And answers older than the retention are pruned, as settled_requests rows are.
 * Verification reads go straight to PostgreSQL, never through the setting.proxy.
 */
import { describe, expect, it } from 'vitest'
import { openPostgres } from '../../src/adapters/postgres/database.ts'
import { isPgUnavailable } from '../../src/adapters/postgres/pg-errors.ts'
import { createPgLedger } from '../../src/adapters/postgres/pg-ledger.ts'
import type { AnswerToKeep, Hold, KeptAnswer, KeyClaim, Ledger, UsageLine } from '../../src/ports/ledger.ts'
import { postgresAvailable } from '../helpers/postgres.ts'
import { lostCommitSetting, newLotId, settleCommit, T0 } from '../helpers/pg-lost-commit.ts'

const up = await postgresAvailable()

const ANSWER: KeptAnswer = { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: Buffer.from('{"id":"kept"}') }

describe.skipIf(!up)('PostgreSQL ledger: answers kept under a key when a COMMIT is lost', () => {
  const setting = lostCommitSetting('pronet_keys_doubt')
  const { node, account } = setting
  let seq = 0

  const line = (accountId: string, credits: number): UsageLine => ({
    accountId,
    at: T0,
    endpoint: '/api/v1/profile',
    status: 200,
    credits,
    requestId: `keyed-${++seq}`,
  })

  /** The key's claim, and the hold of its call. */
  async function start(ledger: Ledger, accountId: string, credits: number): Promise<{ claim: KeyClaim; hold: Hold; keep: AnswerToKeep }> {
    const found = await ledger.claimKey({ accountId, key: `k-${++seq}`, fingerprint: 'fp', at: T0 })
    if (found.state !== 'claimed') throw new Error(`not claimed: ${found.state}`)
    const held = await ledger.hold(accountId, credits, T0)
    if (!held.ok) throw new Error('refused')
    return { claim: found.claim, hold: held.hold, keep: { claim: found.claim, answer: ANSWER } }
  }

  const keptRows = async (accountId: string) =>
    (
      await setting.direct.query<{ idem_key: string; state: string; request_id: string | null; status: number | null; body: Buffer | null; replayed: boolean }>(
        'SELECT idem_key, state, request_id, status, body, replayed FROM idempotency_keys WHERE account_id = $1 ORDER BY idem_key',
        [accountId],
      )
    ).rows

  const debits = async (accountId: string) =>
    (
      await setting.direct.query<{ request_id: string; kind: string; delta: number }>(
        `SELECT request_id, kind, delta FROM ledger_entries WHERE account_id = $1 AND kind <> 'grant' ORDER BY id`,
        [accountId],
      )
    ).rows

  const usage = async (accountId: string) =>
    (
      await setting.direct.query<{ status: number; requests: number; billable: number; credits: number }>(
        'SELECT status, requests::int, billable::int, credits::int FROM usage_daily WHERE account_id = $1 ORDER BY status',
        [accountId],
      )
    ).rows

  const settledState = async (requestId: string) =>
    (await setting.direct.query<{ state: string }>('SELECT state FROM settled_requests WHERE request_id = $1', [requestId])).rows[0]?.state

  async function until(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
    const end = Date.now() + ms
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  it('(a) a COMMIT applied whose reply was lost: settled once, its answer kept once', async () => {
    const n = node()
    try {
      const id = await account(10)
      const { claim, hold, keep } = await start(n.ledger, id, 3)
      const l = line(id, 3)
      const fired = setting.proxy.arm({ match: settleCommit, effect: 'apply', outageMs: 400 })
      const settled = n.ledger.settle(hold, l, keep)
      await fired
      expect(await settled).toEqual({ ok: true, charged: 3 })
      expect(await keptRows(id)).toEqual([{ idem_key: claim.key, state: 'done', request_id: l.requestId, status: 200, body: ANSWER.body, replayed: false }])
      expect(await n.ledger.claimKey({ accountId: id, key: claim.key, fingerprint: 'fp', at: T0 + 1 })).toEqual({ state: 'answered', answer: ANSWER })
      expect(await debits(id)).toEqual([{ request_id: l.requestId, kind: 'debit', delta: -3 }])
    } finally {
      await n.close()
    }
  })

  it('(b) a transaction that never reached COMMIT is applied once on a fresh connection, its answer with it', async () => {
    const n = node()
    try {
      const id = await account(10)
      const { claim, hold, keep } = await start(n.ledger, id, 4)
      const l = line(id, 4)
      const fired = setting.proxy.arm({ match: settleCommit, effect: 'drop', outageMs: 300 })
      const settled = n.ledger.settle(hold, l, keep)
      await fired
      // Nothing of it reached the server: the key is still only claimed.
      expect((await keptRows(id)).map((r) => r.state)).toEqual(['running'])
      expect(await settled).toEqual({ ok: true, charged: 4 })
      expect(await keptRows(id)).toEqual([{ idem_key: claim.key, state: 'done', request_id: l.requestId, status: 200, body: ANSWER.body, replayed: false }])
      expect(await debits(id)).toEqual([{ request_id: l.requestId, kind: 'debit', delta: -4 }])
    } finally {
      await n.close()
    }
  })

  it('(c) rejected past the deadline, then found committed: the debit is given back and the answer deleted with it', async () => {
    const n = node({ settleDeadlineMs: 600 })
    try {
      const id = await account(10)
      const { claim, hold, keep } = await start(n.ledger, id, 3)
      const l = line(id, 3)
      const fired = setting.proxy.arm({ match: settleCommit, effect: 'apply', outageMs: 2_500 })
      const settled = n.ledger.settle(hold, l, keep)
      await fired
      await expect(settled).rejects.toSatisfy(isPgUnavailable)
      // Committed, answer and all, although the caller was answered 503.
      expect((await keptRows(id)).map((r) => [r.state, r.request_id])).toEqual([['done', l.requestId]])
      await until('the compensation', async () => (await settledState(l.requestId)) === 'compensated')
      expect(await keptRows(id)).toEqual([])
      expect(await debits(id)).toEqual([
        { request_id: l.requestId, kind: 'debit', delta: -3 },
        { request_id: l.requestId, kind: 'adjust', delta: 3 },
      ])
      expect(await usage(id)).toEqual([{ status: 503, requests: 1, billable: 0, credits: 0 }])
      // The retry with the key runs afresh.
      const retry = await n.ledger.claimKey({ accountId: id, key: claim.key, fingerprint: 'fp', at: T0 + 1 })
      expect(retry.state).toBe('claimed')
    } finally {
      await n.close()
    }
  })

  it("(c') found committed after its answer was repeated to a retry: the settle stands as it committed", async () => {
    // The background check runs only at close here, after the retry has been answered.
    const n = node({ settleDeadlineMs: 600, inDoubtCheckMs: 600_000 })
    const other = openPostgres(setting.url, { max: 2 })
    const elsewhere = createPgLedger(other, { newLotId })
    try {
      const id = await account(10)
      const { claim, hold, keep } = await start(n.ledger, id, 3)
      const l = line(id, 3)
      const fired = setting.proxy.arm({ match: settleCommit, effect: 'apply', outageMs: 2_500 })
      const settled = n.ledger.settle(hold, l, keep)
      await fired
      await expect(settled).rejects.toSatisfy(isPgUnavailable)
      // The client, answered 503, retries with its key on another node: the answer it was billed for.
      expect(await elsewhere.claimKey({ accountId: id, key: claim.key, fingerprint: 'fp', at: T0 + 1 })).toEqual({ state: 'answered', answer: ANSWER })
      setting.proxy.heal()
      await n.close()
      expect(await settledState(l.requestId)).toBe('settled')
      expect(await debits(id)).toEqual([{ request_id: l.requestId, kind: 'debit', delta: -3 }])
      expect(await usage(id)).toEqual([{ status: 200, requests: 1, billable: 1, credits: 3 }])
      expect(await keptRows(id)).toEqual([{ idem_key: claim.key, state: 'done', request_id: l.requestId, status: 200, body: ANSWER.body, replayed: true }])
      expect(n.logs.filter((x) => x.level === 'error')).toEqual([])
      expect(n.logs.filter((x) => /repeated to their clients/.test(x.msg))).toEqual([
        expect.objectContaining({ obj: expect.objectContaining({ accountId: id, requestIds: [l.requestId] }) }),
      ])
    } finally {
      setting.proxy.heal()
      await n.close()
      await elsewhere.close()
      await other.end()
    }
  })

  it('answers older than the retention are pruned with settled_requests', async () => {
    const n = node({ settledRetentionMs: 1, pruneEveryMs: 100 })
    try {
      const id = await account(10)
      const { hold, keep } = await start(n.ledger, id, 1)
      expect(await n.ledger.settle(hold, line(id, 1), keep)).toEqual({ ok: true, charged: 1 })
      await until('the answer to be pruned', async () => (await keptRows(id)).length === 0, 5_000)
      expect((await debits(id)).map((d) => d.delta)).toEqual([-1])
    } finally {
      await n.close()
    }
  })
})
