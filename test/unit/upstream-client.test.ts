/**
 * The upstream client against a scripted local HTTP server: a record or a "no such record" comes back
 * as an answer, every other outcome as our own error with the right code, status and headers, and
 * neither the operator's key, the URL's credentials or query, nor anything the upstream wrote ever
 * shows in an error or a log line.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Logger } from 'pino'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ApiError } from '../../src/domain/errors.ts'
import { createUpstreamClient, UpstreamBusy, type UpstreamClientOptions } from '../../src/live-source/upstream-client.ts'

const KEY = 'pk_live_operator_SECRET_4f9a'
const URL_PASSWORD = 'urlpass_SECRET_77'
const QUERY_VALUE = 'query_SECRET_value'
/** Text only the upstream writes: it must never be passed on. */
const UPSTREAM_TEXT = 'UPSTREAM_PRIVATE_TEXT_internal_trace'

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void

interface Seen {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
}

function scriptedServer() {
  let handler: Handler = (_req, res) => res.end()
  const seen: Seen[] = []
  const timers = new Set<NodeJS.Timeout>()
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (c: Buffer) => parts.push(c))
    req.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8')
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body })
      handler(req, res, body)
    })
  })
  return {
    server,
    seen,
    script(h: Handler) {
      handler = h
    },
    later(ms: number, fn: () => void) {
      const t = setTimeout(() => {
        timers.delete(t)
        fn()
      }, ms)
      timers.add(t)
    },
    async close() {
      for (const t of timers) clearTimeout(t)
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

interface Line {
  level: string
  obj: Record<string, unknown>
  msg: string
}

function recordingLogger() {
  const lines: Line[] = []
  const at = (level: string) => (obj: Record<string, unknown>, msg: string) => void lines.push({ level, obj, msg })
  return { lines, logger: { warn: at('warn'), error: at('error') } as unknown as Logger }
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

const upstream = scriptedServer()
let port = 0

beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.server.listen(0, '127.0.0.1', () => resolve()))
  port = (upstream.server.address() as AddressInfo).port
})
afterAll(() => upstream.close())
beforeEach(() => {
  upstream.seen.length = 0
})

function client(overrides: Partial<UpstreamClientOptions> = {}) {
  const { lines, logger } = recordingLogger()
  let t = 0
  const c = createUpstreamClient({
    baseUrl: `http://operator:${URL_PASSWORD}@127.0.0.1:${port}`,
    apiKey: KEY,
    timeoutMs: 2_000,
    logger,
    now: () => Date.parse('2025-03-01T12:00:00Z'),
    monotonic: () => t,
    ...overrides,
  })
  return { c, lines, advance: (ms: number) => void (t += ms) }
}

/** The call's error, which must be an ApiError. */
async function failure(call: Promise<unknown>): Promise<ApiError> {
  const outcome = await call.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(outcome).toBeInstanceOf(ApiError)
  return outcome as ApiError
}

/** Nothing secret or upstream-written in what we show or log. */
function expectClean(error: ApiError | undefined, lines: Line[]) {
  const shown = JSON.stringify([error?.message, error?.details, error?.headers, error?.toBody(), lines])
  for (const secret of [KEY, URL_PASSWORD, QUERY_VALUE, UPSTREAM_TEXT, 'operator:']) expect(shown).not.toContain(secret)
}

const profileQuery = { publicIdentifier: QUERY_VALUE, extras: ['a', 'b'], skip: undefined }

describe('createUpstreamClient answers', () => {
  it('returns a 200 body with the credits the upstream charged, sending the key in its header and the query', async () => {
    upstream.script((_req, res) => json(res, 200, { id: 'p1', name: 'Ada' }, { 'x-credits-charged': '3' }))
    const { c, lines } = client()
    const answer = await c.get('/api/v1/profile', profileQuery)
    expect(answer).toEqual({ status: 200, body: { id: 'p1', name: 'Ada' }, text: '{"id":"p1","name":"Ada"}', creditsCharged: 3 })
    const [req] = upstream.seen
    expect(req?.method).toBe('GET')
    expect(req?.headers['x-api-key']).toBe(KEY)
    expect(req?.headers.authorization).toBeUndefined()
    const sent = new URL(req?.url ?? '', 'http://x')
    expect(sent.pathname).toBe('/api/v1/profile')
    expect(sent.searchParams.get('publicIdentifier')).toBe(QUERY_VALUE)
    expect(sent.searchParams.getAll('extras')).toEqual(['a', 'b'])
    expect(sent.searchParams.has('skip')).toBe(false)
    expect(lines).toEqual([])
  })

  it('leaves creditsCharged undefined when the upstream does not say or says nonsense', async () => {
    upstream.script((_req, res) => json(res, 200, { id: 'p1' }, { 'x-credits-charged': 'lots' }))
    const { c } = client()
    expect((await c.get('/api/v1/profile', {})).creditsCharged).toBeUndefined()
  })

  it('posts a JSON body', async () => {
    upstream.script((_req, res, body) => json(res, 200, { echoed: JSON.parse(body) }, { 'x-credits-charged': '1' }))
    const { c } = client()
    const answer = await c.post('/api/v1/search/posts', { keywords: 'rust' })
    expect(answer.body).toEqual({ echoed: { keywords: 'rust' } })
    expect(upstream.seen[0]?.method).toBe('POST')
    expect(upstream.seen[0]?.headers['content-type']).toBe('application/json')
  })

  it('returns a 404 naming the missing record as an answer', async () => {
    upstream.script((_req, res) => json(res, 404, { error: 'Profile not found', code: 'PROFILE_NOT_FOUND' }, { 'x-credits-charged': '1' }))
    const { c } = client()
    const answer = await c.get('/api/v1/profile', profileQuery)
    expect(answer).toMatchObject({ status: 404, body: { error: 'Profile not found', code: 'PROFILE_NOT_FOUND' }, creditsCharged: 1 })
  })

  it('takes a contract-keeping body through validate', async () => {
    upstream.script((_req, res) => json(res, 200, { id: 'p1' }))
    const { c } = client()
    const answer = await c.get('/api/v1/profile', {}, { validate: (b) => typeof (b as { id?: unknown }).id === 'string' })
    expect(answer.status).toBe(200)
  })
})

