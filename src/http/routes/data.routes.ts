/**
 * The data endpoints. Thin: each route declares its operation, its row of the
 * price table, its schemas and error codes, and its two steps: `parse` (validated input to a typed
 * request, no store access) and `serve` (the answer, once the gateway has held the request's price).
 *
 * A new GET data endpoint touches six files:
 * 1. contract/endpoints.schemas.ts: its query schema (defaults as schema defaults: Count, Offset) and
 *    its response schema;
 * 2. domain/billing/prices.ts: its Operation and its row of PRICES (what it holds, bills, and bills
 *    for a 404);
 * 3. the domain/content/*.service.ts of its resource: a parse function (in that file's `*Requests`,
 *    no store) returning a plain request, and a serve function answering it;
 * 4. this list: one getRoute entry naming the row (`price`), both steps, and `cached` if its answers
 *    are worth keeping;
 * 5. contract/docs/data.docs.ts: what it does, for its callers, with an example call and answer (its
 *    price and rate cost are added here, from the price table in force);
 * 6. its test.
 */
import type { FastifyInstance, FastifySchema } from 'fastify'
import type { TSchema } from 'typebox'
import {
  CommentsQuery,
  CompanyBatchBody,
  CompanyBatchResponse,
  CompanyPostsQuery,
  CompanyPostsResponse,
  CompanyQuery,
  CompanyResponse,
  CommentsResponse,
  EngagementQuery,
  EngagementResponse,
  PostReactionsQuery,
  PostReactionsResponse,
  PostsQuery,
  PostsResponse,
  PostsUpdatesQuery,
  PostsUpdatesResponse,
  ProfileArticlesQuery,
  ProfileArticlesResponse,
  ProfileQuery,
  ProfileReactionsQuery,
  ProfileReactionsResponse,
  ProfileResponse,
  SearchPostsBody,
  SearchPostsResponse,
} from '../../contract/endpoints.schemas.ts'
import { CREDITS_CHARGED, described, errorResponse, RATE_HEADERS, REQUEST_ID, RETRY_AFTER, withHeaders } from '../../contract/responses.schemas.ts'
import { IdempotencyHeaders, IDEMPOTENT_REPLAYED } from '../../contract/idempotency.schemas.ts'
import { notFoundCredits, type DataOperation, type PriceRule, type PriceTable } from '../../domain/billing/prices.ts'
import { arrivalUnits, BATCH_WAIT_MS, type MeteringService } from '../../domain/billing/metering.service.ts'
import { DATA_DOCS } from '../../contract/docs/data.docs.ts'
import type { OperationDoc } from '../../contract/docs/operation-doc.ts'
import type { BatchResult } from '../../domain/content/companies.service.ts'
import { bodyBytes, type ContentService } from '../../domain/content/content.service.ts'
import type { ResponseCache } from '../../domain/content/response-cache.ts'
import { ApiError, ERROR_STATUS, type ErrorCode } from '../../domain/errors.ts'
import type { SearchService } from '../../domain/search/search.service.ts'
import { connectionClosed } from '../client-connection.ts'
import { getRoute, postRoute, type DataRoute, type ParseContext, type ServeContext } from '../data-route.ts'
import { takeSearchLease, type Gateway } from '../gateway.ts'
import { strictQuery } from '../strict-input.ts'

