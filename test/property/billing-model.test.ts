/**
 * Model-based property test of billing: prices, admission, rate budgets, plans, packs, usage and the
 * operator's changes, against the reference model.
 *
 * fast-check generates an account and a sequence of commands: pack purchases (now, in the past, about
 * to expire, on 29 February, in the future), clock jumps (small steps, UTC midnight, month ends, the
 * renewal instant, a pack's expiry instant and 1 ms either side, whole months including 12 from a
 * 29 February), subscription changes (cancel at period end, immediate cancel, status, creditsLimit,
 * rpsLimit, a new plan) and requests with every outcome (200, 404 billing 1, 400, 402, 429, batches
 * mixing found and not-found entries, unknown paths, bad keys). Each command runs against the real app
 * over HTTP (app.inject on in-memory SQLite with a manual clock) and against the reference model of
 * ./billing-reference-model.ts. After every step the subscription, the usage report, the ledger (grants,
 * debits per request in drawdown order, adjustments), the lots and the clock must equal the model's.
 */
import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMPANY_ID, PERSON_POST_ID, fixtureRecords } from '../helpers/ingest-fixtures.ts'
import { ADMIN_TOKEN, makeTestApp, type TestApp } from '../helpers/test-app.ts'
import {
  ALL_STATUSES,
  BillingModel,
  DAY,
  dayOf,
  isoOf,
  plusMonths,
  type BatchEntry,
  type ModelEntry,
  type ModelLot,
  type Outcome,
  type Patch,
  type Req,
  type UsageReportView,
} from './billing-reference-model.ts'

// ---------- commands ----------

type When =
  | { k: 'now' }
  | { k: 'ago'; ms: number }
  /** Bought 12 months before now + ms, so it expires about ms from now. */
  | { k: 'expiresIn'; ms: number }
  | { k: 'at'; at: number }
  | { k: 'future' }
  /**
   * The same expiry instant as an existing pack: bought at the same instant, or (alt) on the other day
   * that clamps to it (29 February and 28 February + 12 months are both 28 February).
   */
  | { k: 'twin'; index: number; alt: boolean }

type Jump =
  | { k: 'advance'; ms: number }
  /** The next UTC midnight plus offset (-1: the last millisecond of today). */
  | { k: 'midnight'; offset: number }
  /** The first instant of next month plus offset (-1: the last millisecond of this month). */
  | { k: 'monthEnd'; offset: number }
  | { k: 'renewal'; offset: number }
  | { k: 'packExpiry'; index: number; offset: number }
  | { k: 'months'; n: number }

type Cmd =
  | { t: 'req'; req: Req }
  | { t: 'jump'; jump: Jump }
  | { t: 'pack'; credits: number; when: When }
  | { t: 'patch'; patch: Patch }
  /** PUT renewalDate = now + inMs (not after now: refused). */
  | { t: 'renewalDate'; inMs: number }

interface Scenario {
  start: number
  account: { plan: 'custom'; creditsLimit: number; rpsLimit: number } | { plan: 'free' } | { plan: 'none' }
  /** false: nobody looks at the account before the first command (a first jump may skip periods). */
  lookFirst: boolean
  /** Days past today in the usage query's `to` (days not yet started must not be listed). */
  usageAhead: number
  cmds: Cmd[]
}

const H = 3_600_000
const STARTS = [
  Date.UTC(2027, 0, 15, 10, 0, 0), // an ordinary day
  Date.UTC(2028, 0, 31, 10, 0, 0), // anchored on the 31st: renewals on 29 Feb 2028, 31 Mar, 30 Apr...
  Date.UTC(2028, 1, 29, 23, 59, 59, 999), // anchored on the last millisecond of 29 February
  Date.UTC(2029, 1, 27, 22, 0, 0), // packs bought on 29 Feb 2028 expire on 28 Feb 2029
  Date.UTC(2026, 11, 31, 23, 59, 59, 0), // the last second of a year
]
/** Past purchase instants of interest: 29 Feb 2028 and the days whose 12-month expiry clamps with it. */
const LEAP_PURCHASES = [
  Date.UTC(2028, 1, 29, 10, 0, 0),
  Date.UTC(2028, 1, 28, 10, 0, 0),
  Date.UTC(2028, 1, 29, 0, 0, 0),
  Date.UTC(2028, 0, 31, 10, 0, 0),
]

