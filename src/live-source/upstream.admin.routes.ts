/**
 * GET /admin/v1/upstream: a live-source node's view of its upstream, for the operator (and
 * `pronet upstream status`): the upstream's own subscription, this node's share of the budget, where
 * its answers came from (the hit ratio), its upstream calls by outcome, and the answers kept. Behind
 * the admin token, as the rest of the admin API; registered only on a live-source node.
 */
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { adminGuard } from '../http/admin-guard.ts'
import { adminDescription } from '../contract/docs/admin.docs.ts'
import { Nullable } from '../contract/resources.schemas.ts'
import { described, errorResponse, REQUEST_ID, withHeaders } from '../contract/responses.schemas.ts'
import type { LiveWiring } from './live-wiring.ts'

const Count = Type.Integer({ minimum: 0 })
const Counts = (description: string) => Type.Record(Type.String(), Count, { description })

/** What status() answers (UpstreamStatus), for /openapi.json; the answer is sent as ready JSON. */
const UpstreamStatusSchema = Type.Object(
  {
    mode: Type.Enum(['upstream', 'upstream-only'] as const, { type: 'string', description: 'PRONET_SOURCE' }),
    subscription: Type.Unknown({ description: "the upstream's own GET /api/v1/subscription answer, or {error, message} when it could not be read" }),
    budget: Type.Object(
      {
        rps: Type.Integer({ minimum: 1, description: "the upstream plan's requests per second, for all nodes together" }),
        sentLastSecond: Type.Integer({ minimum: 0, description: 'units this node sent in the last second' }),
        waiting: Type.Integer({ minimum: 0, description: 'calls on this node waiting for their turn' }),
        pausedForMs: Type.Integer({ minimum: 0, description: "how long this node is still paused by the upstream's 429 (0 when not)" }),
      },
      { description: 'the request budget shared with the upstream' },
    ),
    node: Type.Object(
      {
        calls: Type.Record(Type.String(), Counts('calls by outcome'), { description: 'upstream calls by endpoint, then by outcome' }),
        creditsSpent: Type.Integer({ minimum: 0, description: 'upstream credits spent' }),
        answers: Type.Object({ cache: Count, upstream: Count, stale: Count }, { description: 'answers given, by where they came from' }),
        hitRatio: Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'answers given without an upstream call, of all answers; null before the first' })),
        coalesced: Type.Object({ node: Count, cluster: Count }, { description: "calls that shared another call's upstream fetch, on this node or another" }),
      },
      { description: "this node's figures since it started" },
    ),
    kept: Nullable(Counts('answers kept in the store, by operation (upstream mode)')),
  },
  { title: 'UpstreamStatus' },
)

export function registerUpstreamAdminRoutes(app: FastifyInstance, deps: { token: string; live: LiveWiring }): void {
  const guard = adminGuard(deps.token)
  app.register(async (admin) => {
    admin.addHook('onRequest', guard)
    admin.get(
      '/admin/v1/upstream',
      {
        schema: {
          summary: "The upstream data source: its subscription, the budget, this node's hit ratio and upstream calls",
          ...adminDescription('getUpstreamStatus'),
          operationId: 'getUpstreamStatus',
          tags: ['admin'],
          security: [{ AdminToken: [] }],
          response: {
            200: withHeaders(described(UpstreamStatusSchema, 'OK'), REQUEST_ID),
            401: withHeaders(errorResponse(['UNAUTHENTICATED'], ': a missing or wrong admin token'), REQUEST_ID),
          },
        },
      },
      async (_req, reply) => reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(await deps.live.status())),
    )
  })
}
