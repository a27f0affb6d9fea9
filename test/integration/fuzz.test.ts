/**
 * The API under fuzzed calls, generated from the contract the app serves at /openapi.json: every data,
 * account and admin operation, and paths and methods it does not have. Values come from the schemas,
 * mostly valid and from real inputs so that calls reach the stores, else at and past their edges,
 * of the wrong type, missing, unknown, repeated, malformed, mislabelled or badly encoded, with keys
 * and tokens right, wrong, revoked or absent. Every answer is judged (fuzz-checks.ts); then the
 * counted accounts' debits must equal the credits the answers said they charged, and the process's
 * memory must be back near where it stood after the warm-up.
 *
 * Seeded: PRONET_FUZZ_SEED replays a run's calls (in the same order, a few in flight at once); a
 * failure names its seed and the calls that failed, each as it was sent.
 */
import fc from 'fast-check'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { TSchema } from 'typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SubscriptionResponse, UsageResponse } from '../../src/contract/endpoints.schemas.ts'
import { ERROR_STATUS } from '../../src/domain/errors.ts'
import { DATA_ROUTES } from '../../src/http/routes/data.routes.ts'
import type { Credentials } from '../helpers/fuzz-auth.ts'
import { checkResponse, type CheckContext } from '../helpers/fuzz-checks.ts'
import { operationsOf, type OpenApiDocument, type Operation } from '../helpers/fuzz-operations.ts'
import { offRouteRequests } from '../helpers/fuzz-paths.ts'
import { hintsFor, pathValues, type Issued } from '../helpers/fuzz-pools.ts'
import { requestsOf, type FuzzRequest } from '../helpers/fuzz-requests.ts'
import { describeFailure, FuzzTally, runRequests } from '../helpers/fuzz-run.ts'
import { AUTHOR_ID, fixtureRecords, generatedPostRecord, PERSON_POST_ID, profileRecord } from '../helpers/ingest-fixtures.ts'
import { ADMIN_TOKEN, makeTestApp, type TestApp } from '../helpers/test-app.ts'

const SEED = seedOf(process.env.PRONET_FUZZ_SEED)
const NOW = Date.UTC(2026, 10, 2, 9, 0, 0)
const POSTGRES = process.env.PRONET_TEST_BACKEND === 'postgres'
/** Calls before the memory baseline is taken: caches, pools and compiled code in place. */
const WARM_UP = 2_000
/**
 * Calls in a run, the warm-up included: the full run on the embedded store, and a share of it on
 * PostgreSQL + Redis (the same generator and checks; each call waits on the database there, and the
 * whole suite has a time budget).
 */
const TOTAL = POSTGRES ? 8_000 : 20_000
/** Calls generated at a time (each batch from the seed and its number), so the run never holds them all. */
const BATCH = 500
/** Calls in flight at once: more on PostgreSQL, where calls mostly wait on the server. */
const CONCURRENCY = POSTGRES ? 16 : 4
/** The small account's allowance: spent early, so most of its calls meet 402. */
const SMALL_CREDITS = 20
const MAIN_CREDITS = 1_000_000

let t: TestApp
let ops: Operation[]
let credentials: Credentials
let accounts: { main: string; small: string }
let arbitrary: fc.Arbitrary<FuzzRequest>
let check: CheckContext
const tally = new FuzzTally()
const rss = { warm: 0, end: 0 }

