/**
 * Credit prices (D3): one table in the code. Each route declares its operation; the metering layer
 * prices a call from this rule, the request's parameters and what was delivered.
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
  /** A fixed number of credits per delivered response. */
  | { kind: 'flat'; credits: number }
  /** 1 credit per started block of `block` items of the (clamped) `count` parameter. */
  | { kind: 'perBlock'; block: number; defaultCount: number; maxCount: number }
  /** 1 credit per started group of `group` profiles requested (posts/updates). */
  | { kind: 'perGroup'; group: number }
  /** 1 credit per entry returned with a record (company/batch). */
  | { kind: 'perFound' }
  /** Account endpoints. */
  | { kind: 'free' }

export const PRICES: Readonly<Record<Operation, PriceRule>> = {
  profile: { kind: 'flat', credits: 1 },
  'profile.reactions': { kind: 'perBlock', block: 50, defaultCount: 10, maxCount: 50 },
  'profile.articles': { kind: 'perBlock', block: 50, defaultCount: 10, maxCount: 100 },
  posts: { kind: 'perBlock', block: 50, defaultCount: 10, maxCount: 50 },
  'posts.updates': { kind: 'perGroup', group: 15 },
  company: { kind: 'flat', credits: 1 },
  'company.batch': { kind: 'perFound' },
  'company.posts': { kind: 'perBlock', block: 50, defaultCount: 10, maxCount: 100 },
  'post.engagement': { kind: 'flat', credits: 2 },
  'post.comments': { kind: 'flat', credits: 1 },
  'post.reactions': { kind: 'flat', credits: 1 },
  'search.posts': { kind: 'flat', credits: 1 },
  usage: { kind: 'free' },
  subscription: { kind: 'free' },
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
      return Math.ceil(count / rule.block)
    }
    case 'perGroup':
      return Math.ceil((input.units ?? 0) / rule.group)
    case 'perFound':
      return input.units ?? 0
    case 'free':
      return 0
  }
}
