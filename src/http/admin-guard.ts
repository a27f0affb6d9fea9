/** The admin API's check of `Authorization: Bearer <PRONET_ADMIN_TOKEN>`, compared in constant time. */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { ApiError } from '../domain/errors.ts'

export function adminGuard(token: string): (request: FastifyRequest) => Promise<void> {
  const expected = createHash('sha256').update(token).digest()
  return async (request) => {
    const header = request.headers.authorization ?? ''
    const given = createHash('sha256').update(header.replace(/^Bearer\s+/i, '')).digest()
    if (!/^Bearer\s+/i.test(header) || !timingSafeEqual(given, expected)) {
      throw new ApiError('UNAUTHENTICATED', 'Admin API: send Authorization: Bearer <PRONET_ADMIN_TOKEN>.')
    }
  }
}
