/**
 * The live source's own rules, with a scripted upstream: kept answers and their freshness, the
 * request's Cache-Control, one fetch for calls that arrive together (two sources on one kept-answer
 * store and one set of fetch locks stand for two nodes), a failure shared with the waiting node, and
 * stale answers served only as far as PRONET_SERVE_STALE_S allows.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { Registry } from 'prom-client'
import { openSqlite, type SqliteDb } from '../../src/adapters/sqlite/database.ts'
import { createSqliteLiveAnswers } from '../../src/adapters/sqlite/sqlite-live-answers.ts'
import { createMemoryFetchLocks } from '../../src/adapters/memory/memory-fetch-locks.ts'
import { createMemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.ts'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { ApiError } from '../../src/domain/errors.ts'
import { freshnessAsked } from '../../src/live-source/cache-control.ts'
import { FRESHNESS_DEFAULTS, type LiveSourceConfig } from '../../src/live-source/live-source-config.ts'
import { createLiveMetrics } from '../../src/live-source/live-metrics.ts'
import { LIVE_OPERATIONS } from '../../src/live-source/live-operations.ts'
import { createLiveSource, type LiveCall, type LiveSource } from '../../src/live-source/live-source.ts'
import { createUpstreamBudget } from '../../src/live-source/upstream-budget.ts'
import type { UpstreamAnswer } from '../../src/live-source/upstream-client.ts'
import type { FetchLocks } from '../../src/ports/fetch-locks.ts'
import type { LiveAnswerStore } from '../../src/ports/live-answers.ts'

const T0 = 1_800_000_000_000
const quiet = { warn: () => undefined, debug: () => undefined }

const config = (over: Partial<LiveSourceConfig> = {}): LiveSourceConfig => ({
  mode: 'upstream',
  upstreamUrl: 'http://upstream.invalid',
  upstreamKey: 'k',
  upstreamRps: 1000,
  timeoutMs: 1000,
  freshness: { ...FRESHNESS_DEFAULTS, profile: 60 },
  serveStaleS: 0,
  ...over,
})

const dbs: SqliteDb[] = []
afterEach(() => {
  for (const db of dbs.splice(0)) db.close()
})

function world(over: Partial<LiveSourceConfig> = {}) {
  const clock = createManualClock(T0)
  const db = openSqlite(':memory:')
  dbs.push(db)
  const answers = createSqliteLiveAnswers(db)
  const locks = createMemoryFetchLocks({ now: () => clock.now() })
  const limiter = createMemoryRateLimiter()
  const node = (shared: { answers?: LiveAnswerStore; locks?: FetchLocks } = {}) => {
    const metrics = createLiveMetrics(new Registry())
    const source = createLiveSource({
      config: config(over),
      budget: createUpstreamBudget({ limiter, rps: 1000, clock, sleep: async () => undefined, maxWaitMs: 1000 }),
      answers: shared.answers ?? answers,
      locks: shared.locks,
      writer: undefined,
      clock,
      // The waiting node's polls: a real turn of the event loop, with the clock moved a little.
      sleep: (ms) => new Promise((r) => setTimeout(() => (clock.advance(ms), r()), 1)),
      logger: quiet,
      metrics,
      maxWaitMs: 1000,
    })
    return { source, metrics }
  }
  return { clock, answers, locks, node }
}

/** An upstream whose answers the test releases by hand, counting the calls it got. */
function upstream() {
  const pending: ((a: UpstreamAnswer | Error) => void)[] = []
  let calls = 0
  return {
    get calls() {
      return calls
    },
    fetch: () =>
      new Promise<UpstreamAnswer>((resolve, reject) => {
        calls++
        pending.push((a) => (a instanceof Error ? reject(a) : resolve(a)))
      }),
    answerAll(a: UpstreamAnswer | Error) {
      for (const p of pending.splice(0)) p(a)
    },
  }
}

const profile = (name: string): UpstreamAnswer => ({ status: 200, body: { name }, text: JSON.stringify({ name }), creditsCharged: 1 })

function call(up: { fetch: () => Promise<UpstreamAnswer> }, cacheControl?: string): LiveCall {
  return {
    operation: 'profile',
    op: LIVE_OPERATIONS.profile,
    name: 'profile|{"input":"ada"}|',
    cacheControl,
    fetch: up.fetch,
    present: (text) => Buffer.from(text),
    fallbackCredits: () => 1,
  }
}

const settle = () => new Promise((r) => setTimeout(r, 5))

