/**
 * PostgreSQL failures that mean "the database is out of reach" (refused or dropped connections, a
 * server shutting down or starting, pool exhaustion, a statement timeout, a server that stopped
 * answering): 503 SERVICE_UNAVAILABLE with Retry-After, nothing billed. The pool reconnects by itself
 * once the server is back, so the service recovers without a restart.
 */
import { serviceUnavailable, type ApiError } from '../../domain/errors.ts'

// SQLSTATE classes 08 (connection exception), 53 (insufficient resources), 57P0x (operator
// intervention: shutdown, crash, cannot connect now), 57014 (statement timeout / cancel).
const SQLSTATE_RE = /^(08|53)|^57P0[1-4]$|^57014$/
const NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN'])
// 'Query read timeout': the pool's own limit on waiting for an answer (database.ts: queryTimeoutMs).
const MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error/i,
  /connection.*closed/i,
  /^Query read timeout$/,
]
// 55000 is a broad class (object not in prerequisite state); at connect time, with this message, it
// is a database closed to connections for a while (ALTER DATABASE … ALLOW_CONNECTIONS false, as
// during maintenance or a failover), which is an outage like the others, not a 500.
const NOT_ACCEPTING = /is not currently accepting connections/i

export function isPgUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { code, message } = error as { code?: unknown; message?: unknown }
  if (typeof code === 'string' && (SQLSTATE_RE.test(code) || NODE_CODES.has(code))) return true
  if (code === '55000' && typeof message === 'string' && NOT_ACCEPTING.test(message)) return true
  const errors = (error as { errors?: unknown }).errors
  if (Array.isArray(errors) && errors.some(isPgUnavailable)) return true
  return typeof message === 'string' && MESSAGES.some((re) => re.test(message))
}

export function classifyPgError(error: unknown): ApiError | undefined {
  return isPgUnavailable(error) ? serviceUnavailable('The database is unreachable.', 2) : undefined
}
