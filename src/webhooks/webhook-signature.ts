/**
 * The signature of a webhook delivery: `Pronet-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<body>" under the endpoint's secret>`. A receiver recomputes it over the raw body, compares in
 * constant time, and refuses a `t` far from its own clock (a replay).
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

export const SIGNATURE_HEADER = 'pronet-signature'

export function signatureOf(secret: string, unixSeconds: number, body: string): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')
  return `t=${unixSeconds},v1=${v1}`
}

/** Whether `header` signs `body` under `secret` within `toleranceS` of `nowS` (what a receiver checks). */
export function verifySignature(secret: string, header: string, body: string, nowS: number, toleranceS = 300): boolean {
  const parts = new Map(header.split(',').map((p) => p.split('=', 2) as [string, string]))
  const t = Number(parts.get('t'))
  const v1 = parts.get('v1') ?? ''
  if (!Number.isInteger(t) || Math.abs(nowS - t) > toleranceS || !/^[0-9a-f]{64}$/.test(v1)) return false
  const expected = signatureOf(secret, t, body).slice(-64)
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(v1, 'hex'))
}
