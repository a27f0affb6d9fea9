/**
 * The client's verifyWebhookSignature against the service's own signer (signatureOf, what every
 * delivery carries): a delivery signed now verifies, as a string or as the bytes that arrived; another
 * body, another secret, a time past the tolerance either way, or a malformed header does not. And the
 * package imports no node: module, so that it still loads in a browser.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEFAULT_WEBHOOK_TOLERANCE_SECONDS, verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER } from '../../packages/client/src/index.ts'
import { SIGNATURE_HEADER, signatureOf, verifySignature } from '../../src/webhooks/webhook-signature.ts'

const SECRET = 'whsec_EXAMPLEexampleEXAMPLEexample01'
const NOW_MS = Date.UTC(2026, 11, 2, 9, 0, 0, 500)
const NOW_S = Math.floor(NOW_MS / 1000)
const BODY = JSON.stringify({
  id: 'evt_77aa01b2c3d4e5f60718293a',
  type: 'webhook.test',
  createdAt: '2026-12-02T09:00:00.000Z',
  account: 'acc_nAk9NebuqoAp',
  data: { webhookId: 'wh_QmJ1dVx0bG9v', message: 'Grüße: bytes past ASCII are signed as UTF-8.' },
})

describe('verifyWebhookSignature', () => {
  it('accepts what the service signs, over the raw body as a string or as bytes', () => {
    const header = signatureOf(SECRET, NOW_S, BODY)
    expect(verifyWebhookSignature(SECRET, header, BODY, { now: NOW_MS })).toBe(true)
    expect(verifyWebhookSignature(SECRET, header, new TextEncoder().encode(BODY), { now: NOW_MS })).toBe(true)
    expect(verifyWebhookSignature(SECRET, header, Buffer.from(BODY, 'utf8'), { now: NOW_MS })).toBe(true)
    // Signed a moment ago, checked against the real clock by default.
    expect(verifyWebhookSignature(SECRET, signatureOf(SECRET, Math.floor(Date.now() / 1000) - 2, BODY), BODY)).toBe(true)
    // The same header name as the service's, and the same default tolerance.
    expect([WEBHOOK_SIGNATURE_HEADER, DEFAULT_WEBHOOK_TOLERANCE_SECONDS]).toEqual([SIGNATURE_HEADER, 300])
  })

  it('refuses another body, another secret, and a header that is not a signature', () => {
    const header = signatureOf(SECRET, NOW_S, BODY)
    const check = (secret: string, h: string, body: string | Uint8Array) => verifyWebhookSignature(secret, h, body, { now: NOW_MS })
    // Tampered: one character, a trailing space, a body re-serialised after parsing.
    expect(check(SECRET, header, BODY.replace('webhook.test', 'webhook.tesT'))).toBe(false)
    expect(check(SECRET, header, `${BODY} `)).toBe(false)
    expect(check(SECRET, header, JSON.stringify(JSON.parse(BODY), null, 2))).toBe(false)
    const bytes = new TextEncoder().encode(BODY)
    bytes[10] = (bytes[10] as number) ^ 1
    expect(check(SECRET, header, bytes)).toBe(false)
    // Another endpoint's secret, or none.
    expect(check(`${SECRET}x`, header, BODY)).toBe(false)
    expect(check('whsec_another', header, BODY)).toBe(false)
    expect(check('', header, BODY)).toBe(false)
    // The signature's time changed (it is signed too), and headers that are not a signature.
    expect(check(SECRET, header.replace(`t=${NOW_S}`, `t=${NOW_S + 1}`), BODY)).toBe(false)
    const v1 = header.slice(-64)
    for (const h of ['', `t=${NOW_S}`, `v1=${v1}`, `t=${NOW_S},v1=${v1.slice(1)}`, `t=${NOW_S},v1=${v1.toUpperCase()}`, `t=soon,v1=${v1}`, `t=-${NOW_S},v1=${v1}`, 'garbage']) {
      expect(check(SECRET, h, BODY), h).toBe(false)
    }
    expect(verifyWebhookSignature(SECRET, undefined as unknown as string, BODY, { now: NOW_MS })).toBe(false)
    // Spaces after the comma, as a proxy may write it, are read past.
    expect(check(SECRET, header.replace(',', ', '), BODY)).toBe(true)
  })

  it('refuses a time more than the tolerance from now, either way (a replay), as the service does', () => {
    const signedAt = (ageS: number) => signatureOf(SECRET, NOW_S - ageS, BODY)
    const check = (ageS: number, options: { toleranceSeconds?: number } = {}) => verifyWebhookSignature(SECRET, signedAt(ageS), BODY, { now: NOW_MS, ...options })
    expect([check(300), check(301), check(3600), check(-300), check(-301)]).toEqual([true, false, false, true, false])
    expect([check(60, { toleranceSeconds: 60 }), check(61, { toleranceSeconds: 60 }), check(0, { toleranceSeconds: 0 }), check(1, { toleranceSeconds: 0 })]).toEqual([true, false, true, false])
    expect(check(86_400, { toleranceSeconds: 86_400 })).toBe(true)
    // The same answers as the service's own verifySignature, whose `now` is in seconds.
    for (const age of [-301, -300, 0, 299, 300, 301, 7200]) {
      expect(check(age), `${age} s old`).toBe(verifySignature(SECRET, signedAt(age), BODY, NOW_S))
    }
  })

  it('throws on a body that is not raw, or options that make no sense', () => {
    expect(() => verifyWebhookSignature(SECRET, signatureOf(SECRET, NOW_S, BODY), JSON.parse(BODY) as string, { now: NOW_MS })).toThrow(TypeError)
    expect(() => verifyWebhookSignature(SECRET, '', BODY, { toleranceSeconds: -1 })).toThrow(RangeError)
    expect(() => verifyWebhookSignature(SECRET, '', BODY, { now: Number.NaN })).toThrow(RangeError)
  })

  it('the package imports no node: module, so it loads in a browser (node:crypto is loaded when the check runs)', () => {
    const dir = join(import.meta.dirname, '..', '..', 'packages', 'client', 'src')
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      expect(readFileSync(join(dir, file), 'utf8'), file).not.toMatch(/^\s*(?:import|export)\b[^;]*?\bfrom\s+['"]node:|\bimport\(\s*['"]node:|\brequire\(\s*['"]node:/m)
    }
  })
})
