/**
 * An account's webhooks in the admin API: endpoints (POST, GET, PATCH, DELETE), their deliveries, a
 * test delivery, and the credits.low threshold (PUT …/alerts). As the rest of the admin API: JSON with
 * `Authorization: Bearer <PRONET_ADMIN_TOKEN>`, registered only when a token is configured. A scope of
 * its own beside registerAdminRoutes.
 */
import type { FastifyInstance, FastifyReply } from 'fastify'
import Type from 'typebox'
import { adminGuard } from '../admin-guard.ts'
import { CREDITS_CHARGED, described, errorResponse, REQUEST_ID, RETRY_AFTER, withHeaders } from '../../contract/responses.schemas.ts'
import { adminOperation, refuseControlIds } from './admin-operation.ts'
import { AlertsSchema, DeliveryListSchema, DeliverySchema, NewWebhookSchema, WebhookListSchema, WebhookSchema } from '../../contract/webhooks.schemas.ts'
import { WEBHOOK_EVENTS } from '../../ports/webhook-store.ts'
import { DELIVERY_LIST_LIMIT, MAX_LOW_CREDITS, type WebhooksService } from '../../webhooks/webhooks.service.ts'
import { MAX_WEBHOOK_URL } from '../../webhooks/webhook-settings.ts'
import { useJsonBodies } from '../json-body.ts'
import { ApiError } from '../../domain/errors.ts'
import { strictBodyFields, strictQuery, withNulls } from '../strict-input.ts'

const AccountParams = Type.Object({ id: Type.String() })
const WebhookParams = Type.Object({ id: Type.String(), whId: Type.String() })
// Names (and that there is one at least) are checked by the service, whose refusal lists the valid ones.
const Events = Type.Array(Type.String(), { description: `the events to send to it, one or more of: ${WEBHOOK_EVENTS.join(', ')}` })
const Url = Type.String({ minLength: 1, maxLength: MAX_WEBHOOK_URL, description: 'an https address on the public internet' })
const NewWebhookBody = Type.Object({ url: Url, events: Events }, { additionalProperties: false })
const WebhookPatchBody = Type.Object(
  { url: Type.Optional(Url), events: Type.Optional(Events), enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, description: 'The fields to change; those left out keep their values' },
)
const AlertsBody = Type.Object(
  {
    // Required, null included: optional here only because a null is taken out before validation (strictBodyFields).
    lowCredits: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0, maximum: MAX_LOW_CREDITS }), Type.Null()], {
        description: 'required: send credits.low when the balance falls below this many credits; null: never',
      }),
    ),
  },
  { additionalProperties: false },
)
const DeliveriesQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: DELIVERY_LIST_LIMIT, description: 'newest first (default 50)' })) })
const NoFields = Type.Object({}, { additionalProperties: false, description: 'No fields; the body may be left out' })
const NO_CONTENT = { type: 'null', description: 'No content' }

