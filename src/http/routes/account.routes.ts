/**
 * The account endpoints (spec 4.1, 4.2): free, answering even at zero credits, each with its own
 * budget of one call per second per account.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { SubscriptionResponse, UsageQuery, UsageResponse } from '../../contract/endpoints.schemas.ts'
import { ErrorSchema } from '../../contract/resources.schemas.ts'
import type { MeteringService } from '../../domain/billing/metering.service.ts'
import { PRICES } from '../../domain/billing/prices.ts'
import type { UsageReporter } from '../../domain/usage/usage-report.ts'
import type { Gateway, Meter } from '../gateway.ts'
import { strictQuery } from '../strict-input.ts'

const JSON_TYPE = 'application/json; charset=utf-8'
const error = (description: string) => ({ ...ErrorSchema, description })

export function registerAccountRoutes(
  app: FastifyInstance,
  deps: { gateway: Gateway; metering: MeteringService; usage: UsageReporter },
): void {
  const common = {
    401: error('UNAUTHENTICATED, INVALID_API_KEY'),
    403: error('FORBIDDEN (account suspended)'),
    429: error('RATE_LIMITED (1 call per second per account; Retry-After)'),
    500: error('INTERNAL_ERROR'),
    503: error('SERVICE_UNAVAILABLE'),
  }

  app.route({
    method: 'GET',
    url: '/api/v1/usage',
    config: { operation: 'usage', price: PRICES.usage },
    schema: {
      summary: 'Balance now and consumption over UTC days (free; its own calls are not counted)',
      tags: ['account'],
      security: [{ ApiKey: [] }],
      querystring: UsageQuery,
      response: { 200: UsageResponse, 400: error('INVALID_PARAMETER'), ...common },
    },
    onRequest: deps.gateway.accountRoute('usage'),
    preValidation: strictQuery(UsageQuery),
    onSend: deps.gateway.onSend,
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const meter = request.meter as Meter
      const report = await deps.usage(meter.accountId, request.query as { from?: string; to?: string })
      return reply.type(JSON_TYPE).send(JSON.stringify(report))
    },
  })

  app.route({
    method: 'GET',
    url: '/api/v1/subscription',
    config: { operation: 'subscription', price: PRICES.subscription },
    schema: {
      summary: 'Plan, balance, rate limit and billing status (free)',
      tags: ['account'],
      security: [{ ApiKey: [] }],
      response: { 200: SubscriptionResponse, ...common },
    },
    onRequest: deps.gateway.accountRoute('subscription'),
    onSend: deps.gateway.onSend,
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const meter = request.meter as Meter
      return reply.type(JSON_TYPE).send(JSON.stringify(await deps.metering.subscription(meter.accountId)))
    },
  })
}
