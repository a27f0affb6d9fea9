/**
 * The gateway in front of every API route (architecture: authenticate → rate budget → credit hold →
 * handler → settle with its usage line → respond):
 * - onRequest: X-API-Key first, so a request without a valid key learns nothing else; a
 *   suspended account's call is recorded and refused with 403; then the arrival units of the rate
 *   budget or the account endpoints' own budgets (one call per second each).
 * - handler(route): the route's parse step (free 400s, no store access), its full price computed
 *   once from the parsed request by its price rule and held (402 when the balance is below it), then
 *   its serve step. A call delivered without its price held is refused (500, free).
 * - onSend: settles what the price rule bills for the outcome (prices.ts: delivered, a 404 of a
 *   record, anything else) with the usage line in one durable transaction, and only then lets the
 *   response go, with X-Credits-Charged and the rate headers (X-Credits-Charged: 0 on a call refused
 *   before its account was known).
 * - Idempotency-Key (idempotency/keyed-calls.ts): a call carrying one claims it once its rate units
 *   are taken (a call with a body, once the body is read), and a repeat of an answered request is
 *   sent the kept answer there, free, with `Idempotent-Replayed: true`. onSend keeps a final answer
 *   (delivered, a 404, a 400) with its debit in the settle's transaction; a refusal worth a retry
 *   (402, 429, 5xx, a client that left) releases the key. A call without the header pays a header
 *   lookup for all this (and, on a route with a body, a call of bodyTap that finds nothing to copy).
 */
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler, onSendAsyncHookHandler, RouteHandlerMethod } from 'fastify'
import { RevokedKeyError, suspendedError, type AccountsService, type Identity } from '../domain/accounts/accounts.service.ts'
import { arrivalUnits, rateHeaders, type MeteringService, type SearchLease } from '../domain/billing/metering.service.ts'
import { billed, priceOf, type Operation, type PriceRule } from '../domain/billing/prices.ts'
import { ApiError, nodeClosing, serviceUnavailable } from '../domain/errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { AnswerToKeep, Hold, UsageLine } from '../ports/ledger.ts'
import type { KeyReservation } from '../ports/key-caps.ts'
import type { KeyLimits } from '../key-caps/key-limits.ts'
import { endpointRefused, keyMayCall } from '../key-caps/key-settings.ts'
import { answerOf, bodyTap, finalAnswer, type KeyedCall } from '../idempotency/keyed-answer.ts'
import type { KeyedCalls } from '../idempotency/keyed-calls.ts'
import type { RateDecision } from '../ports/rate-limiter.ts'
import { createArrivalLog, createDeadlines } from './arrival-log.ts'
import { commitAnswer, connectionClosed } from './client-connection.ts'
import type { DataRoute, ParseContext, ServeContext } from './data-route.ts'
import type { ErrorClassifier } from './error-handler.ts'
import { GatheredBody } from './gathered-body.ts'

export interface Principal {
  accountId: string
  keyId: string
}

/** The metering of one request, from arrival to settle. */
export interface Meter {
  accountId: string
  /** The route as the usage report names it. */
  endpoint: string
  /** Arrival instant: the usage day, the hold and the debit are all taken at it. */
  at: number
  /** The rule that prices the call (free until a data route's handler sets its own). */
  rule: PriceRule
  /** The call's full price, computed once from its parsed request; held on admission. */
  price: number
  hold: Hold | null
  /** Entries delivered with a record, for a per-found rule (company/batch). */
  found: number | undefined
  /** The last rate decision and the units taken, for the rate headers. */
  rate: RateDecision | null
  units: number
  /** The call's Idempotency-Key, when it carries one. */
  keyed: KeyedCall | null
  /** A search's lease of one of its account's simultaneous searches, taken on arrival, until the search takes it over. */
  searchLease: SearchLease | undefined
  /** The API key the call was made with (null for a call refused before one was known). */
  keyId: string | null
  /** Whether the key has a monthly credit limit: its calls then reserve their price against it. */
  keyLimited: boolean
  /** The call's reservation against its key's limit, until its settle resolves. */
  keyHold: KeyReservation | null
}

