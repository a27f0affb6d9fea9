/**
 * Credit prices (D3): one table in the code, whose credits operators may override in config
 * (PRONET_PRICES, parsed by pricesWithOverrides). Each route declares its operation; the metering
 * layer prices a call from its rule, the request's parameters and what was delivered.
 */
export type Operation =
  | 'profile'
  | 'profile.reactions'
  | 'profile.articles'
  | 'posts'
  | 'posts.updates'
  | 'company'
  | 'company.batch'
  | 'company.posts'
  | 'post.engagement'
  | 'post.comments'
  | 'post.reactions'
  | 'search.posts'
  | 'usage'
  | 'subscription'

export type PriceRule =
  /** `credits` per delivered response. */
  | { kind: 'flat'; credits: number }
  /** `credits` per started block of `block` items of the (clamped) `count` parameter. */
  | { kind: 'perBlock'; credits: number; block: number; defaultCount: number; maxCount: number }
  /** `credits` per started group of `group` profiles requested (posts/updates). */
  | { kind: 'perGroup'; credits: number; group: number }
  /** `credits` per entry returned with a record (company/batch). */
  | { kind: 'perFound'; credits: number }
  /** Account endpoints. */
  | { kind: 'free' }

export type PriceTable = Readonly<Record<Operation, PriceRule>>

export const PRICES: PriceTable = {
  profile: { kind: 'flat', credits: 1 },
  'profile.reactions': { kind: 'perBlock', credits: 1, block: 50, defaultCount: 10, maxCount: 50 },
  'profile.articles': { kind: 'perBlock', credits: 1, block: 50, defaultCount: 10, maxCount: 100 },
  posts: { kind: 'perBlock', credits: 1, block: 50, defaultCount: 10, maxCount: 50 },
  'posts.updates': { kind: 'perGroup', credits: 1, group: 15 },
  company: { kind: 'flat', credits: 1 },
  'company.batch': { kind: 'perFound', credits: 1 },
  'company.posts': { kind: 'perBlock', credits: 1, block: 50, defaultCount: 10, maxCount: 100 },
  'post.engagement': { kind: 'flat', credits: 2 },
  'post.comments': { kind: 'flat', credits: 1 },
  'post.reactions': { kind: 'flat', credits: 1 },
  'search.posts': { kind: 'flat', credits: 1 },
  usage: { kind: 'free' },
  subscription: { kind: 'free' },
}

/** The most credits an operator may set as one price (per call, block, group or company). */
export const MAX_PRICE = 1_000_000

/**
 * PRONET_PRICES: a JSON object naming calls by their path after /api/v1/ (`profile`,
 * `post/engagement`, …), each with the credits of its rule: per call, per started block of 50 of a
 * feed's count, per started group of 15 profiles (posts/updates), per company returned (company/batch).
 * Calls not named keep D3's price. usage and subscription stay free (spec 1: "These endpoints are
 * free"). Returns the table, or throws an Error saying what is wrong.
 */
export function pricesWithOverrides(json: string | undefined): PriceTable {
  if (json === undefined) return PRICES
  let given: unknown
  try {
    given = JSON.parse(json)
  } catch {
    throw new Error('PRONET_PRICES must be a JSON object such as {"profile": 2, "post/engagement": 3}')
  }
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new Error('PRONET_PRICES must be a JSON object such as {"profile": 2, "post/engagement": 3}')
  }
  const table: Record<string, PriceRule> = { ...PRICES }
  for (const [name, credits] of Object.entries(given)) {
    const operation = name.replace(/^\/?(api\/v1\/)?/, '').replaceAll('/', '.')
    const rule = Object.hasOwn(PRICES, operation) ? PRICES[operation as Operation] : undefined
    if (rule === undefined) {
      const known = Object.keys(PRICES).filter((o) => PRICES[o as Operation].kind !== 'free').map((o) => o.replaceAll('.', '/'))
      throw new Error(`PRONET_PRICES names no call '${name}'; the calls are ${known.join(', ')}`)
    }
    if (rule.kind === 'free') throw new Error(`PRONET_PRICES: ${name} is free (spec 1: the account endpoints are free)`)
    if (typeof credits !== 'number' || !Number.isSafeInteger(credits) || credits < 0 || credits > MAX_PRICE) {
      throw new Error(`PRONET_PRICES: the price of ${name} must be a whole number of credits from 0 to ${MAX_PRICE.toLocaleString('en-US')}`)
    }
    table[operation] = { ...rule, credits }
  }
  return table as PriceTable
}

/**
 * Whether a 404 of the call bills 1 credit (D3: every single-record endpoint, feeds included). A
 * call over several records (posts/updates: "failed requests cost nothing", 4.7; the batch) never does.
 */
export const notFoundBills = (rule: PriceRule): boolean => rule.kind === 'flat' || rule.kind === 'perBlock'

/** Full price of a delivered call: `count` is the request's count parameter, `units` what the rule counts. */
export function priceOf(rule: PriceRule, input: { count?: number | undefined; units?: number | undefined }): number {
  switch (rule.kind) {
    case 'flat':
      return rule.credits
    case 'perBlock': {
      const count = Math.min(Math.max(input.count ?? rule.defaultCount, 1), rule.maxCount)
      return rule.credits * Math.ceil(count / rule.block)
    }
    case 'perGroup':
      return rule.credits * Math.ceil((input.units ?? 0) / rule.group)
    case 'perFound':
      return rule.credits * (input.units ?? 0)
    case 'free':
      return 0
  }
}
