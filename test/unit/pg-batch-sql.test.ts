/**
 * The writes of the PostgreSQL ledger's batches (pg-ledger-batch-sql.ts): the usage rows of every
 * batch, billing or usage-only, are written in one order, whatever order the groups came in, so two
 * batches that update the same rows lock them in the same order; so are the answers kept under
 * Idempotency-Keys, in the order claims of keys lock them. Their bodies go as text where that is
 * exact, else in base64.
 */
import { describe, expect, it } from 'vitest'
import { batchSql } from '../../src/adapters/postgres/pg-ledger-batch-sql.ts'
import type { PgPool } from '../../src/adapters/postgres/database.ts'
import { answerBodies, keepAnswersSql, type AnswerBodies } from '../../src/adapters/postgres/pg-ledger-keys.ts'
import type { AnswerToKeep, UsageLine } from '../../src/ports/ledger.ts'

const T0 = Date.UTC(2027, 4, 3, 9)
const line = (accountId: string, endpoint: string, status: number, n: number): UsageLine => ({ accountId, at: T0, endpoint, status, credits: 0, requestId: `r${n}` })
const TEXT: AnswerBodies = { text: true, deciding: () => undefined }
const group = (l: UsageLine) => ({ accountId: l.accountId, mutations: [], lines: [l], billed: [{ line: l }] })

describe('batch writes', () => {
  it('write the usage rows in order of account, day, endpoint and status, whatever the order of the groups', () => {
    const lines = [
      line('acc_b', '/api/v1/profile', 429, 1),
      line('acc_a', '/api/v1/search/posts', 200, 2),
      line('acc_b', '/api/v1/company', 402, 3),
      line('acc_a', '/api/v1/profile', 429, 4),
      line('acc_a', '/api/v1/profile', 402, 5),
      line('acc_b', '/api/v1/profile', 429, 6),
    ]
    const usage = batchSql(lines.map(group), TEXT).find((s) => s.startsWith('SELECT pronet_add_usage('))
    expect(usage).toBe(
      'SELECT pronet_add_usage(' +
        `'{"acc_a","acc_a","acc_a","acc_b","acc_b"}'::text[]::text[], '{"2027-05-03","2027-05-03","2027-05-03","2027-05-03","2027-05-03"}'::text[]::text[], ` +
        `'{"/api/v1/profile","/api/v1/profile","/api/v1/search/posts","/api/v1/company","/api/v1/profile"}'::text[]::text[], ` +
        `'{402,429,200,402,429}'::int[]::int[], '{1,1,1,1,2}'::int[]::bigint[], '{0,0,0,0,0}'::int[]::bigint[], '{0,0,0,0,0}'::int[]::bigint[])`,
    )
  })

  it('keep the answers under their keys in order of account and key, whatever the order of the groups', () => {
    const keep = (accountId: string, key: string): AnswerToKeep => ({
      claim: { accountId, key, fingerprint: 'f', token: `t-${key}`, at: T0 },
      answer: { status: 200, headers: {}, body: Buffer.from('{}') },
    })
    const arrived = [
      ['acc_b', 'k1'],
      ['acc_a', 'k9'],
      ['acc_b', 'k0'],
      ['acc_a', 'k10'],
    ] as const
    const groups = arrived.map(([accountId, key], n) => {
      const l = line(accountId, '/api/v1/profile', 200, n)
      return { accountId, mutations: [], lines: [l], billed: [{ line: l, keep: keep(accountId, key) }] }
    })
    const statements = batchSql(groups, TEXT).filter((s) => s.startsWith('SELECT pronet_keep_answers('))
    expect(statements).toHaveLength(1)
    const [accounts, keys] = [...(statements[0] as string).matchAll(/'\{"([^}]*)"\}'::text\[\]/g)].map((m) => m[1]!.split('","'))
    const order = accounts!.map((a, i) => `${a}/${keys![i]}`)
    expect(order).toEqual(['acc_a/k10', 'acc_a/k9', 'acc_b/k0', 'acc_b/k1'])
  })

  it('write a body as its own text when it is valid UTF-8 without a NUL, and in base64 otherwise', () => {
    const json = Buffer.from(JSON.stringify({ name: "Zoë O'Neil", about: 'line\nbreak "quoted" \\ 🚀' }))
    const bodies = [json, Buffer.from([0x7b, 0x00, 0x7d]), Buffer.from([0xff, 0xfe, 0x41]), Buffer.alloc(0)]
    const kept = bodies.map((body, n) => ({
      accountId: 'acc_a',
      requestId: `r${n}`,
      keep: { claim: { accountId: 'acc_a', key: `k${n}`, fingerprint: 'f', token: `t${n}`, at: T0 }, answer: { status: 200, headers: {}, body } },
    }))
    const sql = keepAnswersSql(kept, TEXT)
    // The last two arrays: the bodies (JSON, with its double quotes, as one constant each) and their encodings.
    const ending = (statement: string, expected: string) => expect(statement.slice(-expected.length)).toBe(expected)
    ending(
      sql,
      `ARRAY[ E'${json.toString('utf8').replaceAll("'", "''").replaceAll('\\', '\\\\')}', 'ewB9', '//5B', '']::text[], ` +
        `'{"utf8","base64","base64","utf8"}'::text[]::text[])`,
    )
    // Until the database's encodings are known to be UTF-8, every body goes in base64.
    ending(
      keepAnswersSql(kept, { text: false, deciding: () => undefined }),
      `'{"${json.toString('base64')}","ewB9","//5B",""}'::text[]::text[], '{"base64","base64","base64","base64"}'::text[]::text[])`,
    )
  })

  it('ask the database for its encodings once; after a failure, base64 meanwhile and the next answer asks again', async () => {
    const answers: (() => { rows: { server: string; client: string }[] })[] = [
      () => {
        throw new Error('connect ECONNREFUSED')
      },
      () => ({ rows: [{ server: 'UTF8', client: 'UTF8' }] }),
    ]
    let asked = 0
    const pool = { query: async () => (answers[asked++] as () => { rows: { server: string; client: string }[] })() } as unknown as PgPool
    const bodies = answerBodies(pool)
    expect(asked).toBe(0)
    await bodies.deciding()
    expect([asked, bodies.text]).toEqual([1, false])
    await bodies.deciding()
    expect([asked, bodies.text]).toEqual([2, true])
    expect(bodies.deciding()).toBeUndefined()
    expect(asked).toBe(2)
  })
})
