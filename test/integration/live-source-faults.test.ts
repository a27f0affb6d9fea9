/**
 * A live-source node in front of an upstream that fails in every way it can: stopped, slow, broken,
 * refusing the operator's key, out of budget. A customer of the node gets our own error (never the
 * upstream's words, key or address), pays nothing for it, and sees the call in the usage; a kept
 * answer is served stale only when the operator allows it, and the node recovers by itself once the
 * upstream answers again. The upstream is a real HTTP server scripted per test (test/helpers/fake-upstream.ts).
 */
import { randomBytes } from 'node:crypto'
import type { LightMyRequestResponse } from 'fastify'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ProfileResponse, UsageResponse } from '../../src/contract/endpoints.schemas.ts'
import { cutMidBody, json, resetConnection, slow, startFakeUpstream, text, type FakeUpstream, type Reply } from '../helpers/fake-upstream.ts'
import { FIXTURE_NOW, profileRecord } from '../helpers/ingest-fixtures.ts'
import { expectError, expectSchema, makeTestApp, ROOMY_ACCOUNT, type TestApp } from '../helpers/test-app.ts'

const UPSTREAM_KEY = `upk_${randomBytes(12).toString('hex')}`
/** Written into every failing answer of the upstream, body and headers: it must never reach a customer or a log. */
const MARKER = `upstream-says-${randomBytes(6).toString('hex')}`
const NOTE = { 'x-upstream-note': MARKER }
const TIMEOUT_MS = 500
/** Far past the timeout: a reply this slow is never waited for. */
const TOO_SLOW_MS = 10 * TIMEOUT_MS
const FRESH_S = 60

// Fetch locks and the upstream budget live in the one Redis every suite shares: names of our own.
const run = randomBytes(3).toString('hex')
let named = 0
const newSlug = () => `live-${run}-${++named}`

let upstream: FakeUpstream
/** A real profile answer, as the API writes it. */
let PROFILE: string
let profileOk: Reply

interface Node {
  t: TestApp
  /** Every line the node logged, as written. */
  logs: string[]
}
/** Read-through, never stale. */
let node: Node
/** Read-through, serving a kept answer for a while past its freshness when the upstream fails. */
let staleNode: Node
/** Forwards every call. */
let forwarder: Node

const liveEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
  PRONET_SOURCE: 'upstream',
  PRONET_UPSTREAM_URL: upstream.url,
  PRONET_UPSTREAM_KEY: UPSTREAM_KEY,
  PRONET_UPSTREAM_RPS: '1000',
  PRONET_UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
  PRONET_FRESHNESS: JSON.stringify({ profile: FRESH_S }),
  ...extra,
})

/**
 * The node's log lines, all levels, into an array. The test app logs nothing (silent); its logger is
 * turned up and given a stream of the test's own, which every child logger writes through as well.
 */
async function liveNode(env: Record<string, string>): Promise<Node> {
  const t = await makeTestApp({ env })
  const logs: string[] = []
  t.c.logger.level = 'trace'
  ;(t.c.logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] = { write: (line: string) => void logs.push(line) }
  return { t, logs }
}

beforeAll(async () => {
  upstream = await startFakeUpstream({ apiKey: UPSTREAM_KEY })
  const [source, a, b, c] = await Promise.all([
    makeTestApp({ nowMs: FIXTURE_NOW, records: [{ kind: 'profile', data: profileRecord(1) }] }),
    liveNode(liveEnv()),
    liveNode(liveEnv({ PRONET_SERVE_STALE_S: '600' })),
    liveNode(liveEnv({ PRONET_SOURCE: 'upstream-only' })),
  ])
  node = a
  staleNode = b
  forwarder = c
  try {
    const res = await source.get('/api/v1/profile?profileUrlOrUrn=member-1')
    expect(res.statusCode, res.body).toBe(200)
    PROFILE = res.body
    expectSchema(ProfileResponse, JSON.parse(PROFILE))
    profileOk = text(200, PROFILE, { 'x-credits-charged': '1' })
  } finally {
    await source.close()
  }
})
afterAll(async () => {
  await Promise.all([node, staleNode, forwarder].map((n) => n?.t.close()))
  await upstream?.close()
})

/** A new customer of the node: its own key, balance and usage. */
async function customer(n: Node): Promise<string> {
  return (await n.t.c.accounts.create(ROOMY_ACCOUNT)).apiKey.key
}

function askProfile(n: Node, key: string, slug: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return n.t.app.inject({ method: 'GET', url: `/api/v1/profile?profileUrlOrUrn=${slug}`, headers: { 'x-api-key': key, ...headers } })
}

