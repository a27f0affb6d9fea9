/**
 * Where a webhook may point and how a delivery is signed and retried: https on the public internet
 * (private, loopback and link-local hosts refused, by name at setup and by address at each attempt),
 * the documented signature, and retries for a day.
 */
import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { nextAttemptAt, RETRY_FOR_MS, RETRY_WAITS_MS } from '../../src/webhooks/webhook-delivery.ts'
import { privateAddress } from '../../src/webhooks/private-address.ts'
import { checkWebhookEvents, checkWebhookUrl, destinationProblem } from '../../src/webhooks/webhook-settings.ts'
import { signatureOf, verifySignature } from '../../src/webhooks/webhook-signature.ts'

describe('a webhook address', () => {
  it('is https on the public internet', () => {
    expect(checkWebhookUrl('https://hooks.example.com/pronet?x=1', false)).toBe('https://hooks.example.com/pronet?x=1')
    for (const bad of ['https://[::ffff:127.0.0.1]:4321/x', 'https://[::ffff:7f00:1]/', 'https://[64:ff9b::7f00:1]/', 'https://[::ffff:a9fe:a9fe]/', 'https://localhost./x', 'https://metadata.google.internal/', 'https://printer.local/', 'https://router.home.arpa/', 'http://hooks.example.com/', 'ftp://example.com/', 'hooks.example.com/x', '', 'https://u:p@example.com/', 'https://localhost/x', 'https://a.localhost/x', 'https://127.0.0.1/x', 'https://10.1.2.3/', 'https://[::1]/', 'https://169.254.169.254/latest', 'https://192.168.0.9/', 'https://172.20.0.1/', 'https://[fd00::1]/', 'https://100.64.0.1/', 7, null]) {
      expect(() => checkWebhookUrl(bad, false), String(bad)).toThrow(/Invalid parameter 'url'/)
    }
    expect(() => checkWebhookUrl(`https://example.com/${'x'.repeat(2048)}`, false)).toThrow(/at most 2048/)
  })

  it('is at most 2048 characters as it is kept, and names a host DNS can carry', () => {
    // 2048 characters as given; kept with the path the URL parser adds, it would be 2049.
    const given = `https://${'a'.repeat(63)}.${'b'.repeat(63)}.example.com${'?q'.padEnd(2048 - 'https://'.length - 63 - 1 - 63 - '.example.com'.length, 'x')}`
    expect(given.length).toBe(2048)
    expect(() => checkWebhookUrl(given, false)).toThrow(/at most 2048 characters/)
    const shorter = given.slice(0, -1)
    expect(checkWebhookUrl(shorter, false)).toBe(shorter.replace('.com?', '.com/?'))
    expect(checkWebhookUrl(shorter, false)).toHaveLength(2048)
    const noPath = `https://${Array.from({ length: 3 }, () => 'a'.repeat(63)).join('.')}.example.com`
    expect(checkWebhookUrl(noPath, false)).toBe(`${noPath}/`)
    expect(() => checkWebhookUrl(`https://example.com${'/x'.repeat(1014)}`, false)).not.toThrow()
    expect(() => checkWebhookUrl(`https://example.com/${'é'.repeat(1000)}`, false)).toThrow(/at most 2048 characters/)
    expect(checkWebhookUrl('https://example.com./hook', false)).toBe('https://example.com./hook')
    for (const bad of [`https://${'a'.repeat(64)}.example.com/`, `https://${Array.from({ length: 4 }, () => 'a'.repeat(63)).join('.')}.com/`, 'https://a..example.com/']) {
      expect(() => checkWebhookUrl(bad, false), bad).toThrow(/must name a host that can exist/)
    }
  })

  it('may be private or plain http only where the operator allows it', () => {
    expect(checkWebhookUrl('http://127.0.0.1:8080/hook', true)).toBe('http://127.0.0.1:8080/hook')
    expect(() => checkWebhookUrl('https://u:p@127.0.0.1/', true)).toThrow(/user name or password/)
  })

  it('is refused at delivery when its host is a private address as written; a name is left to the connection', () => {
    expect(destinationProblem('https://93.184.216.34/hooks', false)).toBeUndefined()
    expect(destinationProblem('https://10.0.0.5/hooks', false)).toBe('the host 10.0.0.5 is a private or local address, which deliveries may not reach')
    expect(destinationProblem('https://[::ffff:7f00:1]/hooks', false)).toMatch(/private or local address/)
    expect(destinationProblem('https://rebind.example/', false)).toBeUndefined()
    expect(destinationProblem('https://10.0.0.5/hooks', true)).toBeUndefined()
  })

  it('private addresses, v4 and v6', () => {
    for (const ip of ['0.0.0.0', '10.0.0.1', '127.0.0.1', '100.100.1.1', '169.254.1.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '224.0.0.1', '255.255.255.255', '198.18.0.1', '192.0.2.1', '::', '::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', 'fec0::1', 'ff02::1', '::ffff:127.0.0.1', 'not an ip']) {
      expect(privateAddress(ip), ip).toBe(true)
    }
    // IPv6 spellings that carry a private IPv4 address: mapped (as the URL parser writes it, in hex),
    // compatible, translated, NAT64, 6to4; and Teredo, documentation and discard prefixes.
    for (const ip of ['::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:1', '::ffff:a9fe:a9fe', '::ffff:a00:1', '::7f00:1', '::127.0.0.1', '::ffff:0:7f00:1', '64:ff9b::7f00:1', '64:ff9b::127.0.0.1', '64:ff9b:1::1', '2002:7f00:1::', '2002:a9fe:a9fe::1', '2001:0:4136:e378::1', '2001:db8::1', '100::1']) {
      expect(privateAddress(ip), ip).toBe(true)
    }
    for (const ip of ['8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '::ffff:808:808', '64:ff9b::808:808', '2002:808:808::1', '2a00:1450:4001:80b::200e']) {
      expect(privateAddress(ip), ip).toBe(false)
    }
  })
})

describe('webhook events', () => {
  it('are known names, each once', () => {
    expect(checkWebhookEvents(['order.paid', 'credits.low', 'order.paid'])).toEqual(['order.paid', 'credits.low'])
    for (const bad of [[], ['order.refunded'], 'order.paid', [1]]) expect(() => checkWebhookEvents(bad)).toThrow(/Invalid parameter 'events'/)
  })
})

describe('a delivery', () => {
  it('is signed as documented: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">', () => {
    const body = '{"id":"evt_1","type":"order.paid"}'
    const header = signatureOf('whsec_abc', 1_700_000_000, body)
    expect(header).toBe(`t=1700000000,v1=${createHmac('sha256', 'whsec_abc').update(`1700000000.${body}`).digest('hex')}`)
    expect(verifySignature('whsec_abc', header, body, 1_700_000_100)).toBe(true)
    expect(verifySignature('whsec_abc', header, body, 1_700_000_400)).toBe(false)
    expect(verifySignature('whsec_abd', header, body, 1_700_000_000)).toBe(false)
    expect(verifySignature('whsec_abc', 't=1700000000,v1=zz', body, 1_700_000_000)).toBe(false)
  })

  it('is retried after growing waits, and given up once the next attempt would fall a day after its event', () => {
    const created = 0
    let at = 0
    const waits: number[] = []
    for (let n = 1; ; n++) {
      const next = nextAttemptAt(created, n, at)
      if (next === null) break
      waits.push(next - at)
      at = next
    }
    expect(waits.slice(0, RETRY_WAITS_MS.length)).toEqual(RETRY_WAITS_MS)
    expect(at).toBeLessThanOrEqual(RETRY_FOR_MS)
    expect(at + (RETRY_WAITS_MS.at(-1) as number)).toBeGreaterThan(RETRY_FOR_MS)
  })
})
