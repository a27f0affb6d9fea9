/**
 * Credit packs (D10, spec 8): sizes and progressive marginal prices. Prices are integer cents; a
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

/** D10's table; configuration may replace it. */
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

/** The quote of D12 (`{credits, price}`), price in currency units with two decimals. */
export function quotePack(credits: number, tiers?: readonly PriceTier[]): { credits: number; price: number } {
  const problem = packSizeProblem(credits)
  if (problem) throw new ApiError('INVALID_PARAMETER', `Invalid parameter 'credits': ${problem}`, { parameter: 'credits' })
  return { credits, price: packPriceCents(credits, tiers) / 100 }
}
