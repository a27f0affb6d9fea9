/**
 * The data endpoints (spec section 4, D6). Thin: each route declares its operation, price rule,
 * schemas and error codes, and hands the validated query to one content-service function.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify'
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
import type { Operation } from '../../domain/billing/prices.ts'
import { priceOf, type PriceTable } from '../../domain/billing/prices.ts'
import { BATCH_WAIT_MS, type MeteringService } from '../../domain/billing/metering.service.ts'
import type { Admit, ContentService, Delivered } from '../../domain/content/content.service.ts'
import { connectionClosed } from '../client-connection.ts'
import { GatheredBody } from '../gathered-body.ts'
import { strictQuery } from '../strict-input.ts'
import { ApiError, ERROR_STATUS, type ErrorCode } from '../../domain/errors.ts'
import type { SearchService } from '../../domain/search/search.service.ts'
import type { Gateway, Meter } from '../gateway.ts'

export interface DataRoute {
  method: 'GET' | 'POST'
  url: string
  /** The operation's name in /openapi.json (what generated clients call their methods). */
  operationId: string
  operation: Operation
  summary: string
  querystring?: TSchema
  body?: TSchema
  response: TSchema
  /** Endpoint-specific error codes, documented in the OpenAPI responses. */
  errors: ErrorCode[]
  handle(content: ContentService, request: FastifyRequest, admit: Admit, ctx: RouteContext): Promise<Delivered>
}

export interface RouteContext {
  metering: MeteringService
  search: SearchService
  /** null when the app runs unmetered (benchmark baseline). */
  meter: Meter | null
}

