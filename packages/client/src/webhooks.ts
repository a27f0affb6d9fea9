/**
 * Checking a webhook delivery, as the service signs it: `Pronet-Signature: t=<unix seconds>,v1=<hex
 * HMAC-SHA256 of "<t>.<raw body>" under the endpoint's secret>`. The check is the service's own: the
 * HMAC recomputed over the raw body, compared in constant time, and a `t` more than the tolerance
 * (300 seconds by default) from now refused, so that a delivery recorded by someone else cannot be
 * replayed later.
 *
 * It runs on a server (a receiver holds the secret), with node:crypto. That module is loaded when the
 * function is first called, through `process.getBuiltinModule` (Node 20.16 and later), never imported
 * by the package: the rest of the client still loads as it is in a browser.
 */

/** The header a delivery's signature comes in (lower case, as Node's `req.headers` names it). */
export const WEBHOOK_SIGNATURE_HEADER = 'pronet-signature'

/** How far `t` may be from now, in seconds, by default. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300

export interface VerifyWebhookOptions {
  /** How far the signature's time may be from `now`, either way, in seconds (default 300). */
  toleranceSeconds?: number
  /** The current time in milliseconds since the epoch, as `Date.now()` (its default) gives it. */
  now?: number
}

/** The part of node:crypto used here. */
interface NodeCrypto {
  createHmac(algorithm: 'sha256', key: string): { update(data: string | Uint8Array): { update(data: string | Uint8Array): { digest(): Uint8Array } } }
  timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean
}

let loaded: NodeCrypto | undefined

function nodeCrypto(): NodeCrypto {
  if (loaded) return loaded
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
  const found = typeof proc?.getBuiltinModule === 'function' ? (proc.getBuiltinModule('node:crypto') as NodeCrypto | undefined) : undefined
  if (!found) throw new Error('verifyWebhookSignature needs node:crypto: run it on Node 20.16 or later (or a runtime with process.getBuiltinModule).')
  loaded = found
  return found
}

function hexBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2)
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return bytes
}

/**
 * Whether `header` (the delivery's `Pronet-Signature`) signs `rawBody` (the request's body exactly as
 * it arrived, before any JSON parsing) under `secret` (the endpoint's `whsec_…`), with a time within
 * the tolerance of now. False for anything else: a missing or malformed header, another body, another
 * secret, a time too old or too far ahead.
 */
export function verifyWebhookSignature(secret: string, header: string, rawBody: string | Uint8Array, options: VerifyWebhookOptions = {}): boolean {
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new TypeError('verifyWebhookSignature: rawBody must be the body as it arrived (a string or bytes), not parsed JSON.')
  }
  const tolerance = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS
  if (!Number.isFinite(tolerance) || tolerance < 0) throw new RangeError('verifyWebhookSignature: toleranceSeconds must be a number of seconds, 0 or more.')
  const nowMs = options.now ?? Date.now()
  if (!Number.isFinite(nowMs)) throw new RangeError('verifyWebhookSignature: now must be milliseconds since the epoch, as Date.now() gives it.')
  if (typeof secret !== 'string' || secret === '' || typeof header !== 'string') return false

  const fields = new Map<string, string>()
  for (const part of header.split(',')) {
    const at = part.indexOf('=')
    if (at > 0) fields.set(part.slice(0, at).trim(), part.slice(at + 1).trim())
  }
  const t = fields.get('t') ?? ''
  const v1 = fields.get('v1') ?? ''
  if (!/^\d{1,15}$/.test(t) || !/^[0-9a-f]{64}$/.test(v1)) return false
  const signedAt = Number(t)
  if (Math.abs(Math.floor(nowMs / 1000) - signedAt) > tolerance) return false

  const { createHmac, timingSafeEqual } = nodeCrypto()
  const expected = createHmac('sha256', secret).update(`${signedAt}.`).update(rawBody).digest()
  return timingSafeEqual(expected, hexBytes(v1))
}
