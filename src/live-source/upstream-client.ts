/**
 * HTTP client for an upstream service speaking this same API (the commercial one or another node
 * of ours). It answers with the upstream's record or its "no such record", and turns every other
 * outcome into one of our own errors: nothing the upstream wrote, no URL and no key ever reaches an
 * error message, its details or a log line, since the upstream's text is not ours to show and the
 * key is the operator's secret.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import type { Logger } from 'pino'
import { ApiError, serviceUnavailable, type ErrorCode } from '../domain/errors.ts'

export type UpstreamQuery = Record<string, string | number | boolean | readonly string[] | undefined>

/** A caller's check of a body's shape: true when usable, false or a reason (our own words) when not. */
export type UpstreamValidate = (body: unknown) => boolean | string

export interface UpstreamCallOptions {
  validate?: UpstreamValidate
}

export interface UpstreamAnswer {
  /** 200 carries the record; 404 says the record does not exist, which the caller answers as its own 404. */
  status: 200 | 404
  body: unknown
  /** The body as the upstream wrote it (a record kept and served again goes out byte for byte). */
  text: string
  /** What the upstream billed us for this call, when it said. */
  creditsCharged: number | undefined
  retryAfterS?: number
}

export interface UpstreamClient {
  get(path: string, query?: UpstreamQuery, options?: UpstreamCallOptions): Promise<UpstreamAnswer>
  post(path: string, body: unknown, options?: UpstreamCallOptions): Promise<UpstreamAnswer>
  /** Closes the kept-alive connections. */
  close(): void
}

export interface UpstreamClientOptions {
  baseUrl: string
  apiKey: string
  timeoutMs: number
  logger: Pick<Logger, 'error' | 'warn'>
  /** Wall clock in Unix ms, to read a Retry-After given as a date. */
  now: () => number
  /** Monotonic ms, to fold repeated log lines of one failure into one line per interval. */
  monotonic: () => number
  /** Retry-After of our 503 while the upstream refuses the operator's key. */
  refusedRetryAfterS?: number
  /** Wait assumed when the upstream's 429 names none. */
  busyDefaultRetryAfterMs?: number
  maxBodyBytes?: number
  logIntervalMs?: number
}

/**
 * The upstream's 429: its plan's budget is spent for now. The caller may wait `retryAfterMs` within
 * its own time budget; left unhandled, it is answered as our 503 with the same Retry-After.
 */
export class UpstreamBusy extends ApiError {
  constructor(readonly retryAfterMs: number) {
    super('SERVICE_UNAVAILABLE', 'The live data source is busy. Retry after the Retry-After delay; nothing was charged.', undefined, {
      'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))),
    })
    this.name = 'UpstreamBusy'
  }
}

export const upstreamError = (): ApiError =>
  new ApiError('UPSTREAM_ERROR', 'The live data source failed to give a usable answer; nothing was charged.')

export const upstreamTimeout = (): ApiError =>
  new ApiError('UPSTREAM_TIMEOUT', 'The live data source did not answer in time; nothing was charged.')

/** The codes of a 404 that means "no such record"; any other 404 (an unknown path) is a broken contract. */
const ABSENT_CODES = new Set(['PROFILE_NOT_FOUND', 'COMPANY_NOT_FOUND', 'POST_NOT_FOUND'])

/** The codes of a 400 that refuses the customer's input. */
const INPUT_CODES = new Set(['INVALID_PARAMETER', 'MISSING_PARAMETER', 'INVALID_URN'])

const inputRefused = (code: ErrorCode): ApiError =>
  new ApiError(code, 'The data source refused this input (a page token or cursor belongs to one request only; start again without it). Nothing was charged.')

class Unusable extends Error {}

