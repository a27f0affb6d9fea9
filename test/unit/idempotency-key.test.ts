import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/domain/errors.ts'
import { canonicalQuery, readKey } from '../../src/idempotency/idempotency-key.ts'

const raw = (...values: string[]) => values.flatMap((v) => ['Idempotency-Key', v])

describe('the Idempotency-Key header', () => {
  it('is the key when it is 1 to 255 printable ASCII characters, sent once', () => {
    for (const key of ['a', 'k'.repeat(255), '3f0c2d6e-8d7b-4a51-9d43-0f6a1c2b9e77', 'order 42: {x} ~!']) {
      expect(readKey(key, ['X-Api-Key', 'pk_x', ...raw(key)])).toBe(key)
    }
  })

  it('is a 400 naming the header when empty, too long, holding a control or non-ASCII character, or sent twice', () => {
    const refused: [string | string[], readonly string[], RegExp][] = [
      ['', raw(''), /empty/],
      ['x'.repeat(256), raw('x'.repeat(256)), /256/],
      ['a\tb', raw('a\tb'), /control or non-ASCII/],
      ['a\u007fb', raw('a\u007fb'), /control or non-ASCII/],
      ['caf\u00e9', raw('caf\u00e9'), /control or non-ASCII/],
      // Node joins a repeated header into one value; the raw headers still show both.
      ['one, two', ['idempotency-key', 'one', 'IDEMPOTENCY-KEY', 'two'], /once/],
      [['one', 'two'], raw('one', 'two'), /once/],
    ]
    for (const [value, rawHeaders, why] of refused) {
      const e = readKey(value, rawHeaders)
      expect(e, JSON.stringify(value)).toBeInstanceOf(ApiError)
      expect((e as ApiError).toBody()).toMatchObject({ code: 'INVALID_PARAMETER', details: { parameter: 'Idempotency-Key' } })
      expect((e as ApiError).message).toMatch(why)
    }
  })
})

describe('the query a key names', () => {
  it('is the same whatever the order of its parameters and however they are encoded', () => {
    const one = canonicalQuery('/api/v1/profile?profileUrlOrUrn=member-1&fullProfile=true')
    expect(canonicalQuery('/api/v1/profile?fullProfile=true&profileUrlOrUrn=member%2D1')).toBe(one)
    expect(canonicalQuery('/p?q=a+b')).toBe(canonicalQuery('/p?q=a%20b'))
    expect(canonicalQuery('/p?a=2&a=1')).toBe(canonicalQuery('/p?a=1&a=2'))
  })

  it('differs when a value, a name or a repeat differs', () => {
    const base = canonicalQuery('/p?a=1&b=2')
    for (const other of ['/p?a=1&b=3', '/p?a=1&c=2', '/p?a=1&b=2&b=2', '/p?a=1', '/p']) expect(canonicalQuery(other), other).not.toBe(base)
    expect(canonicalQuery('/p')).toBe('')
  })
})
