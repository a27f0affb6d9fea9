/**
 * buildApp(container): the Fastify instance with its plugins, routes and error handling. It never
 * listens; main.ts does, and tests use app.inject.
 */
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import type { Container } from './container.ts'
import { ApiError, nodeClosing } from './domain/errors.ts'
import { randomBytes } from 'node:crypto'
import { createGateway } from './http/gateway.ts'
import { createKeyedCalls } from './idempotency/keyed-calls.ts'
import { createKeyLimits } from './key-caps/key-limits.ts'
import { registerAccountRoutes } from './http/routes/account.routes.ts'
import { clientGone, clientLeft } from './http/client-connection.ts'
import { createOutageLog } from './http/outage-log.ts'
import { registerErrorHandling } from './http/error-handler.ts'
import { createClientErrors } from './http/client-error.ts'
import { createCredentialThrottle, throttleFailedCredentials } from './http/credential-throttle.ts'
import { useJsonBodies } from './http/json-body.ts'
import { DOCS_CSP, securityHeaders } from './http/security-headers.ts'
import { serverTimeouts } from './http/server-timeouts.ts'
import { documentAdminBodies, registerAdminRoutes } from './http/routes/admin.routes.ts'
import { completeDocument, type OpenApiDocument } from './http/openapi-document.ts'
import { DOCS_CSS, FAVICON_SVG, LOGO_SVG } from './http/docs-assets/docs-assets.ts'
import { registerDataRoutes } from './http/routes/data.routes.ts'
import { registerUpstreamAdminRoutes } from './live-source/upstream.admin.routes.ts'
import { registerMetaRoutes } from './http/routes/meta.routes.ts'
import { registerOrderAdminRoutes } from './http/routes/orders.admin.routes.ts'
import { registerWebhookAdminRoutes } from './http/routes/webhooks.admin.routes.ts'
import { registerConsole, sendConsoleNotFound } from './console/console.plugin.ts'
import { createAccountSearch } from './domain/accounts/account-search.ts'
import { registerStripeWebhookRoute } from './payments/stripe-webhook.routes.ts'
import { registerHttpMetrics } from './observability/http-metrics.ts'

/** How long a closing node leaves idle kept-alive connections open for a call already on its way. */
export const DRAIN_GRACE_MS = 2_000

export interface AppOptions {
  /**
   * false serves the data routes with authentication only: no rate budget, hold, settle or usage
   * line. For the metering benchmark's baseline, never for customers.
   */
  metering?: boolean
}

