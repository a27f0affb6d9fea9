/**
 * How big a network is: the named sizes PRONET_SEED takes (small, medium, large) and the scaling rule
 * for a bare profile count, plus the expected record volume for progress bars.
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
/**
 * Above this the generator's per-profile plan, which grows with the profile count, outgrows a default
 * Node heap; a far larger count would fail at once and leave a first start that fails again on every
 * start.
 */
export const MAX_PROFILES = 500_000
/** The profile counts a network may be asked for, in words (for the refusals). */
export const PROFILE_COUNT_RULE = `a profile count from ${MIN_PROFILES} to ${MAX_PROFILES.toLocaleString('en-US')}`

/** Why `n` cannot be a network's profile count, or undefined when it can. */
export function profileCountProblem(n: number): string | undefined {
  return Number.isSafeInteger(n) && n >= MIN_PROFILES && n <= MAX_PROFILES ? undefined : `the size must be small, medium, large or ${PROFILE_COUNT_RULE}`
}
const MIN_COMPANIES = 15

/** A profile count scales the rest so the named sizes sit on (or next to) the same curve. */
export function planNetwork(size: NetworkSize): NetworkPlan {
  if (typeof size === 'string') {
    const plan = NETWORK_SIZES[size]
    if (plan === undefined) throw new Error(`unknown network size "${String(size)}"`)
    return { ...plan }
  }
  const problem = profileCountProblem(size)
  if (problem !== undefined) throw new RangeError(`${problem} (got ${size})`)
  const profiles = size
  const ramp = Math.min(1, profiles / 2_000)
  return {
    profiles,
    companies: Math.max(MIN_COMPANIES, Math.round(profiles * 0.1 + 100 * ramp)),
    posts: Math.round(profiles * 10 + 5 * Math.min(profiles, 2_000)),
  }
}

/**
 * Records per post (the post, its reactions, the matching profile reactions, its comments) and
 * articles per profile, fitted to generated networks (a post gets more records in a bigger network,
 * where viral posts reach more members); used only to size progress bars.
 */
const ARTICLES_PER_PROFILE = 0.25
const recordsPerPost = (profiles: number): number => 14.7 + 0.95 * Math.log10(profiles / 2_000)

/** Expected number of records generateNetwork yields for these options (an estimate, within ~10%). */
export function estimateRecords(opts: { size: NetworkSize }): number {
  const plan = planNetwork(opts.size)
  return Math.round(plan.companies + plan.profiles * (1 + ARTICLES_PER_PROFILE) + plan.posts * recordsPerPost(plan.profiles))
}
