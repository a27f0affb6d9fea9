/**
 * The client's retries, against a local HTTP server answering what each test scripts: Retry-After
 * honoured, backoff otherwise (with a fake sleep and a fixed random), no retry of the refusals that
 * would answer the same, one Idempotency-Key across the attempts of a call, and the company batch
 * sending again only its entries refused for the rate.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  backoffMs,
  ERROR_CLASSES,
  ForbiddenError,
  InvalidApiKeyError,
  InvalidParameterError,
  ProfileNotFoundError,
  PronetClient,
  PronetError,
  PronetNetworkError,
  QuotaExhaustedError,
  RateLimitedError,
  ServiceUnavailableError,
  UpstreamTimeoutError,
  type ClientOptions,
} from '../../packages/client/src/index.ts'
import { retryPolicy } from '../../packages/client/src/retry.ts'
import { ERROR_STATUS } from '../../src/domain/errors.ts'

interface Seen {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
}
type Answer = (res: ServerResponse, seen: Seen) => void

let server: Server
let baseUrl: string
let script: Answer[] = []
let seen: Seen[] = []
/** The running test's number, sent by its clients: a request of an earlier test that arrives late is dropped. */
let testNo = 0

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => (res) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': `req-${seen.length}`, ...headers })
  res.end(JSON.stringify(body))
}
const refusal = (status: number, code: string, headers: Record<string, string> = {}) => json(status, { error: `refused: ${code}`, code }, { 'x-credits-charged': '0', ...headers })
const ok = (body: unknown = { ok: true }, headers: Record<string, string> = {}) => json(200, body, { 'x-credits-charged': '1', ...headers })
/** Drops the connection without answering. */
const cut: Answer = (res) => res.socket?.destroy()

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (body += chunk))
    req.on('end', () => {
      if (req.headers['x-test'] !== String(testNo)) return void req.socket.destroy()
      const s: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body }
      seen.push(s)
      const answer = script.shift()
      if (answer) answer(res, s)
      else refusal(500, 'INTERNAL_ERROR')(res, s)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})
beforeEach(() => {
  testNo++
  script = []
  seen = []
})

/** A client whose waits are recorded, not slept; random is fixed so backoffs are known. */
function clientWith(options: Partial<ClientOptions> = {}) {
  const waits: number[] = []
  const client = new PronetClient({
    apiKey: 'test-key',
    baseUrl,
    sleep: async (ms) => {
      waits.push(ms)
    },
    random: () => 0.25,
    ...options,
    headers: { 'x-test': String(testNo), ...options.headers },
  })
  return { client, waits }
}

const PROFILE = { profileUrlOrUrn: 'urn:li:fsd_profile:ACoAAxxxx' }

