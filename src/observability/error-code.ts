/**
 * The code of the error envelope a reply carries, noted where the envelope is made (the error handler)
 * so the refusals metric can count it without reading a body.
 */
import type { FastifyReply } from 'fastify'
import { ERROR_STATUS, type ErrorCode } from '../domain/errors.ts'

declare module 'fastify' {
  interface FastifyReply {
    /** The code of the error envelope this reply carries, or null (see noteErrorCode). */
    errorCode: ErrorCode | null
  }
}

export function noteErrorCode(reply: FastifyReply, code: ErrorCode): void {
  reply.errorCode = code
}

/** Statuses that only one code of the catalogue has, and that code. */
const ONLY_CODE = new Map<number, ErrorCode>()
{
  const byStatus = new Map<number, ErrorCode[]>()
  for (const [code, status] of Object.entries(ERROR_STATUS) as [ErrorCode, number][]) byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  for (const [status, codes] of byStatus) if (codes.length === 1) ONLY_CODE.set(status, codes[0] as ErrorCode)
}

/**
 * The code an error answer carries: the one noted while it was made, if the answer still has that
 * code's status. An answer whose status was changed after its envelope was made (a settle that could
 * not be written turns a call into a 402, 500 or 503 with an envelope of its own) has the code that
 * status alone has in the catalogue. undefined when no code was noted and several codes share the
 * status (a console page's 404, which is no envelope).
 */
export function errorCodeOf(reply: FastifyReply, status: number): ErrorCode | undefined {
  const noted = reply.errorCode
  if (noted !== null && noted !== undefined && ERROR_STATUS[noted] === status) return noted
  return ONLY_CODE.get(status)
}
