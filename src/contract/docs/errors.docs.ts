/**
 * An example answer for every error code, as the service words it, for the error responses of
 * /openapi.json. `input` is the parameter the operation's refusals name; an operation whose refusals
 * read otherwise gives its own (OperationDoc.errors). An operation that takes no query or body has no
 * example of a missing parameter (its path parameters are never missing: without them it is another path).
 */
import type { ErrorCode } from '../../domain/errors.ts'
import type { ErrorBody } from './operation-doc.ts'

export interface ErrorContext {
  /** Who calls the operation: a customer with an API key, or the operator with the admin token. */
  caller: 'customer' | 'operator'
  /** The parameter a refusal names (the operation's main input), and where it is sent; none when it takes no input. */
  input: { name: string; in: 'query' | 'path' | 'body' } | undefined
  /** Where a customer buys credits, as a 402 says. */
  buyCreditsUrl: string
}

const named = (code: ErrorCode, error: string, input: string): ErrorBody => ({ error, code, details: { parameter: input } })

export function errorExample(code: ErrorCode, at: ErrorContext): ErrorBody | undefined {
  const input = at.input?.name ?? ''
  switch (code) {
    case 'MISSING_PARAMETER':
      return at.input && at.input.in !== 'path' ? named(code, `Missing required parameter '${input}'.`, input) : undefined
    case 'INVALID_PARAMETER':
      // A query parameter given twice, or a field no body takes; a call with neither can still lack its Host header.
      if (at.input?.in === 'query') return named(code, `Invalid parameter '${input}': is given more than once; send it once.`, input)
      if (at.input?.in === 'body') return named(code, "Unknown field 'extra'.", 'extra')
      return { error: 'An HTTP/1.1 request needs a Host header.', code }
    case 'INVALID_URN':
      return input === 'postUrlOrUrn'
        ? named(code, `Invalid identifier in '${input}': expected a post URL, an activity, ugcPost or share URN, or a 19-digit activity id.`, input)
        : named(code, `Invalid identifier in '${input}': a slug holds letters, digits, '-', '_' and '.' only.`, input)
    case 'UNAUTHENTICATED':
      return { error: at.caller === 'operator' ? 'Admin API: send Authorization: Bearer <PRONET_ADMIN_TOKEN>.' : 'Missing X-API-Key header.', code }
    case 'INVALID_API_KEY':
      return { error: 'The API key is not valid.', code }
    case 'QUOTA_EXHAUSTED':
      return {
        error: 'This call needs 1 credit; the balance cannot cover it.',
        code,
        details: { creditsRemaining: 0, subscriptionCreditsRemaining: 0, paygCreditsRemaining: 0, creditsRequired: 1, creditsHeld: 0, buyCreditsUrl: at.buyCreditsUrl },
      }
    case 'FORBIDDEN':
      return { error: 'This account is suspended; contact the operator.', code }
    case 'PROFILE_NOT_FOUND':
      return { error: 'No profile exists for this input.', code }
    case 'COMPANY_NOT_FOUND':
      return { error: 'No company page exists for this input.', code }
    case 'POST_NOT_FOUND':
      return { error: 'No post exists for this input.', code }
    case 'NOT_FOUND':
      return { error: "No account 'acc_nAk9NebuqoAp'.", code }
    case 'ENDPOINT_REMOVED':
      return { error: 'This endpoint has been removed.', code }
    case 'RATE_LIMITED':
      return at.caller === 'operator'
        ? { error: 'Too many wrong API keys or admin tokens from this address; try again in 10 seconds.', code, details: { retryAfterSeconds: 10 } }
        : { error: 'Rate limit of 5 requests per second exceeded; retry after the Retry-After delay.', code, details: { rpsLimit: 5, retryAfterMs: 200 } }
    case 'INTERNAL_ERROR':
      return { error: 'An unexpected error occurred; it is safe to retry.', code }
    case 'SERVICE_UNAVAILABLE':
      return { error: 'The database is unreachable. Retry after the Retry-After delay; nothing was charged.', code }
    case 'UPSTREAM_ERROR':
      return { error: 'The live data source failed to give a usable answer; nothing was charged.', code }
    case 'UPSTREAM_TIMEOUT':
      return { error: 'The live data source did not answer in time; nothing was charged.', code }
  }
}