/** Hands a search the lease its call took on arrival (see MeteringService.arrive); the meter keeps none after. */
export function takeSearchLease(meter: Meter): SearchLease | undefined {
  const lease = meter.searchLease
  meter.searchLease = undefined
  return lease
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null
    meter: Meter | null
  }
  interface FastifyContextConfig {
    /** The operation of an API route: its row of the price table, and what its rate units go by. */
    operation?: Operation
  }
}

export interface GatewayDeps {
  accounts: AccountsService
  metering: MeteringService
  clock: Clock
  /** false: authentication only (the benchmark's unmetered baseline). */
  metered?: boolean
  /** Failures of the settle path (the response becomes a free 500, or 503 when the store is unreachable). */
  onSettleError: (error: unknown, request: FastifyRequest) => void
  /** Store failures that mean "unavailable, retry" (see error-handler.ts). */
  classifyError?: ErrorClassifier
  /** Whether the node is closing: calls are then refused, free and recorded, with 503 (app.ts). */
  closing?: () => boolean
  /** A monotonic clock in ms (default performance.now): how long a call waited before its rate was checked. */
  monotonic?: () => number
  /** Calls made with an Idempotency-Key (absent: the header is not honoured, as in tests of the routes alone). */
  keys?: KeyedCalls
  /** Keys' monthly credit limits (absent: keys' limits are not enforced, as in tests of the routes alone). */
  keyLimits?: KeyLimits
  /** Told of each call that billed credits, once settled (balance alerts); must return at once. */
  onBilled?: (accountId: string) => void
}

/**
 * A call that waited longer than this (ms) for the stores before its rate was checked, and any call
 * of the same account on this node for as long again after one, finding its window full, gets 503
 * rather than 429, unless its client sent more than its limit within this long: see dataRoute.
 */
export const LATE_ARRIVAL_MS = 1_000

const JSON_TYPE = 'application/json; charset=utf-8'
/** The usage status of a call whose client left before its response (nginx's "client closed request"). */
export const CLIENT_CLOSED = 499
/** The rule of a call no data route has priced (account endpoints, refusals before the handler). */
const FREE: PriceRule = { kind: 'free' }

export type Gateway = ReturnType<typeof createGateway>

const isPromise = <T>(x: T | Promise<T>): x is Promise<T> => typeof (x as { then?: unknown }).then === 'function'

/** A caller authenticated: its request's meter, and whether its account is suspended. */
interface Identified {
  meter: Meter
  suspended: boolean
  /** The endpoints the key may call (null: every one). */
  endpoints: readonly string[] | null
}