interface Usage {
  requests: number
  creditsUsed: number
  creditsRemaining: number
  endpoints: { endpoint: string; requests: number; creditsUsed: number; statusCodes: Record<string, number> }[]
}

async function usageOf(n: Node, key: string): Promise<Usage> {
  const res = await n.t.app.inject({ method: 'GET', url: '/api/v1/usage', headers: { 'x-api-key': key } })
  expect(res.statusCode, res.body).toBe(200)
  const body = res.json() as Usage
  expectSchema(UsageResponse, body)
  return body
}

/** What the customer's usage says of its profile calls: statuses, credits, balance. */
async function profileUsage(n: Node, key: string) {
  const usage = await usageOf(n, key)
  const profile = usage.endpoints.find((e) => e.endpoint === '/api/v1/profile')
  return { statusCodes: profile?.statusCodes ?? {}, credits: profile?.creditsUsed ?? 0, spent: (ROOMY_ACCOUNT.creditsLimit as number) - usage.creditsRemaining }
}

/** The secrets and the upstream's words, wherever they might leak. */
function expectNothingOfTheUpstream(where: string, what: string): void {
  for (const secret of [MARKER, UPSTREAM_KEY, `127.0.0.1:${upstream.port}`, upstream.url]) {
    expect(what.includes(secret), `${where} holds ${secret === MARKER ? 'the upstream’s text' : secret === UPSTREAM_KEY ? 'the upstream key' : 'the upstream address'}`).toBe(false)
  }
}

function expectNoLeak(res: LightMyRequestResponse): void {
  expectNothingOfTheUpstream('the response body', res.body)
  expectNothingOfTheUpstream('the response headers', JSON.stringify(res.headers))
}

function expectCleanLogs(n: Node, from = 0): void {
  for (const line of n.logs.slice(from)) expectNothingOfTheUpstream(`the log line ${line}`, line)
}

const errorLines = (n: Node, from: number) => n.logs.slice(from).filter((l) => (JSON.parse(l) as { level: number }).level >= 50)

const retryAfterOf = (res: LightMyRequestResponse): number => {
  const value = res.headers['retry-after']
  expect(value, 'Retry-After').toMatch(/^\d+$/)
  return Number(value)
}

interface Fault {
  name: string
  reply: Reply
  status: number
  code: string
  /** Stops the upstream instead of scripting a reply (the reply is then unused). */
  stopped?: boolean
  /** Retry-After the customer must be given, at least. */
  retryAfterAtLeast?: number
  /** The operator's key was refused: said in an error-level line. */
  loggedAsError?: boolean
}

const FAULTS: Fault[] = [
  { name: 'the upstream is stopped (connection refused)', reply: profileOkLater(), stopped: true, status: 502, code: 'UPSTREAM_ERROR' },
  { name: 'the connection is cut before any answer', reply: resetConnection(), status: 502, code: 'UPSTREAM_ERROR' },
  { name: 'the upstream is slower than the timeout', reply: slow(TOO_SLOW_MS, profileOkLater()), status: 504, code: 'UPSTREAM_TIMEOUT' },
  { name: 'the upstream answers 500', reply: json(500, { error: `boom ${MARKER}`, code: 'INTERNAL_ERROR' }, NOTE), status: 502, code: 'UPSTREAM_ERROR' },
  {
    name: 'the upstream answers 503 with a Retry-After',
    reply: json(503, { error: `down ${MARKER}`, code: 'SERVICE_UNAVAILABLE' }, { ...NOTE, 'retry-after': '7' }),
    status: 502,
    code: 'UPSTREAM_ERROR',
  },
  { name: 'the upstream answers truncated JSON', reply: text(200, `{"note":"${MARKER}","profileId":"ACoAA`, NOTE), status: 502, code: 'UPSTREAM_ERROR' },
  { name: 'the connection is cut mid-body', reply: cutMidBody(200, `{"note":"${MARKER}","pad":"${'x'.repeat(4096)}"}`, NOTE), status: 502, code: 'UPSTREAM_ERROR' },
  { name: 'the upstream answers an HTML page', reply: text(200, `<html><body>${MARKER}</body></html>`, { ...NOTE, 'content-type': 'text/html' }), status: 502, code: 'UPSTREAM_ERROR' },
  {
    name: 'the upstream answers 200 with a body that breaks the contract',
    reply: json(200, { name: MARKER, headline: MARKER }, NOTE),
    status: 502,
    code: 'UPSTREAM_ERROR',
  },
  {
    name: 'the upstream answers 200 with a profile missing a required field',
    reply: (req, res) => {
      const { profileId: _missing, id: _id, ...rest } = JSON.parse(PROFILE) as Record<string, unknown>
      json(200, { id: MARKER, ...rest }, NOTE)(req, res)
    },
    status: 502,
    code: 'UPSTREAM_ERROR',
  },
  {
    name: 'the upstream answers 404 without naming a missing record',
    reply: json(404, { error: `no route ${MARKER}`, code: 'NOT_FOUND' }, NOTE),
    status: 502,
    code: 'UPSTREAM_ERROR',
  },
  {
    name: 'the upstream refuses the input (a token of another request) with 400: our own 400, free, in our words',
    reply: json(400, { error: `token of another feed ${MARKER}`, code: 'INVALID_PARAMETER', details: { parameter: MARKER } }, NOTE),
    status: 400,
    code: 'INVALID_PARAMETER',
  },
  {
    name: 'the upstream answers 400 with a code that is not about input',
    reply: json(400, { error: `odd ${MARKER}`, code: 'QUOTA_EXHAUSTED' }, NOTE),
    status: 502,
    code: 'UPSTREAM_ERROR',
  },
  ...[401, 402, 403].map(
    (status): Fault => ({
      name: `the upstream refuses the operator's key with ${status}`,
      reply: json(status, { error: `key refused ${MARKER} ${UPSTREAM_KEY}`, code: 'QUOTA_EXHAUSTED' }, NOTE),
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      retryAfterAtLeast: 1,
      loggedAsError: true,
    }),
  ),
  {
    name: 'the upstream answers 429 asking for longer than a call may wait',
    reply: json(429, { error: `slow down ${MARKER}`, code: 'RATE_LIMITED' }, { ...NOTE, 'retry-after': '30' }),
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    retryAfterAtLeast: 30,
  },
]