const BATCH_POOL: BatchEntry[] = [
  { text: COMPANY_ID, exists: true },
  { text: `northwind-${COMPANY_ID}`, exists: true },
  { text: `https://www.linkedin.com/company/northwind-${COMPANY_ID}/`, exists: true },
  { text: `NorthWind-${COMPANY_ID}`, exists: true },
  { text: 'ghost-a', exists: false },
  { text: 'GHOST-A', exists: false },
  { text: ' ghost-b ', exists: false },
]

const reqArb: fc.Arbitrary<Req> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('found', 'found', 'missing', 'absent').map((input) => ({ op: 'profile', input }) as Req) },
  {
    weight: 2,
    arbitrary: fc
      .record({
        input: fc.constantFrom('found', 'missing'),
        count: fc.oneof(fc.integer({ min: 51, max: 100 }), fc.constantFrom(0, 1, 50, 150)),
      })
      .map((r) => ({ op: 'companyPosts', ...r }) as Req),
  },
  { weight: 2, arbitrary: fc.constantFrom('found', 'missing').map((input) => ({ op: 'engagement', input }) as Req) },
  {
    weight: 2,
    arbitrary: fc
      .oneof({ weight: 1, arbitrary: fc.constant([]) }, { weight: 8, arbitrary: fc.array(fc.constantFrom(...BATCH_POOL), { minLength: 1, maxLength: 5 }) })
      .map((entries) => ({ op: 'batch', entries }) as Req),
  },
  { weight: 1, arbitrary: fc.constantFrom<Req>({ op: 'unknownPath' }, { op: 'badKey' }) },
)

const jumpArb: fc.Arbitrary<Jump> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 2500 }).map((ms) => ({ k: 'advance', ms }) as Jump) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 80 }).map((h) => ({ k: 'advance', ms: h * H }) as Jump) },
  { weight: 2, arbitrary: fc.integer({ min: -1, max: 0 }).map((offset) => ({ k: 'midnight', offset }) as Jump) },
  { weight: 2, arbitrary: fc.integer({ min: -1, max: 0 }).map((offset) => ({ k: 'monthEnd', offset }) as Jump) },
  { weight: 3, arbitrary: fc.integer({ min: -1, max: 1 }).map((offset) => ({ k: 'renewal', offset }) as Jump) },
  {
    weight: 3,
    arbitrary: fc.record({ index: fc.nat(5), offset: fc.integer({ min: -1, max: 1 }) }).map((r) => ({ k: 'packExpiry', ...r }) as Jump),
  },
  { weight: 1, arbitrary: fc.constantFrom(1, 1, 2, 12).map((n) => ({ k: 'months', n }) as Jump) },
)

const whenArb: fc.Arbitrary<When> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<When>({ k: 'now' }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 400 * DAY }).map((ms) => ({ k: 'ago', ms }) as When) },
  { weight: 3, arbitrary: fc.constantFrom(1, 1000, H, 2 * DAY).map((ms) => ({ k: 'expiresIn', ms }) as When) },
  { weight: 2, arbitrary: fc.constantFrom(...LEAP_PURCHASES).map((at) => ({ k: 'at', at }) as When) },
  { weight: 1, arbitrary: fc.constant<When>({ k: 'future' }) },
  { weight: 2, arbitrary: fc.record({ index: fc.nat(5), alt: fc.boolean() }).map((r) => ({ k: 'twin', ...r }) as When) },
)

const packArb: fc.Arbitrary<Cmd> = fc
  .record({ credits: fc.constantFrom(50_000, 50_000, 100_000, 150_000, 1_000_000, 1_250_000, 60_000), when: whenArb })
  .map((r) => ({ t: 'pack', ...r }))

const patchArb: fc.Arbitrary<Patch> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(true, true, false).map((cancelAtPeriodEnd) => ({ cancelAtPeriodEnd })) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 5 }).map((creditsLimit) => ({ creditsLimit })) },
  { weight: 1, arbitrary: fc.constantFrom(1, 2, 5, 100_000).map((rpsLimit) => ({ rpsLimit })) },
  { weight: 1, arbitrary: fc.constantFrom(...ALL_STATUSES).map((status) => ({ status })) },
  {
    weight: 1,
    arbitrary: fc
      .record({ creditsLimit: fc.integer({ min: 0, max: 5 }), rpsLimit: fc.constantFrom(2, 100_000) })
      .map((r) => ({ plan: 'custom' as const, ...r })),
  },
  { weight: 1, arbitrary: fc.constant<Patch>({ plan: 'free' }) },
)

