/** The interface description (/openapi.json), its reference page (/docs) and a health check. */
import type { FastifyInstance } from 'fastify'

export function registerMetaRoutes(app: FastifyInstance): void {
  app.get('/openapi.json', { schema: { hide: true } }, async (_req, reply) =>
    reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger())),
  )
  app.get('/healthz', { schema: { hide: true } }, async (_req, reply) =>
    reply.type('application/json; charset=utf-8').send('{"status":"ok"}'),
  )
}
