/**
 * What /openapi.json says of answers beyond their bodies: the headers each kind of answer carries
 * (credits charged, rate-limit budget) and, per status, the error envelope with the codes that status
 * may carry. Documentation only: every body is sent as ready JSON text, which Fastify passes
 * through no serializer, and the gateway and the app's hooks set the headers.
 */
import Type from 'typebox'
import type { ErrorCode } from '../domain/errors.ts'
import { ErrorSchema } from './resources.schemas.ts'

/** Response headers by name (OpenAPI's header objects, written as @fastify/swagger reads them). */
export type HeaderDocs = Record<string, { type: 'integer' | 'string'; minimum?: number; description: string }>

const whole = (description: string) => ({ type: 'integer' as const, minimum: 0, description })

/** On every answer. */
export const REQUEST_ID: HeaderDocs = { 'X-Request-Id': { type: 'string', description: "this call's id, to quote when asking about it" } }
/** On every answer of a metered route, free and refused calls included. */
export const CREDITS_CHARGED: HeaderDocs = { 'X-Credits-Charged': whole('credits this call billed: 0 for a free or refused call') }
/** On every data answer once the key is known. */
export const RATE_HEADERS: HeaderDocs = {
  'X-RateLimit-Limit': whole("the plan's calls per second (rpsLimit)"),
  'X-RateLimit-Remaining': whole('units left in the rolling one-second window now'),
  'X-RateLimit-Reset': whole('Unix seconds when a unit is next free'),
  'X-RateLimit-Cost': whole('units this call took: 1, engagement 2, the batch 1 per distinct company'),
}
/** Usage and subscription have a budget of their own (1 call a second), so no Remaining or Reset. */
export const ACCOUNT_RATE_HEADERS: HeaderDocs = {
  'X-RateLimit-Limit': whole("the plan's calls per second (rpsLimit)"),
  'X-RateLimit-Cost': whole('always 0: these calls take nothing from the plan budget'),
}
/** On a 429, and on a 503 that knows when to come back. */
export const RETRY_AFTER: HeaderDocs = { 'Retry-After': { type: 'integer', minimum: 1, description: 'whole seconds to wait before trying again' } }

/** A response's schema with the headers it carries (beside any it already declares). */
export const withHeaders = <T extends object>(schema: T, ...headers: HeaderDocs[]): T & { headers: HeaderDocs } => ({
  ...schema,
  headers: Object.assign({}, (schema as { headers?: HeaderDocs }).headers, ...headers) as HeaderDocs,
})

/** A response's schema with its description in /openapi.json (which otherwise says "Default Response"). */
export const described = <T extends object>(schema: T, description: string): T => ({ ...schema, 'x-response-description': description })

/**
 * The error envelope of one status, its `code` one of `codes`; described by the codes, and `note` after
 * them. The envelope itself is the shared Error schema (a named component in /openapi.json), narrowed
 * beside it to the codes this status carries.
 */
export function errorResponse(codes: readonly ErrorCode[], note?: string): Record<string, unknown> & { description: string } {
  return {
    allOf: [ErrorSchema],
    properties: { code: Type.Enum(codes, { type: 'string' }) },
    description: note === undefined ? codes.join(', ') : `${codes.join(', ')} ${note}`,
  }
}
