/**
 * Pagination tokens and cursors, opaque to clients: base64url JSON `{s, p}` where `s` is a hash of what the token
 * belongs to (feed and subject, or a search and its filters) and `p` the position, followed by an
 * HMAC-SHA256 tag under the server secret. A token that does not verify, or that belongs to another
 * feed, is refused with 400 INVALID_PARAMETER.
 */
import { hash, timingSafeEqual } from 'node:crypto'
import { invalidParameter } from './errors.ts'

export interface TokenSigner {
  /** A token for `position` within `scope` (e.g. "posts:person:ACoAA…"). */
  issue(scope: string, position: unknown): string
  /** The position inside a token issued for `scope`; throws INVALID_PARAMETER naming `param` otherwise. */
  open(token: string, scope: string, param: string): unknown
  /**
   * Throws INVALID_PARAMETER naming `param` unless this service issued `token` (for any scope): a check
   * made with the rest of a request's input, before it is admitted or its subject looked up.
   */
  verify(token: string, param: string): void
}

const TAG_BYTES = 16
const SHA256_BLOCK = 64

/**
 * HMAC-SHA256 under `secret` (RFC 2104), truncated to TAG_BYTES, from two one-shot hashes over the
 * key's pads, which are worked out once: building a createHmac object per token is a large share of a
 * date-sorted search's CPU time. Equal to createHmac's output (unit test).
 */
export function hmacSha256(secret: string | Buffer): (message: string) => Buffer {
  const given = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret
  const key = Buffer.alloc(SHA256_BLOCK)
  ;(given.length > SHA256_BLOCK ? hash('sha256', given, 'buffer') : given).copy(key)
  const inner = Buffer.from(key.map((b) => b ^ 0x36))
  const outer = Buffer.from(key.map((b) => b ^ 0x5c))
  return (message) => {
    const innerHash = hash('sha256', Buffer.concat([inner, Buffer.from(message, 'utf8')]), 'buffer')
    return hash('sha256', Buffer.concat([outer, innerHash]), 'buffer').subarray(0, TAG_BYTES)
  }
}

export function createTokenSigner(secret: string | Buffer): TokenSigner {
  // One-shot hash: no Hash object to build, which matters most with cold caches after a heavy search,
  // and a cursor or page token hashes its scope on every page.
  const scopeHash = (scope: string) => hash('sha256', scope, 'base64url').slice(0, 16)
  const tag = hmacSha256(secret)

  /** The payload of a token this service issued; throws INVALID_PARAMETER naming `param` otherwise. */
  function payloadOf(token: string, param: string): { s?: unknown; p?: unknown } {
    const bad = () => invalidParameter(param, 'the token was not issued by this service for this request.')
    const dot = token.indexOf('.')
    if (token.length > 2048 || dot <= 0) throw bad()
    const body = token.slice(0, dot)
    // Compared as text: base64url's last character carries bits the decoder ignores, so comparing
    // decoded bytes would accept several spellings of one token.
    const given = Buffer.from(token.slice(dot + 1))
    const expected = Buffer.from(tag(body).toString('base64url'))
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad()
    try {
      return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { s?: unknown; p?: unknown }
    } catch {
      throw bad()
    }
  }

  return {
    issue(scope, position) {
      const body = Buffer.from(JSON.stringify({ s: scopeHash(scope), p: position })).toString('base64url')
      return `${body}.${tag(body).toString('base64url')}`
    },
    open(token, scope, param) {
      const payload = payloadOf(token, param)
      if (payload.s !== scopeHash(scope)) {
        throw invalidParameter(param, 'the token belongs to another feed or request; start again without it.')
      }
      return payload.p
    },
    verify(token, param) {
      payloadOf(token, param)
    },
  }
}