export function registerWebhookAdminRoutes(app: FastifyInstance, deps: { token: string; webhooks: WebhooksService }): void {
  const guard = adminGuard(deps.token)
  const schema = adminOperation
  const json = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body))
  const { webhooks } = deps

  app.register(async (admin) => {
    admin.addHook('onRequest', guard)
    useJsonBodies(admin, { emptyIsNone: true })
    admin.addHook('preValidation', async (request) => {
      if (request.body === undefined && request.method !== 'GET' && request.method !== 'DELETE') request.body = {}
      request.nullFields = strictBodyFields(request.routeOptions.schema?.body, request.body)
      refuseControlIds((request.params ?? {}) as { id?: string; whId?: string })
    })

    const base = '/admin/v1/accounts/:id/webhooks'
    admin.post(base, { schema: schema('createWebhook', 'Add a webhook endpoint; its signing secret is shown only here', { 201: described(NewWebhookSchema, 'Created') }, { params: AccountParams, body: NewWebhookBody }) }, async (req, reply) => {
      const { id } = req.params as Type.Static<typeof AccountParams>
      return json(reply, 201, await webhooks.create(id, req.body as Type.Static<typeof NewWebhookBody>))
    })

    admin.get(base, { schema: schema('listWebhooks', "The account's webhook endpoints", { 200: described(WebhookListSchema, 'OK') }, { params: AccountParams }) }, async (req, reply) => {
      const { id } = req.params as Type.Static<typeof AccountParams>
      return json(reply, 200, { webhooks: await webhooks.list(id) })
    })

    admin.patch(`${base}/:whId`, { schema: schema('updateWebhook', "Change a webhook endpoint's address, events, or whether it is enabled", { 200: described(WebhookSchema, 'The endpoint') }, { params: WebhookParams, body: WebhookPatchBody }) }, async (req, reply) => {
      const { id, whId } = req.params as Type.Static<typeof WebhookParams>
      return json(reply, 200, await webhooks.update(id, whId, req.body as Type.Static<typeof WebhookPatchBody>))
    })

    admin.delete(`${base}/:whId`, { schema: schema('deleteWebhook', 'Delete a webhook endpoint and its deliveries', { 204: NO_CONTENT }, { params: WebhookParams }) }, async (req, reply) => {
      const { id, whId } = req.params as Type.Static<typeof WebhookParams>
      await webhooks.remove(id, whId)
      return reply.code(204).send()
    })

    admin.get(
      `${base}/:whId/deliveries`,
      { schema: schema('listWebhookDeliveries', "An endpoint's deliveries, newest first, with every attempt", { 200: described(DeliveryListSchema, 'OK') }, { params: WebhookParams, querystring: DeliveriesQuery }), preValidation: strictQuery(DeliveriesQuery) },
      async (req, reply) => {
        const { id, whId } = req.params as Type.Static<typeof WebhookParams>
        const { limit } = req.query as Type.Static<typeof DeliveriesQuery>
        return json(reply, 200, { deliveries: await webhooks.deliveries(id, whId, limit ?? 50) })
      },
    )

    const testSchema = schema('testWebhook', 'Send a webhook.test event to the endpoint now', { 200: described(DeliverySchema, 'The delivery after its first attempt') }, { params: WebhookParams, body: NoFields })
    testSchema.response[429] = withHeaders(errorResponse(['RATE_LIMITED'], ': a test event sent to this endpoint within the last 10 seconds, or too many wrong tokens from this address'), REQUEST_ID, CREDITS_CHARGED, RETRY_AFTER)
    admin.post(`${base}/:whId/test`, { schema: testSchema }, async (req, reply) => {
      const { id, whId } = req.params as Type.Static<typeof WebhookParams>
      return json(reply, 200, await webhooks.test(id, whId))
    })

    admin.get('/admin/v1/accounts/:id/alerts', { schema: schema('getAlerts', "The account's balance alert", { 200: described(AlertsSchema, 'OK') }, { params: AccountParams }) }, async (req, reply) => {
      const { id } = req.params as Type.Static<typeof AccountParams>
      return json(reply, 200, await webhooks.alerts(id))
    })

    admin.put('/admin/v1/accounts/:id/alerts', { schema: schema('setAlerts', 'Set the balance below which credits.low is sent', { 200: described(AlertsSchema, 'The alert') }, { params: AccountParams, body: AlertsBody }) }, async (req, reply) => {
      const { id } = req.params as Type.Static<typeof AccountParams>
      const body = withNulls<{ lowCredits?: number | null }>(req)
      if (body.lowCredits === undefined) throw new ApiError('MISSING_PARAMETER', "Missing parameter 'lowCredits': a number of credits, or null for no alert.", { parameter: 'lowCredits' })
      return json(reply, 200, await webhooks.setAlerts(id, { lowCredits: body.lowCredits }))
    })
  })
}
