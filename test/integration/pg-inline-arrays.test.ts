/**
 * The PostgreSQL ledger writes a batch's arrays into its statements as array literals
 * ('{"a","b"}'::text[]) rather than ARRAY['a', 'b']. Read by PostgreSQL itself, each must give the
 * same values, of the same type, as ARRAY[…] of its values one by one, whatever the strings hold.
 */
import fc from 'fast-check'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inline } from '../../src/adapters/postgres/pg-ledger-statements.ts'
import { ADMIN_URL, postgresAvailable } from '../helpers/postgres.ts'

const up = await postgresAvailable()

/** ARRAY[…] of the values one by one, as the driver escapes them. */
const arrayOf = (values: readonly (string | number)[]): string =>
  `ARRAY[${values.map((v) => (typeof v === 'number' ? `(${v})` : pg.escapeLiteral(v))).join(', ')}]`

describe.skipIf(!up)('inline SQL arrays, read by PostgreSQL', () => {
  const client = new pg.Client({ connectionString: ADMIN_URL })
  beforeAll(() => client.connect())
  afterAll(() => client.end())

  async function compare(values: readonly string[] | readonly number[]): Promise<void> {
    const written = inline('$1', [values])
    const { rows } = await client.query<{ type: string; expected: string; same: boolean }>(
      `SELECT pg_typeof(${written})::text AS type, pg_typeof(${arrayOf(values)})::text AS expected, ${written} IS NOT DISTINCT FROM ${arrayOf(values)} AS same`,
    )
    expect(rows[0]).toEqual({ type: rows[0]?.expected, expected: rows[0]?.expected, same: true })
  }

  it('property: strings of any characters come back as they were, as text[]', async () => {
    const unit = fc.constantFrom('"', '\\', "'", '{', '}', ',', ' ', 'a', 'é', '🚀', 'NULL', '$1', '\n')
    const text = fc.oneof(fc.string({ unit }), fc.string({ unit: 'grapheme', maxLength: 8 }), fc.constant(''), fc.constant('NULL'))
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 12 }), async (values) => compare(values)),
      { numRuns: 300 },
    )
  })

  it('property: integers come back as they were, as int[] or, past its range, bigint[]', async () => {
    const n = fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.constantFrom(2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 0))
    await fc.assert(
      fc.asyncProperty(fc.array(n, { minLength: 1, maxLength: 12 }), async (values) => compare(values)),
      { numRuns: 300 },
    )
  })

  it('a typical batch column: ids written as one literal, and read back in order', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `req_a1b2c3-${i}`)
    const written = inline('$1::text[]', [ids])
    expect(written).toBe(`'{"${ids.join('","')}"}'::text[]::text[]`)
    const { rows } = await client.query<{ v: string[] }>(`SELECT ${written} AS v`)
    expect(rows[0]?.v).toEqual(ids)
  })
})
