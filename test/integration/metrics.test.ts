/**
 * The operator's metrics: a scripted mix of calls, then a scrape of GET /metrics, whose counts by
 * route and status, credits billed by endpoint and refusals by code must be what the calls were
 * answered; the METRICS_PORT listener; the queue a worker pool registers; the Grafana dashboard's
 * series.
 */
import type { LightMyRequestResponse } from 'fastify'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { collectDefaultMetrics, Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config/config.ts'
import { startMetricsServer } from '../../src/observability/metrics-server.ts'
import { fixtureRecords } from '../helpers/ingest-fixtures.ts'
import { ADMIN_TOKEN, expectError, makeTestApp, type TestApp } from '../helpers/test-app.ts'

const PROFILE = '/api/v1/profile'
const SEARCH = '/api/v1/search/posts'

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp({ records: fixtureRecords() })
})
afterAll(async () => t.close())

const scrape = (url = '/metrics', token: string | null = ADMIN_TOKEN) =>
  t.app.inject({ method: 'GET', url, headers: token === null ? {} : { authorization: `Bearer ${token}` } })

/** The value of the series `name` with exactly these labels in Prometheus text; undefined when there is none. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (m === null || m[1] !== name) continue
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]))
    const keys = Object.keys(labels)
    if (Object.keys(got).length === keys.length && keys.every((k) => got[k] === labels[k])) return Number(m[3])
  }
  return undefined
}

/** One call of the script: the route it is counted under, and what it was answered. */
interface Seen {
  route: string
  method: string
  status: number
  credits: number
}

