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

const keyViewFields = {
  id: Type.String(),
  prefix: Type.String(),
  name: Type.String({ description: "what the key is for ('' when it was given no name)" }),
  createdAt: Instant,
  revokedAt: Nullable(Instant),
  lastUsedAt: Nullable(Type.String({ format: 'date-time', description: 'its last call, recorded a few seconds late' })),
  monthlyCreditLimit: Nullable(Type.Integer({ minimum: 0, description: 'credits its calls may be billed per calendar month (UTC); null: no limit' })),
  endpoints: Nullable(Type.Array(Type.String(), { description: 'the endpoints it may call, as the paths after /api/v1/; null: every endpoint' })),
  creditsThisMonth: Type.Integer({ minimum: 0, description: 'credits its calls were billed this calendar month (UTC)' }),
}

export const KeyViewSchema = Type.Object(keyViewFields, { ...closed, title: 'ApiKey' })

export const NewKeySchema = Type.Object(
  {
    ...keyViewFields,
    key: Type.String({ description: 'the secret to send as X-API-Key: shown only in this answer' }),
  },
  { ...closed, title: 'NewApiKeyDetails' },
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