describe('retries', () => {
  it('waits out Retry-After on 429 and 503, then answers; one Idempotency-Key on every attempt', async () => {
    script = [refusal(429, 'RATE_LIMITED', { 'retry-after': '2' }), refusal(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '1' }), ok({ id: 'p' })]
    const { client, waits } = clientWith()
    const result = await client.getProfile(PROFILE)
    expect(result.data).toEqual({ id: 'p' })
    expect(waits).toEqual([2000, 1000])
    expect(seen).toHaveLength(3)
    const keys = seen.map((s) => s.headers['idempotency-key'])
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/)
    expect(new Set(keys)).toEqual(new Set([keys[0]]))
    expect(result.meta).toMatchObject({ attempts: 3, idempotencyKey: keys[0], creditsCharged: 1, requestId: 'req-3' })
    // Each request is whole: the same URL and API key every time.
    expect(new Set(seen.map((s) => s.url))).toEqual(new Set([`/api/v1/profile?profileUrlOrUrn=${encodeURIComponent(PROFILE.profileUrlOrUrn)}`]))
    expect(seen.every((s) => s.headers['x-api-key'] === 'test-key')).toBe(true)
  })

  it('backs off exponentially, capped and jittered, on 502, 504, 503 and 500 without Retry-After', async () => {
    script = [refusal(502, 'UPSTREAM_ERROR'), refusal(504, 'UPSTREAM_TIMEOUT'), refusal(503, 'SERVICE_UNAVAILABLE'), refusal(500, 'INTERNAL_ERROR'), ok()]
    const { client, waits } = clientWith({ baseDelayMs: 400, maxDelayMs: 1000, maxRetries: 4 })
    await client.getProfile(PROFILE)
    // Half of each step fixed, half by random (0.25): steps 400, 800, then the cap of 1000.
    expect(waits).toEqual([250, 500, 625, 625])
    expect(waits).toEqual([0, 1, 2, 3].map((n) => backoffMs(retryPolicy({ baseDelayMs: 400, maxDelayMs: 1000 }), n, () => 0.25)))
    expect(seen).toHaveLength(5)
  })

  it('keeps the Idempotency-Key of a search (a POST) across its attempts, and sends its body each time', async () => {
    script = [refusal(429, 'RATE_LIMITED', { 'retry-after': '1' }), ok({ results: [], cursor: null, query: 'x', sort: null })]
    const { client } = clientWith()
    await client.searchPosts({ query: 'x', maxResults: 5 }, { idempotencyKey: 'my-own-key' })
    expect(seen.map((s) => [s.method, s.headers['idempotency-key'], s.headers['content-type'], JSON.parse(s.body)])).toEqual([
      ['POST', 'my-own-key', 'application/json', { query: 'x', maxResults: 5 }],
      ['POST', 'my-own-key', 'application/json', { query: 'x', maxResults: 5 }],
    ])
  })

  it('a new logical call has a new key', async () => {
    script = [ok(), ok()]
    const { client } = clientWith()
    await client.getProfile(PROFILE)
    await client.getProfile(PROFILE)
    expect(seen[0]?.headers['idempotency-key']).not.toBe(seen[1]?.headers['idempotency-key'])
  })

  it('free account calls carry no Idempotency-Key', async () => {
    script = [ok({ plan: 'free' }, { 'x-credits-charged': '0', 'x-ratelimit-limit': '5', 'x-ratelimit-cost': '0' })]
    const { client } = clientWith()
    const sub = await client.getSubscription()
    expect(seen[0]?.headers['idempotency-key']).toBeUndefined()
    expect(sub.meta).toMatchObject({ creditsCharged: 0, rateLimit: { limit: 5, remaining: undefined, reset: undefined, cost: 0 } })
    expect(sub.meta.idempotencyKey).toBeUndefined()
  })

  it.each([
    [400, 'INVALID_PARAMETER', InvalidParameterError],
    [401, 'INVALID_API_KEY', InvalidApiKeyError],
    [402, 'QUOTA_EXHAUSTED', QuotaExhaustedError],
    [403, 'FORBIDDEN', ForbiddenError],
    [404, 'PROFILE_NOT_FOUND', ProfileNotFoundError],
  ] as const)('never retries a %i', async (status, code, type) => {
    script = [refusal(status, code, status === 404 ? { 'x-credits-charged': '1' } : {}), ok()]
    const { client, waits } = clientWith()
    const error = await client.getProfile(PROFILE).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(type)
    expect(error).toMatchObject({ status, code, requestId: 'req-1', creditsCharged: status === 404 ? 1 : 0, attempts: 1 })
    expect(seen).toHaveLength(1)
    expect(waits).toEqual([])
  })

  it('gives up after maxRetries, throwing the last refusal with its Retry-After', async () => {
    script = [1, 2, 3].map(() => refusal(429, 'RATE_LIMITED', { 'retry-after': '1' }))
    const { client, waits } = clientWith({ maxRetries: 2 })
    const error = await client.getProfile(PROFILE).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RateLimitedError)
    expect(error).toMatchObject({ attempts: 3, retryAfterMs: 1000 })
    expect(waits).toEqual([1000, 1000])
    expect(seen).toHaveLength(3)
  })

  it('maxRetries 0 sends once', async () => {
    script = [refusal(504, 'UPSTREAM_TIMEOUT'), ok()]
    const { client } = clientWith({ maxRetries: 0 })
    await expect(client.getProfile(PROFILE)).rejects.toBeInstanceOf(UpstreamTimeoutError)
    expect(seen).toHaveLength(1)
  })

  it('does not wait out a Retry-After longer than maxRetryAfterMs', async () => {
    script = [refusal(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '120' }), ok()]
    const { client, waits } = clientWith({ maxRetryAfterMs: 30_000 })
    const error = await client.getProfile(PROFILE).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ServiceUnavailableError)
    expect(error).toMatchObject({ retryAfterMs: 120_000 })
    expect(waits).toEqual([])
  })

  it('sends again with the same key when no answer came, and throws PronetNetworkError when none ever does', async () => {
    script = [cut, ok({ id: 'after-cut' })]
    const { client, waits } = clientWith()
    const result = await client.getProfile(PROFILE)
    expect(result.data).toEqual({ id: 'after-cut' })
    expect(waits).toHaveLength(1)
    expect(seen[0]?.headers['idempotency-key']).toBe(seen[1]?.headers['idempotency-key'])

    seen = []
    script = [cut, cut]
    const once = clientWith({ maxRetries: 1 })
    const error = await once.client.getProfile(PROFILE).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PronetNetworkError)
    expect(error).toMatchObject({ attempts: 2, timedOut: false })
    expect(seen).toHaveLength(2)
  })

  it('a time limit per attempt: an answer that does not come in time is no answer', async () => {
    script = [() => {}, () => {}]
    const { client } = clientWith({ maxRetries: 1, timeoutMs: 50 })
    const error = await client.getProfile(PROFILE).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PronetNetworkError)
    expect(error).toMatchObject({ attempts: 2, timedOut: true })
  })

  it("the caller's abort ends a call during its wait, with the abort's reason, and nothing more is sent", async () => {
    script = [refusal(429, 'RATE_LIMITED', { 'retry-after': '30' }), ok()]
    const controller = new AbortController()
    const { client } = clientWith({
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true })
          controller.abort(new Error('caller gave up'))
        }),
    })
    await expect(client.getProfile(PROFILE, { signal: controller.signal })).rejects.toThrow('caller gave up')
    expect(seen).toHaveLength(1)
    await expect(client.getProfile(PROFILE, { signal: controller.signal })).rejects.toThrow('caller gave up')
    expect(seen).toHaveLength(1)
  })

  it('an answer that is not the API envelope is a PronetError named by its status, retried when its status is', async () => {
    script = [
      (res) => {
        res.writeHead(502, { 'content-type': 'text/html' })
        res.end('<html>bad gateway</html>')
      },
      refusal(400, 'SOMETHING_NEW'),
    ]
    const { client, waits } = clientWith()
    const error = await client.getProfile(PROFILE).catch((e: unknown) => e)
    // The 502 page was retried; the 400 of a code this client does not know is a plain PronetError.
    expect(waits).toHaveLength(1)
    expect(error).toBeInstanceOf(PronetError)
    expect(Object.getPrototypeOf(error)).toBe(PronetError.prototype)
    expect(error).toMatchObject({ status: 400, code: 'SOMETHING_NEW' })
  })
})