// INVALID_PARAMETER: every route takes a query or a body, and a parameter given twice or over its length is refused.
// UPSTREAM_*: a node serving live data from an upstream service answers its failures with these.
const COMMON: ErrorCode[] = ['MISSING_PARAMETER', 'INVALID_PARAMETER', 'INVALID_URN', 'UNAUTHENTICATED', 'QUOTA_EXHAUSTED', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE', 'UPSTREAM_ERROR', 'UPSTREAM_TIMEOUT']

export const DATA_ROUTES: readonly DataRoute[] = [
  getRoute({
    url: '/api/v1/profile',
    operationId: 'getProfile',
    price: 'profile',
    summary: 'One member profile (a company page gives the organisation in profile form)',
    querystring: ProfileQuery,
    response: ProfileResponse,
    errors: [...COMMON, 'PROFILE_NOT_FOUND'],
    parse: (q, { requests }) => requests.profile(q),
    serve: async (r, { content }) => ({ body: await content.profiles.profile(r) }),
    cached: true,
  }),
  getRoute({
    url: '/api/v1/profile/reactions',
    operationId: 'getProfileReactions',
    price: 'profile.reactions',
    summary: 'Posts a member reacted to, newest first (cursor pagination)',
    querystring: ProfileReactionsQuery,
    response: ProfileReactionsResponse,
    errors: [...COMMON, 'INVALID_PARAMETER', 'PROFILE_NOT_FOUND'],
    parse: (q, { requests }) => requests.profileReactions(q),
    serve: async (r, { content }) => ({ body: await content.profiles.profileReactions(r) }),
    cached: true,
  }),
  getRoute({
    url: '/api/v1/profile/articles',
    operationId: 'getProfileArticles',
    price: 'profile.articles',
    summary: 'Articles a member published, newest first (offset pagination)',
    querystring: ProfileArticlesQuery,
    response: ProfileArticlesResponse,
    errors: [...COMMON, 'INVALID_PARAMETER', 'PROFILE_NOT_FOUND'],
    parse: (q, { requests }) => requests.profileArticles(q),
    serve: async (r, { content }) => ({ body: await content.profiles.profileArticles(r) }),
    cached: true,
  }),
  getRoute({
    url: '/api/v1/posts',
    operationId: 'getPosts',
    price: 'posts',
    summary: 'Posts of a member (company pages and member URNs also accepted), newest first',
    querystring: PostsQuery,
    response: PostsResponse,
    errors: [...COMMON, 'INVALID_PARAMETER', 'COMPANY_NOT_FOUND'],
    parse: (q, { requests }) => requests.posts(q),
    serve: async (r, { content }) => ({ body: await content.feeds.posts(r) }),
    cached: true,
  }),
  getRoute({
    url: '/api/v1/posts/updates',
    operationId: 'getPostsUpdates',
    price: 'posts.updates',
    summary: 'Recent posts of up to 60 profiles in the older post shape, newest first',
    querystring: PostsUpdatesQuery,
    response: PostsUpdatesResponse,
    errors: [...COMMON, 'INVALID_PARAMETER', 'PROFILE_NOT_FOUND'],
    parse: (q, { requests }) => requests.postsUpdates(q),
    serve: async (r, { content }) => ({ body: await content.feeds.postsUpdates(r) }),
  }),
  getRoute({
    url: '/api/v1/company',
    operationId: 'getCompany',
    price: 'company',
    summary: 'One company page',
    querystring: CompanyQuery,
    response: CompanyResponse,
    errors: [...COMMON, 'INVALID_PARAMETER', 'COMPANY_NOT_FOUND'],
    parse: (q, { requests }) => requests.company(q),
    serve: async (r, { content }) => ({ body: await content.companies.company(r) }),
    cached: true,
  }),
  postRoute({
    url: '/api/v1/company/batch',
    operationId: 'getCompanyBatch',
    price: 'company.batch',
    summary: 'Up to 50 companies in one call; per-entry errors inside a 200',
    body: CompanyBatchBody,
    response: CompanyBatchResponse,
    errors: [...COMMON, 'INVALID_PARAMETER'],
    // The whole batch is checked against the balance (its distinct entries) before anything is fetched.
    parse: (body, { requests }) => requests.companyBatch(body),
    async serve({ entries }, { content, metering }, call) {
      const meter = call.meter
      const results: BatchResult[] = []
      // One unit was taken on arrival; each further company waits for one, up to 90 s, while
      // its client is still there to receive the answer.
      const gone = () => connectionClosed(call)
      const units = meter ? metering.batchUnits(meter.accountId, entries.length - 1, (meter.at ?? 0) + BATCH_WAIT_MS, gone) : undefined
      let outOfTime = false
      try {
        for (const [i, entry] of entries.entries()) {
          if (i > 0 && !outOfTime && meter && units) {
            const decision = await units.take()
            if (decision) {
              meter.rate = decision
              meter.units++
            } else {
              outOfTime = true
              units.end()
            }
          }
          results.push(
            outOfTime
              ? content.companies.batchRefused(entry, new ApiError('RATE_LIMITED', 'The batch ran out of time waiting for the rate limit; retry this entry.'))
              : await content.companies.batchEntry(entry),
          )
        }
      } finally {
        units?.end()
      }
      return content.companies.batchResponse(results)
    },
  }),
  getRoute({
    url: '/api/v1/company/posts',
    operationId: 'getCompanyPosts',
    price: 'company.posts',
    summary: 'Posts of a company page, newest first (cursor pagination)',
    querystring: CompanyPostsQuery,
    response: CompanyPostsResponse,
    errors: [...COMMON, 'INVALID_PARAMETER', 'COMPANY_NOT_FOUND'],
    parse: (q, { requests }) => requests.companyPosts(q),
    serve: async (r, { content }) => ({ body: await content.feeds.companyPosts(r) }),
    cached: true,
  }),
  getRoute({
    url: '/api/v1/post/engagement',
    operationId: 'getPostEngagement',
    price: 'post.engagement',
    summary: 'Comments (by token) and reactions (by offset) of one post',
    querystring: EngagementQuery,
    response: EngagementResponse,
    errors: [...COMMON, 'INVALID_PARAMETER', 'POST_NOT_FOUND'],
    parse: (q, { requests }) => requests.engagement(q),
    serve: async (r, { content }) => ({ body: await content.engagement.engagement(r) }),
    cached: true,
  }),
  getRoute({
    url: '/api/v1/post/comments',
    operationId: 'getPostComments',
    price: 'post.comments',
    summary: 'Comments of one post with their replies, pinned first',
    querystring: CommentsQuery,
    response: CommentsResponse,
    errors: [...COMMON, 'INVALID_PARAMETER', 'POST_NOT_FOUND'],
    parse: (q, { requests }) => requests.comments(q),
    serve: async (r, { content }) => ({ body: await content.engagement.comments(r) }),
    cached: true,
  }),
  postRoute({
    url: '/api/v1/search/posts',
    operationId: 'searchPosts',
    price: 'search.posts',
    summary: 'Keyword and author search over posts (one flat price per call, empty pages included)',
    body: SearchPostsBody,
    response: SearchPostsResponse,
    errors: [...COMMON, 'INVALID_PARAMETER'],
    // The body is checked by the search's own parser (query grammar, cross-field rules), each refusal
    // naming its field, and its cursor opened: nothing is read before the price is held.
    parse: (body, { search }) => search.prepare(body),
    async serve(prepared, { metering, search }, call) {
      const meter = call.meter
      // Simultaneous searches per account are capped at twice the plan's rate.
      const release = meter ? await metering.enterSearch(meter.accountId, meter.at, takeSearchLease(meter)) : undefined
      try {
        return await search.run(prepared, meter ? { accountId: meter.accountId, weight: meter.rate?.limit ?? 1 } : undefined)
      } finally {
        await release?.()
      }
    },
  }),
  getRoute({
    url: '/api/v1/post/reactions',
    operationId: 'getPostReactions',
    price: 'post.reactions',
    summary: 'Reactions to one post (offset pagination)',
    querystring: PostReactionsQuery,
    response: PostReactionsResponse,
    errors: [...COMMON, 'INVALID_PARAMETER', 'POST_NOT_FOUND'],
    parse: (q, { requests }) => requests.postReactions(q),
    serve: async (r, { content }) => ({ body: await content.engagement.postReactions(r) }),
    cached: true,
  }),
]

/**
 * OpenAPI responses: the success schema, and per status the envelope with the codes it may carry, each
 * with its headers (credits and rate): a refusal before the key is known (401, 403) or a failure on the
 * service's side has no rate figures.
 */
function responses(route: DataRoute): Record<number, object> {
  const byStatus = new Map<number, ErrorCode[]>([
    [401, ['UNAUTHENTICATED', 'INVALID_API_KEY']],
    [403, ['FORBIDDEN']],
  ])
  for (const code of route.errors) {
    const status = ERROR_STATUS[code]
    const codes = byStatus.get(status) ?? []
    if (!codes.includes(code)) codes.push(code)
    byStatus.set(status, codes)
  }
  const out: Record<number, object> = { 200: withHeaders(described(route.response, 'OK'), REQUEST_ID, CREDITS_CHARGED, RATE_HEADERS, IDEMPOTENT_REPLAYED) }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const keyed = status !== 401 && status !== 403 && status < 500
    const note = status === 403 ? '(account suspended, or an endpoint this key may not call)' : status === 402 ? "(the balance, or this key's monthly credit limit)" : undefined
    out[status] = withHeaders(
      errorResponse(codes, note),
      REQUEST_ID,
      CREDITS_CHARGED,
      ...(keyed ? [RATE_HEADERS] : []),
      ...(status === 429 || status === 503 ? [RETRY_AFTER] : []),
      // The answers kept for an Idempotency-Key and sent again.
      ...(status === 400 || status === 404 ? [IDEMPOTENT_REPLAYED] : []),
    )
  }
  return out
}