describe('createUpstreamClient failures', () => {
  it('answers an upstream 5xx as 502 UPSTREAM_ERROR', async () => {
    upstream.script((_req, res) => json(res, 500, { error: UPSTREAM_TEXT, code: 'INTERNAL_ERROR' }))
    const { c, lines } = client()
    const e = await failure(c.get('/api/v1/profile', profileQuery))
    expect([e.code, e.status]).toEqual(['UPSTREAM_ERROR', 502])
    expect(lines).toHaveLength(1)
    expect(lines[0]?.obj).toMatchObject({ upstreamStatus: 500, path: '/api/v1/profile' })
    expectClean(e, lines)
  })

  it('answers a 404 that names no record (an unknown path, a page of HTML) as 502', async () => {
    const { c, lines } = client()
    upstream.script((_req, res) => json(res, 404, { error: UPSTREAM_TEXT, code: 'NOT_FOUND' }))
    const unknownPath = await failure(c.get('/api/v1/profile', profileQuery))
    upstream.script((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end(`<h1>${UPSTREAM_TEXT}</h1>`))
    const html = await failure(c.get('/api/v1/company', profileQuery))
    expect([unknownPath.code, html.code]).toEqual(['UPSTREAM_ERROR', 'UPSTREAM_ERROR'])
    expectClean(unknownPath, lines)
    expectClean(html, lines)
  })

  it('answers a 429 with UpstreamBusy carrying its Retry-After, in seconds or as a date', async () => {
    const { c, lines } = client()
    upstream.script((_req, res) => json(res, 429, { error: UPSTREAM_TEXT, code: 'RATE_LIMITED' }, { 'retry-after': '7' }))
    const seconds = await failure(c.get('/api/v1/profile', profileQuery))
    expect(seconds).toBeInstanceOf(UpstreamBusy)
    expect((seconds as UpstreamBusy).retryAfterMs).toBe(7_000)
    // Left unhandled by the caller, it is our 503 with the same wait.
    expect([seconds.code, seconds.status, seconds.headers?.['retry-after']]).toEqual(['SERVICE_UNAVAILABLE', 503, '7'])

    upstream.script((_req, res) => json(res, 429, {}, { 'retry-after': 'Sat, 01 Mar 2025 12:00:05 GMT' }))
    const date = await failure(c.get('/api/v1/profile', profileQuery))
    expect((date as UpstreamBusy).retryAfterMs).toBe(5_000)

    upstream.script((_req, res) => json(res, 429, {}))
    const none = await failure(c.get('/api/v1/profile', profileQuery))
    expect((none as UpstreamBusy).retryAfterMs).toBe(1_000)
    expectClean(seconds, lines)
  })

  it.each([401, 402, 403])('answers an upstream %i (the operator key refused) as 503 with Retry-After, logged at error', async (status) => {
    upstream.script((_req, res) => json(res, status, { error: `${UPSTREAM_TEXT} key ${KEY}`, code: 'INVALID_API_KEY' }))
    const { c, lines } = client({ refusedRetryAfterS: 30 })
    const e = await failure(c.get('/api/v1/profile', profileQuery))
    expect([e.code, e.status, e.headers?.['retry-after']]).toEqual(['SERVICE_UNAVAILABLE', 503, '30'])
    expect(e).not.toBeInstanceOf(UpstreamBusy)
    expect(lines.map((l) => l.level)).toEqual(['error'])
    expect(lines[0]?.obj).toMatchObject({ upstreamStatus: status, path: '/api/v1/profile' })
    expectClean(e, lines)
  })

  it('answers past the timeout as 504 UPSTREAM_TIMEOUT, whether the headers or the body are late', async () => {
    const { c, lines } = client({ timeoutMs: 100 })
    upstream.script((_req, res) => upstream.later(5_000, () => json(res, 200, { id: 'late' })))
    const lateHeaders = await failure(c.get('/api/v1/profile', profileQuery))
    upstream.script((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '40' })
      res.write('{"id":')
      upstream.later(5_000, () => res.end('"late"}'))
    })
    const lateBody = await failure(c.get('/api/v1/profile', profileQuery))
    for (const e of [lateHeaders, lateBody]) expect([e.code, e.status]).toEqual(['UPSTREAM_TIMEOUT', 504])
    expectClean(lateHeaders, lines)
  })

  it('answers truncated JSON as 502', async () => {
    upstream.script((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(`{"id":"p1","note":"${UPSTREAM_TEXT}`))
    const { c, lines } = client()
    const e = await failure(c.get('/api/v1/profile', profileQuery))
    expect([e.code, e.status]).toEqual(['UPSTREAM_ERROR', 502])
    expect(lines[0]?.obj).toMatchObject({ reason: 'the body is not JSON' })
    expectClean(e, lines)
  })

  it('answers a connection destroyed mid-body as 502', async () => {
    upstream.script((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' })
      res.write(`{"id":"p1","note":"${UPSTREAM_TEXT}`, () => res.socket?.destroy())
    })
    const { c, lines } = client()
    const e = await failure(c.get('/api/v1/profile', profileQuery))
    expect([e.code, e.status]).toEqual(['UPSTREAM_ERROR', 502])
    // A broken connection, not a parse of what arrived.
    expect(lines[0]?.obj.causeCode).toEqual(expect.any(String))
    expectClean(e, lines)
  })

  it('answers a refused connection as 502, logging only the error code', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()))
    const deadPort = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const { c, lines } = client({ baseUrl: `http://operator:${URL_PASSWORD}@127.0.0.1:${deadPort}` })
    const e = await failure(c.get('/api/v1/profile', profileQuery))
    expect([e.code, e.status]).toEqual(['UPSTREAM_ERROR', 502])
    expect(lines[0]?.obj).toMatchObject({ causeCode: 'ECONNREFUSED' })
    expect(JSON.stringify(lines)).not.toContain(String(deadPort))
    expectClean(e, lines)
  })

  it('answers a body that validate rejects as 502, a reason or a plain false alike', async () => {
    upstream.script((_req, res) => json(res, 200, { nope: UPSTREAM_TEXT }))
    const { c, lines } = client()
    const reason = await failure(c.get('/api/v1/profile', profileQuery, { validate: () => 'a profile has an id' }))
    const plain = await failure(c.get('/api/v1/company', profileQuery, { validate: () => false }))
    expect([reason.code, reason.status, plain.code]).toEqual(['UPSTREAM_ERROR', 502, 'UPSTREAM_ERROR'])
    expect(lines[0]?.obj).toMatchObject({ reason: 'a profile has an id' })
    expectClean(reason, lines)
    expectClean(plain, lines)
  })

  it('does not follow a redirect, so the key never goes where it points', async () => {
    const elsewhere = scriptedServer()
    await new Promise<void>((resolve) => elsewhere.server.listen(0, '127.0.0.1', () => resolve()))
    try {
      const target = `http://127.0.0.1:${(elsewhere.server.address() as AddressInfo).port}/api/v1/profile`
      upstream.script((_req, res) => res.writeHead(302, { location: target }).end())
      const { c, lines } = client()
      const e = await failure(c.get('/api/v1/profile', profileQuery))
      expect(e.code).toBe('UPSTREAM_ERROR')
      expect(lines[0]?.obj).toMatchObject({ upstreamStatus: 302 })
      expect(elsewhere.seen).toEqual([])
      expectClean(e, lines)
    } finally {
      await elsewhere.close()
    }
  })

  it('answers a body over the cap as 502', async () => {
    upstream.script((_req, res) => json(res, 200, { blob: 'x'.repeat(10_000) }))
    const { c } = client({ maxBodyBytes: 1_000 })
    expect((await failure(c.get('/api/v1/profile', profileQuery))).code).toBe('UPSTREAM_ERROR')
  })

  it('folds repeated failures of one kind into one line per interval, saying how many it folded', async () => {
    upstream.script((_req, res) => json(res, 503, { error: UPSTREAM_TEXT }))
    const { c, lines, advance } = client({ logIntervalMs: 10_000 })
    for (let i = 0; i < 4; i++) await failure(c.get('/api/v1/profile', profileQuery))
    expect(lines).toHaveLength(1)
    advance(10_000)
    await failure(c.get('/api/v1/profile', profileQuery))
    expect(lines.map((l) => l.obj.moreSinceLastLine)).toEqual([undefined, 3])
    expectClean(undefined, lines)
  })
})
