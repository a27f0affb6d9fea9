/**
 * The METRICS_PORT listener: GET /metrics in the Prometheus text format, without authentication, for
 * a Prometheus on the same machine (or a sidecar). It therefore listens on the loopback address only,
 * never on HOST. A plain Node server rather than a second Fastify app: it serves one path, and its
 * scrapes stay out of the app's own request series.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Registry } from 'prom-client'
import { reasonOf, StartupError } from '../config/startup-failure.ts'

/** The only address the listener binds. */
export const METRICS_HOST = '127.0.0.1'

export interface MetricsServer {
  /** The address bound: METRICS_HOST. */
  readonly host: string
  /** The port bound (the one asked for, or the one the system chose for 0). */
  readonly port: number
  close(): Promise<void>
}

export interface MetricsServerOptions {
  registry: Registry
  /** METRICS_PORT; 0 lets the system choose (tests). */
  port: number
  /** A scrape that failed to render (logged by the caller); the scraper gets a 500. */
  onError?: (error: unknown) => void
}

const TEXT = 'text/plain; charset=utf-8'

function answer(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': TEXT, 'content-length': Buffer.byteLength(body), ...headers })
  res.end(body)
}

export async function startMetricsServer(opts: MetricsServerOptions): Promise<MetricsServer> {
  const { registry } = opts
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]
    if (path !== '/metrics') return answer(res, 404, 'Not found: this listener serves GET /metrics.\n')
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(res, 405, 'Method not allowed: GET /metrics.\n', { allow: 'GET, HEAD' })
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': registry.contentType, 'content-length': Buffer.byteLength(text) })
        res.end(req.method === 'HEAD' ? undefined : text)
      },
      (error: unknown) => {
        opts.onError?.(error)
        answer(res, 500, 'The metrics could not be rendered; see the server log.\n')
      },
    )
  }
  const server = createServer(handle)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host: METRICS_HOST, port: opts.port, exclusive: true }, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address()
  return {
    host: typeof address === 'object' && address ? address.address : METRICS_HOST,
    port: typeof address === 'object' && address ? address.port : opts.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        // A scraper's kept-alive connection would hold close() for its keep-alive timeout.
        server.closeIdleConnections()
      }),
  }
}

/** METRICS_PORT could not be listened on: one line naming the setting, as for HOST and PORT. */
export function metricsListenFailure(port: number, e: unknown): StartupError {
  return new StartupError(`METRICS_PORT ${port} cannot be listened on (${METRICS_HOST}): ${reasonOf(e)}`, { cause: e })
}
