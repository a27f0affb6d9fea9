/**
 * Operator admin API, JSON with `Authorization: Bearer <PRONET_ADMIN_TOKEN>`. Registered only
 * when a token is configured, so without one every /admin path is a 404 like any unknown path.
 */
import { adminGuard } from '../admin-guard.ts'
import { adminOperation, refuseControlIds } from './admin-operation.ts'
import type { FastifyInstance, FastifyReply } from 'fastify'
import Type from 'typebox'
import { MAX_ACCOUNT_NAME, MAX_KEY_NAME, type AccountsService, type KeyShown } from '../../domain/accounts/accounts.service.ts'
import { KEY_ENDPOINTS, MAX_KEY_CREDIT_LIMIT } from '../../key-caps/key-settings.ts'
import type { AccountSearch } from '../../domain/accounts/account-search.ts'
import type { MeteringService } from '../../domain/billing/metering.service.ts'
import { MAX_CREDITS_LIMIT, MAX_RPS_LIMIT } from '../../domain/billing/billing-rules.ts'
import { INSTANT_FORMS, MAX_CLOCK_MS, MAX_INSTANT_MS, parseInstant } from '../../domain/billing/calendar.ts'
import {
  AccountShownSchema,
  AccountViewSchema,
  ClockSchema,
  KeyViewSchema,
  NewAccountSchema,
  NewKeySchema,
  PackAddedSchema,
  QuoteSchema,
} from '../../contract/admin.schemas.ts'
import { SubscriptionSchema } from '../../contract/resources.schemas.ts'
import { PACK_MAX, PACK_MIN } from '../../domain/billing/pack-pricing.ts'
import { described } from '../../contract/responses.schemas.ts'
import { ApiError } from '../../domain/errors.ts'
import { strictBodyFields, strictQuery, withNulls } from '../strict-input.ts'
import { useJsonBodies } from '../json-body.ts'
import type { AccountRecord } from '../../ports/account-store.ts'

/** An instant in an operator's body: ISO 8601 text, or epoch milliseconds as a number or as digits. */
const Instant = (what: string) =>
  Type.Union([Type.String({ minLength: 1 }), Type.Integer({ minimum: 0, maximum: MAX_INSTANT_MS })], { description: `ISO 8601 instant or epoch milliseconds: ${what}` })
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

export const accountView = (a: AccountRecord) => ({
  id: a.id,
  name: a.name,
  createdAt: iso(a.createdAt),
  suspended: a.suspendedAt !== null,
  suspendedAt: iso(a.suspendedAt),
})

export const keyView = (k: KeyShown) => ({
  id: k.id,
  prefix: k.prefix,
  name: k.name,
  createdAt: iso(k.createdAt),
  revokedAt: iso(k.revokedAt),
  lastUsedAt: iso(k.lastUsedAt),
  monthlyCreditLimit: k.monthlyCreditLimit,
  endpoints: k.endpoints,
  creditsThisMonth: k.creditsThisMonth,
})

const Plan = Type.Union([Type.Literal('free'), Type.Literal('custom'), Type.Literal('none')])
const Status = Type.Enum(['active', 'free', 'trialing', 'past_due', 'incomplete', 'unpaid', 'canceled'] as const)
const NewAccountBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_ACCOUNT_NAME })),
    plan: Type.Optional(Plan),
    creditsLimit: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CREDITS_LIMIT })),
    rpsLimit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RPS_LIMIT })),
    status: Type.Optional(Status),
  },
  { additionalProperties: false },
)
const AccountParams = Type.Object({ id: Type.String() })
const AccountSearchQuery = Type.Object({
  query: Type.Optional(Type.String({ maxLength: 200, description: "an account id, a part of its name, the start of a key, or a console user's email; empty lists the newest" })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
})
const AccountListSchema = Type.Object({ accounts: Type.Array(AccountViewSchema) }, { additionalProperties: false, title: 'AccountList' })
const KeyParams = Type.Object({ id: Type.String(), keyId: Type.String() })
const SubscriptionBody = Type.Object(
  {
    plan: Type.Optional(Plan),
    status: Type.Optional(Status),
    creditsLimit: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CREDITS_LIMIT })),
    rpsLimit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RPS_LIMIT })),
    renewalDate: Type.Optional(Instant('the end of the current period')),
    cancelAtPeriodEnd: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
