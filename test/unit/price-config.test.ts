/**
 * The operator's price tables (credit prices and pack tiers both have defaults an operator may
 * override in config): PRONET_PRICES and PRONET_PACK_TIERS as loadConfig reads them.
 */
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config/config.ts'
import { DEFAULT_PACK_TIERS, packPriceCents } from '../../src/domain/billing/pack-pricing.ts'
import { PRICES, priceOf } from '../../src/domain/billing/prices.ts'

describe('PRONET_PRICES', () => {
  it('unset: the default credit prices', () => {
    expect(loadConfig({}).prices).toBe(PRICES)
  })

  it('overrides the credits of the calls it names, by path with or without /api/v1/; the rest keep their default prices', () => {
    const { prices } = loadConfig({ PRONET_PRICES: '{"profile": 3, "/api/v1/post/engagement": 5, "company/batch": 2, "posts/updates": 4, "company/posts": 0}' })
    expect(priceOf(prices.profile, {})).toBe(3)
    expect(priceOf(prices['post.engagement'], {})).toBe(5)
    // Per company found, per started group of 15, per started block of 50: the rule keeps its shape.
    expect(priceOf(prices['company.batch'], { units: 3 })).toBe(6)
    expect(priceOf(prices['posts.updates'], { units: 16 })).toBe(8)
    expect(priceOf(prices['company.posts'], { count: 100 })).toBe(0)
    expect(prices.company).toEqual(PRICES.company)
    expect(priceOf(prices['profile.articles'], { count: 100 })).toBe(2)
  })

  it.each([
    ['not json', /PRONET_PRICES must be a JSON object/],
    ['[1, 2]', /PRONET_PRICES must be a JSON object/],
    ['{"profiles": 2}', /PRONET_PRICES names no call 'profiles'; the calls are profile, profile\/reactions/],
    ['{"usage": 1}', /PRONET_PRICES: usage is free/],
    ['{"subscription": 0}', /PRONET_PRICES: subscription is free/],
    ['{"profile": -1}', /the price of profile must be a whole number of credits from 0 to 1,000,000/],
    ['{"profile": 1.5}', /the price of profile must be a whole number/],
    ['{"profile": "2"}', /the price of profile must be a whole number/],
    ['{"profile": 1000001}', /the price of profile must be a whole number/],
    ['{"__proto__": 1}', /names no call '__proto__'/],
  ])('%s is refused at start: %s', (value, why) => {
    expect(() => loadConfig({ PRONET_PRICES: value })).toThrow(ConfigError)
    expect(() => loadConfig({ PRONET_PRICES: value })).toThrow(why)
  })
})

describe('PRONET_PACK_TIERS', () => {
  it('unset: the default pack tiers (50,000 cost 75.00, 200,000 cost 270.00)', () => {
    const { packTiers } = loadConfig({})
    expect(packTiers).toBe(DEFAULT_PACK_TIERS)
    expect(packPriceCents(50_000, packTiers)).toBe(7_500)
    expect(packPriceCents(200_000, packTiers)).toBe(27_000)
  })

  it('replaces the tiers, marginal as the defaults are: each rate only for the credits inside its tier', () => {
    const { packTiers } = loadConfig({ PRONET_PACK_TIERS: '[{"upTo": 100000, "per1000": 2}, {"upTo": 300000, "per1000": 1.25}, {"per1000": 0.5}]' })
    expect(packTiers).toEqual([
      { upTo: 100_000, centsPer1000: 200 },
      { upTo: 300_000, centsPer1000: 125 },
      { upTo: Infinity, centsPer1000: 50 },
    ])
    expect(packPriceCents(50_000, packTiers)).toBe(10_000)
    // 100,000 at 2.00, 200,000 at 1.25, 700,000 at 0.50.
    expect(packPriceCents(1_000_000, packTiers)).toBe(20_000 + 25_000 + 35_000)
    expect(loadConfig({ PRONET_PACK_TIERS: '[{"per1000": 0.99}]' }).packTiers).toEqual([{ upTo: Infinity, centsPer1000: 99 }])
  })

  it.each([
    ['not json', /PRONET_PACK_TIERS must be a JSON array/],
    ['[]', /must be a non-empty JSON array/],
    ['{"per1000": 1}', /must be a non-empty JSON array/],
    ['[1]', /PRONET_PACK_TIERS\[0\] must be an object/],
    ['[{"upTo": 100000, "per1000": 1}]', /PRONET_PACK_TIERS\[0\] is the last tier: it has no upTo/],
    ['[{"per1000": 1}, {"per1000": 0.5}]', /PRONET_PACK_TIERS\[0\]\.upTo must be a whole number of credits above 0/],
    ['[{"upTo": 200000, "per1000": 1}, {"upTo": 100000, "per1000": 1}, {"per1000": 1}]', /PRONET_PACK_TIERS\[1\]\.upTo must be a whole number of credits above 200,000/],
    ['[{"upTo": 1.5, "per1000": 1}, {"per1000": 1}]', /\[0\]\.upTo must be a whole number/],
    ['[{"per1000": -1}]', /PRONET_PACK_TIERS\[0\]\.per1000 must be a price of at least 0 with at most two decimals/],
    ['[{"per1000": 1.005}]', /at most two decimals/],
    ['[{"per1000": "1"}]', /at most two decimals/],
    ['[{"per1000": 1, "currency": "EUR"}]', /PRONET_PACK_TIERS\[0\] has unknown field\(s\) currency/],
  ])('%s is refused at start: %s', (value, why) => {
    expect(() => loadConfig({ PRONET_PACK_TIERS: value })).toThrow(ConfigError)
    expect(() => loadConfig({ PRONET_PACK_TIERS: value })).toThrow(why)
  })
})