const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  { weight: 6, arbitrary: reqArb.map((req) => ({ t: 'req', req }) as Cmd) },
  { weight: 4, arbitrary: jumpArb.map((jump) => ({ t: 'jump', jump }) as Cmd) },
  { weight: 2, arbitrary: packArb },
  { weight: 2, arbitrary: patchArb.map((patch) => ({ t: 'patch', patch }) as Cmd) },
  { weight: 1, arbitrary: fc.constantFrom(1, H, 10 * DAY, 40 * DAY, 0).map((inMs) => ({ t: 'renewalDate', inMs }) as Cmd) },
)

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  start: fc.oneof(
    fc.constantFrom(...STARTS),
    fc.tuple(fc.constantFrom(...STARTS), fc.integer({ min: 0, max: DAY - 1 })).map(([s, ms]) => s + ms),
  ),
  account: fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({
        plan: fc.constant('custom' as const),
        creditsLimit: fc.integer({ min: 0, max: 5 }),
        rpsLimit: fc.constantFrom(1, 2, 3, 100_000, 100_000),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ plan: 'free' as const }) },
    { weight: 2, arbitrary: fc.constant({ plan: 'none' as const }) },
  ),
  lookFirst: fc.boolean(),
  usageAhead: fc.constantFrom(0, 0, 2),
  cmds: fc.array(cmdArb, { minLength: 1, maxLength: 40, size: 'max' }),
})

/**
 * A focused variant for the drawdown order among packs and their expiry around 29 February: starts
 * shortly before packs bought on 28/29 February 2028 lapse (both on 28 February 2029), buys twins of
 * equal expiry, spends past a tiny allowance and steps to each expiry instant and 1 ms either side.
 */
const leapScenarioArb: fc.Arbitrary<Scenario> = fc.record({
  start: fc.oneof(
    fc.constantFrom(Date.UTC(2029, 1, 28, 9, 59, 59, 0), Date.UTC(2029, 1, 27, 22, 0, 0), Date.UTC(2029, 1, 28, 0, 0, 0)),
    fc.integer({ min: Date.UTC(2029, 0, 29), max: Date.UTC(2029, 1, 28, 9, 0, 0) }),
  ),
  account: fc.oneof(
    fc.record({ plan: fc.constant('custom' as const), creditsLimit: fc.integer({ min: 0, max: 2 }), rpsLimit: fc.constant(100_000) }),
    fc.constant({ plan: 'none' as const }),
  ),
  lookFirst: fc.boolean(),
  usageAhead: fc.constant(0),
  cmds: fc.array(
    fc.oneof(
      {
        weight: 3,
        arbitrary: fc
          .record({
            credits: fc.constantFrom(50_000, 100_000),
            when: fc.oneof(
              { weight: 4, arbitrary: fc.constantFrom(...LEAP_PURCHASES.slice(0, 2)).map((at) => ({ k: 'at', at }) as When) },
              { weight: 1, arbitrary: fc.constantFrom(...LEAP_PURCHASES.slice(2)).map((at) => ({ k: 'at', at }) as When) },
              { weight: 3, arbitrary: fc.nat(5).map((index) => ({ k: 'twin', index, alt: true }) as When) },
              { weight: 1, arbitrary: fc.nat(5).map((index) => ({ k: 'twin', index, alt: false }) as When) },
              { weight: 1, arbitrary: fc.constantFrom(1000, H).map((ms) => ({ k: 'expiresIn', ms }) as When) },
            ),
          })
          .map((r) => ({ t: 'pack', ...r }) as Cmd),
      },
      {
        weight: 5,
        arbitrary: fc
          .constantFrom<Req>({ op: 'profile', input: 'found' }, { op: 'engagement', input: 'found' }, { op: 'profile', input: 'missing' })
          .map((req) => ({ t: 'req', req }) as Cmd),
      },
      {
        weight: 3,
        arbitrary: fc.oneof(
          fc.record({ index: fc.nat(5), offset: fc.integer({ min: -1, max: 1 }) }).map((r) => ({ k: 'packExpiry', ...r }) as Jump),
          fc.integer({ min: 1, max: 2500 }).map((ms) => ({ k: 'advance', ms }) as Jump),
          fc.integer({ min: -1, max: 0 }).map((offset) => ({ k: 'midnight', offset }) as Jump),
        ).map((jump) => ({ t: 'jump', jump }) as Cmd),
      },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 }).map((creditsLimit) => ({ t: 'patch', patch: { creditsLimit } }) as Cmd) },
    ),
    { minLength: 1, maxLength: 30, size: 'max' },
  ),
})