beforeAll(async () => {
  const members = Array.from({ length: 6 }, (_, i) => ({ kind: 'profile', data: profileRecord(10 + i) }))
  const posts = Array.from({ length: 30 }, (_, i) => ({ kind: 'post', data: generatedPostRecord(AUTHOR_ID, i + 1) }))
  // The app's monotonic clock (how long a call waited, how long an address's wrong keys are counted)
  // follows the test clock, so what a call meets depends on the calls before it, not on the machine's load.
  let clock: TestApp['clock'] | undefined
  t = await makeTestApp({
    nowMs: NOW,
    records: [...fixtureRecords(), ...members, ...posts],
    account: { name: 'fuzz', plan: 'custom', creditsLimit: MAIN_CREDITS, rpsLimit: 100_000 },
    overrides: { monotonic: () => clock?.now() ?? NOW },
  })
  clock = t.clock
  const revoked = await t.c.accounts.createKey(t.accountId)
  await t.c.accounts.revokeKey(t.accountId, revoked.id)
  const small = await t.c.accounts.create({ name: 'small', plan: 'custom', creditsLimit: SMALL_CREDITS, rpsLimit: 100_000 })
  // Accounts the admin calls may suspend, re-plan, top up and take keys from; the counted two are only read.
  const sandbox = await Promise.all([1, 2, 3].map((n) => t.c.accounts.create({ name: `sandbox ${n}`, plan: 'custom', creditsLimit: 1_000, rpsLimit: 1_000 })))
  const sandboxKeys = [...sandbox.map((s) => s.apiKey)]
  for (const s of sandbox) for (let i = 0; i < 3; i++) sandboxKeys.push(await t.c.accounts.createKey(s.account.id))
  // Several orders per account, so that some are still pending when the admin calls come to approve them.
  const orders = await Promise.all(sandbox.flatMap((s) => [1, 2, 3, 4].map(() => t.c.orders.placeOrder({ accountId: s.account.id, credits: 50_000 }))))
  const webhooks = await Promise.all(sandbox.map((s) => t.c.webhooks.create(s.account.id, { url: 'https://hooks.example.invalid/pronet', events: ['order.paid', 'credits.low'] })))
  accounts = { main: t.accountId, small: small.account.id }
  credentials = { main: t.key, small: small.apiKey.key, revoked: revoked.key, sandbox: sandboxKeys.map((k) => k.key), adminToken: ADMIN_TOKEN }

  const doc = (await t.app.inject('/openapi.json')).json() as OpenApiDocument
  ops = operationsOf(doc)
  const successSchemas = new Map<string, TSchema>([
    ...DATA_ROUTES.map((r) => [`${r.method} ${r.url}`, r.response] as [string, TSchema]),
    ['GET /api/v1/usage', UsageResponse],
    ['GET /api/v1/subscription', SubscriptionResponse],
  ])
  check = { errorStatus: ERROR_STATUS, operations: new Map(ops.map((o) => [o.key, o])), successSchemas }

  const pools = {
    credentials,
    hints: hintsFor(await issuedTokens(), NOW),
    pathValue: pathValues({
      readable: [accounts.main, accounts.small],
      changeable: sandbox.map((s) => s.account.id),
      keyIds: sandboxKeys.map((k) => k.id),
      orderIds: orders.map((o) => o.order.id),
      webhookIds: webhooks.map((w) => w.id),
    }),
  }
  const weight = { data: 8, account: 6, admin: 3 } as const
  arbitrary = fc.oneof(...ops.map((op) => ({ weight: weight[op.family], arbitrary: requestsOf(op, pools) })), { weight: 12, arbitrary: offRouteRequests(ops, pools) })
}, 120_000)

afterAll(async () => t?.close())

/** First pages' tokens and cursors, read with an account of their own so the counted ones are not charged. */
async function issuedTokens(): Promise<Issued> {
  const reader = await t.c.accounts.create({ name: 'reader', plan: 'custom', creditsLimit: 10_000, rpsLimit: 100_000 })
  const get = async (url: string) => (await t.get(url, reader.apiKey.key)).json() as Record<string, unknown>
  const post = `urn:li:activity:${PERSON_POST_ID}`
  const pages = [
    await get(`/api/v1/posts?profileUrlOrUrn=member-1&count=2`),
    await get(`/api/v1/profile/reactions?profileUrlOrUrn=member-2&count=1`),
    await get(`/api/v1/company/posts?companyUrlOrUrn=1035&count=1`),
    await get(`/api/v1/post/comments?postUrlOrUrn=${encodeURIComponent(post)}&count=1`),
  ]
  const engagement = await get(`/api/v1/post/engagement?postUrlOrUrn=${encodeURIComponent(post)}&commentCount=1`)
  const search = await t.app.inject({
    method: 'POST',
    url: '/api/v1/search/posts',
    headers: { 'x-api-key': reader.apiKey.key, 'content-type': 'application/json' },
    payload: JSON.stringify({ query: 'shipping', maxResults: 1 }),
  })
  const strings = (values: unknown[]) => values.filter((v): v is string => typeof v === 'string' && v !== '')
  return {
    pageTokens: strings(pages.map((p) => p.paginationToken)),
    commentTokens: strings([engagement.commentsPaginationToken]),
    searchCursors: strings([search.json().cursor]),
  }
}

