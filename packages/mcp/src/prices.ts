/**
 * What each call costs, as pronet's default price table says (docs/credits-and-limits.md), and the
 * most a call may cost given its input: the budget refuses a call before it is sent when that much
 * would pass it. An operator may set other prices; the budget then still counts what the API says
 * it charged (X-Credits-Charged), so a call priced higher than this table can overshoot by one call.
 */

export type PriceRule =
  /** `credits` per call. */
  | { kind: 'flat'; credits: number }
  /** `credits` per started block of `block` of the call's `count`, larger counts served at `clampedAt`. */
  | { kind: 'perBlock'; credits: number; block: number; clampedAt?: number }
  /** `credits` per started group of `group` profiles named in `profileUrlsOrUrns`. */
  | { kind: 'perGroup'; credits: number; group: number }
  /** `credits` per company found; as much as one per distinct entry is held. */
  | { kind: 'perFound'; credits: number }
  | { kind: 'free' }

export interface Price {
  rule: PriceRule
  /** What the answer "no such record" (a 404) bills. */
  notFound: number
}

/** The price as a tool's description states it; `countMax`, the largest `count` the call accepts, keeps its tiers to counts that exist. */
export function priceText(price: Price, countMax?: number): string {
  const { rule } = price
  const credits = (n: number) => `${n} credit${n === 1 ? '' : 's'}`
  const missing = price.notFound > 0 ? `; a record that does not exist: ${credits(price.notFound)}` : ''
  switch (rule.kind) {
    case 'flat':
      return `${credits(rule.credits)} per call${missing}`
    case 'perBlock': {
      const top = Math.min(countMax ?? Infinity, rule.clampedAt ?? Infinity)
      if (top <= rule.block) return `${credits(rule.credits)} per call (\`count\` 1-${top})${missing}`
      const clamped = rule.clampedAt !== undefined && (countMax === undefined || countMax > rule.clampedAt) ? `; a larger count is served as ${rule.clampedAt}` : ''
      const upper = Math.min(top, rule.block * 2)
      return `${credits(rule.credits)} per started block of ${rule.block} of \`count\` (count 1-${rule.block}: ${credits(rule.credits)}, ${rule.block + 1}-${upper}: ${credits(rule.credits * 2)}${clamped})${missing}`
    }
    case 'perGroup':
      return `${credits(rule.credits)} per started group of ${rule.group} profiles named${missing}`
    case 'perFound':
      return `${credits(rule.credits)} per company found (the call needs ${credits(rule.credits)} per distinct entry free in the budget)`
    case 'free':
      return 'free (0 credits)'
  }
}

/**
 * The most a call may cost: what the API holds before it runs it. `countDefault` is the contract's
 * default page size for the feeds. Inputs the API would refuse (free) are priced as if valid.
 */
export function maxPrice(price: Price, input: Record<string, unknown>, countDefault: number | undefined): number {
  const { rule } = price
  switch (rule.kind) {
    case 'flat':
      return rule.credits
    case 'perBlock': {
      const asked = typeof input.count === 'number' ? input.count : (countDefault ?? 1)
      const count = Math.max(1, Math.min(asked, rule.clampedAt ?? asked))
      return rule.credits * Math.ceil(count / rule.block)
    }
    case 'perGroup': {
      // Distinct as written: the API counts one profile named twice once, so this is never below its count.
      const text = typeof input.profileUrlsOrUrns === 'string' ? input.profileUrlsOrUrns : ''
      const profiles = new Set(text.split(',').map((s) => s.trim()).filter((s) => s !== ''))
      return rule.credits * Math.ceil(profiles.size / rule.group)
    }
    case 'perFound': {
      const entries = Array.isArray(input.companies) ? input.companies : []
      const distinct = new Set(entries.filter((e): e is string => typeof e === 'string').map((e) => e.trim().toLowerCase()).filter((e) => e !== ''))
      return rule.credits * distinct.size
    }
    case 'free':
      return 0
  }
}