// ---------- the real app ----------

let t: TestApp
beforeAll(async () => {
  // Thousands of scenarios send wrong keys from one address: the wrong-credential throttle (tested on
  // its own) would answer them 429, which is not what this model is about.
  t = await makeTestApp({ records: fixtureRecords(), env: { PRONET_AUTH_FAILURE_LIMIT: '0' } })
})
afterAll(async () => t.close())

const MISSING_POST_ID = PERSON_POST_ID.slice(0, -1) + (PERSON_POST_ID.endsWith('9') ? '8' : '9')

const admin = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
  t.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  })

function send(req: Req, key: string): Promise<LightMyRequestResponse> {
  const get = (url: string, k = key) => t.app.inject({ method: 'GET', url, headers: { 'x-api-key': k } })
  switch (req.op) {
    case 'profile':
      return get(req.input === 'absent' ? '/api/v1/profile' : `/api/v1/profile?profileUrlOrUrn=${req.input === 'found' ? 'member-1' : 'nobody-here'}`)
    case 'companyPosts':
      return get(`/api/v1/company/posts?companyUrlOrUrn=${req.input === 'found' ? COMPANY_ID : 'ghost-co'}&count=${req.count}`)
    case 'engagement':
      return get(`/api/v1/post/engagement?postUrlOrUrn=${req.input === 'found' ? PERSON_POST_ID : MISSING_POST_ID}`)
    case 'batch':
      return t.app.inject({
        method: 'POST',
        url: '/api/v1/company/batch',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        payload: JSON.stringify({ companies: req.entries.map((e) => e.text) }),
      })
    case 'unknownPath':
      return get('/api/v1/no-such-endpoint')
    case 'badKey':
      return get('/api/v1/profile?profileUrlOrUrn=member-1', 'pk_not-a-real-key')
  }
}

/** Where a jump lands, decided from the model's state; undefined when it would not move forward. */
function jumpTarget(m: BillingModel, j: Jump): number | undefined {
  const now = m.now
  let target: number | undefined
  switch (j.k) {
    case 'advance':
      target = now + j.ms
      break
    case 'midnight':
      target = (Math.floor(now / DAY) + 1) * DAY + j.offset
      break
    case 'monthEnd': {
      const d = new Date(now)
      target = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) + j.offset
      if (target <= now) target = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 2, 1) + j.offset
      break
    }
    case 'renewal':
      target = m.renewalAt === null ? undefined : m.renewalAt + j.offset
      break
    case 'packExpiry': {
      const packs = m.lots.filter((l) => l.kind === 'pack' && l.expiresAt + j.offset > now)
      const lot = packs[j.index % Math.max(1, packs.length)]
      target = lot === undefined ? undefined : lot.expiresAt + j.offset
      break
    }
    case 'months':
      target = plusMonths(now, j.n)
      break
  }
  return target !== undefined && target > now ? target : undefined
}

function purchaseInstant(m: BillingModel, w: When): number | undefined {
  switch (w.k) {
    case 'now':
      return undefined
    case 'ago':
      return m.now - w.ms
    case 'expiresIn':
      return plusMonths(m.now + w.ms, -12)
    case 'at':
      return w.at
    case 'future':
      return m.now + 1
    case 'twin': {
      const packs = m.lots.filter((l) => l.kind === 'pack')
      const pack = packs[w.index % Math.max(1, packs.length)]
      if (pack === undefined) return undefined
      const d = new Date(pack.startsAt)
      if (!w.alt || d.getUTCMonth() !== 1 || d.getUTCDate() < 28) return pack.startsAt
      // 28 February <-> 29 February of a leap year, same time of day (both expire on 28 February).
      const other = pack.startsAt + (d.getUTCDate() === 28 ? DAY : -DAY)
      return new Date(other).getUTCMonth() === 1 ? other : pack.startsAt
    }
  }
}

