/**
 * Email addresses as the console keeps them: trimmed and lower-cased, so that one address is one user
 * however it is typed. The shape check is loose on purpose (something@domain.tld, no spaces or control
 * characters): the verification mail is what proves an address.
 */
import { codePointLength } from '../domain/code-points.ts'

/** RFC 5321's longest forward path, less its angle brackets. */
export const MAX_EMAIL = 254

// Angle brackets, quotes and the like never stand in an address we mail: they only smuggle markup.
const SHAPE = /^[^\s@\p{Cc}<>"'(),;:\\[\]]+@[^\s@\p{Cc}.<>"'(),;:\\[\]]+(\.[^\s@\p{Cc}.<>"'(),;:\\[\]]+)+$/u

/** The address as stored, or undefined when `raw` is not shaped like one. */
export function normalizeEmail(raw: string): string | undefined {
  const email = raw.trim().normalize('NFC').toLowerCase()
  if (codePointLength(email) > MAX_EMAIL || !SHAPE.test(email)) return undefined
  return email
}
