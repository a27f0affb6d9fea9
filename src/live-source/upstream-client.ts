/**
 * HTTP client for an upstream service speaking this same API (the commercial one or another node
 * of ours). It answers with the upstream's record or its "no such record", and turns every other
 * outcome into one of our own errors: nothing the upstream wrote, no URL and no key ever reaches an
 * error message, its details or a log line, since the upstream's text is not ours to show and the
 * key is the operator's secret.
 */
import type { Logger } from 'pino'
import { ApiError, serviceUnavailable } from '../domain/errors.ts'

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
}

export interface UpstreamClientOptions {
  baseUrl: string
  apiKey: string
  timeoutMs: number
  logger: Pick<Logger, 'error' | 'warn'>
  fetch?: typeof fetch
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

class Unusable extends Error {}

export function createUpstreamClient(opts: UpstreamClientOptions): UpstreamClient {
  const doFetch = opts.fetch ?? fetch
  const maxBodyBytes = opts.maxBodyBytes ?? 16 * 1024 * 1024
  const base = new URL(opts.baseUrl)
  const basePath = base.pathname.replace(/\/+$/, '')
  const log = foldingLog(opts)

  function urlFor(path: string, query: UpstreamQuery | undefined): URL {
    if (!path.startsWith('/api/v1/')) throw new Error('an upstream path starts with /api/v1/')
    // Only the origin and path of the base URL are used: credentials there would ride on every call,
    // and the key goes in its header.
    const url = new URL(base.origin)
    url.pathname = basePath + path
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined) continue
      if (Array.isArray(value)) for (const v of value) url.searchParams.append(name, v)
      else url.searchParams.set(name, String(value))
    }
    return url
  }

  async function call(method: 'GET' | 'POST', path: string, url: URL, payload: string | undefined, options: UpstreamCallOptions = {}): Promise<UpstreamAnswer> {
    const signal = AbortSignal.timeout(opts.timeoutMs)
    const where = { method, path }
    try {
      const res = await doFetch(url, {
        method,
        headers: {
          'x-api-key': opts.apiKey,
          accept: 'application/json',
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: payload,
        signal,
        // A redirect would carry the key to wherever it points.
        redirect: 'manual',
      })
      const status = res.status
      if (status === 401 || status === 402 || status === 403) {
        await discard(res)
        log('error', `refused:${status}`, { ...where, upstreamStatus: status }, 'the live data source refused the operator key; calls are answered 503 until it is fixed')
        throw serviceUnavailable('The live data source is unavailable to this service.', opts.refusedRetryAfterS ?? 60)
      }
      if (status === 429) {
        const retryAfterMs = readRetryAfterMs(res.headers.get('retry-after'), opts.now) ?? opts.busyDefaultRetryAfterMs ?? 1000
        await discard(res)
        throw new UpstreamBusy(retryAfterMs)
      }
      if (status !== 200 && status !== 404) {
        await discard(res)
        log('warn', `status:${status}`, { ...where, upstreamStatus: status }, 'the live data source answered with a failure')
        throw upstreamError()
      }
      const text = await readCapped(res, maxBodyBytes)
      const body = parseJson(text)
      if (status === 404) {
        const code = (body as { code?: unknown } | null)?.code
        if (typeof code !== 'string' || !ABSENT_CODES.has(code)) throw new Unusable('a 404 that does not say which record is missing')
      } else {
        const verdict = options.validate?.(body) ?? true
        if (verdict !== true) throw new Unusable(typeof verdict === 'string' ? verdict : 'the body breaks the contract')
      }
      const retryAfterMs = readRetryAfterMs(res.headers.get('retry-after'), opts.now)
      return {
        status,
        body,
        text,
        creditsCharged: readCredits(res.headers.get('x-credits-charged')),
        ...(retryAfterMs === undefined ? {} : { retryAfterS: Math.ceil(retryAfterMs / 1000) }),
      }
    } catch (e) {
      if (e instanceof ApiError) throw e
      if (!(e instanceof Unusable) && signal.aborted) {
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
    get: (path, query, options) => call('GET', path, urlFor(path, query), undefined, options),
    post: (path, body, options) => call('POST', path, urlFor(path, undefined), JSON.stringify(body), options),
  }
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

async function discard(res: Response): Promise<void> {
  await res.body?.cancel().catch(() => undefined)
}

/** The body as text, refusing one past the cap rather than holding an unbounded answer in memory. */
async function readCapped(res: Response, maxBytes: number): Promise<string> {
  if (res.body === null) return ''
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined)
      throw new Unusable('the body is larger than allowed')
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
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
