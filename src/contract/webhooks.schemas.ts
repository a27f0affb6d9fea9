/** The admin API's webhook answers, for /openapi.json (the routes send ready JSON text). */
import Type from 'typebox'
import { Nullable } from './resources.schemas.ts'
import { WEBHOOK_EVENTS } from '../ports/webhook-store.ts'

const closed = { additionalProperties: false } as const
const Instant = Type.String({ format: 'date-time' })
const EventName = Type.Enum([...WEBHOOK_EVENTS], { type: 'string' })

const webhookFields = {
  id: Type.String(),
  url: Type.String({ description: 'where deliveries are POSTed' }),
  events: Type.Array(EventName, { description: 'the events sent to it' }),
  enabled: Type.Boolean({ description: 'false: nothing is sent to it, and its pending deliveries wait' }),
  createdAt: Instant,
}

export const WebhookSchema = Type.Object(webhookFields, { ...closed, title: 'Webhook' })

export const NewWebhookSchema = Type.Object(
  { ...webhookFields, secret: Type.String({ description: 'signs every delivery (Pronet-Signature): shown only in this answer' }) },
  { ...closed, title: 'NewWebhook' },
)

export const WebhookListSchema = Type.Object({ webhooks: Type.Array(WebhookSchema) }, { ...closed, title: 'WebhookList' })

export const DeliverySchema = Type.Object(
  {
    id: Type.String(),
    eventId: Type.String({ description: "the event's id, the same in every delivery of it: a receiver deduplicates by it" }),
    event: Type.String({ description: "the event's type" }),
    state: Type.Enum(['pending', 'delivered', 'failed'], { type: 'string', description: 'failed: given up a day after the event' }),
    createdAt: Instant,
    nextAttemptAt: Nullable(Type.String({ format: 'date-time', description: 'when it is tried again, while pending' })),
    attempts: Type.Array(
      Type.Object(
        {
          at: Instant,
          status: Nullable(Type.Integer({ description: "the receiver's HTTP status; null when none came" })),
          error: Nullable(Type.String({ description: 'why the attempt failed' })),
          durationMs: Type.Integer({ minimum: 0 }),
        },
        closed,
      ),
    ),
  },
  { ...closed, title: 'WebhookDelivery' },
)

export const DeliveryListSchema = Type.Object({ deliveries: Type.Array(DeliverySchema) }, { ...closed, title: 'WebhookDeliveryList' })

export const AlertsSchema = Type.Object(
  { lowCredits: Nullable(Type.Integer({ minimum: 0, description: 'credits.low is sent when the balance falls below this; null: never' })) },
  { ...closed, title: 'Alerts' },
)
