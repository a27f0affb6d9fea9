/**
 * Response bodies assembled from literal JSON text and stored documents (UTF-8 bytes) by
 * concatenation: stored JSON is never parsed and re-encoded on the way out.
 */
export type Part = string | Buffer | readonly Part[]

const OPEN = Buffer.from('[')
const CLOSE = Buffer.from(']')
const COMMA = Buffer.from(',')

/** One response body from its parts, in order. */
export function json(...parts: readonly Part[]): Buffer {
  const out: Buffer[] = []
  const add = (p: Part): void => {
    if (typeof p === 'string') out.push(Buffer.from(p))
    else if (Buffer.isBuffer(p)) out.push(p)
    else (p as readonly Part[]).forEach(add)
  }
  parts.forEach(add)
  return Buffer.concat(out)
}

/** A JSON array of ready items, as parts. */
export function list(items: readonly (string | Buffer)[]): Part[] {
  const out: Part[] = [OPEN]
  items.forEach((item, i) => {
    if (i > 0) out.push(COMMA)
    out.push(item)
  })
  out.push(CLOSE)
  return out
}

/** A JSON array of ready items, as text. */
export const arr = (items: readonly string[]): string => `[${items.join(',')}]`
