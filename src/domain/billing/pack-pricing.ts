/**
 * Credit packs: sizes (50,000 to 50,000,000 credits) and progressive marginal prices. Prices are integer cents; a
 * tier's rate applies only to the credits inside it, so a larger pack is cheaper only above each
 * threshold.
 */
import { ApiError } from '../errors.ts'

export interface PriceTier {
  /** Upper bound of the tier in credits (Infinity for the last). */
  upTo: number
  /** Cents per 1,000 credits inside the tier. */
  centsPer1000: number
}

/** The default price tiers; PRONET_PACK_TIERS may replace them (packTiersFrom). */
export const DEFAULT_PACK_TIERS: readonly PriceTier[] = [
  { upTo: 100_000, centsPer1000: 150 },
  { upTo: 500_000, centsPer1000: 120 },
  { upTo: 1_000_000, centsPer1000: 100 },
  { upTo: 5_000_000, centsPer1000: 80 },
  { upTo: 20_000_000, centsPer1000: 60 },
  { upTo: Infinity, centsPer1000: 45 },
]

export const PACK_MIN = 50_000
export const PACK_MAX = 50_000_000

/** Why `credits` is not a valid pack size, or undefined. */
export function packSizeProblem(credits: number): string | undefined {
  if (!Number.isSafeInteger(credits) || credits < PACK_MIN || credits > PACK_MAX) {
    return `a pack holds ${PACK_MIN.toLocaleString('en-US')} to ${PACK_MAX.toLocaleString('en-US')} credits.`
  }
  if (credits <= 1_000_000 ? credits % 50_000 !== 0 : (credits - 1_000_000) % 250_000 !== 0) {
    return 'pack sizes go in steps of 50,000 up to 1,000,000, then 250,000.'
  }
  return undefined
}

/** Price in cents of a pack of `credits` (sizes are multiples of 50,000, so cents are exact). */
export function packPriceCents(credits: number, tiers: readonly PriceTier[] = DEFAULT_PACK_TIERS): number {
  let cents = 0
  let from = 0
  for (const tier of tiers) {
    if (credits <= from) break
    const inTier = Math.min(credits, tier.upTo) - from
    cents += (inTier * tier.centsPer1000) / 1000
    from = tier.upTo
  }
  return Math.round(cents)
}

/** The quote the admin API and CLI give (`{credits, price}`), price in currency units with two decimals. */
export function quotePack(credits: number, tiers?: readonly PriceTier[]): { credits: number; price: number } {
  const problem = packSizeProblem(credits)
  if (problem) throw new ApiError('INVALID_PARAMETER', `Invalid parameter 'credits': ${problem}`, { parameter: 'credits' })
  return { credits, price: packPriceCents(credits, tiers) / 100 }
}

/**
 * PRONET_PACK_TIERS, the operator's own price table: a JSON array of tiers going upwards, each
 * `{"upTo": credits, "per1000": price}` with the last one open (no upTo), e.g.
 * `[{"upTo":100000,"per1000":1.5},{"per1000":1.2}]`. Prices are in currency units with at most two
 * decimals. Returns the tiers, or throws an Error saying what is wrong.
 */
export function packTiersFrom(json: string | undefined): readonly PriceTier[] {
  if (json === undefined) return DEFAULT_PACK_TIERS
  const example = 'such as [{"upTo":100000,"per1000":1.5},{"per1000":1.2}]'
  let given: unknown
  try {
    given = JSON.parse(json)
  } catch {
    throw new Error(`PRONET_PACK_TIERS must be a JSON array of tiers ${example}`)
  }
  if (!Array.isArray(given) || given.length === 0) throw new Error(`PRONET_PACK_TIERS must be a non-empty JSON array of tiers ${example}`)
  let below = 0
  return given.map((tier: unknown, i): PriceTier => {
    const where = `PRONET_PACK_TIERS[${i}]`
    const last = i === given.length - 1
    if (typeof tier !== 'object' || tier === null || Array.isArray(tier)) throw new Error(`${where} must be an object ${example}`)
    const { upTo, per1000, ...rest } = tier as { upTo?: unknown; per1000?: unknown }
    const extra = Object.keys(rest)
    if (extra.length > 0) throw new Error(`${where} has unknown field(s) ${extra.join(', ')}; a tier has upTo and per1000`)
    const cents = typeof per1000 === 'number' ? Math.round(per1000 * 100) : NaN
    if (!Number.isFinite(cents) || cents < 0 || Math.abs(cents - (per1000 as number) * 100) > 1e-6) {
      throw new Error(`${where}.per1000 must be a price of at least 0 with at most two decimals`)
    }
    if (last) {
      if (upTo !== undefined) throw new Error(`${where} is the last tier: it has no upTo (it covers every credit above the one before)`)
      return { upTo: Infinity, centsPer1000: cents }
    }
    if (typeof upTo !== 'number' || !Number.isSafeInteger(upTo) || upTo <= below) {
      throw new Error(`${where}.upTo must be a whole number of credits above ${below.toLocaleString('en-US')} (tiers go upwards; the last has no upTo)`)
    }
    below = upTo
    return { upTo, centsPer1000: cents }
  })
}
