/**
 * POST /console/stripe/webhook: Stripe's confirmations of Checkout payments. The signature
 * covers the exact bytes Stripe sent, so this route (and only it, in a scope of its own) reads the
 * body raw, whatever its content type, instead of through the app's JSON parser. No session, key or
 * CSRF token applies: the signature is the authentication. A bad signature is 400 and grants
 * nothing; anything the service cannot store is a 5xx, which Stripe retries.
 */
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { errorResponse, REQUEST_ID, withHeaders } from '../contract/responses.schemas.ts'
import type { OrdersService } from './orders.service.ts'

export const STRIPE_WEBHOOK_PATH = '/console/stripe/webhook'

const Received = Type.Object(
  {
    received: Type.Literal(true),
    outcome: Type.String({ description: 'granted, already-paid, failed, canceled, ignored, unknown-order or not-applied' }),
  },
  { additionalProperties: false },
)

export function registerStripeWebhookRoute(app: FastifyInstance, deps: { orders: Pick<OrdersService, 'handleStripeWebhook'> }): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
    scope.post(
      STRIPE_WEBHOOK_PATH,
      {
        schema: {
          summary: "Stripe's webhook: Checkout payments confirmed, failed or expired (signed with STRIPE_WEBHOOK_SECRET)",
          operationId: 'stripeWebhook',
          hide: true,
          response: {
            200: withHeaders(Received, REQUEST_ID),
            400: withHeaders(errorResponse(['INVALID_PARAMETER'], ': the Stripe-Signature does not verify'), REQUEST_ID),
          },
        },
      },
      async (request, reply) => {
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
        const header = request.headers['stripe-signature']
        const result = await deps.orders.handleStripeWebhook(raw, typeof header === 'string' ? header : undefined)
        return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify({ received: true, outcome: result.outcome }))
      },
    )
  })
}