/** A key's spend controls as the operator sets them; null removes one. */
const KeyFields = {
  name: Type.Optional(Type.String({ maxLength: MAX_KEY_NAME, description: 'what the key is for, as its owner calls it' })),
  monthlyCreditLimit: Type.Optional(
    Type.Union([Type.Integer({ minimum: 0, maximum: MAX_KEY_CREDIT_LIMIT }), Type.Null()], {
      description: 'credits its calls may be billed per calendar month (UTC); null: no limit but the account\'s balance',
    }),
  ),
  endpoints: Type.Optional(
    // Names are checked by the service, whose refusal names the field and lists the valid ones.
    Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: `the endpoints it may call, as the paths after /api/v1/ (${KEY_ENDPOINTS.join(', ')}); null: every endpoint`,
    }),
  ),
}
const NewKeyBody = Type.Object(KeyFields, { additionalProperties: false, description: 'Every field may be left out, and the body with them' })
const KeyPatchBody = Type.Object(KeyFields, { additionalProperties: false, description: 'The fields to change; those left out keep their values' })

/** Calls that take no fields (suspend, resume): a body may be left out, and one sent is held to that. */
const NoFields = Type.Object({}, { additionalProperties: false, description: 'No fields; the body may be left out' })

/** A pack's size; the steps between sizes are checked with the price (its answer names them). */
const PackCredits = Type.Integer({ minimum: PACK_MIN, maximum: PACK_MAX })
const PackBody = Type.Object(
  {
    credits: PackCredits,
    purchasedAt: Type.Optional(Instant('within the last 12 months (a pack lasts 12), not in the future; default now')),
  },
  { additionalProperties: false },
)
const QuoteQuery = Type.Object({ credits: PackCredits })

/** An ISO 8601 instant or epoch milliseconds, or a 400 naming the field. */
function instant(given: string | number, field: string): number {
  const ms = parseInstant(String(given))
  if (ms === undefined) {
    throw new ApiError('INVALID_PARAMETER', `Invalid parameter '${field}': ${INSTANT_FORMS}.`, { parameter: field })
  }
  return ms
}

/** A revoked key's answer: no body. */
const NO_CONTENT = { type: 'null', description: 'No content' }
/** The metrics are Prometheus text, not JSON. */
const METRICS_TEXT = { description: 'Prometheus text format 0.0.4', content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } } }

const ClockBody = Type.Object({ now: Instant('the test clock\'s new instant') }, { additionalProperties: false })

type JsonSchema = { required?: string[]; properties?: Record<string, object> }
type Operation = { requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> } }

/**
 * /openapi.json as the admin API reads bodies (this plugin's parser and strictBodyFields): a body
 * whose fields are all optional may be left out (@fastify/swagger marks every body required), and
 * an optional field sent as `null` reads as omitted. Only what is documented changes; the schemas
 * that validate stay as they are.
 */
export function documentAdminBodies<T extends { paths?: Record<string, Record<string, unknown>> }>(doc: T): T {
  for (const [path, operations] of Object.entries(doc.paths ?? {})) {
    if (!path.startsWith('/admin/')) continue
    for (const op of Object.values(operations) as Operation[]) {
      const body = op.requestBody
      const schema = body?.content?.['application/json']?.schema
      if (!body || !schema) continue
      const required = schema.required ?? []
      if (required.length === 0) body.required = false
      for (const [name, field] of Object.entries(schema.properties ?? {})) {
        // A field that takes null as a value of its own (removing a limit) is documented as it is.
        const nullable = (field as { anyOf?: { type?: unknown }[] }).anyOf?.some((t) => t.type === 'null') ?? false
        if (!required.includes(name) && !nullable) (schema.properties as Record<string, object>)[name] = { anyOf: [field, { type: 'null' }] }
      }
    }
  }
  return doc
}

export interface AdminDeps {
  token: string
  accounts: AccountsService
  metering: MeteringService
  /** Finds accounts by id, a part of the name, the start of a key, or a console user's address. */
  searchAccounts: AccountSearch
  /** Present only with PRONET_TEST_CLOCK=1. */
  testClock?: { now(): number; set(ms: number): Promise<void> }
  /** Prometheus text of the node's metrics (rate-limiter fallback, process figures). */
  metrics?: () => Promise<{ contentType: string; text: string }>
}