// INVALID_PARAMETER: every route takes a query or a body, and a parameter given twice or over its length is refused.
const COMMON: ErrorCode[] = ['MISSING_PARAMETER', 'INVALID_PARAMETER', 'INVALID_URN', 'UNAUTHENTICATED', 'QUOTA_EXHAUSTED', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE']

// The query's static type is enforced by its schema before the handler runs.
type Q<T> = { query: T }
const query = <T>(r: FastifyRequest) => (r as unknown as Q<T>).query

export const DATA_ROUTES: readonly DataRoute[] = [
  {
    method: 'GET',
    url: '/api/v1/profile',
    operationId: 'getProfile',
    operation: 'profile',
    summary: 'One member profile (a company page gives the organisation in profile form)',
    querystring: ProfileQuery,
    response: ProfileResponse,
    errors: [...COMMON, 'PROFILE_NOT_FOUND'],
    handle: (c, r, admit) => c.profile(query(r), admit),
  },
  {
    method: 'GET',
    url: '/api/v1/profile/reactions',
    operationId: 'getProfileReactions',
    operation: 'profile.reactions',
    summary: 'Posts a member reacted to, newest first (cursor pagination)',
    querystring: ProfileReactionsQuery,
    response: ProfileReactionsResponse,
    errors: [...COMMON, 'INVALID_PARAMETER', 'PROFILE_NOT_FOUND'],
    handle: (c, r, admit) => c.profileReactions(query(r), admit),
  },
  {
    method: 'GET',
    url: '/api/v1/profile/articles',
    operationId: 'getProfileArticles',
    operation: 'profile.articles',
    summary: 'Articles a member published, newest first (offset pagination)',
    querystring: ProfileArticlesQuery,
    response: ProfileArticlesResponse,
    errors: [...COMMON, 'INVALID_PARAMETER', 'PROFILE_NOT_FOUND'],
    handle: (c, r, admit) => c.profileArticles(query(r), admit),
  },
  {
    method: 'GET',
    url: '/api/v1/posts',
    operationId: 'getPosts',
    operation: 'posts',
    summary: 'Posts of a member (company pages and member URNs also accepted), newest first',
    querystring: PostsQuery,
    response: PostsResponse,
    errors: [...COMMON, 'INVALID_PARAMETER', 'COMPANY_NOT_FOUND'],
    handle: (c, r, admit) => c.posts(query(r), admit),
  },
  {
    method: 'GET',
    url: '/api/v1/posts/updates',
    operationId: 'getPostsUpdates',
    operation: 'posts.updates',
    summary: 'Recent posts of up to 60 profiles in the older post shape, newest first',
    querystring: PostsUpdatesQuery,
    response: PostsUpdatesResponse,
    errors: [...COMMON, 'INVALID_PARAMETER', 'PROFILE_NOT_FOUND'],
    handle: (c, r, admit) => c.postsUpdates(query(r), admit),
  },
  {
    method: 'GET',
    url: '/api/v1/company',
    operationId: 'getCompany',
    operation: 'company',
    summary: 'One company page',
    querystring: CompanyQuery,
    response: CompanyResponse,
    errors: [...COMMON, 'INVALID_PARAMETER', 'COMPANY_NOT_FOUND'],
    handle: (c, r, admit) => c.company(query(r), admit),
  },
  {
    method: 'POST',
    url: '/api/v1/company/batch',
    operationId: 'getCompanyBatch',
    operation: 'company.batch',
    summary: 'Up to 50 companies in one call; per-entry errors inside a 200',
    body: CompanyBatchBody,
    response: CompanyBatchResponse,
    errors: [...COMMON, 'INVALID_PARAMETER'],
    async handle(c, r, admit, { metering, meter }) {
      const entries = c.batchEntries(r.body)
      // 4.9 rule 4: the whole batch is checked against the balance before anything is fetched.
      await admit(entries.length)
      const results = []
      // Rule 6: one unit was taken on arrival; each further company waits for one, up to 90 s, while
      // its client is still there to receive the answer.
      const gone = () => connectionClosed(r)
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
              ? c.batchRefused(entry, new ApiError('RATE_LIMITED', 'The batch ran out of time waiting for the rate limit; retry this entry.'))
              : await c.batchEntry(entry),
          )
        }
      } finally {
        units?.end()
      }
      return c.batchResponse(results)
    },
  },
  {
    method: 'GET',
    url: '/api/v1/company/posts',
    operationId: 'getCompanyPosts',
    operation: 'company.posts',
    summary: 'Posts of a company page, newest first (cursor pagination)',
    querystring: CompanyPostsQuery,
    response: CompanyPostsResponse,
    errors: [...COMMON, 'INVALID_PARAMETER', 'COMPANY_NOT_FOUND'],
    handle: (c, r, admit) => c.companyPosts(query(r), admit),
  },
  {
    method: 'GET',
    url: '/api/v1/post/engagement',
    operationId: 'getPostEngagement',
    operation: 'post.engagement',
    summary: 'Comments (by token) and reactions (by offset) of one post',
    querystring: EngagementQuery,
    response: EngagementResponse,
    errors: [...COMMON, 'INVALID_PARAMETER', 'POST_NOT_FOUND'],
    handle: (c, r, admit) => c.engagement(query(r), admit),
  },
  {
    method: 'GET',
    url: '/api/v1/post/comments',
    operationId: 'getPostComments',
    operation: 'post.comments',
    summary: 'Comments of one post with their replies, pinned first',
    querystring: CommentsQuery,
    response: CommentsResponse,
    errors: [...COMMON, 'INVALID_PARAMETER', 'POST_NOT_FOUND'],
    handle: (c, r, admit) => c.comments(query(r), admit),
  },
  {
    method: 'POST',
    url: '/api/v1/search/posts',
    operationId: 'searchPosts',
    operation: 'search.posts',
    summary: 'Keyword and author search over posts (one flat price per call, empty pages included)',
    body: SearchPostsBody,
    response: SearchPostsResponse,
    errors: [...COMMON, 'INVALID_PARAMETER'],
    async handle(_c, r, admit, { metering, search, meter }) {
      // D4: simultaneous searches per account are capped at twice the plan's rate.
      const release = meter ? await metering.enterSearch(meter.accountId, meter.at) : undefined
      try {
        return await search.search(r.body, admit)
      } finally {
        await release?.()
      }
    },
  },
  {
    method: 'GET',
    url: '/api/v1/post/reactions',
    operationId: 'getPostReactions',
    operation: 'post.reactions',
    summary: 'Reactions to one post (offset pagination)',
    querystring: PostReactionsQuery,
    response: PostReactionsResponse,
    errors: [...COMMON, 'INVALID_PARAMETER', 'POST_NOT_FOUND'],
    handle: (c, r, admit) => c.postReactions(query(r), admit),
  },
]

