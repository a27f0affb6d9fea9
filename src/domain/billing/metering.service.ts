/**
 * The gateway's metering: rate budgets on arrival, credit holds on admission, settles with their
 * usage line, the account endpoints' figures and the operator's subscription and pack changes.
 * Refusals are ApiErrors; the HTTP layer renders them.
 */
import type { Clock } from '../../ports/clock.ts'
import type { Hold, Ledger, SettleResult, UsageLine } from '../../ports/ledger.ts'
import { takeThenLease, type RateDecision, type RateLimiter } from '../../ports/rate-limiter.ts'
import { ApiError } from '../errors.ts'
import {
  balanceAt,
  effectiveRps,
  isActiveStatus,
  PACK_LIFETIME_MONTHS,
  patchProblem,
  type Balance,
  type BillingState,
  type SubscriptionPatch,
} from './billing-rules.ts'
import { addMonths, iso } from './calendar.ts'
import { addToCount } from './counts.ts'
import { packPriceCents, quotePack, type PriceTier } from './pack-pricing.ts'
import { createRpsCache } from './rps-cache.ts'
import { createSearchTimeBudget, SEARCH_MS_PER_RPS } from './search-time-budget.ts'
import type { InvalidationBus } from '../../ports/invalidation-bus.ts'
import type { Operation } from './prices.ts'

/** Simultaneous searches per account are capped at this multiple of rpsLimit. */
export const SEARCH_CAP_PER_RPS = 2
/** A search lease lapses after this long if its node never gives it back (the client's 30 s timeout). */
export const SEARCH_LEASE_MS = 60_000

/** How long a company batch may wait for rate units before its remaining entries come back RATE_LIMITED. */
export const BATCH_WAIT_MS = 90_000

export interface MeteringDeps {
  ledger: Ledger
  limiter: RateLimiter
  clock: Clock
  /** Waits `ms` of the clock's time (a timer in production; tests move a manual clock). */
  sleep: (ms: number) => Promise<void>
  /** The self-serve purchase page named in 402 details. */
  buyCreditsUrl: string
  packTiers?: readonly PriceTier[]
  /** Monotonic milliseconds, for the time searches take (search-time-budget.ts); default performance.now. */
  monotonic?: () => number
  /**
   * Whether each account has a share of this node's search time (default true). Only where searches
   * run on the node's one thread (the embedded store): on PostgreSQL they run in the database,
   * concurrently, and a search's time is mostly waiting for it, so a share of wall time refused a
   * 1 rps plan's OR queries at its own rate (8 of 15) that the embedded store served; there the cap on
   * simultaneous searches bounds an account.
   */
  searchTimeShare?: boolean
  /**
   * How long a node trusts the per-second limit it read for an account (rps-cache.ts); 0 reads it on
   * every call, as the embedded store, whose read is in the process, does (default 0).
   */
  rpsCacheMs?: number
  /** Tells the other nodes of a subscription change, so their cached limits go at once. */
  bus?: InvalidationBus | undefined
}

/**
 * One of an account's simultaneous searches, taken with the search's rate units on arrival: `release`
 * gives it back, undefined when every one was in use (the search is refused once parsed).
 */
export interface SearchLease {
  release: (() => Promise<void>) | undefined
}

/** Rate-limit units a call takes on arrival (engagement 2, any other 1): batch entries after the first take more later. */
export const arrivalUnits = (operation: Operation): number => (operation === 'post.engagement' ? 2 : 1)

export interface SubscriptionView {
  plan: 'free' | 'custom'
  active: boolean
  status: string
  creditsRemaining: number
  subscriptionCreditsRemaining: number
  paygCreditsRemaining: number
  paygExpiresAt: string | null
  creditsLimit: number
  creditsUsed: number
  renewalDate: string | null
  rpsLimit: number
  cancelAtPeriodEnd: boolean
}

/** The subscription resource of a state at `at`. */
export function subscriptionView(state: BillingState, at: number): SubscriptionView {
  const s = state.subscription
  const balance = balanceAt(state, at)
  const creditsLimit = s.plan === 'none' ? 0 : s.creditsLimit
  return {
    plan: s.plan === 'custom' ? 'custom' : 'free',
    active: isActiveStatus(s.status),
    status: s.status,
    creditsRemaining: balance.total,
    subscriptionCreditsRemaining: balance.subscription,
    paygCreditsRemaining: balance.payg,
    paygExpiresAt: balance.paygExpiresAt === null ? null : iso(balance.paygExpiresAt),
    creditsLimit,
    creditsUsed: Math.max(0, creditsLimit - balance.subscription),
    renewalDate: s.renewalAt === null ? null : iso(s.renewalAt),
    rpsLimit: effectiveRps(s),
    cancelAtPeriodEnd: s.cancelAtPeriodEnd,
  }
}

