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
  status: number
  requestId: string | null
  charged: string | null
  /** false when the headers came but the body was cut by the kill. */
  complete: boolean
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

/** One GET of the profile endpoint; records the response when its headers came back. */
async function call(cycle: number, path: string, counters: { awaiting: number; failed: number; truncated: number }): Promise<void> {
  counters.awaiting++
  let res: Response
  try {
    res = await fetch(`${server!.baseUrl}${path}`, { headers: { 'x-api-key': apiKey }, signal: AbortSignal.timeout(20_000) })
  } catch {
    counters.awaiting--
    counters.failed++
    return
  }
  counters.awaiting--
  // The headers are sent only after the settle committed, so this response counts as received.
  const r: Received = {
    cycle,
    status: res.status,
    requestId: res.headers.get('x-request-id'),
    charged: res.headers.get('x-credits-charged'),
    complete: false,
  }
  received.push(r)
  try {
    await res.arrayBuffer()
    r.complete = true
  } catch {
    counters.truncated++
  }
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
    await call(index, randomPath(), counters)
  }
  expect(received.length, `no response from the server in cycle ${index}`).toBe(before + 1)
  let stop = false
  const t0 = performance.now()
  const workers = Array.from({ length: WORKERS }, async () => {
    while (!stop) {
      started++
      await call(index, randomPath(), counters)
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

    // (2) Every response received as billed is on the ledger with exactly its charge; request ids are unique.
    const seen = new Set<string>()
    let chargedTotal = 0
    for (const r of received) {
      expect([200, 404], `unexpected status ${r.status} (request ${r.requestId})`).toContain(r.status)
      expect(r.requestId).toMatch(/^.+-[0-9a-z]+$/)
      expect(r.charged).toBe('1')
      const id = r.requestId!
      expect(seen.has(id), `request id ${id} came back twice`).toBe(false)
      seen.add(id)
      const charged = Number(r.charged)
      chargedTotal += charged
      expect({ requestId: id, cycle: r.cycle, debited: debited.get(id) ?? 0 }).toEqual({ requestId: id, cycle: r.cycle, debited: -charged })
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
    const everStarted = cycles.reduce((a, c) => a + c.started, 0)
    expect(sum('requests')).toBeLessThanOrEqual(everStarted)

    // The account's lot holds what was granted minus what was debited.
    const remaining = db.prepare('SELECT SUM(remaining) FROM credit_lots WHERE account_id = ?').pluck().get(accountId)
    expect(remaining).toBe(CREDITS_LIMIT - debitedCredits)
  } finally {
    db.close()
  }
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
    }
    // The last restart served; stop it the hard way too and check the file once more.
    await server!.kill()
    verifyLedger()

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
        `  total: received ${total('received')}, debited without a received response ${total('unseenDebits')}`,
      ].join('\n'),
    )
  }, 120_000)
})