/** The profile answer, looked up when sent (the fault table is built before the profile is known). */
function profileOkLater(): Reply {
  return (req, res) => profileOk(req, res)
}

describe('a failing upstream: our own error, nothing billed, the call in the usage, nothing of the upstream shown or logged', () => {
  for (const fault of FAULTS) {
    it(fault.name, async () => {
      const key = await customer(node)
      const slug = newSlug()
      const logsFrom = node.logs.length
      const seenBefore = upstream.requests.length
      upstream.always(fault.reply)
      if (fault.stopped) await upstream.stop()
      const started = performance.now()
      let res: LightMyRequestResponse
      try {
        res = await askProfile(node, key, slug)
      } finally {
        if (fault.stopped) await upstream.start()
        upstream.always(profileOk)
        // The upstream's 429 holds this node's sends for its Retry-After: the next test starts after it.
        if (fault.retryAfterAtLeast === 30) node.t.clock.advance(31_000)
      }
      const tookMs = performance.now() - started

      expectError(res, fault.status, fault.code)
      expect(res.headers['x-credits-charged']).toBe('0')
      if (fault.retryAfterAtLeast !== undefined) expect(retryAfterOf(res)).toBeGreaterThanOrEqual(fault.retryAfterAtLeast)
      if (fault.code === 'UPSTREAM_TIMEOUT') {
        expect(tookMs, 'answered at the timeout, not before').toBeGreaterThanOrEqual(TIMEOUT_MS - 50)
        expect(tookMs, 'answered at the timeout, not when the upstream finally answers').toBeLessThan(TOO_SLOW_MS / 2)
      }
      expectNoLeak(res)
      // The call reached the upstream once (a stopped one receives nothing), with the operator's key.
      const seen = upstream.requests.slice(seenBefore)
      expect(seen.length).toBe(fault.stopped ? 0 : 1)
      for (const r of seen) {
        expect(r).toMatchObject({ method: 'GET', path: '/api/v1/profile', apiKey: UPSTREAM_KEY })
        expect(r.query.get('profileUrlOrUrn')).toBe(slug)
      }

      expect(await profileUsage(node, key)).toEqual({ statusCodes: { [String(fault.status)]: 1 }, credits: 0, spent: 0 })
      if (fault.loggedAsError) expect(errorLines(node, logsFrom).length, 'an error-level line for the operator').toBeGreaterThanOrEqual(1)
      expectCleanLogs(node, logsFrom)
    })
  }

  it("a 429 with a short Retry-After is waited out inside the call, and the customer gets the record", async () => {
    const key = await customer(node)
    const slug = newSlug()
    const seenBefore = upstream.requests.length
    upstream.always(profileOk)
    upstream.next(json(429, { error: `slow down ${MARKER}`, code: 'RATE_LIMITED' }, { ...NOTE, 'retry-after': '1' }))
    const before = node.t.clock.now()
    const res = await askProfile(node, key, slug)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.body).toBe(PROFILE)
    expect(res.headers['x-data-source']).toBe('upstream')
    expect(res.headers['x-credits-charged']).toBe('1')
    expectNoLeak(res)
    expect(upstream.requests.length - seenBefore, 'the refused request, then the one answered').toBe(2)
    expect(node.t.clock.now() - before, 'the call waited the upstream’s Retry-After').toBeGreaterThanOrEqual(1_000)
    expect(await profileUsage(node, key)).toEqual({ statusCodes: { '200': 1 }, credits: 1, spent: 1 })
  })

  it('an upstream 404 naming the missing profile is our 404, billed 1, and known absent without asking again', async () => {
    const key = await customer(node)
    const slug = newSlug()
    const seenBefore = upstream.requests.length
    upstream.always(json(404, { error: `No such member ${MARKER}`, code: 'PROFILE_NOT_FOUND' }, NOTE))
    try {
      const first = await askProfile(node, key, slug)
      expectError(first, 404, 'PROFILE_NOT_FOUND')
      expect(first.headers['x-credits-charged']).toBe('1')
      expect(first.headers['x-data-source']).toBe('upstream')
      expectNoLeak(first)
      node.t.clock.advance(5_000)
      const again = await askProfile(node, key, slug)
      expectError(again, 404, 'PROFILE_NOT_FOUND')
      expect(again.headers['x-credits-charged']).toBe('1')
      expect(again.headers['x-data-source']).toBe('cache')
      expect(again.headers.age).toBe('5')
      expectNoLeak(again)
      expect(upstream.requests.length - seenBefore, 'the second ask is answered from the kept absence').toBe(1)
    } finally {
      upstream.always(profileOk)
    }
    expect(await profileUsage(node, key)).toEqual({ statusCodes: { '404': 2 }, credits: 2, spent: 2 })
  })
})

