/**
 * The writes of the PostgreSQL ledger's batches (pg-ledger-batch-sql.ts): the usage rows of every
 * batch, billing or usage-only, are written in one order, whatever order the groups came in, so two
 * batches that update the same rows lock them in the same order.
 */
import { describe, expect, it } from 'vitest'
import { batchSql } from '../../src/adapters/postgres/pg-ledger-batch-sql.ts'
import type { UsageLine } from '../../src/ports/ledger.ts'

const T0 = Date.UTC(2027, 4, 3, 9)
const line = (accountId: string, endpoint: string, status: number, n: number): UsageLine => ({ accountId, at: T0, endpoint, status, credits: 0, requestId: `r${n}` })
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
    const usage = batchSql(lines.map(group)).find((s) => s.startsWith('SELECT pronet_add_usage('))
    expect(usage).toBe(
      'SELECT pronet_add_usage(' +
        "ARRAY['acc_a', 'acc_a', 'acc_a', 'acc_b', 'acc_b']::text[], ARRAY['2027-05-03', '2027-05-03', '2027-05-03', '2027-05-03', '2027-05-03']::text[], " +
        "ARRAY['/api/v1/profile', '/api/v1/profile', '/api/v1/search/posts', '/api/v1/company', '/api/v1/profile']::text[], " +
        'ARRAY[402, 429, 200, 402, 429]::int[], ARRAY[1, 1, 1, 1, 2]::bigint[], ARRAY[0, 0, 0, 0, 0]::bigint[], ARRAY[0, 0, 0, 0, 0]::bigint[])',
    )
  })
})
