/**
 * How big a network is: the named sizes of the operator interface (D12) and the scaling rule for a
 * bare profile count, plus the expected record volume for progress bars.
 */

export type NetworkSize = 'small' | 'medium' | 'large' | number

export interface NetworkPlan {
  profiles: number
  companies: number
  posts: number
}

export const NETWORK_SIZES: Record<'small' | 'medium' | 'large', NetworkPlan> = {
  small: { profiles: 2_000, companies: 300, posts: 30_000 },
  medium: { profiles: 20_000, companies: 2_000, posts: 200_000 },
  large: { profiles: 200_000, companies: 20_000, posts: 2_000_000 },
}

/** Below this the edge cases the tests rely on (memorials, hidden positions, streaks) cannot all fit. */
export const MIN_PROFILES = 20
const MIN_COMPANIES = 15

/** A profile count scales the rest so the named sizes sit on (or next to) the same curve. */
export function planNetwork(size: NetworkSize): NetworkPlan {
  if (typeof size === 'string') {
    const plan = NETWORK_SIZES[size]
    if (plan === undefined) throw new Error(`unknown network size "${String(size)}"`)
    return { ...plan }
  }
  if (!Number.isFinite(size) || size < 1) throw new Error(`network size must be a positive profile count (got ${size})`)
  const profiles = Math.max(MIN_PROFILES, Math.floor(size))
  const ramp = Math.min(1, profiles / 2_000)
  return {
    profiles,
    companies: Math.max(MIN_COMPANIES, Math.round(profiles * 0.1 + 100 * ramp)),
    posts: Math.round(profiles * 10 + 5 * Math.min(profiles, 2_000)),
  }
}

/**
 * Records per post (the post, its reactions, the matching profile reactions, its comments) and
 * articles per profile, measured on generated networks (14.7 per post at 2,000 profiles, 15.7 at
 * 20,000: viral posts reach more members in a bigger network); used only to size progress bars.
 */
const ARTICLES_PER_PROFILE = 0.25
const recordsPerPost = (profiles: number): number => 14.7 + 0.95 * Math.log10(profiles / 2_000)

/** Expected number of records generateNetwork yields for these options (an estimate, within ~10%). */
export function estimateRecords(opts: { size: NetworkSize }): number {
  const plan = planNetwork(opts.size)
  return Math.round(plan.companies + plan.profiles * (1 + ARTICLES_PER_PROFILE) + plan.posts * recordsPerPost(plan.profiles))
}