/** The rate-limit headers every data response carries. */
export function rateHeaders(d: RateDecision, cost: number): Record<string, string> {
  return {
    'x-ratelimit-limit': String(d.limit),
    'x-ratelimit-remaining': String(Math.max(0, d.remaining)),
    'x-ratelimit-reset': String(Math.ceil(d.resetAt / 1000)),
    'x-ratelimit-cost': String(cost),
  }
}

/** Retry-After of a call the plan's rate can never afford (engagement below 2 per second). */
export const UNAFFORDABLE_RETRY_AFTER_S = 60

/** Whole seconds after which a refused call will be admitted (at least 1, never early). */
const retryAfterSeconds = (ms: number): string => String(Math.max(1, Math.ceil(ms / 1000)))

/**
 * Slack added to the wait of a call refused while batches queue for the same budget: a batch takes
 * each unit when its timer fires, a little after the unit came free, so the unit frees again as much
 * later than a whole number of seconds after the last one.
 */
const QUEUED_WAIT_MARGIN_MS = 100

/**
 * The wait after which a call needing `units` is admitted although batches on this node still wait
 * for `queued` units of the same budget of `rps`. They take each unit as soon as it comes free, so a
 * wait counted from the window alone sends the caller back just after a batch took the unit (a
 * client honouring Retry-After was refused for as long as the batch ran). Every unit in the window
 * now is free within a second, and every unit taken after it a second after it was taken, so the
 * budget frees `rps` units per second at least: `queued + units` within ceil((queued + units) / rps)
 * seconds, plus the batches' lag.
 */
export function queuedWaitMs(windowWaitMs: number, queued: number, units: number, rps: number): number {
  if (queued <= 0) return windowWaitMs
  return Math.max(windowWaitMs, 1000 * Math.ceil((queued + units) / rps) + QUEUED_WAIT_MARGIN_MS)
}

export type MeteringService = ReturnType<typeof createMeteringService>

