/**
 * Renders every failure as the API's error envelope `{error, code, details?}` with the catalogue status.
 * Fastify's own failures (validation, body parsing, unknown routes) are mapped to catalogue codes so
 * a client never sees a framework error, a stack or SQL.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Logger } from 'pino'
import { ApiError, isApiError } from '../domain/errors.ts'
import { clientGone, clientLeft } from './client-connection.ts'
import { noteErrorCode } from '../observability/error-code.ts'
import { createOutageLog, type OutageLog } from './outage-log.ts'
import { discardBody } from './unread-body.ts'

interface ValidationIssue {
  keyword: string
  instancePath: string
  params: Record<string, unknown>
  message?: string
}

/** A query or body validation failure as MISSING_PARAMETER / INVALID_PARAMETER naming the field. */
function fromValidation(issues: ValidationIssue[], context: string | undefined): ApiError {
  const issue = issues[0] as ValidationIssue
  const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.')
  if (issue.keyword === 'required') {
    const name = [path, String(issue.params.missingProperty ?? '')].filter(Boolean).join('.')
    return new ApiError('MISSING_PARAMETER', `Missing required parameter '${name}'.`, { parameter: name })
  }
  if (issue.keyword === 'additionalProperties') {
    const name = [path, String(issue.params.additionalProperty ?? '')].filter(Boolean).join('.')
    return new ApiError('INVALID_PARAMETER', `Unknown field '${name}'.`, { parameter: name })
  }
  const name = path || (context ?? 'request')
  const allowed = allowedValues(issues, issue)
  const why = allowed ? `must be one of ${allowed.map((v) => `'${String(v)}'`).join(', ')}` : (issue.message ?? 'bad value')
  return new ApiError('INVALID_PARAMETER', `Invalid parameter '${name}': ${why}.`, { parameter: name })
}

/**
 * The values a field takes when its schema is a list of them: an enum ("must be equal to one of the
 * allowed values") or a union of literals (one "must be equal to constant" per literal), neither of
 * which says which values those are.
 */
function allowedValues(issues: ValidationIssue[], first: ValidationIssue): unknown[] | undefined {
  if (first.keyword === 'enum' && Array.isArray(first.params.allowedValues)) return first.params.allowedValues
  if (first.keyword !== 'const') return undefined
  return issues.filter((i) => i.keyword === 'const' && i.instancePath === first.instancePath).map((i) => i.params.allowedValue)
}

const BODY_ERRORS: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'The body is not valid JSON.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The body is empty; send a JSON object.',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The body exceeds 1 MiB.',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported content type; send application/json.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The Content-Length does not match the body.',
  FST_ERR_CTP_EMPTY_TYPE: 'Missing content type; send application/json.',
  FST_ERR_CTP_INVALID_TYPE: 'Unsupported content type; send application/json.',
}

/**
 * Recognises a store's own failures that mean "unavailable, retry" (a database that cannot be
 * reached, a busy file) as 503 SERVICE_UNAVAILABLE with Retry-After; undefined for anything else.
 */
export type ErrorClassifier = (error: unknown) => ApiError | undefined

/** Converts anything thrown while serving a request into an ApiError. */
export function toApiError(error: unknown, classify?: ErrorClassifier): ApiError {
  if (isApiError(error)) return error
  const classified = classify?.(error)
  if (classified) return classified
  const fe = error as FastifyError & { validation?: ValidationIssue[]; validationContext?: string }
  if (fe.validation && fe.validation.length > 0) return fromValidation(fe.validation, fe.validationContext)
  if (typeof fe.code === 'string' && fe.code in BODY_ERRORS) {
    return new ApiError('INVALID_PARAMETER', BODY_ERRORS[fe.code] as string, { parameter: 'body' })
  }
  if (fe.statusCode === 400 && typeof fe.code === 'string' && fe.code.startsWith('FST_ERR')) {
    return new ApiError('INVALID_PARAMETER', 'The request could not be read.', { parameter: 'request' })
  }
  return new ApiError('INTERNAL_ERROR', 'An unexpected error occurred; it is safe to retry.')
}

