import { describe, expect, it } from 'vitest'
import type { Mutation } from '../../src/domain/billing/billing-rules.ts'
import { openSqlite } from '../../src/adapters/sqlite/database.ts'
import { createLedgerWrites, type WriteJob } from '../../src/adapters/sqlite/ledger-writes.ts'

const AT = Date.UTC(2026, 10, 2, 12)

function setup() {
  const db = openSqlite(':memory:')
  db.prepare(
    `INSERT INTO accounts (id, name, created_at, plan, status, credits_limit, rps_limit, anchor_at) VALUES ('acc', 'a', 0, 'custom', 'active', 100, 10, 0)`,
  ).run()
  const lot = (id: string, credits: number): Mutation => ({
    type: 'grant',
    lot: { id, kind: 'pack', credits, remaining: credits, startsAt: 0, expiresAt: AT * 2, priceCents: 100, seq: 1 },
    at: AT,
  })
  const debit = (lotId: string, requestId: string, amount = 1): WriteJob => ({
    accountId: 'acc',
    mutations: [{ type: 'debit', lotId, amount, at: AT, requestId, endpoint: 'profile' }],
    usage: { accountId: 'acc', at: AT, endpoint: 'profile', status: 200, credits: amount, requestId },
  })
  const entries = () =>
    db.prepare('SELECT lot_id AS lotId, kind, delta, request_id AS requestId FROM ledger_entries ORDER BY id').all() as {
      lotId: string
      kind: string
      delta: number
      requestId: string | null
    }[]
  return { db, writes: createLedgerWrites(db), lot, debit, entries }
}

describe('ledger writes (one batch, one transaction)', () => {
  it('keeps the batch order in the ledger when debits (inserted several to a statement) surround other changes', () => {
    const { db, writes, lot, debit, entries } = setup()
    const debits = (lotId: string, from: number, n: number) => Array.from({ length: n }, (_, i) => debit(lotId, `r${from + i}`))
    const jobs: WriteJob[] = [
      { accountId: 'acc', mutations: [lot('A', 1000)], usage: undefined },
      ...debits('A', 0, 37), // more than one statement's worth
      { accountId: 'acc', mutations: [lot('B', 50)], usage: undefined },
      ...debits('B', 37, 3),
      ...debits('A', 40, 1),
    ]
    expect(writes.write(jobs)).toMatchObject({ epoch: expect.any(Number), foreign: false })
    const rows = entries()
    expect(rows.map((r) => `${r.kind}:${r.lotId}:${r.requestId ?? ''}`)).toEqual([
      'grant:A:',
      ...Array.from({ length: 37 }, (_, i) => `debit:A:r${i}`),
      'grant:B:',
      ...[37, 38, 39].map((i) => `debit:B:r${i}`),
      'debit:A:r40',
    ])
    expect(rows.filter((r) => r.kind === 'debit').every((r) => r.delta === -1)).toBe(true)
    const remaining = db.prepare('SELECT id, remaining FROM credit_lots ORDER BY id').all()
    expect(remaining).toEqual([
      { id: 'A', remaining: 1000 - 38 },
      { id: 'B', remaining: 50 - 3 },
    ])
    const usage = db.prepare('SELECT requests, billable, credits FROM usage_daily').get()
    expect(usage).toEqual({ requests: 41, billable: 41, credits: 41 })
  })

  it('usage lines of one batch on either side of UTC midnight go to their own days', () => {
    const { db, writes, lot } = setup()
    const midnight = Date.UTC(2026, 10, 3)
    const line = (at: number, requestId: string): WriteJob => ({
      accountId: 'acc',
      mutations: [{ type: 'debit', lotId: 'A', amount: 1, at, requestId, endpoint: 'profile' }],
      usage: { accountId: 'acc', at, endpoint: 'profile', status: 200, credits: 1, requestId },
    })
    writes.write([
      { accountId: 'acc', mutations: [lot('A', 10)], usage: undefined },
      line(midnight - 1, 'a'),
      line(midnight, 'b'),
      line(midnight + 1, 'c'),
      line(midnight - 2, 'd'),
    ])
    expect(db.prepare('SELECT day, requests FROM usage_daily ORDER BY day').all()).toEqual([
      { day: '2026-11-02', requests: 2 },
      { day: '2026-11-03', requests: 2 },
    ])
  })

  it('a batch that cannot be written whole is replayed job by job: only the job that does not fit fails', () => {
    const { db, writes, lot, debit, entries } = setup()
    writes.write([{ accountId: 'acc', mutations: [lot('A', 20)], usage: undefined }])
    const jobs = [...Array.from({ length: 18 }, (_, i) => debit('A', `ok${i}`)), debit('A', 'toomuch', 5), debit('A', 'last')]
    const result = writes.write(jobs)
    expect(result.outcomes?.map((o) => o.ok)).toEqual([...Array(18).fill(true), false, true])
    expect(entries().filter((r) => r.kind === 'debit').map((r) => r.requestId)).toEqual([...Array.from({ length: 18 }, (_, i) => `ok${i}`), 'last'])
    expect(db.prepare(`SELECT remaining FROM credit_lots WHERE id = 'A'`).pluck().get()).toBe(1)
    // A request id is debited once per lot: the same batch again fails job by job and writes nothing more.
    expect(writes.write([debit('A', 'last')]).outcomes?.map((o) => o.ok)).toEqual([false])
    expect(entries()).toHaveLength(1 + 19)
  })
})
