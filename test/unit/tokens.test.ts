import { describe, expect, it } from 'vitest'
import { createHmac } from 'node:crypto'
import fc from 'fast-check'
import { createTokenSigner, hmacSha256 } from '../../src/domain/tokens.ts'

const SCOPE = 'search:["manager","date"]'
const POSITION = { m: 'd', n: 50, s: null, b: '7392749273492734' }
/** Issued for SCOPE and POSITION under 'fixed-secret' by the implementation before the one-shot hash. */
const EARLIER_TOKEN =
  'eyJzIjoiWjN2Um1XaEljUnZIR1cycCIsInAiOnsibSI6ImQiLCJuIjo1MCwicyI6bnVsbCwiYiI6IjczOTI3NDkyNzM0OTI3MzQifX0.MSL-L5eUvD_TBM6moDScpQ'

describe('pagination tokens and cursors: signed, and bound to what they belong to', () => {
  const signer = createTokenSigner('fixed-secret')

  it('opens what it issued, for the same scope', () => {
    expect(signer.open(signer.issue(SCOPE, POSITION), SCOPE, 'cursor')).toEqual(POSITION)
  })

  it('issues exactly the tokens it issued before (cursors in clients keep working across an upgrade)', () => {
    expect(signer.issue(SCOPE, POSITION)).toBe(EARLIER_TOKEN)
    expect(signer.open(EARLIER_TOKEN, SCOPE, 'cursor')).toEqual(POSITION)
  })

  it('refuses a token of another scope, naming the parameter', () => {
    expect(() => signer.open(EARLIER_TOKEN, 'search:["manager","relevance"]', 'cursor')).toThrow(
      expect.objectContaining({ code: 'INVALID_PARAMETER', message: expect.stringContaining('belongs to another feed or request') }),
    )
  })

  it('refuses a token signed under another secret, or changed by one character', () => {
    const other = createTokenSigner('another-secret').issue(SCOPE, POSITION)
    const flipped = `${EARLIER_TOKEN.slice(0, 10)}${EARLIER_TOKEN[10] === 'A' ? 'B' : 'A'}${EARLIER_TOKEN.slice(11)}`
    for (const token of [other, flipped]) {
      expect(() => signer.open(token, SCOPE, 'paginationToken')).toThrow(
        expect.objectContaining({ code: 'INVALID_PARAMETER', message: expect.stringContaining('not issued by this service') }),
      )
    }
  })
  it('verify, without a scope: passes what it issued for any scope, refuses what it did not (naming the parameter)', () => {
    expect(() => signer.verify(EARLIER_TOKEN, 'cursor')).not.toThrow()
    expect(() => signer.verify(signer.issue('posts:person:x', 'anything'), 'cursor')).not.toThrow()
    const other = createTokenSigner('another-secret').issue(SCOPE, POSITION)
    for (const token of [other, 'nonsense', `${EARLIER_TOKEN}x`, '.', 'a'.repeat(3000)]) {
      expect(() => signer.verify(token, 'commentPaginationToken')).toThrow(
        expect.objectContaining({ code: 'INVALID_PARAMETER', details: { parameter: 'commentPaginationToken' } }),
      )
    }
  })
})

describe('hmacSha256', () => {
  it("equals node:crypto's HMAC-SHA256 (first 16 bytes) for keys shorter than, equal to and longer than a block", () => {
    const key = fc.oneof(fc.string({ maxLength: 100, unit: 'binary' }), fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)))
    fc.assert(
      fc.property(key, fc.string({ maxLength: 300, unit: 'binary' }), (secret, message) => {
        const expected = createHmac('sha256', secret).update(message).digest().subarray(0, 16)
        expect(hmacSha256(secret)(message).equals(expected)).toBe(true)
      }),
      { numRuns: 500 },
    )
    for (const length of [63, 64, 65, 128]) {
      const secret = Buffer.alloc(length, 7)
      expect(hmacSha256(secret)('x').equals(createHmac('sha256', secret).update('x').digest().subarray(0, 16))).toBe(true)
    }
  })
})
