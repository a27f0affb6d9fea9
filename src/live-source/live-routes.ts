/**
 * The data routes of a live-source node. Each keeps its parse step (the same free 400s, the same
 * price held) and answers through the live source instead of the store: the customer's validated
 * input is sent on to the same endpoint upstream, with our page token swapped for the upstream's
 * it wraps, and the upstream's answer comes back with its page token wrapped in ours (signed, so a
 * customer never sees or forges an upstream token). Every answer says where it came from
 * (`X-Data-Source`) and how old it is (`Age`). The batch keeps its own loop and its 90-second
 * rule; each entry is a single company fetched (and kept) through the live source.
 */
import type { FastifyRequest } from 'fastify'
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { billed, priceOf, type DataOperation, type PriceTable } from '../domain/billing/prices.ts'
import { batchError, type BatchResult } from '../domain/content/companies.service.ts'
import type { Delivered } from '../domain/content/content.service.ts'
import { companyNotFound, memberNotFoundAsCompany, pageNotFoundAsProfile, postNotFound, profileNotFound } from '../domain/content/content-lookups.ts'
import { parseCompanyInput } from '../domain/content/input-resolution.ts'
import { json } from '../domain/content/json-parts.ts'
import { ApiError, isApiError, type ErrorCode } from '../domain/errors.ts'
import type { TokenSigner } from '../domain/tokens.ts'
import type { DataRoute, ServeContext } from '../http/data-route.ts'
import { takeSearchLease } from '../http/gateway.ts'
import type { LiveCall, LiveResult, LiveSource } from './live-source.ts'
import { LIVE_OPERATIONS, recordsOf } from './live-operations.ts'
import type { UpstreamClient, UpstreamQuery, UpstreamValidate } from './upstream-client.ts'
import type { TokenSeal } from './token-seal.ts'
import { CompanyResponse } from '../contract/endpoints.schemas.ts'

export interface LiveRouteDeps {
  live: LiveSource
  client: UpstreamClient
  tokens: TokenSigner
  seal: TokenSeal
  prices: PriceTable
  platformHost: string
}

/** What a live route's parse step adds to the parsed request: the input to send on, and the upstream's token. */
const FORWARD = Symbol('forward')
interface Forward {
  input: Record<string, unknown>
  upstreamToken: string | undefined
  /** What our page tokens for this request are bound to: its operation and subject. */
  scope: string
}

const NOT_FOUND: Partial<Record<string, () => ApiError>> = {
  PROFILE_NOT_FOUND: profileNotFound,
  COMPANY_NOT_FOUND: companyNotFound,
  POST_NOT_FOUND: postNotFound,
}

/** The parts of a request that only page through its subject: a token stays good across them. */
const PAGING = new Set(['count', 'start', 'commentCount', 'commentStart', 'reactionCount', 'reactionStart', 'maxResults', 'cursor', 'paginationToken', 'commentPaginationToken'])

/** A token is bound to its operation and subject, as the store's own tokens are: used elsewhere, it is a free 400. */
function scopeOf(operation: string, request: object): string {
  const subject = Object.entries(request).filter(([k]) => !PAGING.has(k))
  return `live:${operation}:${canonical(Object.fromEntries(subject))}`
}

/** The not-found answer a store node gives on each endpoint, in its words. */
function notFoundOf(operation: string, code: string | undefined): () => ApiError {
  if (operation === 'profile' && code === 'PROFILE_NOT_FOUND') return pageNotFoundAsProfile
  if (operation === 'posts' && code === 'COMPANY_NOT_FOUND') return memberNotFoundAsCompany
  return NOT_FOUND[code ?? ''] ?? profileNotFound
}

function validator(schema: TSchema): UpstreamValidate {
  const checked = Compile(schema)
  return (body) => checked.Check(body) || 'the body does not have the endpoint’s documented shape'
}

/** The live answer's own headers: where it came from and how old it is. */
const provenance = (r: LiveResult): Record<string, string> => ({ age: String(r.ageS), 'x-data-source': r.source })

/** Our 404 for an absent record (our own words, with the answer's provenance), billed as any 404. */
function absent(operation: string, r: LiveResult): ApiError {
  const made = notFoundOf(operation, r.code)()
  return new ApiError(made.code as ErrorCode, made.message, made.details, provenance(r))
}