describe('recovery and stale answers', () => {
  it('recovers by itself: after refused connections, failures and timeouts, the next call once the upstream answers is a 200 from it', async () => {
    const key = await customer(node)
    const slug = newSlug()
    await upstream.stop()
    try {
      for (let i = 0; i < 3; i++) expectError(await askProfile(node, key, slug), 502, 'UPSTREAM_ERROR')
    } finally {
      await upstream.start()
    }
    upstream.always(json(500, { error: MARKER }, NOTE))
    expectError(await askProfile(node, key, slug), 502, 'UPSTREAM_ERROR')
    upstream.always(slow(TOO_SLOW_MS, profileOk))
    expectError(await askProfile(node, key, slug), 504, 'UPSTREAM_TIMEOUT')
    upstream.always(profileOk)
    const seenBefore = upstream.requests.length
    const res = await askProfile(node, key, slug)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.body).toBe(PROFILE)
    expect(res.headers['x-data-source']).toBe('upstream')
    expect(res.headers['x-credits-charged']).toBe('1')
    expect(upstream.requests.length - seenBefore).toBe(1)
    expect(await profileUsage(node, key)).toEqual({ statusCodes: { '502': 4, '504': 1, '200': 1 }, credits: 1, spent: 1 })
  })

  it('without PRONET_SERVE_STALE_S, an answer past its freshness is not served when the upstream fails: the failure is', async () => {
    const key = await customer(node)
    const slug = newSlug()
    upstream.always(profileOk)
    expect((await askProfile(node, key, slug)).headers['x-data-source']).toBe('upstream')
    node.t.clock.advance((FRESH_S + 1) * 1000)
    upstream.always(json(500, { error: MARKER }, NOTE))
    try {
      const res = await askProfile(node, key, slug)
      expectError(res, 502, 'UPSTREAM_ERROR')
      expect(res.headers['x-credits-charged']).toBe('0')
      expectNoLeak(res)
    } finally {
      upstream.always(profileOk)
    }
    expect(await profileUsage(node, key)).toEqual({ statusCodes: { '200': 1, '502': 1 }, credits: 1, spent: 1 })
  })

  it('with PRONET_SERVE_STALE_S, a kept answer past its freshness is served stale, billed as a normal call, while the upstream fails; past the allowance the failure is returned', async () => {
    const key = await customer(staleNode)
    const slug = newSlug()
    const clock = staleNode.t.clock
    upstream.always(profileOk)
    const fetched = await askProfile(staleNode, key, slug)
    expect(fetched.headers['x-data-source']).toBe('upstream')
    clock.advance((FRESH_S + 1) * 1000)
    try {
      for (const failing of [json(500, { error: MARKER }, NOTE), slow(TOO_SLOW_MS, profileOk), json(402, { error: MARKER }, NOTE)]) {
        upstream.always(failing)
        const res = await askProfile(staleNode, key, slug)
        expect(res.statusCode, res.body).toBe(200)
        expect(res.body).toBe(PROFILE)
        expect(res.headers['x-data-source']).toBe('stale')
        expect(res.headers.age).toBe(String(FRESH_S + 1))
        expect(res.headers['x-credits-charged']).toBe('1')
        expectNoLeak(res)
      }
      // Past its freshness and the staleness allowed, the kept answer is not served any more.
      clock.advance(600_000)
      upstream.always(json(500, { error: MARKER }, NOTE))
      const res = await askProfile(staleNode, key, slug)
      expectError(res, 502, 'UPSTREAM_ERROR')
      expect(res.headers['x-credits-charged']).toBe('0')
    } finally {
      upstream.always(profileOk)
    }
    expect(await profileUsage(staleNode, key)).toEqual({ statusCodes: { '200': 4, '502': 1 }, credits: 4, spent: 4 })
    expectCleanLogs(staleNode)
  })
})