/** What the runs exercised, printed with PRONET_MODEL_STATS=1 (to see that every outcome occurs). */
const STATS = new Map<string, number>()
const SHOW_STATS = process.env.PRONET_MODEL_STATS === '1'
const stat = (k: string) => {
  if (SHOW_STATS) STATS.set(k, (STATS.get(k) ?? 0) + 1)
}
afterAll(() => {
  if (SHOW_STATS) console.log([...STATS.entries()].sort().map(([k, v]) => `${k}: ${v}`).join('\n'))
})
function requestStats(model: BillingModel, req: Req, status: number, expected: Outcome): void {
  if (!SHOW_STATS) return
  stat(`req ${req.op} ${status} charged ${expected.charged ?? '-'}`)
  if (expected.debits.length > 1) stat(`debit split over ${expected.debits.map((d) => model.lots[d.ref]?.kind).join('+')}`)
  if (expected.debits.some((d) => model.lots[d.ref]?.kind === 'pack')) stat('debit from a pack')
  if (model.lots.some((l) => l.kind === 'pack' && l.expiresAt === model.now)) stat('request exactly at a pack expiry')
  if (model.lots.some((l) => l.kind === 'plan' && l.startsAt === model.now && l.startsAt !== model.anchor)) stat('request exactly at a renewal')
  for (const d of expected.debits) {
    const lot = model.lots[d.ref] as ModelLot
    if (lot.kind !== 'pack') continue
    const twins = model.lots.filter((l) => l !== lot && l.kind === 'pack' && l.expiresAt === lot.expiresAt && l.startsAt <= model.now && l.remaining > 0)
    if (twins.some((x) => x.startsAt === lot.startsAt)) stat('pack debit, tie: same purchase instant')
    if (twins.some((x) => x.startsAt > lot.startsAt && x.ref < lot.ref)) stat('pack debit, tie: later purchase instant added earlier')
  }
}

function runStats(model: BillingModel, start: number): void {
  if (!SHOW_STATS) return
  stat(`status at end ${model.status}`)
  const plans = model.lots.filter((l) => l.kind === 'plan')
  for (let i = 1; i < plans.length; i++) if ((plans[i] as ModelLot).startsAt > (plans[i - 1] as ModelLot).expiresAt) stat('gap between periods')
  if (model.lots.some((l) => l.kind === 'pack' && l.expiresAt <= model.now && l.remaining > 0)) stat('pack expired with credits left')
  stat(`run spans ${Math.round((model.now - start) / (30 * DAY))} months`)
}

const zeroSafe = (n: number) => (n === 0 ? 0 : n)