/**
 * What the operation does (its text in data.docs.ts), then its price and rate cost in words, from the
 * price table in force (PRONET_PRICES included): the reference states what a call costs on this service.
 */
function descriptionOf(route: DataRoute, rule: PriceRule): string {
  const about = (DATA_DOCS as Readonly<Record<string, OperationDoc>>)[route.operationId]?.description
  return [about, `**Price:** ${priceInWords(rule)}`, `**Rate limit:** ${rateInWords(route.price)}`].filter((p) => p !== undefined).join('\n\n')
}

const credits = (n: number) => `${n.toLocaleString('en-US')} credit${n === 1 ? '' : 's'}`

function priceInWords(rule: PriceRule): string {
  if (rule.kind === 'free') return 'free.'
  const missing = notFoundCredits(rule)
  const absent = missing > 0 ? `A 404 for a record that does not exist costs ${credits(missing)}` : 'A 404 costs nothing'
  return `${perWhat(rule)}. ${absent}; every other refusal or failure is free. \`X-Credits-Charged\` says what a call billed.`
}

function perWhat(rule: Exclude<PriceRule, { kind: 'free' }>): string {
  if (rule.credits === 0) return 'free (0 credits)'
  switch (rule.kind) {
    case 'flat':
      return `${credits(rule.credits)} per call`
    case 'perBlock':
      return `${credits(rule.credits)} per started block of ${rule.block} of the \`count\` asked for (after clamping)`
    case 'perGroup':
      return `${credits(rule.credits)} per started group of ${rule.group} profiles asked for`
    case 'perFound':
      return `${credits(rule.credits)} per entry answered with a company; the call is admitted when the balance covers that for every distinct entry`
  }
}

