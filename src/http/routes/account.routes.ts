/**
 * The account endpoints, usage and subscription: free, answering even at zero credits, each with its own
 * budget of one call per second per account.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { SubscriptionResponse, UsageQuery, UsageResponse } from '../../contract/endpoints.schemas.ts'
import { ACCOUNT_RATE_HEADERS, CREDITS_CHARGED, described, errorResponse, REQUEST_ID, RETRY_AFTER, withHeaders } from '../../contract/responses.schemas.ts'
import { ACCOUNT_DOCS } from '../../contract/docs/account.docs.ts'
import type { MeteringService } from '../../domain/billing/metering.service.ts'
import type { UsageReporter } from '../../domain/usage/usage-report.ts'
import type { Gateway, Meter } from '../gateway.ts'
import { strictQuery } from '../strict-input.ts'

const JSON_TYPE = 'application/json; charset=utf-8'
/** Their answers carry the plan's rps and a cost of 0, never Remaining or Reset. */
const ok = <T extends object>(schema: T) => withHeaders(schema, REQUEST_ID, CREDITS_CHARGED, ACCOUNT_RATE_HEADERS)

export function registerAccountRoutes(
  app: FastifyInstance,
  deps: { gateway: Gateway; metering: MeteringService; usage: UsageReporter },
): void {
  const common = {
    401: withHeaders(errorResponse(['UNAUTHENTICATED', 'INVALID_API_KEY']), REQUEST_ID, CREDITS_CHARGED),
    403: withHeaders(errorResponse(['FORBIDDEN'], '(account suspended, or an endpoint this key may not call)'), REQUEST_ID, CREDITS_CHARGED),
    429: ok(withHeaders(errorResponse(['RATE_LIMITED'], '(1 call per second per account)'), RETRY_AFTER)),
    500: withHeaders(errorResponse(['INTERNAL_ERROR']), REQUEST_ID, CREDITS_CHARGED),
    503: withHeaders(errorResponse(['SERVICE_UNAVAILABLE']), REQUEST_ID, CREDITS_CHARGED, RETRY_AFTER),
  }

  app.route({
    method: 'GET',
    url: '/api/v1/usage',
    config: { operation: 'usage' },
    schema: {
      summary: 'Balance now and consumption over UTC days (free; its own calls are not counted)',
      description: ACCOUNT_DOCS.getUsage.description,
      operationId: 'getUsage',
      tags: ['account'],
      security: [{ ApiKey: [] }],
      querystring: UsageQuery,
      response: { 200: ok(described(UsageResponse, 'OK')), 400: ok(errorResponse(['INVALID_PARAMETER'])), ...common },
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
    config: { operation: 'subscription' },
    schema: {
      summary: 'Plan, balance, rate limit and billing status (free)',
      description: ACCOUNT_DOCS.getSubscription.description,
      operationId: 'getSubscription',
      tags: ['account'],
      security: [{ ApiKey: [] }],
      response: { 200: ok(described(SubscriptionResponse, 'OK')), ...common },
    },
    onRequest: deps.gateway.accountRoute('subscription'),
    onSend: deps.gateway.onSend,
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const meter = request.meter as Meter
      return reply.type(JSON_TYPE).send(JSON.stringify(await deps.metering.subscription(meter.accountId)))
    },
  })
}