/** One run: a fresh account at the scenario's start, every command on both sides, compared after each. */
async function run(s: Scenario): Promise<void> {
  t.clock.set(s.start)
  const created = await admin('POST', '/admin/v1/accounts', s.account)
  expect(created.statusCode, created.body).toBe(201)
  const accountId = created.json().account.id as string
  const key = created.json().apiKey.key as string
  const model = new BillingModel(s.start, s.account)
  const firstDay = dayOf(s.start - DAY)
  /** Real lot id → the model's ref, in the order of their grants. */
  const refOf = new Map<string, number>()
  const trail: string[] = []

  const context = () => `after: ${trail.join(' → ')}\nnow ${isoOf(model.now)}`

  async function observe(): Promise<void> {
    const ctx = context()
    expect(t.clock.now(), ctx).toBe(model.now)

    // The subscription: public endpoint when its budget allows, else its 429 and the admin view.
    const subExpected = model.accountEndpoint('subscription')
    const sub = await t.app.inject({ method: 'GET', url: '/api/v1/subscription', headers: { 'x-api-key': key } })
    expect(sub.statusCode, `${ctx}\n${sub.body}`).toBe(subExpected.status)
    const view = model.subscription()
    if (subExpected.status === 200) expect(sub.json(), ctx).toEqual(view)
    else {
      expect(sub.json().code, ctx).toBe('RATE_LIMITED')
      expect(sub.headers['retry-after'], ctx).toBe(subExpected.retryAfter)
      const shown = await admin('GET', `/admin/v1/accounts/${accountId}`)
      expect(shown.json().subscription, ctx).toEqual(view)
    }

    // The usage report over every day so far (at most 366).
    const to = dayOf(model.now + s.usageAhead * DAY)
    const from = [firstDay, dayOf(Date.parse(`${to}T00:00:00Z`) - 365 * DAY)].sort().at(-1) as string
    const usageExpected = model.accountEndpoint('usage')
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/usage?from=${from}&to=${to}`, headers: { 'x-api-key': key } })
    expect(res.statusCode, `${ctx}\n${res.body}`).toBe(usageExpected.status)
    let report: UsageReportView
    if (usageExpected.status === 200) report = res.json()
    else {
      expect(res.headers['retry-after'], ctx).toBe(usageExpected.retryAfter)
      report = await t.c.usage(accountId, { from, to })
    }
    const expected = model.usageReport(from, to)
    const byName = (list: { endpoint: string }[]) => [...list].sort((a, b) => (a.endpoint < b.endpoint ? -1 : 1))
    // Busiest first (ties in any order), and the same figures per endpoint.
    expect(report.endpoints.map((e: { requests: number }) => e.requests), ctx).toEqual(expected.endpoints.map((e) => e.requests))
    expect({ ...report, endpoints: byName(report.endpoints) }, ctx).toEqual({ ...expected, endpoints: byName(expected.endpoints) })

    // The ledger: every grant, debit (per request, in drawdown order) and adjustment, in order.
    const entries = await t.c.ledger.entries(accountId)
    for (const e of entries) if (e.kind === 'grant' && !refOf.has(e.lotId)) refOf.set(e.lotId, refOf.size)
    const real: ModelEntry[] = entries.map((e) => ({
      ref: refOf.get(e.lotId) ?? -1,
      kind: e.kind,
      delta: zeroSafe(e.delta),
      at: e.at,
      requestId: e.requestId,
      endpoint: e.endpoint,
    }))
    expect(real, ctx).toEqual(model.ledger.map((e) => ({ ...e, delta: zeroSafe(e.delta) })))
    // Each lot's balance is what its ledger entries add up to.
    const sums = model.lots.map(() => 0)
    for (const e of real) sums[e.ref] = (sums[e.ref] ?? 0) + e.delta
    expect(sums, ctx).toEqual(model.lots.map((l) => l.remaining))

    // The lots and their balances.
    const state = await t.c.ledger.state(accountId, model.now)
    const lots = (state?.lots ?? [])
      .map((l) => ({ ref: refOf.get(l.id) ?? -1, kind: l.kind, credits: l.credits, remaining: l.remaining, startsAt: l.startsAt, expiresAt: l.expiresAt }))
      .sort((a, b) => a.ref - b.ref)
    expect(lots, ctx).toEqual(model.lots)
  }

  if (s.lookFirst) await observe()
  for (const cmd of s.cmds) {
    trail.push(JSON.stringify(cmd))
    const ctx = context()
    switch (cmd.t) {
      case 'jump': {
        const target = jumpTarget(model, cmd.jump)
        if (target === undefined) break
        stat(`jump ${cmd.jump.k}`)
        model.advanceTo(target)
        t.clock.set(target)
        trail[trail.length - 1] += ` (to ${isoOf(target)})`
        break
      }
      case 'pack': {
        const purchasedAt = purchaseInstant(model, cmd.when)
        const res = await admin('POST', `/admin/v1/accounts/${accountId}/packs`, {
          credits: cmd.credits,
          ...(purchasedAt === undefined ? {} : { purchasedAt: isoOf(purchasedAt) }),
        })
        const expected = model.buyPack(cmd.credits, purchasedAt)
        stat(`pack ${cmd.when.k} ${expected.status}`)
        if (expected.status === 201 && isoOf(purchasedAt ?? model.now).slice(5, 10) === '02-29') stat('pack bought on 29 February')
        expect(res.statusCode, `${ctx}\n${res.body}`).toBe(expected.status)
        if (expected.status === 201) {
          const body = res.json()
          expect(body, ctx).toEqual({
            id: body.id,
            credits: cmd.credits,
            purchasedAt: isoOf(purchasedAt ?? model.now),
            expiresAt: isoOf(expected.expiresAt),
            price: expected.price,
          })
          // The grant is the next one in the ledger: map it now, and check it is this pack.
          await t.c.ledger.entries(accountId).then((es) => {
            for (const e of es) if (e.kind === 'grant' && !refOf.has(e.lotId)) refOf.set(e.lotId, refOf.size)
          })
          expect(refOf.get(body.id), ctx).toBe(expected.ref)
        } else expect(res.json().code, ctx).toBe('INVALID_PARAMETER')
        break
      }
      case 'patch':
      case 'renewalDate': {
        const renewalAt = cmd.t === 'renewalDate' ? model.now + cmd.inMs : undefined
        const body = cmd.t === 'patch' ? cmd.patch : { renewalDate: isoOf(renewalAt as number) }
        const patch = cmd.t === 'patch' ? cmd.patch : { renewalAt }
        const res = await admin('PUT', `/admin/v1/accounts/${accountId}/subscription`, body)
        const expected = model.changeSubscription(patch)
        stat(`patch ${Object.keys(patch).join(',')} ${expected.status}`)
        expect(res.statusCode, `${ctx}\n${res.body}`).toBe(expected.status)
        if (expected.status === 200) expect(res.json(), ctx).toEqual(model.subscription())
        else expect(res.json().code, ctx).toBe('INVALID_PARAMETER')
        break
      }
      case 'req': {
        const res = await send(cmd.req, key)
        const requestId = res.headers['x-request-id'] as string | undefined
        const expected = model.request(cmd.req, requestId ?? '(none)')
        const body = res.json()
        expect(
          {
            status: res.statusCode,
            code: res.statusCode === 200 ? undefined : body.code,
            charged: res.headers['x-credits-charged'],
            retryAfter: res.headers['retry-after'],
          },
          `${ctx}\n${res.body.slice(0, 300)}`,
        ).toEqual({ status: expected.status, code: expected.code, charged: expected.charged, retryAfter: expected.retryAfter })
        if (expected.charged !== undefined) expect(requestId, ctx).toMatch(/^[\w-]+-[0-9a-z]+$/)
        if (expected.details) expect(body.details, ctx).toMatchObject(expected.details)
        if (expected.batch) expect({ found: body.found, notFound: body.notFound, failed: body.failed }, ctx).toEqual(expected.batch)
        requestStats(model, cmd.req, res.statusCode, expected)
        trail[trail.length - 1] += ` → ${res.statusCode} charged ${res.headers['x-credits-charged'] ?? '-'}`
        break
      }
    }
    await observe()
  }
  runStats(model, s.start)
}

describe('billing against a reference model (fast-check)', () => {
  // 200 scenarios, every call one after another: on PostgreSQL each is two committed transactions,
  // and a loaded 2-CPU machine running the other suites beside it took over two minutes.
  it('balances, ledger, drawdown order and usage report match the model after every step', async () => {
    await fc.assert(fc.asyncProperty(scenarioArb, run), { numRuns: 200, verbose: 1 })
  }, 300_000)

  it('packs of equal expiry (29 February + 12 months) are drawn in purchase order, each until its expiry instant', async () => {
    await fc.assert(fc.asyncProperty(leapScenarioArb, run), { numRuns: 60, verbose: 1 })
  }, 120_000)

  // A counterexample the random property found (after ~350 runs), kept as a fixed case of the same
  // property: at most rpsLimit units in any rolling second. Two calls at one instant under a limit
  // of 2, the limit lowered to 1 (a call is refused) and raised back to 2 within the same second: the
  // window still holds 2 units, so a third call must be refused with 429.
  it('the same property on a fixed case: a limit lowered then raised within one second still counts every unit', async () => {
    const found: Cmd = { t: 'req', req: { op: 'profile', input: 'found' } }
    await run({
      start: STARTS[0] as number,
      account: { plan: 'custom', creditsLimit: 5, rpsLimit: 2 },
      lookFirst: false,
      usageAhead: 0,
      cmds: [found, found, { t: 'patch', patch: { rpsLimit: 1 } }, found, { t: 'patch', patch: { rpsLimit: 2 } }, found],
    })
  })
})
