/**
 * Crash test of the metering layer (acceptance criterion of the metering issue): the real server, run
 * as a process on a data directory, is killed with SIGKILL under load several times. After every kill
 * the SQLite file is read directly and checked with zero tolerance:
 * 1. the ledger balances: every lot's remaining = SUM(delta) of its entries;
 * 2. every response the client received as billed (X-Credits-Charged > 0) has debits with its
 *    X-Request-Id summing to -charged; a response that says 0 has none; request ids never repeat;
 * 3. nothing is billed twice: a request is debited at most once per lot, and debits the client never
 *    saw answered are only those of requests in flight at the kill (their response died with the
 *    process), never more;
 * 4. usage_daily agrees with the ledger: credits = debited credits, billable = debited requests,
 *    requests >= responses received.
 * 5. every call carries an Idempotency-Key of its own, and every call cut off by a kill (no answer, or
 *    an answer whose body was cut) is sent again with its key once the server is back, until answered.
 *    Each key's answer is then billed exactly once: a key with a kept answer has one debit, of its
 *    price, under the request that kept it, and its other answers are repeats of that one (free, the
 *    same status and body); a key without one was never billed nor answered. Nothing is debited but
 *    the kept answers, so in the end the credits debited are the credits of the answers received.
 * After every kill the server is started again on the same directory and must serve, with the balance
 * it reports equal to the ledger's. Starts alternate the billing commits between the worker thread and
 * the event-loop thread (PRONET_COMMIT_WORKER on / off), so kills land under both.
 */
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type ServerProcess } from '../helpers/server-process.ts'

const ADMIN_TOKEN = 'crash-test-admin-token'
const KILLS = 5
const WORKERS = 48
const CREDITS_LIMIT = 10_000_000
const ENDPOINT = '/api/v1/profile'

const env = { PRONET_SEED: '20', PRONET_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'warn', PRONET_SECRET: 'crash-test-secret' }

interface Received {
  cycle: number
  /** The call's Idempotency-Key. */
  key: string
  status: number
  requestId: string | null
  charged: string | null
  /** A repeat of the answer kept for the key (Idempotent-Replayed: true). */
  replayed: boolean
  /** false when the headers came but the body was cut by the kill. */
  complete: boolean
  body: string
}

/** One call and its key, from its first send to the answer it finally got. */
interface Keyed {
  key: string
  path: string
  /** The complete answer it got, first send or retry. */
  answered: Received | undefined
}

interface Cycle {
  index: number
  /** Random prefix of the process's request ids (`<prefix>-<counter>`). */
  prefix: string | undefined
  started: number
  received: number
  failed: number
  /** Requests sent whose response headers had not arrived when SIGKILL was sent. */
  awaitingAtKill: number
  loadMs: number
  unseenDebits: number
  truncatedBodies: number
  /** Time from the kill's exit to the restarted server's first answer. */
  restartMs: number
}

let dir: string
let server: ServerProcess | undefined
let accountId: string
let apiKey: string
let slugs: string[] = []
let subscriptionChecks = 0
const received: Received[] = []
const cycles: Cycle[] = []
const keyed = new Map<string, Keyed>()
let keySeq = 0
/** Calls sent again with their key after a restart. */
let retries = 0

const prefixOf = (requestId: string) => requestId.slice(0, requestId.lastIndexOf('-'))

let starts = 0

/** Each start commits the other way: the worker thread, then the event-loop thread (PRONET_COMMIT_WORKER). */
async function start(): Promise<ServerProcess> {
  const commits = starts++ % 2 === 0 ? 'on' : 'off'
  server = await startServer({ dataDir: dir, env: { ...env, PRONET_COMMIT_WORKER: commits }, timeoutMs: 30_000 })
  return server
}