/** A key order that does not depend on how the client wrote the request. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as object).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  )
}

export function liveRoutes(routes: readonly DataRoute[], deps: LiveRouteDeps): DataRoute[] {
  const { live, client, tokens, seal } = deps
  const companyValidate = validator(CompanyResponse)

  function present(tokenOut: string | undefined, scope: string) {
    if (tokenOut === undefined) return (text: string) => Buffer.from(text)
    return (text: string) => {
      const body = JSON.parse(text) as Record<string, unknown>
      const token = body[tokenOut]
      if (typeof token !== 'string' || token === '') return Buffer.from(text)
      // The upstream's token, sealed and bound to this request's subject; '' stays as it came.
      body[tokenOut] = tokens.issue(scope, seal.seal(token))
      return Buffer.from(JSON.stringify(body))
    }
  }

  const fallbackCredits = (operation: DataOperation, request: unknown) => (status: 200 | 404) => {
    const rule = deps.prices[operation]
    return billed(rule, { status, held: priceOf(rule, request as never), found: status === 200 ? 1 : 0 })
  }

  function companyEntry(call: FastifyRequest, results: LiveResult[]) {
    const operation: DataOperation = 'company'
    const op = LIVE_OPERATIONS.company
    return async (input: string): Promise<BatchResult> => {
      let parsed
      try {
        parsed = { input: parseCompanyInput(input, { param: 'companies', host: deps.platformHost }) }
      } catch (e) {
        if (isApiError(e)) return { json: batchError(input, e), outcome: 'failed' }
        throw e
      }
      try {
        // Named as GET /company names it: the batch and the single call share kept answers.
        const r = await live.answer({
          operation,
          op,
          name: `${operation}|${JSON.stringify(parsed)}|`,
          cacheControl: call.headers['cache-control'],
          fetch: () => client.get('/api/v1/company', { companyUrlOrUrn: input }, { validate: companyValidate }),
          present: present(undefined, ''),
          records: (body) => recordsOf(operation, body, {}),
          fallbackCredits: fallbackCredits(operation, parsed),
        })
        results.push(r)
        if (r.status === 404) return { json: batchError(input, companyNotFound()), outcome: 'notFound' }
        return { json: json(`{"input":${JSON.stringify(input)},"company":`, r.bytes, '}'), outcome: 'found' }
      } catch (e) {
        if (isApiError(e)) return { json: batchError(input, e), outcome: 'failed' }
        throw e
      }
    }
  }

  return routes.map((route): DataRoute => {
    const operation = route.price
    const op = LIVE_OPERATIONS[operation]
    if (operation === 'company.batch') {
      return {
        ...route,
        async serve(request, ctx, call) {
          const results: LiveResult[] = []
          const content = { ...ctx.content, companies: { ...ctx.content.companies, batchEntry: companyEntry(call, results) } }
          const delivered = await route.serve(request, { ...ctx, content }, call)
          // The batch's provenance is its least fresh part: upstream if any entry was fetched now.
          const source = results.some((r) => r.source === 'upstream') ? 'upstream' : results.some((r) => r.source === 'stale') ? 'stale' : 'cache'
          const ageS = results.reduce((max, r) => Math.max(max, r.ageS), 0)
          return { ...delivered, headers: { age: String(source === 'upstream' ? 0 : ageS), 'x-data-source': source } }
        },
      }
    }
    const validate = validator(route.response)
    const tokenIn = op.tokenIn
    return {
      ...route,
      parse(input, ctx) {
        const given = { ...((input ?? {}) as Record<string, unknown>) }
        const token = tokenIn === undefined ? undefined : given[tokenIn]
        if (tokenIn !== undefined && (typeof token === 'string' || token === null)) delete given[tokenIn]
        const parsed = route.parse(given, ctx) as object
        // A body's subject is read from the body itself: the search's parsed form holds compiled parts.
        // Only a paging operation's tokens need a scope, worked out once here for both directions.
        const scope = tokenIn === undefined ? '' : scopeOf(operation, route.method === 'POST' ? given : parsed)
        const upstreamToken = typeof token === 'string' && token !== '' ? unwrapToken(tokens, seal, scope, token, tokenIn as string) : undefined
        const forward: Forward = { input: given, upstreamToken, scope }
        return Object.assign(parsed, { [FORWARD]: forward })
      },
      async serve(request, ctx: ServeContext, call): Promise<Delivered> {
        const forward = (request as unknown as { [FORWARD]: Forward })[FORWARD]
        const send = tokenIn !== undefined && forward.upstreamToken !== undefined ? { ...forward.input, [tokenIn]: forward.upstreamToken } : forward.input
        const liveCall: LiveCall = {
          operation,
          op,
          // The search's parsed form is large and holds its cursor: its name is its body instead.
          // A parsed request's keys are in the order its parser wrote them; a body's in the client's.
          name: `${operation}|${route.method === 'POST' ? canonical(forward.input) : JSON.stringify(request)}|${forward.upstreamToken ?? ''}`,
          cacheControl: call.headers['cache-control'],
          fetch: () => (route.method === 'GET' ? client.get(route.url, send as UpstreamQuery, { validate }) : client.post(route.url, send, { validate })),
          present: present(op.tokenOut, forward.scope),
          records: (body) => recordsOf(operation, body, forward.input),
          fallbackCredits: fallbackCredits(operation, request),
        }
        const answer = async () => {
          const r = await live.answer(liveCall)
          if (r.status === 404) throw absent(operation, r)
          return { body: r.bytes, headers: provenance(r) }
        }
        if (operation !== 'search.posts' || !call.meter) return answer()
        // Simultaneous searches per account stay capped at twice the plan's rate, as on the store.
        const release = await ctx.metering.enterSearch(call.meter.accountId, call.meter.at, takeSearchLease(call.meter))
        try {
          return await answer()
        } finally {
          await release()
        }
      },
    }
  })
}

function unwrapToken(tokens: TokenSigner, seal: TokenSeal, scope: string, token: string, param: string): string {
  const sealed = tokens.open(token, scope, param)
  const inner = typeof sealed === 'string' ? seal.open(sealed) : undefined
  if (inner === undefined) throw new ApiError('INVALID_PARAMETER', `'${param}' was not issued by this service for this request.`, { parameter: param })
  return inner
}