describe('the meta of an answer', () => {
  it('reads credits, request id, rate limit, data source and age from the headers', async () => {
    script = [
      ok(
        { id: 'p' },
        {
          'x-credits-charged': '2',
          'x-ratelimit-limit': '10',
          'x-ratelimit-remaining': '7',
          'x-ratelimit-reset': '1790000000',
          'x-ratelimit-cost': '2',
          'x-data-source': 'stale',
          age: '42',
          'idempotent-replayed': 'true',
        },
      ),
    ]
    const { client } = clientWith()
    const { meta } = await client.getPostEngagement({ postUrlOrUrn: 'urn:li:activity:1' })
    expect(meta).toEqual({
      status: 200,
      creditsCharged: 2,
      requestId: 'req-1',
      rateLimit: { limit: 10, remaining: 7, reset: 1790000000, cost: 2 },
      dataSource: 'stale',
      age: 42,
      replayed: true,
      idempotencyKey: expect.any(String),
      attempts: 1,
    })
  })

  it('builds URLs on a base URL with a path prefix, leaving out absent parameters', async () => {
    script = [ok({ posts: [] })]
    const { client } = clientWith({ baseUrl: `${baseUrl}/prefix/` })
    await client.getPosts({ profileUrlOrUrn: 'a b', count: 5, paginationToken: undefined })
    expect(seen[0]?.url).toBe('/prefix/api/v1/posts?profileUrlOrUrn=a+b&count=5')
  })
})

