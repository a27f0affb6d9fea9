/**
 * The schema of an admin route: its summary and description (admin.docs.ts), its answers by status as
 * the admin API documents them, and the errors every admin route may answer. The answers are
 * documentation for /openapi.json: admin routes send ready JSON text, which Fastify does not pass
 * through a response serializer.
 */
import { adminDescription } from '../../contract/docs/admin.docs.ts'
import { ApiError } from '../../domain/errors.ts'
import { CREDITS_CHARGED, errorResponse, REQUEST_ID, RETRY_AFTER, withHeaders } from '../../contract/responses.schemas.ts'

export function adminOperation(operationId: string, summary: string, success: Record<number, object>, extra: Record<string, unknown> = {}) {
  return {
    summary,
    ...adminDescription(operationId),
    operationId,
    tags: ['admin'],
    security: [{ AdminToken: [] }],
    ...extra,
    response: <Record<number, object>>{
      ...Object.fromEntries(Object.entries(success).map(([status, body]) => [status, withHeaders(body, REQUEST_ID)])),
      400: withHeaders(errorResponse(['INVALID_PARAMETER', 'MISSING_PARAMETER']), REQUEST_ID, CREDITS_CHARGED),
      401: withHeaders(errorResponse(['UNAUTHENTICATED'], ': a missing or wrong admin token'), REQUEST_ID, CREDITS_CHARGED),
      404: withHeaders(errorResponse(['NOT_FOUND']), REQUEST_ID, CREDITS_CHARGED),
      429: withHeaders(errorResponse(['RATE_LIMITED'], ': too many wrong tokens from this address'), REQUEST_ID, CREDITS_CHARGED, RETRY_AFTER),
    },
  }
}

/** Control characters, which no id holds. */
const CONTROL_RE = /\p{Cc}/u

/**
 * No id holds a control character: such an id names nothing, on every store alike (PostgreSQL refuses
 * a NUL in text, which would be a 500 there and a 404 on SQLite).
 */
export function refuseControlIds(params: { id?: string; keyId?: string; whId?: string }): void {
  if (params.id !== undefined && CONTROL_RE.test(params.id)) throw new ApiError('NOT_FOUND', `No account ${JSON.stringify(params.id)}.`)
  if (params.keyId !== undefined && CONTROL_RE.test(params.keyId)) {
    throw new ApiError('NOT_FOUND', `No live key ${JSON.stringify(params.keyId)} on account ${JSON.stringify(params.id)}.`)
  }
  if (params.whId !== undefined && CONTROL_RE.test(params.whId)) {
    throw new ApiError('NOT_FOUND', `No webhook ${JSON.stringify(params.whId)} on account ${JSON.stringify(params.id)}.`)
  }
}