/**
 * Sends `e` as the error envelope. A refusal bills nothing, and says so: a data route's gateway,
 * which settles after this, replaces the header with what the call did bill (a missing record's 404).
 */
export function sendError(reply: FastifyReply, e: ApiError): FastifyReply {
  if (e.headers) reply.headers(e.headers)
  reply.header('x-credits-charged', '0')
  noteErrorCode(reply, e.code)
  return reply.code(e.status).type('application/json; charset=utf-8').send(JSON.stringify(e.toBody()))
}

export function registerErrorHandling(
  app: FastifyInstance,
  logger: Logger,
  /** Records a call to an unknown path made with a valid key, under the usage endpoint `unknown`. */
  recordUnknown?: (request: FastifyRequest, status: number) => Promise<void>,
  classify?: ErrorClassifier,
  /** Where failures of a store that cannot be reached are logged (one line per kind and interval). */
  outage: OutageLog = createOutageLog(logger),
): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> {
  const notFound = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    if (recordUnknown) {
      try {
        await recordUnknown(request, 404)
      } catch (e) {
        logger.error({ err: e, url: request.url }, 'usage record of an unknown path failed')
      }
    }
    const path = request.url.split('?')[0] as string
    // Such a call is counted in usage (endpoint `unknown`) when its key is valid, and is free.
    return sendError(reply, new ApiError('NOT_FOUND', `No endpoint ${request.method} ${path}.`))
  }
  app.setErrorHandler(async (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    // A refusal before the whole body arrived (a body over the limit, a wrong key): the rest is read
    // first, so that the answer is not lost to a reset (unread-body.ts). Past the bound, the
    // connection closes after the answer.
    if (!request.raw.complete && !clientLeft(request) && !(await discardBody(request.raw))) reply.header('connection', 'close')
    // Fastify reads a body before its not-found handler runs: a bad body sent to a path or method that
    // does not exist is still that (404 NOT_FOUND, counted under `unknown`), not a 400 of a route.
    // The one other failure before the not-found handler is the admin API's 401, which stands.
    if (request.is404 && !(isApiError(error) && error.code === 'UNAUTHENTICATED')) return notFound(request, reply)
    // A client that closed its connection while its body was being read: Node ends the read with
    // ECONNRESET ("aborted"). That is the client leaving, not a failure of the service.
    if (!isApiError(error) && (error as { code?: unknown }).code === 'ECONNRESET' && clientLeft(request)) {
      logger.debug({ method: request.method, url: request.url }, 'the client closed the connection before its request was read')
      return sendError(reply, clientGone())
    }
    // A file the reference page's static server refuses (a path climbing out of it, a NUL byte): its
    // errors carry their HTTP status. To the client there is no such file; it is no failure of the
    // service, and logging each as a 500 with its stack would let a client fill the log.
    const refused = error as { statusCode?: unknown; status?: unknown }
    const status = refused.statusCode ?? refused.status
    if (!isApiError(error) && typeof status === 'number' && status >= 400 && status < 500 && request.url.startsWith('/docs/')) {
      return notFound(request, reply)
    }
    const e = toApiError(error, classify)
    // Failures are logged with their cause. A 5xx the service chose (a node refusing calls while it
    // shuts down) is no failure: at error level, with a stack, every call of a rolling restart was one.
    // A store that cannot be reached (the classifier's 503) is one event however many calls meet it.
    if (e.status >= 500 && !isApiError(error) && e.code === 'SERVICE_UNAVAILABLE') {
      outage(error, { method: request.method, url: request.url }, 'a store could not be reached; calls are answered 503')
    } else if (e.status >= 500 && !isApiError(error)) logger.error({ err: error, method: request.method, url: request.url }, 'request failed')
    else if (e.status >= 500) logger.debug({ code: e.code, method: request.method, url: request.url }, e.message)
    return sendError(reply, e)
  })
  app.setNotFoundHandler(notFound)
  return notFound
}
