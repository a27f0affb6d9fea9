/**
 * The admin API's answers, for /openapi.json: an operator's generated client reads these.
 * Documentation only (the routes send ready JSON text); the admin routes' tests validate every
 * answer against them.
 */
import Type from 'typebox'
import { Nullable, SubscriptionSchema } from './resources.schemas.ts'

const closed = { additionalProperties: false } as const
const Instant = Type.String({ format: 'date-time' })

export const AccountViewSchema = Type.Object(
  { id: Type.String(), name: Type.String(), createdAt: Instant, suspended: Type.Boolean(), suspendedAt: Nullable(Instant) },
  { ...closed, title: 'Account' },
)

export const CreatedKeySchema = Type.Object(
  {
    id: Type.String(),
    key: Type.String({ description: 'the secret to send as X-API-Key: shown only in this answer' }),
    prefix: Type.String({ description: 'the key\'s first characters, to recognise it later' }),
  },
  { ...closed, title: 'NewApiKey' },
)

export const KeyViewSchema = Type.Object(
  { id: Type.String(), prefix: Type.String(), createdAt: Instant, revokedAt: Nullable(Instant) },
  { ...closed, title: 'ApiKey' },
)

export const NewAccountSchema = Type.Object({ account: AccountViewSchema, apiKey: CreatedKeySchema }, { ...closed, title: 'NewAccount' })

export const AccountShownSchema = Type.Object(
  { account: AccountViewSchema, subscription: SubscriptionSchema, keys: Type.Array(KeyViewSchema) },
  { ...closed, title: 'AccountDetails' },
)

export const PackAddedSchema = Type.Object(
  {
    id: Type.String(),
    credits: Type.Integer({ minimum: 1 }),
    purchasedAt: Instant,
    expiresAt: Type.String({ format: 'date-time', description: '12 calendar months after purchase' }),
    price: Type.Number({ minimum: 0, description: 'in currency units, from the pack price tiers' }),
  },
  { ...closed, title: 'CreditPack' },
)

export const QuoteSchema = Type.Object(
  { credits: Type.Integer({ minimum: 1 }), price: Type.Number({ minimum: 0, description: 'in currency units, from the pack price tiers' }) },
  { ...closed, title: 'PackQuote' },
)

export const ClockSchema = Type.Object({ now: Instant }, { ...closed, title: 'TestClock' })