export function createMeteringService(deps: MeteringDeps) {
  const { ledger, limiter, clock } = deps
  const monotonic = deps.monotonic ?? (() => performance.now())
  const searchTime = createSearchTimeBudget(monotonic)
  const shareTime = deps.searchTimeShare ?? true
  const limits = createRpsCache({ read: (accountId, at) => stateOf(accountId, at), monotonic, ttlMs: deps.rpsCacheMs ?? 0, bus: deps.bus })
  const rpsOf = (accountId: string, at: number) => limits.rps(accountId, at)
  /** Units the batches running on this node still wait for, per account (their 429s' Retry-After counts them). */
  const queuedBatchUnits = new Map<string, number>()
  const queue = (accountId: string, delta: number): void => addToCount(queuedBatchUnits, accountId, delta)

  /**
   * 402 QUOTA_EXHAUSTED with the balances and the credits required in its details. Calls in flight
   * hold their full price until they settle, so a balance that reads as enough may not be:
   * `creditsHeld` says how much is held, and the message says so when that is why.
   */
  function quotaExhausted(b: Balance, credits: number, held: number, message?: string): ApiError {
    const needs = `This call needs ${credits} credit${credits === 1 ? '' : 's'}`
    return new ApiError(
      'QUOTA_EXHAUSTED',
      message ??
        (b.total >= credits
          ? `${needs}; the balance of ${b.total} less the ${held} held by this account's calls still in flight cannot cover it.`
          : `${needs}; the balance cannot cover it.`),
      {
        creditsRemaining: b.total,
        subscriptionCreditsRemaining: b.subscription,
        paygCreditsRemaining: b.payg,
        creditsRequired: credits,
        creditsHeld: held,
        buyCreditsUrl: deps.buyCreditsUrl,
      },
    )
  }

  async function stateOf(accountId: string, at: number): Promise<BillingState> {
    const state = await ledger.state(accountId, at)
    if (!state) throw new ApiError('NOT_FOUND', `No account '${accountId}'.`)
    return state
  }

  /** The rate-limit headers of the usage and subscription endpoints: the plan's rps and cost 0, no Remaining/Reset. */
  async function accountEndpointHeaders(accountId: string, at: number): Promise<Record<string, string>> {
    const rps = await rpsOf(accountId, at)
    return { 'x-ratelimit-limit': String(rps), 'x-ratelimit-cost': '0' }
  }

  return {
    /**
     * Takes a data call's arrival units from the account's sliding one-second budget. Refusal: 429
     * with a truthful Retry-After, or a minute's when the plan can never afford the call (engagement
     * on a plan below 2 per second, as engagement takes 2 units).
     */
    async arrive(accountId: string, operation: Operation, at: number): Promise<{ decision: RateDecision; units: number; searchLease?: SearchLease }> {
      const rps = await rpsOf(accountId, at)
      const units = arrivalUnits(operation)
      if (units > rps) {
        const decision = await limiter.take(`rps:${accountId}`, rps, 0, at)
        throw new ApiError(
          'RATE_LIMITED',
          `This endpoint takes ${units} units of the per-second budget; a plan limit of ${rps} per second cannot call it.`,
          { rpsLimit: rps, unitsRequired: units },
          // Every 429 carries Retry-After. No wait makes this call fit the plan (only a higher
          // rpsLimit does), so it says a minute: a client honouring it does not hammer.
          { ...rateHeaders(decision, 0), 'retry-after': String(UNAFFORDABLE_RETRY_AFTER_S) },
        )
      }
      // A search takes one of its account's simultaneous searches with its units (one round trip to
      // Redis); its refusal waits for the search's parse step, as a lease taken there would.
      const searchLease =
        operation === 'search.posts'
          ? await takeThenLease(limiter, `rps:${accountId}`, rps, units, at, { key: `search:${accountId}`, limit: SEARCH_CAP_PER_RPS * rps, ttlMs: SEARCH_LEASE_MS })
          : undefined
      const decision = searchLease ? searchLease.decision : await limiter.take(`rps:${accountId}`, rps, units, at)
      if (!decision.ok) {
        const waitMs = queuedWaitMs(decision.retryAfterMs, queuedBatchUnits.get(accountId) ?? 0, units, rps)
        throw new ApiError(
          'RATE_LIMITED',
          `Rate limit of ${rps} requests per second exceeded; retry after the Retry-After delay.`,
          { rpsLimit: rps, retryAfterMs: Math.ceil(waitMs) },
          { ...rateHeaders(decision, 0), 'retry-after': retryAfterSeconds(waitMs) },
        )
      }
      return searchLease ? { decision, units, searchLease: { release: searchLease.release } } : { decision, units }
    },

    /** The account's per-second budget as it stands, taking nothing (the rate headers of a refusal that costs no unit). */
    async standing(accountId: string, at: number): Promise<RateDecision> {
      const rps = await rpsOf(accountId, at)
      return limiter.take(`rps:${accountId}`, rps, 0, at)
    },

    accountEndpointHeaders,

    /** The usage and the subscription endpoint each have their own budget of 1 request a second per account. */
    async arriveAccountEndpoint(accountId: string, which: 'usage' | 'subscription', at: number): Promise<Record<string, string>> {
      const headers = await accountEndpointHeaders(accountId, at)
      const decision = await limiter.take(`${which}:${accountId}`, 1, 1, at)
      if (!decision.ok) {
        throw new ApiError(
          'RATE_LIMITED',
          `The ${which} endpoint answers once per second per account; retry after the Retry-After delay.`,
          undefined,
          { ...headers, 'retry-after': retryAfterSeconds(decision.retryAfterMs) },
        )
      }
      return headers
    },

    /**
     * The units a batch's entries after the first will take (one each), each waiting while the
     * window is full and given up (undefined) once `deadline` has passed, or once `abandoned` says
     * the batch's client has gone: a unit taken for a response nobody receives is budget the
     * account's other calls lose (a dropped 50-company batch on 1 rps held the budget for 49 s).
     * Until `end()`, the units not yet taken count in the Retry-After of this account's other calls
     * refused meanwhile.
     */
    batchUnits(accountId: string, count: number, deadline: number, abandoned: () => boolean = () => false) {
      let left = Math.max(0, count)
      queue(accountId, left)
      return {
        async take(): Promise<RateDecision | undefined> {
          for (;;) {
            const at = clock.now()
            if (at > deadline || abandoned()) return undefined
            const rps = await rpsOf(accountId, at)
            const decision = await limiter.take(`rps:${accountId}`, rps, 1, at)
            if (decision.ok) {
              if (left > 0) {
                left--
                queue(accountId, -1)
              }
              return decision
            }
            await deps.sleep(Math.max(1, Math.min(decision.retryAfterMs, deadline - at + 1)))
          }
        },
        end(): void {
          queue(accountId, -left)
          left = 0
        },
      }
    },

    /**
     * One of the account's simultaneous searches (at most 2 × rpsLimit), within its share of this
     * node's search time (search-time-budget.ts); 429 with Retry-After past either. Resolves to the
     * function that ends it.
     */
    async enterSearch(accountId: string, at: number, taken?: SearchLease): Promise<() => Promise<void>> {
      const rps = await rpsOf(accountId, at)
      const wait = shareTime ? searchTime.waitMs(accountId, rps) : 0
      if (wait > 0) {
        await taken?.release?.()
        throw new ApiError(
          'RATE_LIMITED',
          "This account's searches have used their share of search time on this node; retry after the Retry-After delay.",
          { searchMsPerSecond: rps * SEARCH_MS_PER_RPS },
          { 'retry-after': String(Math.max(1, Math.ceil(wait / 1000))) },
        )
      }
      const lease = taken ? taken.release : await limiter.lease(`search:${accountId}`, SEARCH_CAP_PER_RPS * rps, SEARCH_LEASE_MS)
      if (!lease) {
        throw new ApiError(
          'RATE_LIMITED',
          `At most ${SEARCH_CAP_PER_RPS * rps} searches may run at once for this account; retry after the Retry-After delay.`,
          { simultaneousSearches: SEARCH_CAP_PER_RPS * rps },
          { 'retry-after': '1' },
        )
      }
      const started = monotonic()
      // The lease goes back as the search ends, and the call does not wait for Redis to confirm it:
      // the release is sent before the answer (which still waits for its settle), so a search the
      // client sends once it has the answer reaches Redis after it, and a search makes one round trip
      // to Redis, its take. A lease that cannot be given back lapses after its ttl.
      return async () => {
        if (shareTime) searchTime.spend(accountId, rps, monotonic() - started)
        void lease().catch(() => {})
      }
    },

    /** Holds a call's full price at its arrival instant, or refuses with 402 and the balances when they cannot cover it. */
    async hold(accountId: string, credits: number, at: number): Promise<Hold> {
      const result = await ledger.hold(accountId, credits, at)
      if (result.ok) return result.hold
      throw quotaExhausted(result.balance, credits, result.held)
    },

    /**
     * The 402 of a call whose settle was refused: the balance changed under it (an operator lowered
     * the allowance while a batch waited). Its details are the balance now, as every 402's are.
     */
    async settleRefusal(accountId: string, credits: number): Promise<ApiError> {
      const at = clock.now()
      const balance = balanceAt(await stateOf(accountId, at), at)
      return quotaExhausted(balance, credits, 0, 'The balance no longer covers this call: it changed while the call ran.')
    },

    /** Settles a call: debits `line.credits` and records the usage line in one durable transaction. */
    settle(hold: Hold | null, line: UsageLine): Promise<SettleResult> {
      return ledger.settle(hold, line)
    },

    /** GET /api/v1/subscription. */
    async subscription(accountId: string): Promise<SubscriptionView> {
      const at = clock.now()
      return subscriptionView(await stateOf(accountId, at), at)
    },

    /** GET /admin/v1/packs/quote. */
    quote(credits: number) {
      return quotePack(credits, deps.packTiers)
    },

    /** POST /admin/v1/accounts/:id/packs: a pack bought now or at a past instant. */
    async addPack(accountId: string, input: { credits: number; purchasedAt?: number }) {
      const at = clock.now()
      const { price } = quotePack(input.credits, deps.packTiers)
      const purchasedAt = input.purchasedAt ?? at
      if (!Number.isFinite(purchasedAt) || purchasedAt > at) {
        throw new ApiError('INVALID_PARAMETER', "Invalid parameter 'purchasedAt': must be an instant not in the future.", {
          parameter: 'purchasedAt',
        })
      }
      // A pack bought so long ago that it has already expired would be granted dead: nothing to spend.
      const expiresAt = addMonths(purchasedAt, PACK_LIFETIME_MONTHS)
      if (expiresAt <= at) {
        throw new ApiError(
          'INVALID_PARAMETER',
          `Invalid parameter 'purchasedAt': a pack bought then expired on ${iso(expiresAt)} (packs last ${PACK_LIFETIME_MONTHS} months); give an instant within the last ${PACK_LIFETIME_MONTHS} months.`,
          { parameter: 'purchasedAt' },
        )
      }
      await stateOf(accountId, at)
      const lot = await ledger.addPack(accountId, {
        credits: input.credits,
        purchasedAt,
        priceCents: packPriceCents(input.credits, deps.packTiers),
      })
      return { id: lot.id, credits: lot.credits, purchasedAt: iso(lot.startsAt), expiresAt: iso(lot.expiresAt), price }
    },

    /** PUT /admin/v1/accounts/:id/subscription: the operator sets a plan's state, allowance or limits. */
    async changeSubscription(accountId: string, patch: SubscriptionPatch): Promise<SubscriptionView> {
      const at = clock.now()
      const state = await stateOf(accountId, at)
      const problem = patchProblem(state, patch, at)
      if (problem) {
        throw new ApiError('INVALID_PARAMETER', `Invalid parameter '${problem.field}': ${problem.why}`, { parameter: problem.field })
      }
      const changed = await ledger.changeSubscription(accountId, patch, at)
      await limits.changed(accountId)
      return subscriptionView(changed, at)
    },
  }
}
