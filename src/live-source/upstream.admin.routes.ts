/**
 * GET /admin/v1/upstream: a live-source node's view of its upstream, for the operator (and
 * `pronet upstream status`): the upstream's own subscription, this node's share of the budget, where
 * its answers came from (the hit ratio), its upstream calls by outcome, and the answers kept. Behind
 * the admin token, as the rest of the admin API; registered only on a live-source node.
 */
import type { FastifyInstance } from 'fastify'
import { adminGuard } from '../http/admin-guard.ts'
import { errorResponse, REQUEST_ID, withHeaders } from '../contract/responses.schemas.ts'
import type { LiveWiring } from './live-wiring.ts'

export function registerUpstreamAdminRoutes(app: FastifyInstance, deps: { token: string; live: LiveWiring }): void {
  const guard = adminGuard(deps.token)
  app.register(async (admin) => {
    admin.addHook('onRequest', guard)
    admin.get(
      '/admin/v1/upstream',
      {
        schema: {
          summary: "The upstream data source: its subscription, the budget, this node's hit ratio and upstream calls",
          operationId: 'getUpstreamStatus',
          tags: ['admin'],
          security: [{ AdminToken: [] }],
          response: {
            200: withHeaders({ type: 'object', description: 'OK', additionalProperties: true }, REQUEST_ID),
            401: withHeaders(errorResponse(['UNAUTHENTICATED'], ': a missing or wrong admin token'), REQUEST_ID),
          },
        },
      },
      async (_req, reply) => reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(await deps.live.status())),
    )
  })
}