describe('freshness asked by the customer', () => {
  it('Cache-Control: max-age=0 and no-cache fetch again; max-age above the age is served from the kept answer', async () => {
    const key = await customer(node)
    const slug = newSlug()
    upstream.always(profileOk)
    const sent = upstream.requests.length
    const fetches = () => upstream.requests.length - sent
    const ask = async (cacheControl: string | undefined, source: string, age: string) => {
      const res = await askProfile(node, key, slug, cacheControl === undefined ? {} : { 'cache-control': cacheControl })
      expect(res.statusCode, res.body).toBe(200)
      expect(res.body).toBe(PROFILE)
      expect([cacheControl, res.headers['x-data-source'], res.headers.age]).toEqual([cacheControl, source, age])
      expect(res.headers['x-credits-charged']).toBe('1')
    }
    await ask(undefined, 'upstream', '0')
    await ask(undefined, 'cache', '0')
    expect(fetches()).toBe(1)
    node.t.clock.advance(10_000)
    await ask(undefined, 'cache', '10')
    await ask('max-age=30', 'cache', '10')
    expect(fetches()).toBe(1)
    await ask('max-age=5', 'upstream', '0')
    expect(fetches()).toBe(2)
    // Time moves between calls: across nodes, an answer fetched at the instant a call starts is as fresh as it can ask.
    node.t.clock.advance(1_000)
    await ask('max-age=0', 'upstream', '0')
    expect(fetches()).toBe(3)
    node.t.clock.advance(1_000)
    await ask('no-cache', 'upstream', '0')
    expect(fetches()).toBe(4)
    await ask(undefined, 'cache', '0')
    expect(fetches()).toBe(4)
  })
})

describe('upstream-only', () => {
  it('forwards every call, identical ones included, and keeps nothing', async () => {
    const key = await customer(forwarder)
    const slug = newSlug()
    upstream.always(profileOk)
    const sent = upstream.requests.length
    for (let i = 0; i < 2; i++) {
      const res = await askProfile(forwarder, key, slug)
      expect(res.statusCode, res.body).toBe(200)
      expect(res.body).toBe(PROFILE)
      expect(res.headers['x-data-source']).toBe('upstream')
      expect(res.headers.age).toBe('0')
    }
    expect(upstream.requests.length - sent, 'two identical calls, two upstream requests').toBe(2)
    // An absence is not kept either.
    const gone = newSlug()
    upstream.always(json(404, { error: MARKER, code: 'PROFILE_NOT_FOUND' }, NOTE))
    try {
      for (let i = 0; i < 2; i++) {
        const res = await askProfile(forwarder, key, gone)
        expectError(res, 404, 'PROFILE_NOT_FOUND')
        expect(res.headers['x-data-source']).toBe('upstream')
        expectNoLeak(res)
      }
    } finally {
      upstream.always(profileOk)
    }
    expect(upstream.requests.length - sent).toBe(4)
    expect(await profileUsage(forwarder, key)).toEqual({ statusCodes: { '200': 2, '404': 2 }, credits: 4, spent: 4 })
    expectCleanLogs(forwarder)
  })
})

describe('the logs', () => {
  it('no line any node logged holds the upstream’s text, key or address', () => {
    for (const n of [node, staleNode, forwarder]) expectCleanLogs(n)
    expect(node.logs.length, 'the failures were logged').toBeGreaterThan(0)
  })
})