function rateInWords(operation: DataOperation): string {
  const units = arrivalUnits(operation)
  const taken = `takes ${units} unit${units === 1 ? '' : 's'} of the plan’s per-second budget (\`X-RateLimit-Cost\`)`
  if (operation === 'company.batch') {
    return `${taken}, and one more for each further distinct company, waited for up to ${BATCH_WAIT_MS / 1000} seconds in all; an entry that could not get one comes back with \`RATE_LIMITED\` inside the answer.`
  }
  return units > 1 ? `${taken}, so a plan of fewer than ${units} calls a second cannot call it.` : `${taken}.`
}

/** The price rule and rate cost as extensions of the operation, for a program to read: `x-credits` and `x-rate-cost`. */
function priceExtensions(operation: DataOperation, rule: PriceRule): Record<string, unknown> {
  return {
    'x-credits': rule.kind === 'free' ? rule : { ...rule, notFound: notFoundCredits(rule) },
    'x-rate-cost': arrivalUnits(operation),
  }
}

/** The record inputs each endpoint requires (a missing one is MISSING_PARAMETER). */
const REQUIRED_INPUTS = ['profileUrlOrUrn', 'profileUrlsOrUrns', 'companyUrlOrUrn', 'postUrlOrUrn']

/**
 * The required inputs of a query, for /openapi.json only. The schemas leave them optional so that a
 * missing or blank one is answered by the service, with its own message; a query taking an alias
 * (company posts: companyUrlOrUrn or profileUrlOrUrn) requires one of two, which JSON Schema's
 * `required` cannot say.
 */
