import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config/config.ts'

const KEY = 'pk_live_S3cretUpstreamKey42'
const LIVE = { PRONET_SOURCE: 'upstream', PRONET_UPSTREAM_URL: 'https://api.upstream.example/v1/', PRONET_UPSTREAM_KEY: KEY, PRONET_UPSTREAM_RPS: '5' }

const refusal = (env: Record<string, string>): string => {
  try {
    loadConfig(env)
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError)
    const message = (e as Error).message
    expect(message.startsWith('invalid environment: ')).toBe(true)
    expect(message).not.toContain(KEY)
    return message
  }
  return expect.fail(`accepted ${JSON.stringify(env)}`)
}

describe('live source settings', () => {
  it('the store alone serves by default: no live settings are needed, and none are exposed', () => {
    expect(loadConfig({}).liveSource).toBeUndefined()
    expect(loadConfig({ PRONET_SOURCE: 'store', PRONET_UPSTREAM_URL: 'https://x.example' }).liveSource).toBeUndefined()
  })

  it('a live mode gets its settings with the defaults filled in', () => {
    const live = loadConfig(LIVE).liveSource
    expect(live).toEqual({
      mode: 'upstream',
      upstreamUrl: 'https://api.upstream.example/v1',
      upstreamKey: KEY,
      upstreamRps: 5,
      timeoutMs: 30_000,
      freshness: { profile: 604800, company: 604800, posts: 3600, reactions: 3600, articles: 86400, comments: 900, search: 300, notFound: 86400 },
      serveStaleS: 0,
    })
    expect(Object.isFrozen(live)).toBe(true)
    const only = loadConfig({ ...LIVE, PRONET_SOURCE: 'upstream-only', PRONET_UPSTREAM_TIMEOUT_MS: '5000', PRONET_SERVE_STALE_S: '3600' }).liveSource
    expect([only?.mode, only?.timeoutMs, only?.serveStaleS]).toEqual(['upstream-only', 5000, 3600])
  })

  it('refuses an unknown mode, naming the allowed ones', () => {
    expect(refusal({ PRONET_SOURCE: 'live' })).toBe('invalid environment: PRONET_SOURCE must be one of store, upstream, upstream-only')
  })

  it('a live mode needs the address, the key and the budget, and says which are missing', () => {
    expect(refusal({ PRONET_SOURCE: 'upstream' })).toBe(
      'invalid environment: PRONET_SOURCE=upstream needs PRONET_UPSTREAM_URL, PRONET_UPSTREAM_KEY and PRONET_UPSTREAM_RPS',
    )
    expect(refusal({ ...LIVE, PRONET_SOURCE: 'upstream-only', PRONET_UPSTREAM_RPS: '' })).toBe('invalid environment: PRONET_SOURCE=upstream-only needs PRONET_UPSTREAM_RPS')
    const { PRONET_UPSTREAM_KEY: _key, ...noKey } = LIVE
    expect(refusal(noKey)).toBe('invalid environment: PRONET_SOURCE=upstream needs PRONET_UPSTREAM_KEY')
  })

  it('the upstream address must be http(s), and a refusal never quotes the address', () => {
    const password = 'hunter2pass'
    for (const url of [`ftp://u:${password}@x.example`, `redis://u:${password}@x.example`, 'not a url', `https://u:${password}@x.example/?token=${password}`, `https://x.example/#${password}`, 'http://']) {
      const message = refusal({ ...LIVE, PRONET_UPSTREAM_URL: url })
      expect(message, url).toMatch(/^invalid environment: PRONET_UPSTREAM_URL /)
      expect(message, url).not.toContain(password)
      expect(message, url).not.toContain('x.example')
    }
    expect(loadConfig({ ...LIVE, PRONET_UPSTREAM_URL: 'http://10.0.0.7:3000' }).liveSource?.upstreamUrl).toBe('http://10.0.0.7:3000')
  })

  it('an upstream address with a user name or password is refused, since they would not be sent, and is never quoted', () => {
    for (const url of ['https://operator:hunter2pass@x.example', 'https://operator@x.example/base', 'http://:hunter2pass@x.example:3000']) {
      const message = refusal({ ...LIVE, PRONET_UPSTREAM_URL: url })
      expect(message, url).toBe(
        'invalid environment: PRONET_UPSTREAM_URL must carry no user name or password: they are not sent (the upstream is called with PRONET_UPSTREAM_KEY)',
      )
    }
  })

  it('the upstream address is the base the API paths are added to: one ending in /api/v1 is refused', () => {
    for (const url of ['https://x.example/api/v1', 'https://x.example/gateway/API/V1/']) {
      expect(refusal({ ...LIVE, PRONET_UPSTREAM_URL: url }), url).toBe('invalid environment: PRONET_UPSTREAM_URL is the base address the API paths are added to: leave out /api/v1')
    }
    expect(loadConfig({ ...LIVE, PRONET_UPSTREAM_URL: 'https://x.example/gateway/' }).liveSource?.upstreamUrl).toBe('https://x.example/gateway')
  })

  it('a key a request header cannot carry is refused without showing it', () => {
    for (const key of [`${KEY} extra`, `${KEY}\n`, `${KEY}é`]) {
      const message = refusal({ ...LIVE, PRONET_UPSTREAM_KEY: key })
      expect(message).toMatch(/^invalid environment: PRONET_UPSTREAM_KEY must be/)
      expect(message).not.toContain('S3cret')
    }
  })

  it('refuses a budget, timeout or stale allowance that is not a whole number in range, naming it', () => {
    for (const [name, value] of [
      ['PRONET_UPSTREAM_RPS', '0'],
      ['PRONET_UPSTREAM_RPS', '2.5'],
      ['PRONET_UPSTREAM_RPS', '-1'],
      ['PRONET_UPSTREAM_RPS', 'lots'],
      ['PRONET_UPSTREAM_TIMEOUT_MS', '10'],
      ['PRONET_UPSTREAM_TIMEOUT_MS', '30s'],
      ['PRONET_SERVE_STALE_S', '-5'],
      ['PRONET_SERVE_STALE_S', '1e3'],
    ] as const) {
      expect(refusal({ ...LIVE, [name]: value }), `${name}=${value}`).toMatch(new RegExp(`^invalid environment: ${name} must be a whole number`))
    }
  })

  it('checks a set live setting even in store mode, so a bad value shows before the mode is switched on', () => {
    expect(refusal({ PRONET_UPSTREAM_RPS: 'fast' })).toMatch(/PRONET_UPSTREAM_RPS must be/)
    expect(refusal({ PRONET_FRESHNESS: '{"profiles": 60}' })).toMatch(/PRONET_FRESHNESS/)
  })

  it('PRONET_FRESHNESS overrides the defaults it names and keeps the rest', () => {
    const freshness = loadConfig({ ...LIVE, PRONET_FRESHNESS: '{"posts": 600, "notFound": 0}' }).liveSource?.freshness
    expect(freshness).toEqual({ profile: 604800, company: 604800, posts: 600, reactions: 3600, articles: 86400, comments: 900, search: 300, notFound: 0 })
    expect(loadConfig({ ...LIVE, PRONET_FRESHNESS: '{}' }).liveSource?.freshness.search).toBe(300)
  })

  it('PRONET_FRESHNESS refuses what is not an object of whole seconds by known resource, naming the key', () => {
    expect(refusal({ ...LIVE, PRONET_FRESHNESS: '{"posts": 600' })).toMatch(/^invalid environment: PRONET_FRESHNESS must be a JSON object/)
    expect(refusal({ ...LIVE, PRONET_FRESHNESS: '[600]' })).toMatch(/^invalid environment: PRONET_FRESHNESS must be a JSON object/)
    expect(refusal({ ...LIVE, PRONET_FRESHNESS: '600' })).toMatch(/^invalid environment: PRONET_FRESHNESS must be a JSON object/)
    expect(refusal({ ...LIVE, PRONET_FRESHNESS: '{"posts": 600, "people": 60}' })).toBe(
      'invalid environment: PRONET_FRESHNESS has an unknown resource "people" (known: profile, company, posts, reactions, articles, comments, search, notFound)',
    )
    for (const bad of ['1.5', '"60"', '-1', 'null', 'true', '999999999999']) {
      expect(refusal({ ...LIVE, PRONET_FRESHNESS: `{"comments": ${bad}}` }), bad).toMatch(/^invalid environment: PRONET_FRESHNESS's "comments" must be a whole number of seconds/)
    }
  })
})
