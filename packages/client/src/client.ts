/**
 * The client: `call(operationId, input)` sends one logical call (retries included) and answers
 * `{data, meta}` or throws a PronetError; a method per endpoint wraps it. Built on the global fetch,
 * so it runs on Node 20+, Deno, Bun and in browsers.
 */
import { errorFromAnswer, PronetError, PronetNetworkError } from './errors.ts'
import { readMeta, retryAfterMs, type Result } from './meta.ts'
import { OPERATIONS, type Input, type OperationId, type Output } from './operations.ts'
import { backoffMs, defaultSleep, RETRYABLE_STATUSES, retryPolicy, type RetryOptions, type RetryPolicy } from './retry.ts'

/** pronet's own default address (HOST 127.0.0.1, PORT 3000). */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000'

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>

export interface ClientOptions extends RetryOptions {
  /** The account's API key, sent as X-API-Key. */
  apiKey: string
  /** Where the service is, with any path prefix before /api/v1 (default http://127.0.0.1:3000). */
  baseUrl?: string
  /** Each attempt's time limit in milliseconds (default 60 000; the company batch 150 000, as it may wait for the rate). */
  timeoutMs?: number
  /** Headers sent on every call (a User-Agent, Cache-Control: no-cache on a live-data service). */
  headers?: Record<string, string>
  /** The fetch to use (default the global one). */
  fetch?: FetchLike
  /** How the client waits between attempts (tests pass a fake). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  /** A number in [0, 1) for the backoff's jitter (default Math.random). */
  random?: () => number
  /** Makes the Idempotency-Key of a new logical call (default a random UUID). */
  newIdempotencyKey?: () => string
}

export interface CallOptions {
  /** The Idempotency-Key of this logical call (default a new one); only billed calls send one. */
  idempotencyKey?: string
  signal?: AbortSignal
  /** Headers for this call only. */
  headers?: Record<string, string>
  timeoutMs?: number
}

export interface Caller {
  call<K extends OperationId>(operation: K, input: Input<K>, options?: CallOptions): Promise<Result<Output<K>>>
  /** The client's wait between attempts, for helpers that retry on their own (the company batch). */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>
  readonly random: () => number
  readonly retry: RetryPolicy
}

const BATCH_TIMEOUT_MS = 150_000
const DEFAULT_TIMEOUT_MS = 60_000

export function randomIdempotencyKey(): string {
  const c = globalThis.crypto
  if (typeof c?.randomUUID === 'function') return c.randomUUID()
  // randomUUID needs a secure context in browsers; getRandomValues does not.
  const b = c.getRandomValues(new Uint8Array(16))
  b[6] = ((b[6] as number) & 0x0f) | 0x40
  b[8] = ((b[8] as number) & 0x3f) | 0x80
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

function queryString(input: Record<string, unknown>): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined || value === null) continue
    params.append(name, Array.isArray(value) ? value.join(',') : String(value))
  }
  const s = params.toString()
  return s === '' ? '' : `?${s}`
}

export class CallCore implements Caller {
  readonly baseUrl: string
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>
  readonly random: () => number
  readonly retry: RetryPolicy
  readonly #apiKey: string
  readonly #fetch: FetchLike
  readonly #headers: Record<string, string>
  readonly #timeoutMs: number | undefined
  readonly #newKey: () => string

  constructor(options: ClientOptions) {
    if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('apiKey is required')
    this.baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '')
    this.#apiKey = options.apiKey
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
    this.#headers = { ...options.headers }
    this.#timeoutMs = options.timeoutMs
    this.sleep = options.sleep ?? defaultSleep
    this.random = options.random ?? Math.random
    this.#newKey = options.newIdempotencyKey ?? randomIdempotencyKey
    this.retry = retryPolicy(options)
  }

  /**
   * One logical call: sent again on 429, 500, 502, 503 and 504 (after Retry-After when the answer
   * gives one, else after a backoff) and when no answer came, up to maxRetries times. A billed call
   * carries the same Idempotency-Key on every attempt, so a retry of a call whose answer was lost is
   * not billed twice.
   */
  async call<K extends OperationId>(operation: K, input: Input<K>, options: CallOptions = {}): Promise<Result<Output<K>>> {
    const route = OPERATIONS[operation]
    if (route === undefined) throw new TypeError(`unknown operation '${String(operation)}'`)
    const idempotencyKey = route.keyed ? (options.idempotencyKey ?? this.#newKey()) : undefined
    const url = this.baseUrl + route.path + (route.method === 'GET' ? queryString((input ?? {}) as Record<string, unknown>) : '')
    const headers: Record<string, string> = { accept: 'application/json', ...this.#headers, ...options.headers, 'x-api-key': this.#apiKey }
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey
    let body: string | undefined
    if (route.method === 'POST') {
      headers['content-type'] = 'application/json'
      body = JSON.stringify(input ?? {})
    }
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs ?? (operation === 'getCompanyBatch' ? BATCH_TIMEOUT_MS : DEFAULT_TIMEOUT_MS)

    for (let attempt = 1; ; attempt++) {
      const retriesLeft = attempt <= this.retry.maxRetries
      const sent = await this.#send(url, { method: route.method, headers, ...(body !== undefined ? { body } : {}) }, timeoutMs, options.signal)
      if (!sent.ok) {
        const error = new PronetNetworkError(`No answer from ${route.method} ${route.path}: ${describe(sent.error)}`, {
          cause: sent.error,
          attempts: attempt,
          timedOut: sent.timedOut,
        })
        if (!retriesLeft) throw error
        await this.sleep(backoffMs(this.retry, attempt - 1, this.random), options.signal)
        continue
      }
      const res = sent.response
      const meta = readMeta(res, { attempts: attempt, idempotencyKey })
      let parsed: unknown
      try {
        parsed = sent.text === '' ? undefined : JSON.parse(sent.text)
      } catch {
        parsed = undefined
      }
      if (res.status >= 200 && res.status < 300) {
        if (parsed === undefined) {
          throw new PronetError({ status: res.status, code: 'INVALID_RESPONSE', message: `${route.method} ${route.path} answered ${res.status} without a JSON body.`, meta })
        }
        return { data: parsed as Output<K>, meta }
      }
      const wait = retryAfterMs(res.headers.get('retry-after'), Date.now())
      const error = errorFromAnswer(res.status, parsed, meta, wait)
      if (!retriesLeft || !RETRYABLE_STATUSES.has(res.status)) throw error
      if (wait !== undefined && wait > this.retry.maxRetryAfterMs) throw error
      await this.sleep(wait ?? backoffMs(this.retry, attempt - 1, this.random), options.signal)
    }
  }

  /** One HTTP request, its body read whole: a connection cut off mid-body is no answer. */
  async #send(
    url: string,
    init: RequestInit,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<{ ok: true; response: Response; text: string } | { ok: false; error: unknown; timedOut: boolean }> {
    signal?.throwIfAborted()
    const controller = new AbortController()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort(new Error(`timed out after ${timeoutMs} ms`))
    }, timeoutMs)
    const onAbort = () => controller.abort(signal?.reason)
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      const response = await this.#fetch(url, { ...init, signal: controller.signal })
      const text = await response.text()
      return { ok: true, response, text }
    } catch (error) {
      // The caller's own abort is theirs to handle, not a failure to retry.
      if (signal?.aborted) throw signal.reason
      return { ok: false, error, timedOut }
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    }
  }
}

function describe(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as { cause?: unknown }).cause
    return cause instanceof Error ? `${e.message} (${cause.message})` : e.message
  }
  return String(e)
}