/** The next `count` calls of the run, batch by batch from the seed. */
function* calls(from: number, count: number): Generator<FuzzRequest[]> {
  for (let start = from; start < from + count; start += BATCH) {
    yield fc.sample(arbitrary, { seed: SEED + start / BATCH, numRuns: Math.min(BATCH, from + count - start) })
  }
}

async function run(from: number, count: number): Promise<void> {
  const options = {
    app: t.app,
    advance: (ms: number) => t.clock.advance(ms),
    check: (req: FuzzRequest, res: Parameters<typeof checkResponse>[1]) => checkResponse(req, res, check),
    accountOf: (req: FuzzRequest) => {
      const key = req.headers['x-api-key']
      if (typeof key !== 'string') return undefined
      return key.trim() === credentials.main ? 'main' : key.trim() === credentials.small ? 'small' : undefined
    },
    tally,
    concurrency: CONCURRENCY,
  }
  let first = from
  for (const batch of calls(from, count)) {
    await runRequests(batch, first, options)
    first += batch.length
    // Garbage is collected after each batch, so the heap's high-water mark (which V8 keeps as resident
    // pages long after its objects are gone) stays that of one batch: what the memory check then sees
    // growing is what the process keeps, not when V8 chose to collect.
    collectGarbage()
  }
}

/** V8's collector: the one node exposes with --expose-gc, else exposed here for this process. */
const collectGarbage: () => void =
  (globalThis as { gc?: () => void }).gc ??
  (() => {
    setFlagsFromString('--expose-gc')
    return runInNewContext('gc') as () => void
  })()

/** Resident memory once collectable garbage is gone: V8 collects, then the allocator has a moment to return pages. */
async function settledRss(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    collectGarbage()
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return process.memoryUsage().rss
}

/** The run's seed: PRONET_FUZZ_SEED when set (a whole number), else the suite's own. */
function seedOf(given: string | undefined): number {
  if (given === undefined || given === '') return 20_261_204
  const seed = Number(given)
  if (!Number.isSafeInteger(seed)) throw new Error(`PRONET_FUZZ_SEED must be a whole number, not ${JSON.stringify(given)}`)
  return seed
}

const replay = () => `seed ${SEED} (PRONET_FUZZ_SEED=${SEED} replays this run)`

