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

describe('environment (D12): what an operator is told, and the default purchase link', () => {
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
    // `http://:::3000/docs#/admin` is no URL, and 0.0.0.0 names no machine a customer can open.
    for (const [host, expected] of [
      ['127.0.0.1', 'http://127.0.0.1:3000/docs#/admin'],
      ['0.0.0.0', 'http://localhost:3000/docs#/admin'],
      ['::', 'http://localhost:3000/docs#/admin'],
      ['::1', 'http://[::1]:3000/docs#/admin'],
      ['api.internal', 'http://api.internal:3000/docs#/admin'],
    ] as const) {
      const config = loadConfig({ HOST: host })
      expect(config.buyCreditsUrl, host).toBe(expected)
      expect(URL.canParse(config.buyCreditsUrl), host).toBe(true)
      expect(config.buyCreditsUrlSet).toBe(false)
    }
    expect(urlHost('[::1]')).toBe('[::1]')
    expect(loadConfig({ PRONET_BUY_CREDITS_URL: 'https://x.example/buy' }).buyCreditsUrlSet).toBe(true)
  })
})
