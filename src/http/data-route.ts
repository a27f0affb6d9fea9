/**
 * What a data route is: its place in the API, the row of the price table that prices it, and its
 * work in two steps on either side of admission. The gateway runs every route the same way: `parse`
 * (validated input to a typed request, free 400s), the price computed once from that request and
 * held (402 when the balance is below it), then `serve`. `parse` is given no store, so nothing can be
 * read before the price is held; a route without a price rule is refused at start.
 */
import type { FastifyRequest } from 'fastify'
import type { TObject, TSchema } from 'typebox'
import type { Validated } from '../contract/validated.ts'
import type { MeteringService } from '../domain/billing/metering.service.ts'
import type { DataOperation, PriceBasis } from '../domain/billing/prices.ts'
import type { ContentRequests, ContentService, Delivered } from '../domain/content/content.service.ts'
import type { ErrorCode } from '../domain/errors.ts'
import type { SearchService } from '../domain/search/search.service.ts'

/** What a parse step may use: parsers with no store behind them. */
export interface ParseContext {
  requests: ContentRequests
  /** The search body's parser, which also opens its cursor (signed, so no store is needed). */
  search: Pick<SearchService, 'prepare'>
}

/** What a serve step may use, once the call's price is held. */
export interface ServeContext {
  content: ContentService
  search: SearchService
  metering: MeteringService
}

export interface DataRoute<Req extends PriceBasis = PriceBasis> {
  method: 'GET' | 'POST'
  url: string
  /** The operation's name in /openapi.json (what generated clients call their methods). */
  operationId: string
  /**
   * Its row of the price table (as PRONET_PRICES overrides it): how a call is priced from its
   * parsed request, what a 404 bills, and the name its rate units go by. Registration refuses a route
   * without one.
   */
  price: DataOperation
  summary: string
  querystring?: TObject
  body?: TSchema
  response: TSchema
  /** Endpoint-specific error codes, documented in the OpenAPI responses. */
  errors: ErrorCode[]
  /** The validated query (defaults filled in) or body as a typed request; refusals are free 400s. */
  parse(input: unknown, ctx: ParseContext): Req
  /** Answers a parsed request; the gateway calls it once the request's price is held. */
  serve(request: Req, ctx: ServeContext, call: FastifyRequest): Promise<Delivered>
  /**
   * Answers are kept in the response cache under the route's operation and its whole parsed request
   * (so no parameter can be left out of the key), and served from there while the store is unchanged.
   */
  cached?: true
}

type Declared = Omit<DataRoute, 'method' | 'querystring' | 'body' | 'parse' | 'serve' | 'cached'>

/** A GET route: its parse step is typed by its query schema, as the validator hands the query on. */
export function getRoute<S extends TObject, Req extends PriceBasis>(
  route: Declared & {
    querystring: S
    parse(query: Validated<S>, ctx: ParseContext): Req
    serve(request: Req, ctx: ServeContext, call: FastifyRequest): Promise<Delivered>
    cached?: true
  },
): DataRoute<Req> {
  return { method: 'GET', ...route } as DataRoute<Req>
}

/** A POST route whose body its parse step checks itself, so each refusal names its field. */
export function postRoute<Req extends PriceBasis>(
  route: Declared & {
    body: TSchema
    parse(body: unknown, ctx: ParseContext): Req
    serve(request: Req, ctx: ServeContext, call: FastifyRequest): Promise<Delivered>
  },
): DataRoute<Req> {
  return { method: 'POST', ...route }
}