/**
 * OpenAPI responses: the success schema, and per status the envelope with the codes it may carry, each
 * with its headers (D3, D4): a refusal before the key is known (401, 403) or a failure on the
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
  const out: Record<number, object> = { 200: withHeaders(described(route.response, 'OK'), REQUEST_ID, CREDITS_CHARGED, RATE_HEADERS) }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const keyed = status !== 401 && status !== 403 && status < 500
    const note = status === 403 ? '(account suspended)' : undefined
    out[status] = withHeaders(
      errorResponse(codes, note),
      REQUEST_ID,
      CREDITS_CHARGED,
      ...(keyed ? [RATE_HEADERS] : []),
      ...(status === 429 || status === 503 ? [RETRY_AFTER] : []),
    )
  }
  return out
}

const JSON_TYPE = 'application/json; charset=utf-8'

/** The record inputs the spec's tables mark required (a missing one is MISSING_PARAMETER). */
const REQUIRED_INPUTS = ['profileUrlOrUrn', 'profileUrlsOrUrns', 'companyUrlOrUrn', 'postUrlOrUrn']

/**
 * The required inputs of a query, for /openapi.json only. The schemas leave them optional so that a
 * missing or blank one is answered by the service, in the spec's words; a query taking an alias
 * (company posts: companyUrlOrUrn or profileUrlOrUrn) requires one of two, which JSON Schema's
 * `required` cannot say.
 */
function documentedRequired(schema: TSchema | undefined): string[] {
  const names = Object.keys((schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {})
  const inputs = names.filter((n) => REQUIRED_INPUTS.includes(n))
  return inputs.length === 1 ? inputs : []
}

export function registerDataRoutes(
  app: FastifyInstance,
  deps: { content: ContentService; search: SearchService; gateway: Gateway; metering: MeteringService; prices: PriceTable },
): void {
  for (const route of DATA_ROUTES) {
    const price = deps.prices[route.operation]
    const strict = strictQuery(route.querystring)
    const required = documentedRequired(route.querystring)
    app.route({
      method: route.method,
      url: route.url,
      config: {
        operation: route.operation,
        price,
        ...(required.length > 0
          ? {
              swaggerTransform: ({ schema, url }: { schema: FastifySchema; url: string }) => ({
                schema: { ...schema, querystring: { ...(schema.querystring as object), required } },
                url,
              }),
            }
          : {}),
      },
      schema: {
        summary: route.summary,
        operationId: route.operationId,
        tags: ['data'],
        security: [{ ApiKey: [] }],
        ...(route.querystring ? { querystring: route.querystring } : {}),
        ...(route.body ? { body: route.body } : {}),
        response: responses(route),
      },
      // Bodies are checked by the services so each refusal names its field with the spec's wording.
      ...(route.body ? { validatorCompiler: () => () => true } : {}),
      onRequest: deps.gateway.dataRoute,
      ...(strict ? { preValidation: strict } : {}),
      onSend: deps.gateway.onSend,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const meter = request.meter
        const delivered = await route.handle(deps.content, request, deps.gateway.admit(request), {
          metering: deps.metering,
          search: deps.search,
          meter,
        })
        if (meter) {
          const count = (request.query as { count?: number } | undefined)?.count
          meter.charge = priceOf(price, { count, units: delivered.units })
        }
        // The body is returned, not `reply`: an async handler resolving to the reply (a thenable) makes
        // Fastify watch the response stream for its end, about 1.5 µs of listeners per request.
        reply.type(JSON_TYPE)
        const body = delivered.body
        if (Buffer.isBuffer(body)) return body
        const gathered = new GatheredBody(body)
        reply.header('content-length', gathered.byteLength)
        return gathered
      },
    })
  }
}