async function admin(path: string, body: unknown): Promise<any> {
  const res = await fetch(`${server!.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const json = await res.json()
  expect(res.status, JSON.stringify(json)).toBe(201)
  return json
}

function openDb(): Database.Database {
  // Read-only: the server, not the test, recovers the WAL left by the crash on its next start.
  return new Database(join(dir, 'pronet.db'), { readonly: true, fileMustExist: true })
}

/** One GET of the profile endpoint with the call's key; records the response when its headers came back. */
async function call(cycle: number, c: Keyed, counters: { awaiting: number; failed: number; truncated: number }): Promise<void> {
  counters.awaiting++
  let res: Response
  try {
    res = await fetch(`${server!.baseUrl}${c.path}`, {
      headers: { 'x-api-key': apiKey, 'idempotency-key': c.key },
      signal: AbortSignal.timeout(20_000),
    })
  } catch {
    counters.awaiting--
    counters.failed++
    return
  }
  counters.awaiting--
  // The headers are sent only after the settle committed, so this response counts as received.
  const r: Received = {
    cycle,
    key: c.key,
    status: res.status,
    requestId: res.headers.get('x-request-id'),
    charged: res.headers.get('x-credits-charged'),
    replayed: res.headers.get('idempotent-replayed') === 'true',
    complete: false,
    body: '',
  }
  received.push(r)
  try {
    r.body = await res.text()
    r.complete = true
    c.answered ??= r
  } catch {
    counters.truncated++
  }
}

/** A new call, with a key of its own. */
function newCall(): Keyed {
  const c: Keyed = { key: `crash-${++keySeq}`, path: randomPath(), answered: undefined }
  keyed.set(c.key, c)
  return c
}

/** After a restart: every call a kill cut off is sent again with its key until it is answered. */
async function retryCutOff(cycle: number): Promise<void> {
  const cut = [...keyed.values()].filter((c) => !c.answered)
  const counters = { awaiting: 0, failed: 0, truncated: 0 }
  await Promise.all(
    cut.map(async (c) => {
      for (let attempt = 0; attempt < 5 && !c.answered; attempt++) {
        retries++
        await call(cycle, c, counters)
      }
      expect(c.answered, `call ${c.key} was not answered after the restart`).toBeDefined()
    }),
  )
}

function randomPath(): string {
  // About 2 in 3 calls find a member (200), the rest miss (404, billed 1 credit too).
  if (Math.random() < 0.67) return `${ENDPOINT}?profileUrlOrUrn=${slugs[Math.floor(Math.random() * slugs.length)]}`
  return `${ENDPOINT}?profileUrlOrUrn=nobody-${Math.random().toString(36).slice(2, 10)}`
}

/** Load from WORKERS loops; after a random 300–1500 ms the server is SIGKILLed mid-flight. */
async function loadAndKill(index: number): Promise<Cycle> {
  const counters = { awaiting: 0, failed: 0, truncated: 0 }
  const before = received.length
  // One answered call before the storm: the process serves and its request-id prefix is known.
  let started = 0
  for (let attempt = 0; attempt < 5 && received.length === before; attempt++) {
    started++
    await call(index, newCall(), counters)
  }
  expect(received.length, `no response from the server in cycle ${index}`).toBe(before + 1)
  let stop = false
  const t0 = performance.now()
  const workers = Array.from({ length: WORKERS }, async () => {
    while (!stop) {
      started++
      await call(index, newCall(), counters)
    }
  })
  await new Promise((r) => setTimeout(r, 300 + Math.floor(Math.random() * 1200)))
  stop = true
  const awaitingAtKill = counters.awaiting
  const proc = server!
  const exit = await proc.kill()
  const loadMs = performance.now() - t0
  expect(exit.signal).toBe('SIGKILL')
  await Promise.all(workers)
  const mine = received.slice(before)
  return {
    index,
    prefix: mine[0]?.requestId ? prefixOf(mine[0].requestId) : undefined,
    started,
    received: mine.length,
    failed: counters.failed,
    awaitingAtKill,
    loadMs: Math.round(loadMs),
    unseenDebits: 0,
    truncatedBodies: counters.truncated,
    restartMs: 0,
  }
}

/** The zero-tolerance checks on the file, with the server dead. */
function verifyLedger(): void {
  const db = openDb()
  try {
    // (1) Every lot balances: remaining = SUM(delta) of its entries (grants +, debits −, adjustments ±).
    const lots = db
      .prepare(
        `SELECT l.id, l.account_id AS accountId, l.remaining,
                (SELECT COALESCE(SUM(e.delta), 0) FROM ledger_entries e WHERE e.lot_id = l.id) AS total
         FROM credit_lots l`,
      )
      .all() as { id: string; accountId: string; remaining: number; total: number }[]
    expect(lots.length).toBeGreaterThan(0)
    for (const lot of lots) expect({ lot: lot.id, remaining: lot.remaining }).toEqual({ lot: lot.id, remaining: lot.total })
    const orphans = db.prepare('SELECT COUNT(*) FROM ledger_entries e WHERE NOT EXISTS (SELECT 1 FROM credit_lots l WHERE l.id = e.lot_id)').pluck().get()
    expect(orphans).toBe(0)

    // (3) A request is debited at most once per lot.
    const twice = db
      .prepare(
        `SELECT request_id AS requestId, lot_id AS lotId, COUNT(*) AS n FROM ledger_entries
         WHERE kind = 'debit' GROUP BY request_id, lot_id HAVING COUNT(*) > 1`,
      )
      .all()
    expect(twice).toEqual([])
    const debits = db
      .prepare(`SELECT request_id AS requestId, lot_id AS lotId, delta, endpoint FROM ledger_entries WHERE account_id = ? AND kind = 'debit'`)
      .all(accountId) as { requestId: string | null; lotId: string; delta: number; endpoint: string | null }[]
    const debited = new Map<string, number>()
    for (const d of debits) {
      expect(d.requestId).not.toBeNull()
      expect(d.endpoint).toBe(ENDPOINT)
      expect(d.delta).toBeLessThan(0)
      debited.set(d.requestId!, (debited.get(d.requestId!) ?? 0) + d.delta)
    }

    // (2) Every response received as billed is on the ledger with exactly its charge (a repeat of a kept
    // answer is free); request ids are unique.
    const seen = new Set<string>()
    let chargedTotal = 0
    for (const r of received) {
      expect([200, 404], `unexpected status ${r.status} (request ${r.requestId})`).toContain(r.status)
      expect(r.requestId).toMatch(/^.+-[0-9a-z]+$/)
      expect(r.charged).toBe(r.replayed ? '0' : '1')
      const id = r.requestId!
      expect(seen.has(id), `request id ${id} came back twice`).toBe(false)
      seen.add(id)
      const charged = Number(r.charged)
      chargedTotal += charged
      expect({ requestId: id, cycle: r.cycle, charged: 0 - (debited.get(id) ?? 0) }).toEqual({ requestId: id, cycle: r.cycle, charged })
    }

    // (3) Debits without a received response: only requests in flight at a kill, each billed its price once.
    const cycleOfPrefix = new Map(cycles.map((c) => [c.prefix, c]))
    const unseen = new Map<number, number>()
    for (const [id, total] of debited) {
      if (seen.has(id)) continue
      const cycle = cycleOfPrefix.get(prefixOf(id))
      expect(cycle, `debit of request ${id} from a process the test never heard from`).toBeDefined()
      expect(total).toBe(-1)
      unseen.set(cycle!.index, (unseen.get(cycle!.index) ?? 0) + 1)
    }
    for (const c of cycles) {
      c.unseenDebits = unseen.get(c.index) ?? 0
      expect(c.unseenDebits, `cycle ${c.index}: more unanswered debits than requests in flight`).toBeLessThanOrEqual(c.awaitingAtKill)
    }
    const debitedCredits = -[...debited.values()].reduce((a, b) => a + b, 0)
    expect(debitedCredits).toBeGreaterThanOrEqual(chargedTotal)
    expect(debitedCredits - chargedTotal).toBe([...unseen.values()].reduce((a, b) => a + b, 0))

    // (5) Each key's answer is billed once, under the request that kept it; every other answer to the
    // key repeats it, free. Nothing is debited but the kept answers.
    const kept = new Map(
      (db.prepare('SELECT idem_key AS key, request_id AS requestId, status, body FROM idempotency_keys WHERE account_id = ?').all(accountId) as {
        key: string
        requestId: string
        status: number
        body: Buffer
      }[]).map((k) => [k.key, k]),
    )
    const answersOf = new Map<string, Received[]>()
    for (const r of received) answersOf.set(r.key, [...(answersOf.get(r.key) ?? []), r])
    for (const c of keyed.values()) {
      const row = kept.get(c.key)
      const answers = answersOf.get(c.key) ?? []
      if (!row) {
        expect({ key: c.key, answers: answers.length }).toEqual({ key: c.key, answers: 0 })
        continue
      }
      expect({ key: c.key, debited: debited.get(row.requestId) }).toEqual({ key: c.key, debited: -1 })
      for (const r of answers) {
        expect({ key: c.key, status: r.status }).toEqual({ key: c.key, status: row.status })
        if (r.replayed) expect(debited.has(r.requestId!)).toBe(false)
        else expect({ key: c.key, requestId: r.requestId }).toEqual({ key: c.key, requestId: row.requestId })
        if (r.complete) expect(r.body).toBe(row.body.toString())
      }
      if (c.answered) expectAnswerTo(c)
    }
    const keptIds = new Set([...kept.values()].map((k) => k.requestId))
    expect([...debited.keys()].filter((id) => !keptIds.has(id))).toEqual([])
    expect(keptIds.size).toBe(debited.size)

    // (4) The usage aggregates agree with the ledger and count every response received.
    const rows = db.prepare('SELECT endpoint, status, requests, billable, credits FROM usage_daily WHERE account_id = ?').all(accountId) as {
      endpoint: string
      status: number
      requests: number
      billable: number
      credits: number
    }[]
    // The balance checks after each restart are recorded too, free.
    const checks = rows.filter((u) => u.endpoint === '/api/v1/subscription')
    expect(checks.reduce((a, u) => a + u.requests, 0)).toBe(subscriptionChecks)
    expect(checks.every((u) => u.status === 200 && u.billable === 0 && u.credits === 0)).toBe(true)
    const usage = rows.filter((u) => u.endpoint !== '/api/v1/subscription')
    const sum = (k: 'requests' | 'billable' | 'credits', status?: number) =>
      usage.filter((u) => status === undefined || u.status === status).reduce((a, u) => a + u[k], 0)
    expect(usage.filter((u) => u.endpoint !== ENDPOINT || (u.status !== 200 && u.status !== 404))).toEqual([])
    expect(sum('credits')).toBe(debitedCredits)
    expect(sum('billable')).toBe(debited.size)
    expect(sum('requests')).toBeGreaterThanOrEqual(received.length)
    for (const status of [200, 404]) expect(sum('requests', status)).toBeGreaterThanOrEqual(received.filter((r) => r.status === status).length)
    const everStarted = cycles.reduce((a, c) => a + c.started, 0) + retries
    expect(sum('requests')).toBeLessThanOrEqual(everStarted)

    // The account's lot holds what was granted minus what was debited.
    const remaining = db.prepare('SELECT SUM(remaining) FROM credit_lots WHERE account_id = ?').pluck().get(accountId)
    expect(remaining).toBe(CREDITS_LIMIT - debitedCredits)
  } finally {
    db.close()
  }
}

/** The answer a call got is the answer to its request: the member it named, or the refusal of a missing one. */
function expectAnswerTo(c: Keyed): void {
  const r = c.answered!
  const body = JSON.parse(r.body) as { publicIdentifier?: string; code?: string }
  const slug = new URLSearchParams(c.path.slice(c.path.indexOf('?') + 1)).get('profileUrlOrUrn')
  if (r.status === 200) expect({ key: c.key, member: body.publicIdentifier }).toEqual({ key: c.key, member: slug })
  else expect({ key: c.key, code: body.code }).toEqual({ key: c.key, code: 'PROFILE_NOT_FOUND' })
}

/** After a restart: the server answers and reports the balance the ledger holds. */
async function verifyServes(): Promise<void> {
  const health = await fetch(`${server!.baseUrl}/healthz`)
  expect(health.status).toBe(200)
  const db = openDb()
  let remaining: number
  try {
    remaining = db.prepare('SELECT SUM(remaining) FROM credit_lots WHERE account_id = ?').pluck().get(accountId) as number
  } finally {
    db.close()
  }
  const res = await fetch(`${server!.baseUrl}/api/v1/subscription`, { headers: { 'x-api-key': apiKey } })
  subscriptionChecks++
  const sub = (await res.json()) as { creditsRemaining: number; creditsUsed: number; creditsLimit: number }
  expect(res.status, JSON.stringify(sub)).toBe(200)
  expect(sub).toMatchObject({ creditsLimit: CREDITS_LIMIT, creditsRemaining: remaining, creditsUsed: CREDITS_LIMIT - remaining })
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pronet-crash-'))
  await start()
  const created = await admin('/admin/v1/accounts', { name: 'crash', plan: 'custom', creditsLimit: CREDITS_LIMIT, rpsLimit: 100_000 })
  accountId = created.account.id
  apiKey = created.apiKey.key
  const db = openDb()
  try {
    slugs = db.prepare('SELECT slug FROM profiles ORDER BY slug').pluck().all() as string[]
  } finally {
    db.close()
  }
  expect(slugs.length).toBeGreaterThan(0)
}, 60_000)

afterAll(async () => {
  await server?.kill()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('SIGKILL under load', () => {
  it(`${KILLS} kills: after each, the ledger balances, every billed response is on it once, usage agrees, and the server restarts`, async () => {
    const t0 = performance.now()
    for (let i = 0; i < KILLS; i++) {
      const cycle = await loadAndKill(i)
      cycles.push(cycle)
      verifyLedger()
      const restartAt = performance.now()
      await start()
      await verifyServes()
      cycle.restartMs = Math.round(performance.now() - restartAt)
      await retryCutOff(i + 1)
    }
    // The last restart served; stop it the hard way too and check the file once more.
    await server!.kill()
    verifyLedger()
    // Every call got its answer in the end, each billed once: the credits debited are those of the answers.
    const calls = [...keyed.values()]
    expect(calls.filter((c) => !c.answered).map((c) => c.key)).toEqual([])
    const db = openDb()
    try {
      const debitedCredits = -(db.prepare(`SELECT COALESCE(SUM(delta), 0) FROM ledger_entries WHERE account_id = ? AND kind = 'debit'`).pluck().get(accountId) as number)
      expect(debitedCredits).toBe(calls.length)
    } finally {
      db.close()
    }

    const total = (k: keyof Cycle) => cycles.reduce((a, c) => a + (c[k] as number), 0)
    console.log(
      [
        `crash test: ${KILLS} SIGKILLs, ${WORKERS} concurrent loops, ${Math.round(performance.now() - t0)} ms (after the seeded first start)`,
        ...cycles.map(
          (c) =>
            `  cycle ${c.index}: load ${c.loadMs} ms, started ${c.started}, received ${c.received} (${c.truncatedBodies} bodies cut), ` +
            `failed ${c.failed}, awaiting headers at kill ${c.awaitingAtKill}, debited without a received response ${c.unseenDebits}, ` +
            `restart ${c.restartMs} ms`,
        ),
        `  total: received ${total('received')}, debited without a received response ${total('unseenDebits')}, ` +
          `calls sent again with their key after a restart ${retries}, answered from a kept answer ${received.filter((r) => r.replayed).length}`,
      ].join('\n'),
    )
  }, 120_000)
})
