/**
 * Counts every answer of the app in the HTTP series (observability-metrics.ts): by route pattern,
 * never the raw URL, so the series stay few whatever clients send; a path no route matches counts as
 * `unknown`. Read when the answer has gone (onResponse): its status, its time since the call arrived
 * (Fastify's own timing), the X-Credits-Charged the gateway set, and the error code the error handler
 * noted.
 *
 * This runs for every call on the data path, so nothing is looked up by string per call: each route
 * gets its own hook at registration, holding its series, and a call finds its method's and status's
 * cells in two small maps, made the first time that pair is answered.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify'
import { errorCodeOf } from './error-code.ts'
import type { HttpSeries } from './observability-metrics.ts'
import type { HistogramCell, ValueCell } from './plain-metrics.ts'

/** The route label of a call to a path no route matches. */
export const UNKNOWN_ROUTE = 'unknown'

interface Cells {
  requests: ValueCell
  duration: HistogramCell
}

/** One route's series, its cells resolved as they are first needed. */
class RouteSeries {
  private readonly byMethod = new Map<string, Map<number, Cells>>()
  private credits: ValueCell | undefined
  private rateLimited: ValueCell | undefined

  constructor(
    private readonly route: string,
    private readonly series: HttpSeries,
    private readonly refusal: (code: string) => ValueCell,
  ) {}

  record(request: FastifyRequest, reply: FastifyReply): void {
    const status = reply.statusCode
    const method = request.method
    let statuses = this.byMethod.get(method)
    if (statuses === undefined) {
      statuses = new Map()
      this.byMethod.set(method, statuses)
    }
    let cells = statuses.get(status)
    if (cells === undefined) {
      const labels = [this.route, method, String(status)]
      cells = { requests: this.series.requests.cell(...labels), duration: this.series.durations.cell(...labels) }
      statuses.set(status, cells)
    }
    cells.requests.value++
    cells.duration.observe(reply.elapsedTime / 1000)
    const charged = reply.getHeader('x-credits-charged')
    if (charged !== undefined) {
      const credits = Number(charged)
      if (credits > 0) (this.credits ??= this.series.credits.cell(this.route)).value += credits
    }
    if (status >= 400) {
      const code = errorCodeOf(reply, status)
      if (code !== undefined) this.refusal(code).value++
      if (status === 429) (this.rateLimited ??= this.series.rateLimited.cell(this.route)).value++
    }
  }
}

/**
 * Adds the hooks to `app`. Call it before any route is registered: routes get their hook as they are
 * registered (in any plugin), and routes registered earlier would go uncounted.
 */
export function registerHttpMetrics(app: FastifyInstance, series: HttpSeries): void {
  app.decorateReply('errorCode', null)
  const refusals = new Map<string, ValueCell>()
  const refusal = (code: string): ValueCell => {
    let cell = refusals.get(code)
    if (cell === undefined) {
      cell = series.refusals.cell(code)
      refusals.set(code, cell)
    }
    return cell
  }
  const routes = new Map<string, RouteSeries>()
  const seriesOf = (route: string): RouteSeries => {
    let found = routes.get(route)
    if (found === undefined) {
      found = new RouteSeries(route, series, refusal)
      routes.set(route, found)
    }
    return found
  }

  // Callback hooks, not async ones: they run on every call, and have nothing to wait for.
  app.addHook('onRoute', (options) => {
    const route = seriesOf(options.url)
    const hook: onResponseHookHandler = (request, reply, done) => {
      route.record(request, reply)
      done()
    }
    const own = options.onResponse
    options.onResponse = own === undefined ? [hook] : [...(Array.isArray(own) ? own : [own]), hook]
  })
  // The app's own hook runs for routes too, where the route's hook above counts the call.
  const unknown = seriesOf(UNKNOWN_ROUTE)
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) unknown.record(request, reply)
    done()
  })
}