export async function buildApp(c: Container, options: AppOptions = {}): Promise<FastifyInstance> {
  /** The not-found answer, set once error handling is registered (it records usage through the gateway). */
  let notFound: ((request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>) | undefined
  /** Set once close() has begun (SIGTERM, SIGINT): see the closing hooks below. */
  let closing = false
  const timeouts = serverTimeouts(c.config.requestTimeoutMs)
  const throttled = throttleFailedCredentials(
    createCredentialThrottle({ now: c.monotonic, limit: c.config.authFailureLimit, windowMs: c.config.authFailureWindowMs }),
  )
  const secure = securityHeaders({ https: c.config.publicUrl.startsWith('https:') })
  // One generator for every request id, the parser's refusals (answered before Fastify sees them) included.
  const newRequestId = requestIds()
  const clientErrors = createClientErrors({ timeouts: timeouts.http, headerLines: secure.lines, requestId: newRequestId })
  const app = Fastify({
    // A path Fastify's router cannot read (a malformed percent-escape: /api/v1/prof%ile) or a path
    // parameter over its length would get Fastify's own body and code (FST_ERR_BAD_URL, 414) and go
    // unrecorded. No route can match such a path: it is an unknown path, 404 NOT_FOUND in the API's
    // error envelope, counted under `unknown` like any other. `notFound` is set below,
    // before the server takes a request; the app's onSend hooks do not run for these replies, so the
    // request id is named here.
    frameworkErrors: (_error, request, reply) => {
      secure.apply(reply as FastifyReply)
      reply.header('x-request-id', request.id)
      // A console path is a page for a person: its 404 is the console's page, with its stylesheet.
      if (request.url.startsWith('/console/')) return sendConsoleNotFound(reply as FastifyReply)
      void notFound?.(request as FastifyRequest, reply as FastifyReply)
    },
    // No per-request logger: a child logger per request is a noticeable share of a cached response's
    // cost, and request log lines would halve throughput. Failures are logged by the error handler
    // through the container's logger.
    logger: false,
    bodyLimit: 1024 * 1024,
    // The client's address (sign-in throttling, wrong keys and tokens) read from X-Forwarded-For only from trusted proxies.
    trustProxy: trustedProxies(c.config.trustProxy),
    // Node answers an HTTP/1.1 request without a Host header itself, with an empty 400; the hook
    // below answers it with the API's error envelope instead. A request must arrive within its time
    // limits (server-timeouts.ts).
    http: { requireHostHeader: false, ...timeouts.http },
    ...timeouts.fastify,
    // Request ids name debits in the ledger and come back as X-Request-Id: a per-process random
    // prefix and a counter, unique across restarts; no header is trusted for them.
    requestIdHeader: false,
    genReqId: newRequestId,
    // Fastify's own answer while closing is a 503 without the API's error envelope, Retry-After or a
    // usage line; ours is below (the closing hooks and the gateway).
    return503OnClosing: false,
    // No implicit HEAD routes: a HEAD of a data route would be billed for a body it never sends.
    exposeHeadRoutes: false,
    // Unknown body fields are refused by closed schemas, never silently dropped.
    ajv: { customOptions: { removeAdditional: false } },
    // Requests Node's HTTP parser refuses, or that did not arrive in time: the API's error envelope
    // (client-error.ts), not Node's or Fastify's own answers.
    clientErrorHandler: clientErrors.handle,
  })
  app.decorateRequest('principal', null)
  app.decorateRequest('meter', null)
  clientErrors.watch(app.server)
  // Before any route: each route gets its metrics hook as it is registered.
  registerHttpMetrics(app, c.observability.http)
  // An expectation other than 100-continue: Node's default is a 417 with an empty body, a status
  // the API does not use. RFC 9110 lets a server ignore it, as this one does: the request
  // is answered as if the header were absent.
  app.server.on('checkExpectation', (req, res) => app.server.emit('request', req, res))
  // A client's end of the stream (FIN) is how it leaves: a call that has not settled by then is
  // recorded as 499 and not answered (see connectionClosed). Node's default ends the connection as
  // soon as that end arrives, so a call settling at that moment would be billed while its answer is
  // dropped. With half-open allowed, Node leaves the ending to the calls under way: one already
  // settled is answered (a half-closed client still reads it), and the connection ends after it.
  ;(app.server as typeof app.server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true
  // A callback hook, not an async one: it runs on every request, and has nothing to wait for. While
  // the node closes, a call off the API is refused here (see the closing hooks below).
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      return done(new ApiError('INVALID_PARAMETER', 'An HTTP/1.1 request needs a Host header.'))
    }
    if (closing && !request.url.startsWith('/api/')) return done(nodeClosing())
    done()
  })
  // While the node closes, a call that arrives is refused with a free 503 SERVICE_UNAVAILABLE
  // (Retry-After: 1), and every response closes its connection (onSend below): Node keeps a busy
  // keep-alive connection open after server.close(), so a client sending back to back would keep the
  // node from ever closing, and one that had just been answered would hold it for the keep-alive timeout. Calls
  // with a key are refused by the gateway, after authentication, so each is in its account's usage;
  // the API's unknown paths are still answered (and recorded) as such. Calls admitted before run to
  // their end, billed as usual.
  app.addHook('preClose', (done) => {
    closing = true
    // Node's server.close() (which Fastify's close calls next) stops taking connections and at once
    // destroys every kept-alive connection it takes for idle, one whose next request is already on
    // its way included, so calls sent just before SIGTERM (POSTs among them) would be cut with
    // ECONNRESET, unanswered. So idle connections get DRAIN_GRACE_MS first: a
    // call arriving on one meanwhile is answered (a 503 that closes it); those still idle then go.
    // Connections busy with a call close after their answer, as before; close() waits for them all.
    const server = app.server
    const closeIdle = server.closeIdleConnections.bind(server)
    server.closeIdleConnections = () => {}
    setTimeout(() => {
      server.closeIdleConnections = closeIdle
      closeIdle()
    }, DRAIN_GRACE_MS).unref()
    done()
  })
  // A client that closed its connection before its body was read (while its key was checked: a
  // PostgreSQL or Redis round trip) has lost that body: Node discards it, and Fastify would wait for
  // it for ever, so the call would be neither answered nor recorded. It goes the error's way instead, recorded
  // as 499 like any call whose client left. No hook after this one waits on anything before the body
  // is read, so a close cannot slip in between.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    if (clientLeft(request)) return done(clientGone())
    done(null, payload)
  })
  // Every response names its request (401s, 404s and admin calls too), so a client can quote it, and
  // carries the security headers. A wrong key or token from an address that sent too many is refused
  // with a 429 instead of its 401; every refusal says it was free (a data route's gateway, whose
  // onSend runs after this one, states what it billed).
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id)
    secure.apply(reply)
    if (reply.statusCode >= 400) {
      payload = throttled(request, reply, payload)
      if (!reply.hasHeader('x-credits-charged')) reply.header('x-credits-charged', '0')
    }
    // While closing, every answer ends its connection (see the closing hooks above). Otherwise:
    // Fastify closes the connection after any body it could not parse, in case more of the body is
    // still to come. When Node has already read the whole request, the connection is in step, and
    // requests the client pipelined behind this one may already be running (and billed): closing
    // would drop their responses. Such a connection stays open, so each of them is answered (unless
    // the client asked for it to close: then it closes, and says so).
    if (closing) reply.header('connection', 'close')
    else if (reply.getHeader('connection') === 'close' && request.raw.complete && !/\bclose\b/i.test(request.headers.connection ?? '')) {
      reply.removeHeader('connection')
    }
    done(null, payload)
  })
  useJsonBodies(app)
  // Fastify reads text/plain bodies as strings by default: a JSON body labelled text/plain would reach
  // the routes as a string and be refused for its fields ("'companies' is required"). Every body here is
  // JSON, so text/plain is an unsupported content type like any other, and the 400 says so.
  app.removeContentTypeParser('text/plain')
  const outage = createOutageLog(c.logger, c.monotonic)
  const gateway = createGateway({
    accounts: c.accounts,
    metering: c.metering,
    clock: c.clock,
    keys: createKeyedCalls({ ledger: c.ledger, clock: c.clock }),
    keyLimits: createKeyLimits(c.keyCaps),
    onBilled: (accountId) => c.webhooks.billed(accountId),
    metered: options.metering !== false,
    classifyError: c.classifyError,
    closing: () => closing,
    monotonic: c.monotonic,
    onSettleError: (err, request) => {
      if (c.classifyError(err)) outage(err, { url: request.url }, 'a store could not be reached to settle; calls are answered 503, not billed')
      else c.logger.error({ err, url: request.url }, 'settle failed; the call was answered with an error and not billed')
    },
  })
  notFound = registerErrorHandling(app, c.logger, gateway.recordUnknown, c.classifyError, outage)

  await app.register(swagger, {
    transformObject: (documents) => {
      const doc = (documents as { openapiObject: OpenApiDocument & { paths?: Record<string, Record<string, unknown>> } }).openapiObject
      return completeDocument(documentAdminBodies(doc), { publicUrl: c.config.publicUrl, buyCreditsUrl: c.config.buyCreditsUrl })
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'pronet: Professional Network Data API',
        version: '1.0.0',
        description: [
          'Credit-metered JSON API over professional-network content: member profiles, company pages, posts, comments, reactions and articles, read by the identifiers the platform itself uses (URNs, URLs and slugs).',
          'Authenticate every call with the `X-API-Key` header. Each data operation states its price in credits and what it takes of the plan’s per-second rate budget; every answer says what it billed in `X-Credits-Charged`, and refused or failed calls cost nothing. Errors are `{error, code, details?}`, the status following from the code.',
        ].join('\n\n'),
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      tags: [
        { name: 'data', description: 'Professional-network content, metered in credits' },
        { name: 'account', description: "The calling account's balance, usage and subscription: free" },
        ...(c.config.adminToken ? [{ name: 'admin', description: "The operator's API (PRONET_ADMIN_TOKEN): accounts, keys, plans, packs" }] : []),
      ],
      components: {
        securitySchemes: {
          ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Your API key (pk_…), from the console or your operator' },
          // Offered on the reference page only where the admin API exists.
          ...(c.config.adminToken ? { AdminToken: { type: 'http', scheme: 'bearer', description: 'The operator token, PRONET_ADMIN_TOKEN' } } : {}),
        },
      },
    },
  })
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
    logo: { type: 'image/svg+xml', content: Buffer.from(LOGO_SVG) },
    theme: {
      title: 'pronet API reference',
      css: [{ filename: 'pronet.css', content: DOCS_CSS }],
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(FAVICON_SVG) }],
    },
    staticCSP: DOCS_CSP,
    // The page's "Try it out" calls the server it was served from, wherever that is: its policy lets
    // it reach no other origin. A relative server is read against the description's own address.
    transformSpecificationClone: false,
    transformSpecification: (spec) => ({ ...spec, servers: [{ url: '..', description: 'The server of this page' }] }),
  })

  registerMetaRoutes(app)
  registerAccountRoutes(app, { gateway, metering: c.metering, usage: c.usage })
  registerDataRoutes(app, {
    content: c.content,
    search: c.search,
    gateway,
    metering: c.metering,
    prices: c.config.prices,
    ...(c.live ? { live: c.live.routes } : {}),
  })
  const searchAccounts = createAccountSearch({ accounts: c.accountStore, identity: c.identityStore })
  await registerConsole(app, {
    identity: c.identity,
    searchAccounts,
    accounts: c.accounts,
    accountStore: c.accountStore,
    metering: c.metering,
    usage: c.usage,
    ledger: c.ledger,
    orders: c.orders,
    webhooks: c.webhooks,
    clock: c.clock,
    logger: c.logger,
    publicUrl: c.config.publicUrl,
    signup: c.config.signup,
    payments: c.config.payments,
    packTiers: c.config.packTiers,
    prices: c.config.prices,
    adminToken: c.config.adminToken,
  }, { formKey: c.formKey })
  if (c.config.payments === 'stripe') registerStripeWebhookRoute(app, { orders: c.orders })
  if (c.config.adminToken) {
    registerOrderAdminRoutes(app, { token: c.config.adminToken, orders: c.orders })
    registerWebhookAdminRoutes(app, { token: c.config.adminToken, webhooks: c.webhooks })
    if (c.live) registerUpstreamAdminRoutes(app, { token: c.config.adminToken, live: c.live })
    registerAdminRoutes(app, {
      token: c.config.adminToken,
      searchAccounts,
      accounts: c.accounts,
      metering: c.metering,
      ...(c.testClock ? { testClock: c.testClock } : {}),
      metrics: async () => ({ contentType: c.metrics.contentType, text: await c.metrics.metrics() }),
    })
  }
  return app
}

/** The proxies whose X-Forwarded-For is believed: a number of hops is the nearest N (as Fastify reads one). */
function trustedProxies(setting: boolean | number | readonly string[]): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting === 'number') return (_address, hop) => hop < setting
  return typeof setting === 'boolean' ? setting : [...setting]
}

function requestIds(): () => string {
  const prefix = randomBytes(6).toString('base64url')
  let n = 0
  return () => `${prefix}-${(n++).toString(36)}`
}