async function answered(source: LiveSource, c: LiveCall) {
  const r = await source.answer(c)
  return { source: r.source, age: r.ageS, body: r.bytes.toString() }
}

describe('live source', () => {
  it('keeps an answer and serves it while fresh, with its age; fetches again once it is not', async () => {
    const w = world()
    const up = upstream()
    const { source, metrics } = w.node()
    const first = answered(source, call(up))
    await settle()
    up.answerAll(profile('Ada'))
    expect(await first).toEqual({ source: 'upstream', age: 0, body: '{"name":"Ada"}' })
    w.clock.advance(30_000)
    expect(await answered(source, call(up))).toEqual({ source: 'cache', age: 30, body: '{"name":"Ada"}' })
    expect(up.calls).toBe(1)
    w.clock.advance(31_000)
    const again = answered(source, call(up))
    await settle()
    up.answerAll(profile('Ada L.'))
    expect(await again).toEqual({ source: 'upstream', age: 0, body: '{"name":"Ada L."}' })
    expect(up.calls).toBe(2)
    expect(metrics.snapshot()).toMatchObject({ answers: { cache: 1, upstream: 2, stale: 0 }, creditsSpent: 2, calls: { profile: { ok: 2 } } })
  })

  it('honours Cache-Control: no-cache fetches again, max-age takes a kept answer only as old as it says', async () => {
    const w = world()
    const up = upstream()
    const { source } = w.node()
    const first = answered(source, call(up))
    await settle()
    up.answerAll(profile('Ada'))
    await first
    w.clock.advance(10_000)
    expect((await answered(source, call(up, 'max-age=20'))).source).toBe('cache')
    const fetched = answered(source, call(up, 'max-age=5'))
    await settle()
    up.answerAll(profile('Ada'))
    expect((await fetched).source).toBe('upstream')
    const noCache = answered(source, call(up, 'no-cache'))
    await settle()
    up.answerAll(profile('Ada'))
    expect((await noCache).source).toBe('upstream')
    expect(up.calls).toBe(3)
  })

  it('calls that arrive together on one node make one upstream call', async () => {
    const w = world()
    const up = upstream()
    const { source, metrics } = w.node()
    const all = Array.from({ length: 50 }, () => answered(source, call(up)))
    await settle()
    up.answerAll(profile('Ada'))
    const got = await Promise.all(all)
    expect(up.calls).toBe(1)
    expect(new Set(got.map((g) => g.body))).toEqual(new Set(['{"name":"Ada"}']))
    expect(metrics.snapshot().coalesced.node).toBe(49)
  })

  it('two nodes on one store and one set of locks make one upstream call between them, and share its failure', async () => {
    const w = world()
    const up = upstream()
    const a = w.node({ locks: w.locks })
    const b = w.node({ locks: w.locks })
    const fromA = answered(a.source, call(up))
    await settle()
    const fromB = answered(b.source, call(up))
    await settle()
    up.answerAll(profile('Ada'))
    expect(await fromA).toMatchObject({ source: 'upstream', body: '{"name":"Ada"}' })
    expect(await fromB).toMatchObject({ source: 'upstream', body: '{"name":"Ada"}' })
    expect(up.calls).toBe(1)
    expect(b.metrics.snapshot().coalesced.cluster).toBe(1)

    w.clock.advance(120_000)
    const failA = a.source.answer(call(up)).catch((e: unknown) => e)
    await settle()
    const failB = b.source.answer(call(up)).catch((e: unknown) => e)
    await settle()
    up.answerAll(new ApiError('UPSTREAM_TIMEOUT', 'The live data source did not answer in time; nothing was charged.'))
    expect(await failA).toMatchObject({ code: 'UPSTREAM_TIMEOUT' })
    expect(await failB).toMatchObject({ code: 'UPSTREAM_TIMEOUT' })
    expect(up.calls).toBe(2)
  })

  /**
   * Node A has its answer (fetched at T0) and holds the lock while it writes it; node B's call, with
   * `cacheControl`, begins 10 ms later and finds nothing kept yet. Then A's write goes through.
   */
  async function behindAWrite(cacheControl?: string) {
    const w = world()
    const up = upstream()
    let letWrite: () => void = () => undefined
    const writing = new Promise<void>((r) => (letWrite = r))
    const slowWrites: LiveAnswerStore = { ...w.answers, put: async (row) => (await writing, w.answers.put(row)) }
    const a = w.node({ answers: slowWrites, locks: w.locks })
    const b = w.node({ locks: w.locks })
    const fromA = answered(a.source, call(up))
    await settle()
    up.answerAll(profile('Ada'))
    await settle()
    w.clock.advance(10)
    const fromB = answered(b.source, call(up, cacheControl))
    await settle()
    letWrite()
    expect(await fromA).toMatchObject({ source: 'upstream', body: '{"name":"Ada"}' })
    // Had B fetched again, it would be waiting for the upstream: the race then ends on the count.
    const got = await Promise.race([fromB, settle().then(() => settle()).then(() => up.calls)])
    return { up, b, fromB, got }
  }

  it("a call that begins while the other node is still writing the answer it fetched waits for it, and does not fetch again", async () => {
    const { up, b, got } = await behindAWrite()
    expect(up.calls).toBe(1)
    expect(got).toMatchObject({ source: 'upstream', body: '{"name":"Ada"}' })
    expect(b.metrics.snapshot().coalesced.cluster).toBe(1)
  })

  it('the same call with Cache-Control: no-cache takes only an answer fetched after it began: it fetches again', async () => {
    const { up, fromB } = await behindAWrite('no-cache')
    expect(up.calls).toBe(2)
    up.answerAll(profile('Ada Lovelace'))
    expect(await fromB).toMatchObject({ source: 'upstream', body: '{"name":"Ada Lovelace"}' })
  })

  it('serves a kept answer as stale while the upstream fails, only as far past its freshness as allowed', async () => {
    for (const serveStaleS of [0, 100]) {
      const w = world({ serveStaleS })
      const up = upstream()
      const { source } = w.node()
      const first = answered(source, call(up))
      await settle()
      up.answerAll(profile('Ada'))
      await first
      w.clock.advance(120_000)
      const during = source.answer(call(up)).then((r) => ({ source: r.source, age: r.ageS }), (e: unknown) => e)
      await settle()
      up.answerAll(new ApiError('UPSTREAM_ERROR', 'failed'))
      if (serveStaleS === 0) expect(await during).toMatchObject({ code: 'UPSTREAM_ERROR' })
      else expect(await during).toEqual({ source: 'stale', age: 120 })
      w.clock.advance(100_000)
      const late = source.answer(call(up)).catch((e: unknown) => e)
      await settle()
      up.answerAll(new ApiError('UPSTREAM_ERROR', 'failed'))
      expect(await late).toMatchObject({ code: 'UPSTREAM_ERROR' })
    }
  })

  it('a customer who asks for a fresher copy gets the failure, not a stale one', async () => {
    const w = world({ serveStaleS: 1000 })
    const up = upstream()
    const { source } = w.node()
    const first = answered(source, call(up))
    await settle()
    up.answerAll(profile('Ada'))
    await first
    w.clock.advance(120_000)
    for (const asked of ['no-cache', 'max-age=30']) {
      const r = source.answer(call(up, asked)).catch((e: unknown) => e)
      await settle()
      up.answerAll(new ApiError('UPSTREAM_ERROR', 'failed'))
      expect(await r, asked).toMatchObject({ code: 'UPSTREAM_ERROR' })
    }
    const plain = source.answer(call(up)).then((r) => r.source)
    await settle()
    up.answerAll(new ApiError('UPSTREAM_ERROR', 'failed'))
    expect(await plain).toBe('stale')
  })

  it('upstream-only forwards every call and keeps nothing', async () => {
    const w = world({ mode: 'upstream-only' })
    const up = upstream()
    const { source } = w.node()
    for (let i = 0; i < 2; i++) {
      const r = answered(source, call(up))
      await settle()
      up.answerAll(profile('Ada'))
      expect(await r).toMatchObject({ source: 'upstream', age: 0 })
    }
    expect(up.calls).toBe(2)
    expect(await w.answers.counts()).toEqual({})
  })

  it("reads the request's Cache-Control as caches do", () => {
    expect(freshnessAsked(undefined)).toEqual({ noCache: false, maxAgeS: undefined })
    expect(freshnessAsked('no-cache')).toEqual({ noCache: true, maxAgeS: undefined })
    expect(freshnessAsked('max-age=0')).toEqual({ noCache: true, maxAgeS: 0 })
    expect(freshnessAsked('public, MAX-AGE=30, max-age=60')).toEqual({ noCache: false, maxAgeS: 30 })
    expect(freshnessAsked(['max-age=abc', 'no-store'])).toEqual({ noCache: true, maxAgeS: undefined })
  })
})