export function createUpstreamClient(opts: UpstreamClientOptions): UpstreamClient {
  const maxBodyBytes = opts.maxBodyBytes ?? 16 * 1024 * 1024
  const base = new URL(opts.baseUrl)
  const basePath = base.pathname.replace(/\/+$/, '')
  const secure = base.protocol === 'https:'
  // node:http rather than fetch: a fraction of the CPU per call, on one keep-alive pool per upstream.
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true })
  const request = secure ? httpsRequest : httpRequest
  const log = foldingLog(opts)

  function pathFor(path: string, query: UpstreamQuery | undefined): string {
    if (!path.startsWith('/api/v1/')) throw new Error('an upstream path starts with /api/v1/')
    // Only the origin and path of the base URL are used: credentials there would ride on every call,
    // and the key goes in its header.
    const params = new URLSearchParams()
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined) continue
      if (Array.isArray(value)) for (const v of value) params.append(name, v)
      else params.set(name, String(value))
    }
    const search = params.toString()
    return basePath + path + (search === '' ? '' : `?${search}`)
  }

  /** One exchange: the status, the headers, and the body of a 200 or a 404 (capped); other bodies are discarded. */
  function exchange(method: 'GET' | 'POST', target: string, payload: string | undefined): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      const req = request(
        {
          protocol: base.protocol,
          hostname: base.hostname,
          port: base.port,
          path: target,
          method,
          agent,
          headers: {
            'x-api-key': opts.apiKey,
            accept: 'application/json',
            ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          const status = res.statusCode ?? 0
          if (status !== 200 && status !== 404 && status !== 400) {
            res.resume()
            resolve({ status, headers: res.headers, text: '' })
            return
          }
          const chunks: Buffer[] = []
          let size = 0
          res.on('data', (chunk: Buffer) => {
            if (size > maxBodyBytes) return
            size += chunk.length
            if (size <= maxBodyBytes) chunks.push(chunk)
            else {
              reject(new Unusable('the body is larger than allowed'))
              res.destroy()
            }
          })
          res.on('end', () => resolve({ status, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }))
          res.on('error', reject)
          res.on('close', () => {
            if (!res.complete) reject(new Unusable('the body was cut off'))
          })
        },
      )
      // The whole exchange, not an idle socket, is what the timeout bounds.
      const timer = setTimeout(() => req.destroy(new TimedOut()), opts.timeoutMs)
      req.on('close', () => clearTimeout(timer))
      req.on('error', reject)
      req.end(payload)
    })
  }

  async function call(method: 'GET' | 'POST', path: string, target: string, payload: string | undefined, options: UpstreamCallOptions = {}): Promise<UpstreamAnswer> {
    const where = { method, path }
    try {
      const res = await exchange(method, target, payload)
      const status = res.status
      if (status === 401 || status === 402 || status === 403) {
        log('error', `refused:${status}`, { ...where, upstreamStatus: status }, 'the live data source refused the operator key; calls are answered 503 until it is fixed')
        throw serviceUnavailable('The live data source is unavailable to this service.', opts.refusedRetryAfterS ?? 60)
      }
      if (status === 429) {
        throw new UpstreamBusy(readRetryAfterMs(header(res, 'retry-after'), opts.now) ?? opts.busyDefaultRetryAfterMs ?? 1000)
      }
      if (status === 400) {
        // Input only the upstream can judge (a page token used for another subject): the customer's
        // own mistake, a free 400, told in our words.
        const code = (parseJson(res.text) as { code?: unknown } | null)?.code
        if (typeof code === 'string' && INPUT_CODES.has(code)) throw inputRefused(code as ErrorCode)
        throw new Unusable('a 400 for input this service had accepted')
      }
      if (status !== 200 && status !== 404) {
        // A redirect is refused here too: it would carry the key to wherever it points.
        log('warn', `status:${status}`, { ...where, upstreamStatus: status }, 'the live data source answered with a failure')
        throw upstreamError()
      }
      const text = res.text
      const body = parseJson(text)
      if (status === 404) {
        const code = (body as { code?: unknown } | null)?.code
        if (typeof code !== 'string' || !ABSENT_CODES.has(code)) throw new Unusable('a 404 that does not say which record is missing')
      } else {
        const verdict = options.validate?.(body) ?? true
        if (verdict !== true) throw new Unusable(typeof verdict === 'string' ? verdict : 'the body breaks the contract')
      }
      const retryAfterMs = readRetryAfterMs(header(res, 'retry-after'), opts.now)
      return {
        status,
        body,
        text,
        creditsCharged: readCredits(header(res, 'x-credits-charged')),
        ...(retryAfterMs === undefined ? {} : { retryAfterS: Math.ceil(retryAfterMs / 1000) }),
      }
    } catch (e) {
      if (e instanceof ApiError) throw e
      if (e instanceof TimedOut) {
        log('warn', 'timeout', where, 'the live data source did not answer in time')
        throw upstreamTimeout()
      }
      if (e instanceof Unusable) {
        log('warn', `unusable:${e.message}`, { ...where, reason: e.message }, 'the live data source gave an unusable answer')
      } else {
        const code = causeCode(e)
        log('warn', `unreachable:${code ?? ''}`, { ...where, ...(code === undefined ? {} : { causeCode: code }) }, 'the live data source could not be read')
      }
      throw upstreamError()
    }
  }

  return {
    get: (path, query, options) => call('GET', path, pathFor(path, query), undefined, options),
    post: (path, body, options) => call('POST', path, pathFor(path, undefined), JSON.stringify(body), options),
    close: () => agent.destroy(),
  }
}

interface Reply {
  status: number
  headers: IncomingHttpHeaders
  text: string
}

class TimedOut extends Error {}

function header(res: Reply, name: string): string | null {
  const v = res.headers[name]
  return typeof v === 'string' ? v : null
}

type Level = 'error' | 'warn'

/** One line for the first failure of a kind, then at most one per interval saying how many it folded. */
function foldingLog(opts: UpstreamClientOptions) {
  const intervalMs = opts.logIntervalMs ?? 10_000
  const kinds = new Map<string, { at: number; folded: number }>()
  return (level: Level, kind: string, fields: Record<string, unknown>, message: string): void => {
    const now = opts.monotonic()
    const seen = kinds.get(kind)
    if (seen !== undefined && now - seen.at < intervalMs) {
      seen.folded++
      return
    }
    if (seen === undefined && kinds.size >= 100) kinds.clear()
    kinds.set(kind, { at: now, folded: 0 })
    opts.logger[level]({ ...fields, ...(seen && seen.folded > 0 ? { moreSinceLastLine: seen.folded } : {}) }, message)
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw new Unusable('the body is not JSON')
  }
}

function readCredits(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value.trim())) return undefined
  return Number(value.trim())
}

/** Retry-After as delay-seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
function readRetryAfterMs(value: string | null, now: () => number): number | undefined {
  if (value === null) return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  const at = Date.parse(text)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now())
}

/** A system error code (ECONNREFUSED, UND_ERR_SOCKET): never the message, which may name the host. */
function causeCode(e: unknown): string | undefined {
  for (let c: unknown = e, depth = 0; c !== null && typeof c === 'object' && depth < 4; c = (c as { cause?: unknown }).cause, depth++) {
    const code = (c as { code?: unknown }).code
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code)) return code
  }
  return undefined
}