export function registerAdminRoutes(app: FastifyInstance, deps: AdminDeps): void {
  const guard = adminGuard(deps.token)
  /** A route's schema; `success` is its answer by status (201 for what it creates, 204 for a revoked key). */
  const schema = adminOperation
  const json = (reply: FastifyReply, status: number, body: unknown) =>
    reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body))

  // 401 for a wrong token, on a path of the admin API that does not exist too (it would
  // otherwise be a 404 that tells a caller without the token which admin paths exist).
  // A callback hook on every call of the app: the path is read first, as it is the cheaper test.
  app.addHook('onRequest', (request, _reply, done) => {
    if ((request.url === '/admin' || request.url.startsWith('/admin/')) && request.is404) guard(request).then(() => done(), done)
    else done()
  })

  app.register(async (admin) => {
    admin.addHook('onRequest', guard)

    // Some admin calls take a body that is entirely optional (create an account) or absent (new
    // key, suspend, resume), and curl sends them with no bytes, often still with a JSON content type.
    // Here, and only here (this plugin's own parser; the data API keeps refusing an empty JSON body),
    // zero bytes are no body, and no body reads as `{}`: the schema then applies its defaults or names
    // a missing required field. Non-empty bodies are read as the data API reads them, so a
    // `__proto__` field is refused naming it, exactly as there.
    useJsonBodies(admin, { emptyIsNone: true })
    admin.addHook('preValidation', async (request) => {
      if (request.body === undefined && (request.method === 'POST' || request.method === 'PUT' || request.method === 'PATCH')) request.body = {}
      request.nullFields = strictBodyFields(request.routeOptions.schema?.body, request.body)
      refuseControlIds((request.params ?? {}) as { id?: string; keyId?: string })
    })

    if (deps.metrics) {
      const metrics = deps.metrics
      const scrape = async (_req: unknown, reply: FastifyReply) => {
        const { contentType, text } = await metrics()
        return reply.code(200).type(contentType).send(text)
      }
      admin.get('/admin/v1/metrics', { schema: schema('getMetrics', "This node's metrics in the Prometheus text format", { 200: METRICS_TEXT }) }, scrape)
      // The path Prometheus scrapes by default, with the same token; left out of the reference, which has the path above.
      admin.get('/metrics', { schema: { hide: true } }, scrape)
    }

    admin.post('/admin/v1/accounts', { schema: schema('createAccount', 'Create an account and its first key', { 201: described(NewAccountSchema, 'Created; the key is shown only here') }, { body: NewAccountBody }) }, async (req, reply) => {
      const created = await deps.accounts.create((req.body ?? {}) as Type.Static<typeof NewAccountBody>)
      return json(reply, 201, { account: accountView(created.account), apiKey: created.apiKey })
    })

    admin.get('/admin/v1/accounts', { schema: schema('searchAccounts', 'Find accounts by id, name, key prefix or user email, newest first', { 200: described(AccountListSchema, 'OK') }, { querystring: AccountSearchQuery }), preValidation: strictQuery(AccountSearchQuery) }, async (req, reply) => {
      const q = req.query as Type.Static<typeof AccountSearchQuery>
      const found = await deps.searchAccounts(q.query ?? '', q.limit ?? 50)
      return json(reply, 200, { accounts: found.map(accountView) })
    })

    admin.get('/admin/v1/accounts/:id', { schema: schema('getAccount', 'An account and its keys', { 200: described(AccountShownSchema, 'OK') }, { params: AccountParams }) }, async (req, reply) => {
      const { id } = req.params as Type.Static<typeof AccountParams>
      const shown = await deps.accounts.show(id)
      return json(reply, 200, {
        account: accountView(shown.account),
        subscription: await deps.metering.subscription(id),
        keys: shown.keys.map(keyView),
      })
    })

    admin.post('/admin/v1/accounts/:id/keys', { schema: schema('createKey', 'Create another key, with a monthly credit limit or endpoints if given', { 201: described(NewKeySchema, 'Created; the key is shown only here') }, { params: AccountParams, body: NewKeyBody }) }, async (req, reply) => {
      const { id } = req.params as Type.Static<typeof AccountParams>
      const { record, ...created } = await deps.accounts.createKey(id, withNulls<Type.Static<typeof NewKeyBody>>(req))
      return json(reply, 201, { ...created, ...keyView({ ...record, creditsThisMonth: 0 }) })
    })

    admin.patch('/admin/v1/accounts/:id/keys/:keyId', { schema: schema('updateKey', "Change a key's name, monthly credit limit or endpoints (null removes a limit)", { 200: described(KeyViewSchema, 'The key') }, { params: KeyParams, body: KeyPatchBody }) }, async (req, reply) => {
      const { id, keyId } = req.params as Type.Static<typeof KeyParams>
      return json(reply, 200, keyView(await deps.accounts.updateKey(id, keyId, withNulls<Type.Static<typeof KeyPatchBody>>(req))))
    })

    admin.delete('/admin/v1/accounts/:id/keys/:keyId', { schema: schema('revokeKey', 'Revoke a key', { 204: NO_CONTENT }, { params: KeyParams }) }, async (req, reply) => {
      const { id, keyId } = req.params as Type.Static<typeof KeyParams>
      await deps.accounts.revokeKey(id, keyId)
      return reply.code(204).send()
    })

    admin.post('/admin/v1/accounts/:id/suspend', { schema: schema('suspendAccount', 'Suspend an account (403 FORBIDDEN on its keys)', { 200: described(AccountViewSchema, 'The account') }, { params: AccountParams, body: NoFields }) }, async (req, reply) => {
      const { id } = req.params as Type.Static<typeof AccountParams>
      return json(reply, 200, accountView(await deps.accounts.suspend(id)))
    })

    admin.post('/admin/v1/accounts/:id/resume', { schema: schema('resumeAccount', 'Resume a suspended account', { 200: described(AccountViewSchema, 'The account') }, { params: AccountParams, body: NoFields }) }, async (req, reply) => {
      const { id } = req.params as Type.Static<typeof AccountParams>
      return json(reply, 200, accountView(await deps.accounts.resume(id)))
    })

    admin.put('/admin/v1/accounts/:id/subscription', { schema: schema('setSubscription', 'Change the plan, its status, limits or renewal', { 200: described(SubscriptionSchema, 'The subscription, as GET /api/v1/subscription') }, { params: AccountParams, body: SubscriptionBody }) }, async (req, reply) => {
      const { id } = req.params as Type.Static<typeof AccountParams>
      const { renewalDate, ...rest } = req.body as Type.Static<typeof SubscriptionBody>
      await deps.accounts.get(id)
      const patch = renewalDate === undefined ? rest : { ...rest, renewalAt: instant(renewalDate, 'renewalDate') }
      return json(reply, 200, await deps.metering.changeSubscription(id, patch))
    })

    admin.post('/admin/v1/accounts/:id/packs', { schema: schema('addPack', 'Add a credit pack (expires 12 calendar months after purchase)', { 201: described(PackAddedSchema, 'Created') }, { params: AccountParams, body: PackBody }) }, async (req, reply) => {
      const { id } = req.params as Type.Static<typeof AccountParams>
      const body = req.body as Type.Static<typeof PackBody>
      await deps.accounts.get(id)
      const purchasedAt = body.purchasedAt === undefined ? undefined : instant(body.purchasedAt, 'purchasedAt')
      return json(reply, 201, await deps.metering.addPack(id, { credits: body.credits, ...(purchasedAt === undefined ? {} : { purchasedAt }) }))
    })

    admin.get('/admin/v1/packs/quote', { schema: schema('quotePack', 'Price of a credit pack of this size', { 200: described(QuoteSchema, 'OK') }, { querystring: QuoteQuery }), preValidation: strictQuery(QuoteQuery) }, async (req, reply) => {
      const { credits } = req.query as Type.Static<typeof QuoteQuery>
      return json(reply, 200, deps.metering.quote(credits))
    })

    const clock = deps.testClock
    if (clock) {
      admin.get('/admin/v1/clock', { schema: schema('getClock', 'The test clock', { 200: described(ClockSchema, 'OK') }) }, async (_req, reply) =>
        json(reply, 200, { now: new Date(clock.now()).toISOString() }),
      )
      admin.put('/admin/v1/clock', { schema: schema('setClock', 'Set the test clock; time keeps running from there', { 200: described(ClockSchema, 'OK') }, { body: ClockBody }) }, async (req, reply) => {
        const { now } = req.body as Type.Static<typeof ClockBody>
        const ms = instant(now, 'now')
        if (ms > MAX_CLOCK_MS) {
          throw new ApiError('INVALID_PARAMETER', `Invalid parameter 'now': the test clock goes up to ${new Date(MAX_CLOCK_MS).toISOString()}, so that expiries and renewals worked out from it stay within the year 9999.`, { parameter: 'now' })
        }
        await clock.set(ms)
        return json(reply, 200, { now: new Date(clock.now()).toISOString() })
      })
    }
  })
}
