/**
 * The schema of an admin route: its summary and description (admin.docs.ts), its answers by status as
 * the admin API documents them, and the errors every admin route may answer. The answers are
 * documentation for /openapi.json: admin routes send ready JSON text, which Fastify does not pass
 * through a response serializer.
 */
import { adminDescription } from '../../contract/docs/admin.docs.ts'
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