function documentedRequired(schema: TSchema | undefined): string[] {
  const names = Object.keys((schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {})
  const inputs = names.filter((n) => REQUIRED_INPUTS.includes(n))
  return inputs.length === 1 ? inputs : []
}

/**
 * `route` answering from the response cache: the key is its operation and its whole parsed request,
 * so every parameter that shapes an answer is in it. The cache drops everything when the store changes.
 */
function cachedServe(route: DataRoute, cache: ResponseCache): DataRoute {
  const prefix = `${route.price}|`
  const serve = route.serve
  return {
    ...route,
    serve: (request, ctx, call) => cache.through(prefix + JSON.stringify(request), async () => ({ body: bodyBytes(await serve(request, ctx, call)) })),
  }
}

export interface DataRouteDeps {
  content: ContentService
  search: SearchService
  gateway: Gateway
  metering: MeteringService
  /** The price table in force (the code's, with PRONET_PRICES's overrides). */
  prices: PriceTable
  /** The routes to register (default DATA_ROUTES). */
  routes?: readonly DataRoute[]
  /** A live-source node's routes in place of the store's (they answer through the upstream). */
  live?: (routes: readonly DataRoute[]) => DataRoute[]
}

/**
 * Registers the data routes, each metered by the gateway. Throws, so the app does not start, when a
 * route names no rule of the price table: no route is ever served unpriced.
 */
export function registerDataRoutes(app: FastifyInstance, deps: DataRouteDeps): void {
  const parse: ParseContext = { requests: deps.content.requests, search: deps.search }
  const serve: ServeContext = { content: deps.content, search: deps.search, metering: deps.metering }
  const routes = deps.routes ?? DATA_ROUTES
  for (const route of deps.live ? deps.live(routes) : routes) {
    const name = route.price as string | undefined
    const rule = name !== undefined && Object.hasOwn(deps.prices, name) ? deps.prices[route.price] : undefined
    if (rule === undefined || rule.kind === 'free') {
      throw new Error(
        `${route.method} ${route.url} has no price rule: a data route names its row of the price table (price: 'profile', …); ` +
          `${name === undefined ? 'it names none' : `'${name}' is not a priced call`}`,
      )
    }
    const strict = strictQuery(route.querystring)
    const required = documentedRequired(route.querystring)
    app.route({
      method: route.method,
      url: route.url,
      config: {
        operation: route.price,
        // /openapi.json only: the header every data call may carry (the gateway checks it itself), and
        // the required inputs.
        swaggerTransform: ({ schema, url }: { schema: FastifySchema; url: string }) => ({
          schema: {
            ...schema,
            headers: IdempotencyHeaders,
            ...(required.length > 0 ? { querystring: { ...(schema.querystring as object), required } } : {}),
          },
          url,
        }),
      },
      schema: {
        summary: route.summary,
        description: descriptionOf(route, rule),
        operationId: route.operationId,
        tags: ['data'],
        security: [{ ApiKey: [] }],
        ...(route.querystring ? { querystring: route.querystring } : {}),
        ...(route.body ? { body: route.body } : {}),
        response: responses(route),
        ...priceExtensions(route.price, rule),
      },
      // Bodies are checked by their parse step (or service) so each refusal names its field in its own words.
      ...(route.body ? { validatorCompiler: () => () => true } : {}),
      onRequest: deps.gateway.dataRoute(route.price),
      // A body is part of what an Idempotency-Key names, byte for byte.
      ...(route.body ? { preParsing: deps.gateway.bodyTap } : {}),
      ...(strict ? { preValidation: strict } : {}),
      onSend: deps.gateway.onSend,
      // A live source keeps its own answers, each with its age: the store's response cache is not for them.
      handler: deps.gateway.handler(route.cached && !deps.live ? cachedServe(route, deps.content.cache) : route, rule, { parse, serve }),
    })
  }
}
