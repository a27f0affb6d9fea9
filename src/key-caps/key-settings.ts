/**
 * A key's spend controls as its owner or the operator sets them: a monthly credit limit and the
 * endpoints it may call. Checked here, so the admin API, the console and the CLI refuse alike.
 */
import { PRICES, type Operation } from '../domain/billing/prices.ts'
import { ApiError, invalidParameter } from '../domain/errors.ts'

/** The highest monthly limit a key may carry (a plan's allowance is capped alike). */
export const MAX_KEY_CREDIT_LIMIT = 1_000_000_000

/** The endpoints a key may be limited to: the paths after /api/v1/, in the price table's order. */
export const KEY_ENDPOINTS: readonly string[] = (Object.keys(PRICES) as Operation[]).map((o) => o.replaceAll('.', '/'))

/** The path after /api/v1/ of a route (`/api/v1/search/posts` → `search/posts`). */
export const endpointOfRoute = (route: string): string => route.replace(/^\/api\/v1\//, '')

/** Whether a key limited to `endpoints` (null: every one) may call `route`. */
export const keyMayCall = (endpoints: readonly string[] | null, route: string): boolean =>
  endpoints === null || endpoints.includes(endpointOfRoute(route))

/** The refusal of a call the key is not allowed to make: 403, billed nothing. */
export const endpointRefused = (route: string, headers?: Record<string, string>): ApiError =>
  new ApiError(
    'FORBIDDEN',
    `This API key may not call ${endpointOfRoute(route)}: its endpoints are limited. Use another key or allow the endpoint in the key's settings.`,
    { endpoint: endpointOfRoute(route) },
    headers,
  )

/** A monthly credit limit as given: a whole number of credits, or null for none. */
export function checkCreditLimit(limit: unknown): number | null {
  if (limit === null) return null
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0 || limit > MAX_KEY_CREDIT_LIMIT) {
    throw invalidParameter('monthlyCreditLimit', `must be a whole number of credits from 0 to ${MAX_KEY_CREDIT_LIMIT.toLocaleString('en-US')}, or null for no limit.`)
  }
  return limit
}

/** An endpoint list as given: known paths after /api/v1/, each once, in the order given; null for every endpoint. */
export function checkEndpoints(endpoints: unknown): string[] | null {
  if (endpoints === null) return null
  if (!Array.isArray(endpoints) || endpoints.length === 0) {
    throw invalidParameter('endpoints', 'must list at least one endpoint, such as ["profile", "search/posts"], or be null to allow every endpoint.')
  }
  const seen: string[] = []
  for (const e of endpoints) {
    if (typeof e !== 'string' || !KEY_ENDPOINTS.includes(e)) {
      const shown = typeof e === 'string' ? `'${e.slice(0, 60)}'` : 'an entry that is not text'
      throw invalidParameter('endpoints', `${shown} is not an endpoint; use the paths after /api/v1/: ${KEY_ENDPOINTS.join(', ')}.`)
    }
    if (!seen.includes(e)) seen.push(e)
  }
  return seen
}

/** 402 of a call its key's monthly limit cannot cover, billed nothing. */
export function keyLimitReached(credits: number, limit: number, remaining: number): ApiError {
  const needs = `This call needs ${credits} credit${credits === 1 ? '' : 's'}`
  return new ApiError(
    'QUOTA_EXHAUSTED',
    `${needs}; this API key's monthly limit of ${limit} credits has ${remaining} left this month (its calls in flight included). The limit starts again on the first of next month (UTC).`,
    { keyCreditsRemaining: remaining, keyCreditLimit: limit, creditsRequired: credits },
  )
}
