/**
 * Errors: one class per error code of the API, all PronetError, so a caller can branch with
 * instanceof (or on `code`), and PronetNetworkError for a call that got no answer.
 */
import type { Meta, RateLimit } from './meta.ts'
import type { DocumentedErrorCode } from './operations.ts'

/** Every code the service answers with, those no operation lists in /openapi.json included. */
export type ErrorCode = DocumentedErrorCode | 'NOT_FOUND' | 'ENDPOINT_REMOVED' | 'FORBIDDEN'

export interface PronetErrorInit {
  status: number
  code: string
  message: string
  details?: Record<string, unknown> | undefined
  meta?: Meta | undefined
  retryAfterMs?: number | undefined
}

/** An error answer of the API: `{error, code, details?}` with its status. */
export class PronetError extends Error {
  readonly status: number
  /** The stable error code to branch on (the message may be reworded). */
  readonly code: string
  readonly details: Record<string, unknown> | undefined
  readonly requestId: string | undefined
  readonly creditsCharged: number
  readonly rateLimit: RateLimit | undefined
  /** How long the answer's Retry-After asked to wait, in milliseconds. */
  readonly retryAfterMs: number | undefined
  /** HTTP requests the call took, retries included. */
  readonly attempts: number
  constructor(init: PronetErrorInit) {
    super(init.message)
    this.name = new.target.name
    this.status = init.status
    this.code = init.code
    this.details = init.details
    this.requestId = init.meta?.requestId
    this.creditsCharged = init.meta?.creditsCharged ?? 0
    this.rateLimit = init.meta?.rateLimit
    this.retryAfterMs = init.retryAfterMs
    this.attempts = init.meta?.attempts ?? 1
  }
}

export class MissingParameterError extends PronetError {}
export class InvalidParameterError extends PronetError {}
export class InvalidUrnError extends PronetError {}
export class UnauthenticatedError extends PronetError {}
export class InvalidApiKeyError extends PronetError {}
export class QuotaExhaustedError extends PronetError {}
export class ForbiddenError extends PronetError {}
export class ProfileNotFoundError extends PronetError {}
export class CompanyNotFoundError extends PronetError {}
export class PostNotFoundError extends PronetError {}
export class NotFoundError extends PronetError {}
export class EndpointRemovedError extends PronetError {}
export class RateLimitedError extends PronetError {}
export class InternalError extends PronetError {}
export class UpstreamError extends PronetError {}
export class ServiceUnavailableError extends PronetError {}
export class UpstreamTimeoutError extends PronetError {}

type ErrorClass = new (init: PronetErrorInit) => PronetError

/** The class and HTTP status of each code; typed so that a code /openapi.json adds fails the build until it has a class. */
export const ERROR_CLASSES: { readonly [C in ErrorCode]: { readonly status: number; readonly type: ErrorClass } } = {
  MISSING_PARAMETER: { status: 400, type: MissingParameterError },
  INVALID_PARAMETER: { status: 400, type: InvalidParameterError },
  INVALID_URN: { status: 400, type: InvalidUrnError },
  UNAUTHENTICATED: { status: 401, type: UnauthenticatedError },
  INVALID_API_KEY: { status: 401, type: InvalidApiKeyError },
  QUOTA_EXHAUSTED: { status: 402, type: QuotaExhaustedError },
  FORBIDDEN: { status: 403, type: ForbiddenError },
  PROFILE_NOT_FOUND: { status: 404, type: ProfileNotFoundError },
  COMPANY_NOT_FOUND: { status: 404, type: CompanyNotFoundError },
  POST_NOT_FOUND: { status: 404, type: PostNotFoundError },
  NOT_FOUND: { status: 404, type: NotFoundError },
  ENDPOINT_REMOVED: { status: 410, type: EndpointRemovedError },
  RATE_LIMITED: { status: 429, type: RateLimitedError },
  INTERNAL_ERROR: { status: 500, type: InternalError },
  UPSTREAM_ERROR: { status: 502, type: UpstreamError },
  SERVICE_UNAVAILABLE: { status: 503, type: ServiceUnavailableError },
  UPSTREAM_TIMEOUT: { status: 504, type: UpstreamTimeoutError },
}

/**
 * The error for an answer: the class of its code; PronetError itself for a code this client does
 * not know, and, with code `HTTP_<status>`, for an answer that is not the API's envelope (a proxy's
 * page, say).
 */
export function errorFromAnswer(status: number, body: unknown, meta: Meta, retryAfterMs: number | undefined): PronetError {
  const envelope = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : undefined
  const code = typeof envelope?.code === 'string' ? envelope.code : `HTTP_${status}`
  const message = typeof envelope?.error === 'string' ? envelope.error : `The service answered ${status} without an error envelope.`
  const details = envelope?.details !== null && typeof envelope?.details === 'object' ? (envelope.details as Record<string, unknown>) : undefined
  const type = Object.hasOwn(ERROR_CLASSES, code) ? ERROR_CLASSES[code as ErrorCode].type : PronetError
  return new type({ status, code, message, details, meta, retryAfterMs })
}

/** A call that got no answer: the connection failed, was cut off, or timed out. */
export class PronetNetworkError extends Error {
  /** HTTP requests the call took, retries included. */
  readonly attempts: number
  readonly timedOut: boolean
  constructor(message: string, options: { cause: unknown; attempts: number; timedOut: boolean }) {
    super(message, { cause: options.cause })
    this.name = 'PronetNetworkError'
    this.attempts = options.attempts
    this.timedOut = options.timedOut
  }
}
