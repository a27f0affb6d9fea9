/**
 * Credit prices: one table in the code, whose credits operators may override in config
 * (PRONET_PRICES, parsed by pricesWithOverrides). Every price rule lives here: what a call holds on
 * admission (its full price, from its parsed request), what a delivered call bills, and what a 404
 * bills. Each data route names its row; the gateway asks the row and nothing else.
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

/** The operations of the data routes: each is priced by its row of the table. */
export type DataOperation = Exclude<Operation, 'usage' | 'subscription'>

/**
 * A billable rule. `notFound` is what a 404 of a record that does not exist bills (1 on every
 * single-record endpoint, feeds included; nothing over several records, nothing on search); it never
 * exceeds what was held.
 */
export type PriceRule =
  /** `credits` per delivered response. */
  | { kind: 'flat'; credits: number; notFound: number }
  /** `credits` per started block of `block` items of the request's (clamped) `count`. */
  | { kind: 'perBlock'; credits: number; block: number; notFound: number }
  /** `credits` per started group of `group` of the request's `units` (posts/updates: profiles requested). */
  | { kind: 'perGroup'; credits: number; group: number; notFound: number }
  /** Holds `credits` per requested unit (distinct batch entries); bills per entry delivered with a record. */
  | { kind: 'perFound'; credits: number; notFound: number }
  /** Account endpoints. */
  | { kind: 'free' }

export type PriceTable = Readonly<Record<Operation, PriceRule>>

export const PRICES: PriceTable = {
  profile: { kind: 'flat', credits: 1, notFound: 1 },
  'profile.reactions': { kind: 'perBlock', credits: 1, block: 50, notFound: 1 },
  'profile.articles': { kind: 'perBlock', credits: 1, block: 50, notFound: 1 },
  posts: { kind: 'perBlock', credits: 1, block: 50, notFound: 1 },
  // A call over several profiles is no single record: when none is found, it costs nothing.
  'posts.updates': { kind: 'perGroup', credits: 1, group: 15, notFound: 0 },
  company: { kind: 'flat', credits: 1, notFound: 1 },
  'company.batch': { kind: 'perFound', credits: 1, notFound: 0 },
  'company.posts': { kind: 'perBlock', credits: 1, block: 50, notFound: 1 },
  'post.engagement': { kind: 'flat', credits: 2, notFound: 1 },
  'post.comments': { kind: 'flat', credits: 1, notFound: 1 },
  'post.reactions': { kind: 'flat', credits: 1, notFound: 1 },
  'search.posts': { kind: 'flat', credits: 1, notFound: 0 },
  usage: { kind: 'free' },
  subscription: { kind: 'free' },
}

/** The most credits an operator may set as one price (per call, block, group or company). */
export const MAX_PRICE = 1_000_000

/**
 * PRONET_PRICES: a JSON object naming calls by their path after /api/v1/ (`profile`,
 * `post/engagement`, …), each with the credits of its rule: per call, per started block of 50 of a
 * feed's count, per started group of 15 profiles (posts/updates), per company returned (company/batch).
 * Calls not named keep the table's price; what a 404 bills stays the table's. usage and subscription
 * stay free. Returns the table, or throws an Error saying what is wrong.
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
    if (rule.kind === 'free') throw new Error(`PRONET_PRICES: ${name} is free (the account endpoints are free)`)
    if (typeof credits !== 'number' || !Number.isSafeInteger(credits) || credits < 0 || credits > MAX_PRICE) {
      throw new Error(`PRONET_PRICES: the price of ${name} must be a whole number of credits from 0 to ${MAX_PRICE.toLocaleString('en-US')}`)
    }
    table[operation] = { ...rule, credits }
  }
  return table as PriceTable
}

/**
 * What a parsed request offers a rule to count: `count`, a feed's (clamped) page size; `units`, the
 * distinct things requested (posts/updates: profiles; company/batch: entries).
 */
export type PriceBasis = {
  readonly count?: number
  readonly units?: number
  /** Whatever else the request holds, which no rule reads. */
  readonly [field: string]: unknown
}

/**
 * The full price of a call: what admission holds (402 when the balance is below it), computed once
 * from its parsed request. A rule whose count is missing from the request is a fault of the route,
 * thrown rather than priced 0.
 */
export function priceOf(rule: PriceRule, basis: PriceBasis): number {
  switch (rule.kind) {
    case 'flat':
      return rule.credits
    case 'perBlock':
      return rule.credits * Math.ceil(Math.max(counted(basis.count, 'count', rule), 1) / rule.block)
    case 'perGroup':
      return rule.credits * Math.ceil(counted(basis.units, 'units', rule) / rule.group)
    case 'perFound':
      return rule.credits * counted(basis.units, 'units', rule)
    case 'free':
      return 0
  }
}

function counted(value: number | undefined, name: string, rule: PriceRule): number {
  if (value === undefined) throw new Error(`a ${rule.kind} price counts the request's ${name}, which this request does not have`)
  return value
}

/** What a 404 for a record that does not exist bills, as the price is told: the rule's, never more than one call's price. */
export const notFoundCredits = (rule: Exclude<PriceRule, { kind: 'free' }>): number => Math.min(rule.notFound, rule.credits)

/**
 * What a call bills when it ends, never more than was held for it: a delivered response (200) its
 * full price, or for a per-found rule the entries `found` with a record; a 404 of a missing record
 * the rule's `notFound`; every other outcome nothing.
 */
export function billed(rule: PriceRule, outcome: { status: number; held: number; found?: number | undefined }): number {
  if (rule.kind === 'free') return 0
  const owed =
    outcome.status === 200
      ? rule.kind === 'perFound'
        ? rule.credits * (outcome.found ?? 0)
        : outcome.held
      : outcome.status === 404
        ? rule.notFound
        : 0
  return Math.min(owed, outcome.held)
}