export function createGateway(deps: GatewayDeps) {
  const { accounts, metering, clock } = deps

  /** The request's meter, opened at `at` for `accountId`. */
  function open(request: FastifyRequest, accountId: string, endpoint: string, at: number, key?: Identity): Meter {
    const meter: Meter = {
      accountId,
      endpoint,
      at,
      rule: FREE,
      price: 0,
      hold: null,
      found: undefined,
      rate: null,
      units: 0,
      keyed: null,
      searchLease: undefined,
      keyId: key?.keyId ?? null,
      keyLimited: key !== undefined && key.monthlyCreditLimit !== null,
      keyHold: null,
    }
    request.meter = meter
    return meter
  }

  /** The meter of a caller `who`, opened now. */
  function opened(request: FastifyRequest, who: Identity, endpoint: string): Identified {
    request.principal = { accountId: who.accountId, keyId: who.keyId }
    return { meter: open(request, who.accountId, endpoint, clock.now(), who), suspended: who.suspended, endpoints: who.endpoints }
  }

  /** The X-API-Key as sent, trimmed (a repeated header is ambiguous: no valid key rather than a guess). */
  function keyOf(request: FastifyRequest): string | undefined {
    const header = request.headers['x-api-key']
    return Array.isArray(header) ? '\u0000' : header?.trim()
  }

  /**
   * Authenticates and opens the request's meter; 401 without a valid key. A key authenticated lately
   * is known at once (accounts.identify answers it from memory): then so is the meter, not a promise.
   */
  function identify(request: FastifyRequest, key: string | undefined, endpoint: string): Identified | Promise<Identified> {
    let found: Identity | Promise<Identity>
    try {
      found = accounts.identify(key)
    } catch (e) {
      found = Promise.reject(e)
    }
    if (!isPromise(found)) return opened(request, found, endpoint)
    return found.then((who) => opened(request, who, endpoint), (e: unknown) => {
      // A revoked key's call is refused (401) and recorded in its account's usage, like any outcome.
      if (e instanceof RevokedKeyError && metered) open(request, e.accountId, endpoint, clock.now())
      throw e
    })
  }

  const metered = deps.metered !== false
  const closing = deps.closing ?? (() => false)
  const monotonic = deps.monotonic ?? (() => performance.now())
  /** Units that reached this node with each key in the last second, by the instant they reached it. */
  const arrivals = createArrivalLog(LATE_ARRIVAL_MS)
  /** Per account, until when (monotonic) its calls held up by the stores may still be filling its window. */
  const heldUp = createDeadlines()

  const keys = deps.keys

  /**
   * A data route's onRequest hook, one per route: `operation` is the route's row of the price table
   * (its config.operation). The route's path is read once, at its first call: Fastify builds
   * request.routeOptions anew at every read.
   */
  const dataRoute = (operation: Operation): onRequestAsyncHookHandler => {
    const units = arrivalUnits(operation)
    let endpoint: string | undefined
    return (request: FastifyRequest, reply: FastifyReply) => {
      endpoint ??= request.routeOptions.url ?? 'unknown'
      return admit(request, reply, operation, units, endpoint)
    }
  }

  /** Authentication, then the rate budget (and an Idempotency-Key's claim): what dataRoute's hook does. */
  async function admit(request: FastifyRequest, reply: FastifyReply, operation: Operation, units: number, endpoint: string): Promise<unknown> {
    const reached = monotonic()
    const key = keyOf(request)
    const arrived = metered && typeof request.headers['x-api-key'] === 'string' ? arrivals.note(key as string, reached, units) : 0
    const identified = identify(request, key, endpoint)
    const { meter, suspended, endpoints } = isPromise(identified) ? await identified : identified
    const allowed = keyMayCall(endpoints, endpoint)
    if (!metered) {
      request.meter = null
      if (suspended) throw suspendedError()
      if (!allowed) throw endpointRefused(endpoint)
      if (closing()) throw nodeClosing()
      return
    }
    if (suspended || !allowed || closing()) {
      // Refused (and recorded) without taking a unit; its rate headers show the budget as it stands.
      meter.rate = await metering.standing(meter.accountId, meter.at)
      throw suspended ? suspendedError() : !allowed ? endpointRefused(endpoint) : nodeClosing()
    }
    let refusal: unknown
    try {
      const { decision, units, searchLease } = await metering.arrive(meter.accountId, operation, meter.at)
      meter.rate = decision
      meter.units = units
      meter.searchLease = searchLease
    } catch (e) {
      refusal = e
    }
    // The per-second window counts calls as they reach the limiter. Calls that waited on a store
    // (PostgreSQL hung for 25 s, a failure probe) all reach it together when it answers again, and an
    // account sending a third of its limit got 250 429s in the second after: the held-up calls, and
    // the prompt ones they crowded out. For a window's length after this node saw such a call of an
    // account, a full window is the service's doing: the refusal is a free 503, and the retry is
    // counted when it comes.
    // Unless the client itself sent more than its limit within the second before the call reached
    // this node: then the refusal is its own (429), however slow the service was. (Without this, a
    // loaded node whose calls now and then waited a second answered a client hammering at over twice
    // its limit with 98 503s in 3 s, seen in CI.) Arrivals are counted per key on this node: for a
    // client spread over keys or nodes that is less than it sent, so a doubt is still a 503, free.
    // A call the plan's limit can never admit keeps its 429.
    const now = monotonic()
    const waited = now - reached
    if (waited > LATE_ARRIVAL_MS) heldUp.extend(meter.accountId, now + LATE_ARRIVAL_MS)
    if (refusal === undefined) {
      const sent = request.headers['idempotency-key']
      if (sent === undefined || !keys) return
      meter.keyed = await keys.arrive(request, reply, meter.accountId, sent)
      // A repeat answered with the kept answer, already sent.
      return meter.keyed.replayed ? reply : undefined
    }
    if (
      refusal instanceof ApiError &&
      refusal.code === 'RATE_LIMITED' &&
      refusal.details?.unitsRequired === undefined &&
      arrived <= Number(refusal.details?.rpsLimit)
    ) {
      // The 503 states the plan's rate as the 429 it replaces did, as every answer of a data route does.
      const unfitted = (why: string): ApiError => {
        const e = serviceUnavailable(why, 1)
        const rate = Object.entries(refusal.headers ?? {}).filter(([k]) => k.startsWith('x-ratelimit-'))
        return new ApiError(e.code, e.message, undefined, { ...Object.fromEntries(rate), ...e.headers })
      }
      if (waited > LATE_ARRIVAL_MS) {
        throw unfitted(`This call waited ${Math.round(waited)} ms for the service's stores before its rate could be checked.`)
      }
      if (heldUp.active(meter.accountId, now)) {
        throw unfitted("Calls held up by the service's stores have just reached the per-second window together; this one could not be fitted.")
      }
    }
    throw refusal
  }

  const accountRoute =
    (which: 'usage' | 'subscription'): onRequestAsyncHookHandler =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const route = request.routeOptions.url ?? 'unknown'
      const { meter, suspended, endpoints } = await identify(request, keyOf(request), route)
      if (suspended) throw suspendedError(await metering.accountEndpointHeaders(meter.accountId, meter.at))
      if (!keyMayCall(endpoints, route)) throw endpointRefused(route, await metering.accountEndpointHeaders(meter.accountId, meter.at))
      if (closing()) throw nodeClosing()
      reply.headers(await metering.arriveAccountEndpoint(meter.accountId, which, meter.at))
    }

  const onSend: onSendAsyncHookHandler<unknown> = async (request, reply, payload) => {
    const meter = request.meter
    if (!meter) {
      // Refused before an account was known (no valid key, or the store could not be asked): nothing
      // billed, and the header says so, as on every other answer of a metered route.
      if (metered) reply.header('x-credits-charged', '0')
      return payload
    }
    request.meter = null
    // A search refused before it ran (a 400, a 402, a repeat) gives back the lease it took on arrival.
    const unused = takeSearchLease(meter)?.release
    if (unused) void unused().catch(() => {})
    if (meter.rate) reply.headers(rateHeaders(meter.rate, meter.units))
    // A client that has gone (closed its connection, or timed out, while the call waited) gets no
    // response, so nothing is delivered or billed; the call is recorded as 499, client closed.
    // Gone is decided here, before the settle: a client whose end arrives while it commits is answered
    // (app.ts: half-open connections), so what is billed is what is sent.
    const gone = connectionClosed(request)
    if (!gone) commitAnswer(request, reply)
    const status = gone ? CLIENT_CLOSED : reply.statusCode
    const keyed = meter.keyed
    const credits = keyed?.replayed ? 0 : billed(meter.rule, { status, held: meter.hold?.credits ?? 0, found: meter.found })
    const line: UsageLine = { accountId: meter.accountId, at: meter.at, endpoint: meter.endpoint, status, credits, requestId: request.id }
    if (meter.keyId !== null) line.keyId = meter.keyId
    const claim = keyed?.claim ?? null
    let kept = false
    try {
      const answer = claim && keyed && !gone && finalAnswer(status, credits) ? answerOf(keyed, reply, payload) : undefined
      const keep: AnswerToKeep | undefined = claim && answer ? { claim, answer } : undefined
      const settled = keep ? await (keys as KeyedCalls).settle(meter.hold, line, keep) : await metering.settle(meter.hold, line)
      if (!settled.ok) {
        // The balance changed under the request (an operator's change): refuse it, free, and say so.
        await metering.settle(null, { ...line, status: 402, credits: 0 })
        reply.code(402).type(JSON_TYPE).header('x-credits-charged', '0')
        return JSON.stringify((await metering.settleRefusal(meter.accountId, credits)).toBody())
      }
      kept = keep !== undefined
      if (credits > 0) deps.onBilled?.(meter.accountId)
    } catch (e) {
      deps.onSettleError(e, request)
      const failure =
        deps.classifyError?.(e) ?? new ApiError('INTERNAL_ERROR', 'The call could not be recorded; nothing was charged. It is safe to retry.')
      if (failure.headers) reply.headers(failure.headers)
      reply.code(failure.status).type(JSON_TYPE).header('x-credits-charged', '0')
      return JSON.stringify(failure.toBody())
    } finally {
      // Before the answer goes: a client retrying at once finds the key answered, or free.
      if (claim) await (keys as KeyedCalls).end(claim, kept)
      if (meter.keyHold) await (deps.keyLimits as KeyLimits).release(meter.keyHold)
    }
    // Recorded as 499 and billed nothing: nothing goes out either (a client that only half-closed
    // would still read it). Calls pipelined behind it on the connection find it closed, and go the same way.
    if (gone) request.raw.socket.destroy()
    reply.header('x-credits-charged', String(credits))
    return payload
  }

  /**
   * A data route's handler: parse, price once, hold, serve. Unmetered (the benchmark's baseline),
   * parse and serve alone.
   */
  function handler(route: DataRoute, rule: PriceRule, ctx: { parse: ParseContext; serve: ServeContext }): RouteHandlerMethod {
    const input = route.body ? (request: FastifyRequest) => request.body : (request: FastifyRequest) => request.query
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const meter = request.meter
      const keyed = meter?.keyed
      if (meter && keyed && keyed.claim === null) {
        // A call with a body claims its key now that the body is read.
        const kept = await (keys as KeyedCalls).start(request, reply, meter.accountId, keyed)
        if (kept) return kept
      }
      if (meter) meter.rule = rule
      const parsed = route.parse(input(request), ctx.parse)
      if (meter) {
        meter.price = priceOf(rule, parsed)
        // Held before the serve step runs (402 when the balance is below it): nothing is read unpaid.
        // A key with a monthly limit reserves the price against it first (402 past it).
        if (meter.price > 0) {
          if (meter.keyLimited && meter.keyId !== null && deps.keyLimits) {
            meter.keyHold = await deps.keyLimits.reserve(meter.keyId, meter.price, meter.at, request.id)
          }
          meter.hold = await metering.hold(meter.accountId, meter.price, meter.at)
        }
      }
      const delivered = await route.serve(parsed, ctx.serve, request)
      if (meter) meter.found = delivered.found
      if (delivered.headers) reply.headers(delivered.headers)
      // The body is returned, not `reply`: an async handler resolving to the reply (a thenable) makes
      // Fastify watch the response stream for its end, about 1.5 µs of listeners per request.
      reply.type(JSON_TYPE)
      const body = delivered.body
      if (keyed) keyed.served = body
      if (Buffer.isBuffer(body)) return body
      const gathered = new GatheredBody(body)
      reply.header('content-length', gathered.byteLength)
      return gathered
    }
  }

  return {
    dataRoute,
    accountRoute,
    onSend,
    handler,
    /** A body route's preParsing hook: copies the body of a call with an Idempotency-Key for its fingerprint. */
    bodyTap,

    /** Records a call to a path that does not exist under endpoint `unknown` when its key is valid. */
    async recordUnknown(request: FastifyRequest, status: number): Promise<void> {
      const header = request.headers['x-api-key']
      if (typeof header !== 'string' || header.trim() === '') return
      let accountId: string
      try {
        accountId = (await accounts.identify(header.trim())).accountId
      } catch (e) {
        if (!(e instanceof RevokedKeyError)) return
        accountId = e.accountId
      }
      await metering.settle(null, { accountId, at: clock.now(), endpoint: 'unknown', status, credits: 0, requestId: request.id })
    },
  }
}
