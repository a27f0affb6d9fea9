/**
 * The one error catalogue: every code the API answers with and its HTTP status. Domain code throws or returns an ApiError;
 * only the HTTP error handler turns it into `{error, code, details?}` with the fixed status.
 */
export const ERROR_STATUS = {
  MISSING_PARAMETER: 400,
  INVALID_PARAMETER: 400,
  INVALID_URN: 400,
  UNAUTHENTICATED: 401,
  INVALID_API_KEY: 401,
  QUOTA_EXHAUSTED: 402,
  FORBIDDEN: 403,
  PROFILE_NOT_FOUND: 404,
  COMPANY_NOT_FOUND: 404,
  POST_NOT_FOUND: 404,
  NOT_FOUND: 404,
  ENDPOINT_REMOVED: 410,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  UPSTREAM_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
  UPSTREAM_TIMEOUT: 504,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

export class ApiError extends Error {
  readonly status: number
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Extra response headers, e.g. Retry-After on a 429. */
    readonly headers?: Record<string, string>,
  ) {
    // An answer, not a fault: no one reads its stack, and collecting one was a large part of what a
    // refused call (a client far past its rate limit, say) cost the node.
    const limit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    super(message)
    Error.stackTraceLimit = limit
    this.name = 'ApiError'
    this.status = ERROR_STATUS[code]
  }

  toBody(): { error: string; code: ErrorCode; details?: Record<string, unknown> } {
    return this.details === undefined
      ? { error: this.message, code: this.code }
      : { error: this.message, code: this.code, details: this.details }
  }
}

export const missingParameter = (name: string): ApiError =>
  new ApiError('MISSING_PARAMETER', `Missing required parameter '${name}'.`, { parameter: name })

export const invalidParameter = (name: string, why: string): ApiError =>
  new ApiError('INVALID_PARAMETER', `Invalid parameter '${name}': ${why}`, { parameter: name })

export const invalidUrn = (name: string, why: string): ApiError =>
  new ApiError('INVALID_URN', `Invalid identifier in '${name}': ${why}`, { parameter: name })

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError

/** 503 SERVICE_UNAVAILABLE with a Retry-After: the service's own capacity or store is out of reach. */
export const serviceUnavailable = (why: string, retryAfterSeconds = 2): ApiError =>
  new ApiError('SERVICE_UNAVAILABLE', `${why} Retry after the Retry-After delay; nothing was charged.`, undefined, {
    'retry-after': String(retryAfterSeconds),
  })

/** A call that reaches a node while it closes (SIGTERM): free, and another node or this one restarted serves the retry. */
export const nodeClosing = (): ApiError => serviceUnavailable('This node is shutting down.', 1)
