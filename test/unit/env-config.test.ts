import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig, urlHost } from '../../src/config/config.ts'

const refusal = (env: Record<string, string>): string => {
  try {
    loadConfig(env)
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError)
    return (e as Error).message
  }
  return expect.fail(`accepted ${JSON.stringify(env)}`)
}

describe('environment: what an operator is told, and the default purchase link', () => {
  it('names the allowed values of an enumerated variable', () => {
    expect(refusal({ LOG_LEVEL: 'verbose' })).toBe('invalid environment: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent')
    expect(refusal({ PRONET_COMMIT_WORKER: 'maybe' })).toBe('invalid environment: PRONET_COMMIT_WORKER must be one of auto, on, off')
  })

  it('refuses a purchase link customers could not open, and a platform host that is no host name', () => {
    expect(refusal({ PRONET_BUY_CREDITS_URL: 'notaurl' })).toMatch(/PRONET_BUY_CREDITS_URL must be an http:\/\/ or https:\/\/ URL/)
    expect(refusal({ PRONET_BUY_CREDITS_URL: 'javascript:alert(1)' })).toMatch(/PRONET_BUY_CREDITS_URL/)
    expect(loadConfig({ PRONET_BUY_CREDITS_URL: 'https://billing.example.com/buy?plan=x' }).buyCreditsUrl).toBe('https://billing.example.com/buy?plan=x')
    expect(refusal({ PRONET_PLATFORM_HOST: 'bad host/' })).toMatch(/PRONET_PLATFORM_HOST must be a host name/)
    expect(refusal({ PRONET_PLATFORM_HOST: 'https://www.linkedin.com' })).toMatch(/PRONET_PLATFORM_HOST/)
    expect(loadConfig({ PRONET_PLATFORM_HOST: 'Example.ORG' }).platformHost).toBe('example.org')
    expect(loadConfig({ PRONET_PLATFORM_HOST: 'localhost' }).platformHost).toBe('localhost')
  })

  it('writes the default link with an address a URL can hold: IPv6 in brackets, localhost for a wildcard', () => {
    // `http://:::3000/console/billing` is no URL, and 0.0.0.0 names no machine a customer can open.
    for (const [host, expected] of [
      ['127.0.0.1', 'http://127.0.0.1:3000/console/billing'],
      ['0.0.0.0', 'http://localhost:3000/console/billing'],
      ['::', 'http://localhost:3000/console/billing'],
      ['::1', 'http://[::1]:3000/console/billing'],
      ['api.internal', 'http://api.internal:3000/console/billing'],
    ] as const) {
      const config = loadConfig({ HOST: host })
      expect(config.buyCreditsUrl, host).toBe(expected)
      expect(URL.canParse(config.buyCreditsUrl), host).toBe(true)
      expect(config.buyCreditsUrlSet).toBe(false)
    }
    expect(urlHost('[::1]')).toBe('[::1]')
    expect(loadConfig({ PRONET_BUY_CREDITS_URL: 'https://x.example/buy' }).buyCreditsUrlSet).toBe(true)
  })

  it('the console: its public address names the purchase page; sign-up and payment modes; Stripe needs both keys', () => {
    const config = loadConfig({ PRONET_PUBLIC_URL: 'https://api.example.com/' })
    expect([config.publicUrl, config.buyCreditsUrl]).toEqual(['https://api.example.com', 'https://api.example.com/console/billing'])
    expect(loadConfig({ PRONET_PUBLIC_URL: 'https://x.example', PRONET_BUY_CREDITS_URL: 'https://pay.example/' }).buyCreditsUrl).toBe('https://pay.example/')
    expect(refusal({ PRONET_PUBLIC_URL: 'ftp://x.example' })).toMatch(/PRONET_PUBLIC_URL must be an http/)
    expect(refusal({ PRONET_PUBLIC_URL: 'https://x.example/?a=1' })).toMatch(/PRONET_PUBLIC_URL/)
    const defaults = loadConfig({})
    expect([defaults.signup, defaults.payments, defaults.smtpUrl, defaults.stripe]).toEqual(['open', 'manual', undefined, undefined])
    expect(refusal({ PRONET_SIGNUP: 'maybe' })).toBe('invalid environment: PRONET_SIGNUP must be one of open, invite, closed')
    expect(refusal({ PRONET_PAYMENTS: 'paypal' })).toBe('invalid environment: PRONET_PAYMENTS must be one of manual, stripe, test')
    expect(refusal({ PRONET_PAYMENTS: 'stripe' })).toBe('invalid environment: PRONET_PAYMENTS=stripe needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET')
    expect(refusal({ PRONET_PAYMENTS: 'stripe', STRIPE_SECRET_KEY: 'sk_test_x' })).toBe('invalid environment: PRONET_PAYMENTS=stripe needs STRIPE_WEBHOOK_SECRET')
    expect(loadConfig({ PRONET_PAYMENTS: 'stripe', STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_y' }).stripe).toEqual({ secretKey: 'sk_test_x', webhookSecret: 'whsec_y' })
    expect(refusal({ SMTP_URL: 'http://mail.example' })).toMatch(/SMTP_URL must be an smtp/)
    expect(loadConfig({ SMTP_URL: 'smtps://u:p@mail.example:465' }).smtpUrl).toBe('smtps://u:p@mail.example:465')
  })

  it('PRONET_TRUST_PROXY: off by default; true, a number of hops, or addresses and ranges', () => {
    expect(loadConfig({}).trustProxy).toBe(false)
    expect(loadConfig({ PRONET_TRUST_PROXY: 'true' }).trustProxy).toBe(true)
    expect(loadConfig({ PRONET_TRUST_PROXY: '1' }).trustProxy).toBe(1)
    expect(loadConfig({ PRONET_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1'])
    expect(refusal({ PRONET_TRUST_PROXY: 'yes please' })).toMatch(/PRONET_TRUST_PROXY must be/)
  })

  it('the batches of the PostgreSQL ledger: an automatic wait and the default size unless set; whole numbers in range', () => {
    expect(loadConfig({})).toMatchObject({ ledgerBatchMs: 'auto', ledgerBatchMax: undefined })
    expect(loadConfig({ PRONET_LEDGER_BATCH_MS: 'auto' })).toMatchObject({ ledgerBatchMs: 'auto' })
    expect(loadConfig({ PRONET_LEDGER_BATCH_MS: '0' })).toMatchObject({ ledgerBatchMs: 0 })
    expect(loadConfig({ PRONET_LEDGER_BATCH_MS: '50', PRONET_LEDGER_BATCH_MAX: '5000' })).toMatchObject({ ledgerBatchMs: 50, ledgerBatchMax: 5000 })
    expect(refusal({ PRONET_LEDGER_BATCH_MS: '2000' })).toBe(
      'invalid environment: PRONET_LEDGER_BATCH_MS (or auto) must be a whole number of milliseconds from 0 to 1000 (got "2000")',
    )
    expect(refusal({ PRONET_LEDGER_BATCH_MAX: '0' })).toBe('invalid environment: PRONET_LEDGER_BATCH_MAX must be a whole number from 1 to 100000 (got "0")')
    expect(refusal({ PRONET_LEDGER_BATCH_MAX: 'lots' })).toMatch(/PRONET_LEDGER_BATCH_MAX must be a whole number/)
  })
})
