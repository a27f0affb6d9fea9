/**
 * The Idempotency-Key header of a data call, and the fingerprint of the request it names. A repeat
 * with the same key must be the same request: same method, route, query (its parameters in any
 * order) and body, byte for byte as sent.
 */
import { createHash } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { invalidParameter, type ApiError } from '../domain/errors.ts'

export const IDEMPOTENCY_HEADER = 'Idempotency-Key'
/** The key's longest length. */
export const KEY_MAX_LENGTH = 255
/** Printable ASCII, space included; Node has already trimmed spaces at either end of a header value. */
const KEY_PATTERN = /^[\x20-\x7e]+$/

/** The client's key, or the 400 naming the header when it is not one. */
export function readKey(value: string | string[], rawHeaders: readonly string[]): string | ApiError {
  // Node joins a repeated header into one value: which of them names the request is ambiguous.
  let seen = 0
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]?.toLowerCase() === 'idempotency-key') seen++
  if (Array.isArray(value) || seen > 1) return invalidParameter(IDEMPOTENCY_HEADER, 'send the header once.')
  if (value.length === 0) return invalidParameter(IDEMPOTENCY_HEADER, `must be 1 to ${KEY_MAX_LENGTH} printable ASCII characters; it is empty.`)
  if (value.length > KEY_MAX_LENGTH) {
    return invalidParameter(IDEMPOTENCY_HEADER, `must be 1 to ${KEY_MAX_LENGTH} printable ASCII characters; it has ${value.length}.`)
  }
  if (!KEY_PATTERN.test(value)) {
    return invalidParameter(IDEMPOTENCY_HEADER, `must be 1 to ${KEY_MAX_LENGTH} printable ASCII characters; it holds a control or non-ASCII character.`)
  }
  return value
}

/** The query string with its parameters sorted by name, then value, each encoded one way. */
export function canonicalQuery(url: string): string {
  const q = url.indexOf('?')
  if (q < 0) return ''
  const pairs = [...new URLSearchParams(url.slice(q + 1))]
  pairs.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
  return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')
}

/** Hash of what makes the request: its method, its route, its sorted query and its body's bytes as sent. */
export function fingerprint(request: FastifyRequest, body: readonly Buffer[] | undefined): string {
  const hash = createHash('sha256')
  hash.update(`${request.method}\n${request.routeOptions.url ?? request.url}\n${canonicalQuery(request.url)}\n`)
  for (const part of body ?? []) hash.update(part)
  return hash.digest('hex')
}
