/**
 * Keys' monthly spend as the embedded ledger's group commit writes it: every billed usage line made
 * with a key adds its credits to that key's row for the line's UTC month, in the batch's transaction;
 * free lines and lines without a key add nothing. A job crosses to the commit worker with its key.
 */
import { describe, expect, it } from 'vitest'
import { openSqlite } from '../../src/adapters/sqlite/database.ts'
import { createLedgerWrites, fromWire, toWire, type WriteJob } from '../../src/adapters/sqlite/ledger-writes.ts'

const AT = Date.UTC(2026, 10, 30, 23, 59, 59, 500)
const NEXT_MONTH = Date.UTC(2026, 11, 1, 0, 0, 0, 100)

function setup() {
  const db = openSqlite(':memory:')
  db.prepare(
    `INSERT INTO accounts (id, name, created_at, plan, status, credits_limit, rps_limit, anchor_at) VALUES ('acc', 'a', 0, 'custom', 'active', 100, 10, 0)`,
  ).run()
  db.prepare(
    `INSERT INTO credit_lots (id, account_id, kind, credits, remaining, starts_at, expires_at, price_cents, seq) VALUES ('lot', 'acc', 'pack', 100, 100, 0, ?, 0, 1)`,
  ).run(Date.UTC(2027, 10, 1))
  let n = 0
  const billed = (credits: number, at: number, keyId?: string): WriteJob => {
    const requestId = `r${++n}`
    const usage = { accountId: 'acc', at, endpoint: '/api/v1/profile', status: credits > 0 ? 200 : 402, credits, requestId, ...(keyId ? { keyId } : {}) }
    const mutations = credits > 0 ? [{ type: 'debit' as const, lotId: 'lot', amount: credits, at, requestId, endpoint: '/api/v1/profile' }] : []
    return { accountId: 'acc', mutations, usage }
  }
  const spend = () => db.prepare('SELECT key_id AS keyId, month, credits FROM key_spend ORDER BY key_id, month').all()
  return { writes: createLedgerWrites(db), billed, spend }
}

describe("keys' monthly spend in the group commit", () => {
  it('crosses to the commit worker with its key, on the short form and the long one', () => {
    const { billed } = setup()
    for (const job of [billed(2, AT, 'key_a'), billed(0, AT, 'key_a'), billed(1, AT)]) {
      expect(fromWire(structuredClone(toWire(job)))).toEqual(job)
    }
  })

  it("adds each billed line's credits to its key's row for the line's UTC month, and nothing for free or keyless lines", () => {
    const { writes, billed, spend } = setup()
    const crossed = (job: WriteJob) => fromWire(structuredClone(toWire(job)))
    expect(writes.write([billed(2, AT, 'key_a'), billed(3, AT, 'key_a'), billed(1, AT, 'key_b'), billed(0, AT, 'key_c'), billed(4, AT)].map(crossed)).error).toBeUndefined()
    expect(writes.write([billed(5, NEXT_MONTH, 'key_a'), billed(1, AT, 'key_b')]).error).toBeUndefined()
    expect(spend()).toEqual([
      { keyId: 'key_a', month: '2026-11', credits: 5 },
      { keyId: 'key_a', month: '2026-12', credits: 5 },
      { keyId: 'key_b', month: '2026-11', credits: 2 },
    ])
  })

  it('writes nothing of a batch that is refused: a spend row goes with its debit or not at all', () => {
    const { writes, billed, spend } = setup()
    // 101 credits: past the lot's 100, so the CHECK refuses the debit, and its job is replayed alone and fails.
    const result = writes.write([billed(101, AT, 'key_a'), billed(1, AT, 'key_b')])
    expect(result.outcomes?.map((o) => o.ok)).toEqual([false, true])
    expect(spend()).toEqual([{ keyId: 'key_b', month: '2026-11', credits: 1 }])
  })
})
