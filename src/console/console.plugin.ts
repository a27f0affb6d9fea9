/**
 * The customer and operator console under /console/: server-rendered pages whose forms work without
 * script, behind a session cookie, with CSRF protection on every state-changing request and a strict
 * Content-Security-Policy (no inline script or style). Everything here is scoped to the console: the
 * API keeps its own parsers, headers and error envelope.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import cookie from '@fastify/cookie'
import csrf from '@fastify/csrf-protection'
import formbody from '@fastify/formbody'
import helmet from '@fastify/helmet'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isApiError } from '../domain/errors.ts'
import { assetsDir } from './assets-dir.ts'
import { registerAccountPages } from './account.routes.ts'
import { registerAuthPages } from './auth.routes.ts'
import { registerKeySettingsPages } from './key-settings.routes.ts'
import type { ConsoleDeps } from './console-deps.ts'
import { formBinding, SignInFirst } from './session.ts'
import { registerOperatorPages } from './operator.routes.ts'
import { registerWebhookPages } from './webhooks.routes.ts'
import { refusalNotice, send } from './forms.ts'
import { messageBody } from './views/auth.views.ts'
import { page } from './views/layout.ts'

const CSRF_COOKIE = 'pronet_csrf'

/** The files the console serves itself, with their types: its own, and the chart library's build. */
function assets(): Map<string, { type: string; body: Buffer }> {
  const dir = assetsDir()
  const require = createRequire(import.meta.url)
  return new Map([
    ['console.css', { type: 'text/css; charset=utf-8', body: readFileSync(`${dir}/console.css`) }],
    ['console.js', { type: 'text/javascript; charset=utf-8', body: readFileSync(`${dir}/console.js`) }],
    ['chart.umd.min.js', { type: 'text/javascript; charset=utf-8', body: readFileSync(join(dirname(require.resolve('chart.js')), 'chart.umd.min.js')) }],
  ])
}

/** `formKey`: the server's secret, shared by every node, that form tokens are signed with. */
export async function registerConsole(app: FastifyInstance, deps: ConsoleDeps, options: { formKey: string | Buffer }): Promise<void> {
  const secure = deps.publicUrl.startsWith('https:')
  const files = assets()
  await app.register(
    async (scope) => {
      // Pages for people, not part of the API's description.
      scope.addHook('onRoute', (route) => {
        route.schema = { ...route.schema, hide: true }
      })
      await scope.register(cookie)
      await scope.register(formbody)
      await scope.register(csrf, {
        sessionPlugin: '@fastify/cookie',
        cookieKey: CSRF_COOKIE,
        cookieOpts: { path: '/console', httpOnly: true, sameSite: 'lax', secure },
        getToken: (request) => (request.body as Record<string, string> | undefined)?._csrf,
        // A token is bound to the session it was shown in, so neither a token nor a secret cookie
        // planted from elsewhere (a sibling subdomain) passes for another session's.
        getUserInfo: formBinding,
        csrfOpts: { hmacKey: options.formKey },
      })
      scope.addHook('onRequest', (request, reply, done) => {
        const generate = reply.generateCsrf.bind(reply)
        reply.generateCsrf = (opts) => generate({ ...opts, userInfo: formBinding(request) })
        done()
      })
      await scope.register(helmet, {
        contentSecurityPolicy: {
          useDefaults: false,
          directives: {
            defaultSrc: ["'none'"],
            scriptSrc: ["'self'"],
            styleSrc: ["'self'"],
            imgSrc: ["'self'", 'data:'],
            connectSrc: ["'self'"],
            fontSrc: ["'self'"],
            // A paid order goes on to Stripe's own page after the form is sent.
            formAction: ["'self'", ...(deps.payments === 'stripe' ? ['https://checkout.stripe.com'] : [])],
            frameAncestors: ["'none'"],
            baseUri: ["'none'"],
            objectSrc: ["'none'"],
          },
        },
        strictTransportSecurity: secure ? { maxAge: 31_536_000 } : false,
        referrerPolicy: { policy: 'no-referrer' },
      })
      // Pages hold a user's data and a form token: never stored by a browser or a proxy.
      scope.addHook('onSend', async (_request, reply, payload) => {
        if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store')
        return payload
      })
      // Every state-changing request carries the form's token (checked once the form body is read).
      scope.addHook('preHandler', (request, reply, done) => {
        if (request.method === 'GET' || request.method === 'HEAD') return done()
        scope.csrfProtection(request, reply, done)
      })
      scope.setErrorHandler((error: FastifyError, request, reply) => renderError(deps, error, request, reply))
      scope.setNotFoundHandler((_request, reply) => send(reply, 404, notFoundPage()))

      scope.get('/assets/:file', async (request, reply) => {
        const file = files.get((request.params as { file: string }).file)
        if (file === undefined) return reply.callNotFound()
        // Assets change only with a new build; a day's caching is safe.
        return reply.type(file.type).header('cache-control', 'public, max-age=86400').send(file.body)
      })

      registerAuthPages(scope, deps, { secure })
      registerAccountPages(scope, deps)
      registerKeySettingsPages(scope, deps)
      registerWebhookPages(scope, deps)
      if (deps.adminToken !== undefined) registerOperatorPages(scope, deps, { secure })
    },
    { prefix: '/console' },
  )
}

/** The console's answer to a path it does not have. */
function notFoundPage(): string {
  return page({ title: 'Not found', body: messageBody('There is no such page.', { href: '/console/', label: 'Go to the console' }) })
}

/** The policy of the not-found page sent outside the console's scope: its stylesheet, nothing else. */
const NOT_FOUND_CSP = "default-src 'none'; style-src 'self'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

/**
 * The not-found page for a console path Fastify's router could not read (`/console/keys/%zz`): it
 * never reaches the console's scope, so the page brings its own policy.
 */
export function sendConsoleNotFound(reply: FastifyReply): void {
  void send(reply.header('content-security-policy', NOT_FOUND_CSP), 404, notFoundPage())
}

/** A refusal or a failure as a page: the catalogue's message for a refusal, nothing internal ever. */
function renderError(deps: ConsoleDeps, error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof SignInFirst) return reply.redirect(error.to, 303)
  const { code, statusCode } = error as Partial<FastifyError>
  let status = 500
  let text = 'Something went wrong on our side. Try again in a moment.'
  if (isApiError(error)) {
    status = error.status
    // A refusal no form shows again still names its field in words, not as a program's parameter.
    const parameter = error.details?.parameter
    text = typeof parameter === 'string' ? refusalNotice(error, { [parameter]: parameter.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase() }).text : error.message
    for (const [name, value] of Object.entries(error.headers ?? {})) reply.header(name, value)
  } else if (code === 'FST_CSRF_INVALID_TOKEN' || code === 'FST_CSRF_MISSING_SECRET') {
    status = 403
    text = 'This form has expired or did not come from this console. Go back, reload the page and send it again.'
  } else if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    status = statusCode
    text = 'The request could not be read. Go back and try again.'
  } else {
    deps.logger.error({ err: error, url: request.routeOptions.url }, 'console page failed')
  }
  const title = status === 404 ? 'Not found' : 'Something is not right'
  return send(reply, status, page({ title, body: messageBody(text, { href: '/console/', label: 'Go to the console' }) }))
}
