/**
 * The PostgreSQL ledger writes its values into its statements' text (inline), so that a batch's
 * statements travel in one query. Strings must come out exactly as the driver's escapeLiteral
 * writes them, whatever they hold; numbers must be integers.
 */
import fc from 'fast-check'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { inline } from '../../src/adapters/postgres/pg-ledger-statements.ts'

describe('inline SQL values', () => {
  it('property: every string is written as the driver escapes it', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom("'", '\\', 'a', 'é', ' ', '"', '$1') }), fc.string({ unit: 'grapheme' }))
    fc.assert(
      fc.property(text, (s) => {
        expect(inline('SELECT $1', [s])).toBe(`SELECT ${pg.escapeLiteral(s)}`)
      }),
      { numRuns: 500 },
    )
  })

  it('writes quotes doubled, backslashes in an E string, negatives in parentheses, arrays and NULL', () => {
    expect(inline('VALUES ($1, $2, $3)', ["o'neil", 'a\\b', 'acc_1'])).toBe("VALUES ('o''neil',  E'a\\\\b', 'acc_1')")
    expect(inline('x -$1', [-5])).toBe('x -(-5)')
    expect(inline('$1 $2', [['a', "b'c"], [1, -2]])).toBe(`'{"a","b''c"}'::text[] '{1,-2}'::int[]`)
    expect(inline('$1', [[1, 2 ** 31]])).toBe(`'{1,2147483648}'::bigint[]`)
    expect(inline('$1', [[-(2 ** 31) - 1]])).toBe(`'{-2147483649}'::bigint[]`)
    // Strings that would need escaping inside an array literal stay one constant each.
    expect(inline('$1', [['{"a": 1}', 'b']])).toBe(`ARRAY['{"a": 1}', 'b']`)
    expect(inline('$1', [['a\\b']])).toBe(`ARRAY[ E'a\\\\b']`)
    expect(inline('$1', [[]])).toBe('ARRAY[]')
    expect(inline('$1', [null])).toBe('NULL')
  })

  it('refuses a number that is not an integer, and a missing value', () => {
    expect(() => inline('$1', [1.5])).toThrow('not an integer')
    expect(() => inline('$1 $2', [1])).toThrow('missing SQL value')
    expect(() => inline('$1', [[1, 2.5]])).toThrow('not an integer')
    expect(() => inline('$1', [['a', 1] as unknown as string[]])).toThrow('strings and numbers together')
  })
})