describe('error classes', () => {
  it('one class per code of the service, each with its status', () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      const entry = ERROR_CLASSES[code as keyof typeof ERROR_CLASSES]
      expect(entry, code).toBeDefined()
      expect(entry.status, code).toBe(status)
      expect(entry.type.prototype).toBeInstanceOf(PronetError)
    }
    expect(Object.keys(ERROR_CLASSES).sort()).toEqual(Object.keys(ERROR_STATUS).sort())
    expect(new Set(Object.values(ERROR_CLASSES).map((e) => e.type)).size).toBe(Object.keys(ERROR_STATUS).length)
  })
})

describe('companyBatchRetrying', () => {
  const company = (input: string) => ({ input, company: { id: `urn:li:fsd_company:${input}` } })
  const failed = (input: string, code: string, status: number) => ({ input, error: { code, message: code, status } })
  const batch = (results: unknown[], credits: number) =>
    ok(
      {
        results,
        found: results.filter((r) => 'company' in (r as object)).length,
        notFound: results.filter((r) => (r as { error?: { status: number } }).error?.status === 404).length,
        failed: results.filter((r) => { const s = (r as { error?: { status: number } }).error?.status; return s !== undefined && s !== 404 }).length,
      },
      { 'x-credits-charged': String(credits) },
    )

  it('sends again only the entries refused for the rate, each round a new call with a new key', async () => {
    script = [
      batch([company('a'), failed('b', 'RATE_LIMITED', 429), failed('c', 'COMPANY_NOT_FOUND', 404), failed('d', 'RATE_LIMITED', 429), failed('e', 'SERVICE_UNAVAILABLE', 503)], 1),
      batch([company('b'), failed('d', 'RATE_LIMITED', 429)], 1),
      batch([company('d')], 1),
    ]
    const { client, waits } = clientWith()
    const outcome = await client.companyBatchRetrying(['a', 'b', 'c', 'd', 'e'])
    expect(seen.map((s) => JSON.parse(s.body))).toEqual([{ companies: ['a', 'b', 'c', 'd', 'e'] }, { companies: ['b', 'd'] }, { companies: ['d'] }])
    expect(new Set(seen.map((s) => s.headers['idempotency-key'])).size).toBe(3)
    expect(outcome.results.map((r) => ('company' in r ? `${r.input}:found` : `${r.input}:${r.error.code}`))).toEqual([
      'a:found',
      'b:found',
      'c:COMPANY_NOT_FOUND',
      'd:found',
      'e:SERVICE_UNAVAILABLE',
    ])
    expect(outcome).toMatchObject({ found: 3, notFound: 1, failed: 1, rounds: 3, creditsCharged: 3 })
    expect(waits).toHaveLength(2)
  })

  it('stops after maxRounds, the entries still refused left as they are', async () => {
    script = [batch([failed('a', 'RATE_LIMITED', 429)], 0), batch([failed('a', 'RATE_LIMITED', 429)], 0), ok()]
    const { client } = clientWith()
    const outcome = await client.companyBatchRetrying(['a'], { maxRounds: 2 })
    expect(seen).toHaveLength(2)
    expect(outcome).toMatchObject({ found: 0, failed: 1, rounds: 2 })
  })

  it('a whole-batch 429 is retried by the call itself, with its key', async () => {
    script = [refusal(429, 'RATE_LIMITED', { 'retry-after': '1' }), batch([company('a')], 1)]
    const { client, waits } = clientWith()
    const outcome = await client.companyBatchRetrying(['a'])
    expect(outcome).toMatchObject({ found: 1, rounds: 1 })
    expect(waits).toEqual([1000])
    expect(seen[0]?.headers['idempotency-key']).toBe(seen[1]?.headers['idempotency-key'])
  })
})
