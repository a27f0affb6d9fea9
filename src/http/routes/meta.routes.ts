/** The interface description (/openapi.json), its reference page (/docs) and a health check. */
import type { FastifyInstance } from 'fastify'

export function registerMetaRoutes(app: FastifyInstance): void {
  // These two answer HEAD as well (uptime monitors and link checkers ask with it); the app exposes
  // no HEAD routes otherwise, since a data route's HEAD would be billed for a body it never sends.
  app.get('/openapi.json', { schema: { hide: true }, exposeHeadRoute: true }, async (_req, reply) =>
    reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger())),
  )
  app.get('/healthz', { schema: { hide: true }, exposeHeadRoute: true }, async (_req, reply) =>
    reply.type('application/json; charset=utf-8').send('{"status":"ok"}'),
  )
}
