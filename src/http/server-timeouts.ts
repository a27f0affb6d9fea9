/**
 * How long a client may take to send a request. Without limits a client trickling a body (a byte
 * every few seconds) holds a connection, and the request's memory, for as long as it likes. A request
 * that runs out of time is answered 400 INVALID_PARAMETER (client-error.ts) and its connection closed.
 * Only the arrival of a request is timed: a request that has arrived whole is served however long that
 * takes, and an idle kept-alive connection is governed by the keep-alive timeout.
 */

/** The headers alone come sooner: they are small, and a client that cannot send them is not coming. */
const HEADERS_TIMEOUT_MS = 10_000
/**
 * Longer than the idle timeout of the usual load balancers (60 s), so that a node never closes a kept
 * connection just as a balancer sends a request on it.
 */
const KEEP_ALIVE_TIMEOUT_MS = 72_000

export interface ServerTimeouts {
  /** Fastify's options. */
  fastify: { requestTimeout: number; keepAliveTimeout: number }
  /** Node's http.createServer options (Fastify's `http`). */
  http: { requestTimeout: number; headersTimeout: number; connectionsCheckingInterval: number }
}

/** The limits for a whole request of `requestTimeoutMs` (PRONET_REQUEST_TIMEOUT_MS, 30 s by default). */
export function serverTimeouts(requestTimeoutMs: number): ServerTimeouts {
  const headersTimeout = Math.min(HEADERS_TIMEOUT_MS, requestTimeoutMs)
  // Node looks for requests out of time at this interval (30 s by default, which would let a request
  // run up to twice its limit): a fraction of the shortest limit, at most once a second.
  const connectionsCheckingInterval = Math.max(25, Math.min(1_000, Math.floor(headersTimeout / 4)))
  return {
    fastify: { requestTimeout: requestTimeoutMs, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS },
    http: { requestTimeout: requestTimeoutMs, headersTimeout, connectionsCheckingInterval },
  }
}