describe('the API under fuzzed calls from its own contract', () => {
  it(`${TOTAL.toLocaleString('en-US')} calls: no 5xx, every error in the envelope with its catalogue status, credits said on every API answer`, async () => {
    expect(ops.filter((o) => o.family === 'admin').length, '/openapi.json documents the admin API').toBeGreaterThan(0)
    for (const r of DATA_ROUTES) expect(check.operations.has(`${r.method} ${r.url}`), `${r.method} ${r.url} in /openapi.json`).toBe(true)
    await run(0, WARM_UP)
    rss.warm = await settledRss()
    await run(WARM_UP, TOTAL - WARM_UP)
    rss.end = await settledRss()
    console.log(`fuzz ${replay()}: ${tally.total} calls, ${tally.failed} failed\n${tally.summary()}\nrss after warm-up ${mb(rss.warm)}, after the run ${mb(rss.end)}`)
    expect(tally.total).toBe(TOTAL)
    expect(tally.failed, `${tally.failed} of ${tally.total} answers were wrong; ${replay()}:\n${tally.failures.map(describeFailure).join('\n')}`).toBe(0)
  }, 300_000)

  it('covers every operation, with answers of every kind', () => {
    expect(tally.total).toBe(TOTAL)
    const floor = Math.floor(TOTAL / 200)
    for (const op of ops) {
      expect(tally.count(`op ${op.key}`), `${op.key}: calls reaching its route`).toBeGreaterThanOrEqual(floor)
      expect(tally.count(`op-2xx ${op.key}`), `${op.key}: successful calls`).toBeGreaterThan(0)
    }
    for (const status of [200, 201, 204, 400, 401, 402, 403, 404, 429]) expect(tally.count(`status ${status}`), `answers ${status}`).toBeGreaterThan(0)
    for (const code of ['MISSING_PARAMETER', 'INVALID_PARAMETER', 'INVALID_URN', 'UNAUTHENTICATED', 'INVALID_API_KEY', 'QUOTA_EXHAUSTED', 'PROFILE_NOT_FOUND', 'COMPANY_NOT_FOUND', 'POST_NOT_FOUND', 'NOT_FOUND', 'RATE_LIMITED']) {
      expect(tally.count(`code ${code}`), `answers with ${code}`).toBeGreaterThan(0)
    }
    for (const kind of ['valid', 'edge-value', 'wrong-type', 'missing-required', 'unknown-field', 'duplicate-param', 'array-for-scalar', 'malformed-json', 'content-type', 'proto-keys', 'encoding', 'auth', 'huge', 'wrong-method', 'path-oddity', 'unknown-path']) {
      expect(tally.count(`kind ${kind}`), `calls of mutation ${kind}`).toBeGreaterThanOrEqual(floor / 4)
    }
  })

  it('debits each counted account exactly the credits its answers said they charged', async () => {
    expect(tally.total).toBe(TOTAL)
    const main = tally.charged.get('main') ?? 0
    const small = tally.charged.get('small') ?? 0
    expect(main, 'the roomy account was charged').toBeGreaterThan(0)
    expect(small, 'the small account was charged, within its allowance').toBeGreaterThan(0)
    expect(small).toBeLessThanOrEqual(SMALL_CREDITS)
    const debited = async (accountId: string) =>
      (await t.c.ledger.entries(accountId)).filter((e) => e.kind === 'debit').reduce((sum, e) => sum - e.delta, 0)
    expect(await debited(accounts.main), `ledger debits; ${replay()}`).toBe(main)
    expect(await debited(accounts.small), `ledger debits; ${replay()}`).toBe(small)
    t.clock.advance(1_000)
    const subscription = (await t.get('/api/v1/subscription')).json()
    expect(subscription).toMatchObject({ creditsUsed: main, creditsRemaining: MAIN_CREDITS - main })
    const usage = (await t.get('/api/v1/usage')).json()
    expect(usage.creditsUsed, 'usage report').toBe(main)
    const admin = await t.app.inject({ method: 'GET', url: `/admin/v1/accounts/${accounts.main}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    expect(admin.json().subscription).toMatchObject({ creditsUsed: main, creditsRemaining: MAIN_CREDITS - main })
  })

  it("leaves the process's memory within 20% of where it stood after the warm-up", () => {
    expect(rss.warm).toBeGreaterThan(0)
    expect(rss.end, `rss after warm-up ${mb(rss.warm)}, after the run ${mb(rss.end)}`).toBeLessThanOrEqual(rss.warm * 1.2)
  })
})

describe('text no store can hold and limits that are not numbers: refused or matching nothing, never a 500', () => {
  const admin = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }) })

  it('an account search for a NUL finds nothing, and a limit that is not a whole number is refused', async () => {
    for (const query of ['%00', 'a%00b', 'someone%40example.com%00']) {
      const res = await admin('GET', `/admin/v1/accounts?query=${query}`)
      expect(res.statusCode, res.body).toBe(200)
      expect(res.json()).toEqual({ accounts: [] })
    }
    for (const limit of ['Infinity', '-Infinity', '1e309', '1e2', '0x10']) {
      const res = await admin('GET', `/admin/v1/accounts?limit=${limit}`)
      expect(res.statusCode, res.body).toBe(400)
      expect(res.json()).toMatchObject({ code: 'INVALID_PARAMETER', details: { parameter: 'limit' } })
    }
  })

  it('a rejection whose note holds a NUL is refused, and the order stays pending', async () => {
    const { account } = await t.c.accounts.create({ name: 'orders', plan: 'custom', creditsLimit: 10, rpsLimit: 10 })
    const { order } = await t.c.orders.placeOrder({ accountId: account.id, credits: 50_000 })
    const res = await admin('POST', `/admin/v1/orders/${order.id}/reject`, { note: 'not\u0000paid' })
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json()).toMatchObject({ code: 'INVALID_PARAMETER', details: { parameter: 'note' } })
    expect((await t.c.orders.show(order.id)).status).toBe('pending')
  })
})

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`