describe('GET /metrics after a scripted mix of calls', () => {
  const seen: Seen[] = []
  let text = ''
  let cacheHits = 0

  const record = (route: string, method: string, res: LightMyRequestResponse) => {
    const header = res.headers['x-credits-charged']
    seen.push({ route, method, status: res.statusCode, credits: header === undefined ? 0 : Number(header) })
    return res
  }
  const profile = (query: string, key: string | null = t.key) => t.get(`${PROFILE}${query}`, key).then((res) => record(PROFILE, 'GET', res))

  beforeAll(async () => {
    for (let i = 0; i < 7; i++) expect((await profile('?profileUrlOrUrn=member-1')).statusCode).toBe(200)
    for (let i = 0; i < 2; i++) expectError(await profile('?profileUrlOrUrn=nobody-at-all'), 404, 'PROFILE_NOT_FOUND')
    expectError(await profile(''), 400, 'MISSING_PARAMETER')
    expectError(await profile('?profileUrlOrUrn=urn:li:fsd_profile:x'), 400, 'INVALID_URN')
    expectError(await profile('?profileUrlOrUrn=member-1&profileUrlOrUrn=member-2'), 400, 'INVALID_PARAMETER')
    for (let i = 0; i < 2; i++) expectError(await profile('?profileUrlOrUrn=member-1', null), 401, 'UNAUTHENTICATED')
    const broke = await t.c.accounts.create({ name: 'broke', plan: 'custom', creditsLimit: 0, rpsLimit: 100 })
    expectError(await profile('?profileUrlOrUrn=member-1', broke.apiKey.key), 402, 'QUOTA_EXHAUSTED')
    // One call a second: the second call at the same instant is refused.
    const slow = await t.c.accounts.create({ name: 'slow', plan: 'custom', creditsLimit: 100, rpsLimit: 1 })
    expect((await profile('?profileUrlOrUrn=member-1', slow.apiKey.key)).statusCode).toBe(200)
    expectError(await profile('?profileUrlOrUrn=member-1', slow.apiKey.key), 429, 'RATE_LIMITED')
    const search = await t.app.inject({
      method: 'POST',
      url: SEARCH,
      headers: { 'x-api-key': t.key, 'content-type': 'application/json' },
      payload: JSON.stringify({ query: 'logistics OR hiring' }),
    })
    expect(record(SEARCH, 'POST', search).statusCode, search.body).toBe(200)
    expectError(record('unknown', 'GET', await t.get('/api/v1/no-such-endpoint')), 404, 'NOT_FOUND')
    cacheHits = t.c.content.cache.stats().hits
    const res = await scrape()
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
    text = res.body
  })

  it('counts calls by route pattern, method and status, with a duration for each', () => {
    const tally = new Map<string, Seen & { calls: number }>()
    for (const s of seen) {
      const key = `${s.route} ${s.method} ${s.status}`
      const entry = tally.get(key) ?? { ...s, calls: 0 }
      entry.calls++
      tally.set(key, entry)
    }
    // The script as written: 7 + 1 delivered profiles, 2 missing, 3 bad inputs, 2 without a key, a 402 and a 429.
    expect(Object.fromEntries([...tally].map(([k, v]) => [k, v.calls]))).toEqual({
      [`${PROFILE} GET 200`]: 8,
      [`${PROFILE} GET 404`]: 2,
      [`${PROFILE} GET 400`]: 3,
      [`${PROFILE} GET 401`]: 2,
      [`${PROFILE} GET 402`]: 1,
      [`${PROFILE} GET 429`]: 1,
      [`${SEARCH} POST 200`]: 1,
      'unknown GET 404': 1,
    })
    for (const { route, method, status, calls } of tally.values()) {
      const labels = { route, method, status: String(status) }
      expect(sample(text, 'pronet_http_requests_total', labels), `${route} ${method} ${status}`).toBe(calls)
      expect(sample(text, 'pronet_http_request_duration_seconds_count', labels)).toBe(calls)
      expect(sample(text, 'pronet_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(calls)
      expect(sample(text, 'pronet_http_request_duration_seconds_sum', labels)).toBeGreaterThan(0)
    }
    // No other data route was called, and the URL's query never becomes a label.
    const dataSeries = text.split('\n').filter((l) => l.startsWith('pronet_http_requests_total{') && l.includes('route="/api/'))
    expect(dataSeries).toHaveLength(7)
    expect(text).not.toMatch(/member-|nobody-at-all|fsd_profile|no-such-endpoint/)
  })

  it('bills by endpoint exactly the credits the answers said they charged', () => {
    for (const route of [PROFILE, SEARCH]) {
      const charged = seen.filter((s) => s.route === route).reduce((sum, s) => sum + s.credits, 0)
      expect(charged).toBeGreaterThan(0)
      expect(sample(text, 'pronet_credits_billed_total', { endpoint: route }), route).toBe(charged)
    }
    // Nothing was billed for the unknown path.
    expect(sample(text, 'pronet_credits_billed_total', { endpoint: 'unknown' })).toBeUndefined()
  })

  it('counts refusals by the code of their error envelope, and 429s by endpoint', () => {
    const expected = { PROFILE_NOT_FOUND: 2, MISSING_PARAMETER: 1, INVALID_URN: 1, INVALID_PARAMETER: 1, UNAUTHENTICATED: 2, QUOTA_EXHAUSTED: 1, RATE_LIMITED: 1, NOT_FOUND: 1 }
    for (const [code, n] of Object.entries(expected)) expect(sample(text, 'pronet_http_refusals_total', { code }), code).toBe(n)
    const codes = text.split('\n').filter((l) => l.startsWith('pronet_http_refusals_total{'))
    expect(codes).toHaveLength(Object.keys(expected).length)
    expect(sample(text, 'pronet_http_rate_limited_total', { endpoint: PROFILE })).toBe(1)
  })

  it("counts the response cache's hits and misses", () => {
    // The same profile delivered eight times: the first computed, the other seven from the cache.
    expect(cacheHits).toBe(7)
    expect(sample(text, 'pronet_response_cache_lookups_total', { result: 'hit' })).toBe(cacheHits)
    expect(sample(text, 'pronet_response_cache_lookups_total', { result: 'miss' })).toBe(t.c.content.cache.stats().misses)
    expect(sample(text, 'pronet_response_cache_entries')).toBeGreaterThan(0)
  })

  it('is the operator\'s: GET /metrics without the admin token is a 401, and GET /admin/v1/metrics serves the same series', async () => {
    expectError(await scrape('/metrics', null), 401, 'UNAUTHENTICATED')
    expectError(await scrape('/metrics', 'wrong-token'), 401, 'UNAUTHENTICATED')
    const admin = (await scrape('/admin/v1/metrics')).body
    const labels = { route: PROFILE, method: 'GET', status: '200' }
    expect(sample(admin, 'pronet_http_requests_total', labels)).toBe(8)
    // Each scrape is itself a call: the first one is counted by the time of the second.
    expect(sample(admin, 'pronet_http_requests_total', { route: '/metrics', method: 'GET', status: '200' })).toBeGreaterThanOrEqual(1)
  })
})

describe('the METRICS_PORT listener', () => {
  it('serves the same metrics on 127.0.0.1 without a token, and nothing else', async () => {
    const server = await startMetricsServer({ registry: t.c.metrics, port: 0 })
    try {
      expect(server.host).toBe('127.0.0.1')
      const base = `http://127.0.0.1:${server.port}`
      const res = await fetch(`${base}/metrics`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
      const body = await res.text()
      // The admin scrape renders before it counts itself, so the two agree while nothing else is called.
      const admin = (await scrape()).body
      const help = (s: string) => s.split('\n').filter((l) => l.startsWith('# HELP ') || l.startsWith('# TYPE '))
      expect(help(body)).toEqual(help(admin))
      expect(help(body)).toContain('# TYPE pronet_http_requests_total counter')
      const labels = { route: PROFILE, method: 'GET', status: '200' }
      expect(sample(body, 'pronet_http_requests_total', labels)).toBe(sample(admin, 'pronet_http_requests_total', labels))
      expect((await fetch(`${base}/admin/v1/metrics`)).status).toBe(404)
      expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405)
    } finally {
      await server.close()
    }
  })

  it('is set by METRICS_PORT, a port other than PORT; unset, there is none', () => {
    const env = { PRONET_SEED: 'none', LOG_LEVEL: 'silent' }
    expect(loadConfig(env).metricsPort).toBeUndefined()
    expect(loadConfig({ ...env, METRICS_PORT: '9464' }).metricsPort).toBe(9464)
    for (const bad of ['0', '65536', 'metrics', '94.64']) {
      expect(() => loadConfig({ ...env, METRICS_PORT: bad }), bad).toThrow(/METRICS_PORT/)
    }
    expect(() => loadConfig({ ...env, PORT: '9464', METRICS_PORT: '9464' })).toThrow(ConfigError)
    expect(() => loadConfig({ ...env, PORT: '9464', METRICS_PORT: '9464' })).toThrow(/METRICS_PORT must differ from PORT/)
  })
})

describe('a queue of work registers its series', () => {
  it('reports its depth, waits and refusals under its name', async () => {
    const queue = t.c.observability.registerQueue('trial')
    queue.depth(5)
    queue.depth(3)
    queue.started('acct_a', 12)
    queue.started('acct_b', 200)
    queue.refused('acct_a')
    const text = (await scrape()).body
    expect(sample(text, 'pronet_trial_queue_depth')).toBe(3)
    expect(sample(text, 'pronet_trial_queue_wait_seconds_count')).toBe(2)
    expect(sample(text, 'pronet_trial_queue_wait_seconds_sum')).toBeCloseTo(0.212, 6)
    expect(sample(text, 'pronet_trial_queue_wait_seconds_bucket', { le: '0.01' })).toBe(0)
    expect(sample(text, 'pronet_trial_queue_wait_seconds_bucket', { le: '0.025' })).toBe(1)
    expect(sample(text, 'pronet_trial_queue_wait_seconds_bucket', { le: '0.25' })).toBe(2)
    expect(sample(text, 'pronet_trial_queue_refused_total')).toBe(1)
    // The account is no label: accounts are unbounded.
    expect(text).not.toMatch(/acct_a|acct_b/)
    // Registered again, the same series.
    t.c.observability.registerQueue('trial').depth(1)
    expect(sample((await scrape()).body, 'pronet_trial_queue_depth')).toBe(1)
    expect(() => t.c.observability.registerQueue('Search Pool')).toThrow(/lowercase word/)
  })
})

describe('the Grafana dashboard', () => {
  const dashboard = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'grafana', 'pronet-dashboard.json'), 'utf8'))
  const panels = dashboard.panels as { title: string; type: string; datasource: { uid: string }; targets?: { expr: string }[] }[]

  it('takes its Prometheus data source as a variable', () => {
    const variable = dashboard.templating.list.find((v: { type: string }) => v.type === 'datasource')
    expect(variable).toMatchObject({ name: 'datasource', query: 'prometheus' })
    for (const panel of panels.filter((p) => p.type !== 'row')) expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${datasource}' })
  })

  it('queries only series the service exports', async () => {
    // A series is exported once it has a value; its family (a histogram's _bucket, _sum and _count) is named from the start.
    // The process's own series (the event loop's delay among them) are added where the server starts.
    const process = new Registry()
    collectDefaultMetrics({ register: process, prefix: 'pronet_' })
    const exported = `${(await scrape()).body}\n${await process.metrics()}`
    process.clear()
    const names = new Set(panels.flatMap((p) => (p.targets ?? []).flatMap((target) => target.expr.match(/\bpronet_\w+/g) ?? [])))
    expect(names.size).toBeGreaterThan(10)
    for (const name of names) {
      const family = exported.includes(`# TYPE ${name} `) ? name : name.replace(/_(bucket|sum|count)$/, '')
      expect(exported, name).toMatch(new RegExp(`^# TYPE ${family} ${family === name ? '(counter|gauge)' : 'histogram'}$`, 'm'))
    }
  })
})
