import { describe, expect, it } from 'vitest'
import { openSqlite } from '../../src/adapters/sqlite/database.ts'
import { createLedgerWrites, fromWire, toWire, type AnswerRow, type WriteJob } from '../../src/adapters/sqlite/ledger-writes.ts'
import { KEY_RETENTION_MS } from '../../src/ports/ledger.ts'

const AT = Date.UTC(2026, 10, 2, 12)

function setup() {
  const db = openSqlite(':memory:')
  db.prepare(
    `INSERT INTO accounts (id, name, created_at, plan, status, credits_limit, rps_limit, anchor_at) VALUES ('acc', 'a', 0, 'custom', 'active', 100, 10, 0)`,
  ).run()
  const answer = (key: string, createdAt: number, requestId: string): AnswerRow => ({
    key,
    fingerprint: `fp-${key}`,
    createdAt,
    requestId,
    status: 200,
    headers: JSON.stringify({ 'content-type': 'application/json; charset=utf-8' }),
    body: new Uint8Array([0, 1, 2, 255]),
  })
  const job = (a: AnswerRow): WriteJob => ({
    accountId: 'acc',
    mutations: [],
    usage: { accountId: 'acc', at: a.createdAt, endpoint: '/api/v1/profile', status: 200, credits: 0, requestId: a.requestId },
    answer: a,
  })
  const kept = () => db.prepare('SELECT idem_key AS key, request_id AS requestId, body FROM idempotency_keys ORDER BY idem_key').all()
  return { writes: createLedgerWrites(db), answer, job, kept }
}

describe('answers kept by the group commit', () => {
  it('cross to the commit worker whole, a Uint8Array body included, and are written as bytes', () => {
    const { writes, answer, job, kept } = setup()
    const sent = job(answer('k1', AT, 'r1'))
    // A structured clone turns a Buffer into a plain Uint8Array: the writer takes either.
    const crossed = structuredClone(fromWire(structuredClone(toWire(sent))))
    expect(crossed).toEqual(sent)
    writes.write([crossed])
    expect(kept()).toEqual([{ key: 'k1', requestId: 'r1', body: Buffer.from([0, 1, 2, 255]) }])
  })

  it('a key answered again replaces its row; rows a day older than a new answer are deleted as it is written', () => {
    const { writes, answer, job, kept } = setup()
    writes.write([job(answer('old', AT, 'r1')), job(answer('kept', AT + 1000, 'r2'))])
    writes.write([job(answer('kept', AT + 2000, 'r3'))])
    expect(kept().map((r) => (r as { requestId: string }).requestId)).toEqual(['r3', 'r1'])
    writes.write([job(answer('new', AT + KEY_RETENTION_MS + 1, 'r4'))])
    expect(kept().map((r) => (r as { key: string }).key)).toEqual(['kept', 'new'])
  })
})
