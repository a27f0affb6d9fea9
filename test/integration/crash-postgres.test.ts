/**
 * The crash test of the metering layer on PostgreSQL + Redis: the real server, run as a process on a
 * database of its own, is killed with SIGKILL under load several times. After every kill, once
 * PostgreSQL has ended the killed server's sessions, the database is read directly and checked with
 * zero tolerance, as the embedded store is (test/helpers/crash-checks.ts): the ledger balances; every
 * response received as billed is on it with exactly its charge; nothing is billed twice, and debits
 * never seen answered are only those of requests in flight at the kill; usage_daily agrees with the
 * ledger; each Idempotency-Key's answer is billed once, and every call a kill cut off, sent again with
 * its key once the server is back, is answered. Checks of this store besides:
 * - no hold outlives its expiry: a node keeps its holds in memory and writes their sum per account
 *   (node_holds) with an expiry of HOLD_TTL_MS past the latest of their instants (arrival plus the
 *   real time run since), so a row of a killed process expires at most HOLD_TTL_MS after the kill in
 *   the requests' clock; what the rows of killed processes still hold is no more than the requests in
 *   flight at the kills that were not billed (1 credit each);
 * - dead holds never reduce what is billed: the restarted server, with the killed one's holds still
 *   live, reports the lots' remaining credits as its balance;
 * - after that check the test clock (PRONET_TEST_CLOCK) is moved past every dead hold's expiry and
 *   every dead claim's lease, so the cut-off calls are taken over at once; once they are answered, no
 *   hold of a killed process is live and no key claim is left running;
 * - every settle is recorded by request id (settled_requests) with its charge: each response
 *   received, each debit; none was in doubt (no void or compensated settle, no compensating entry).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HOLD_RENEW_MS, HOLD_TTL_MS } from '../../src/adapters/postgres/pg-ledger.ts'
import { KEY_LEASE_MS } from '../../src/ports/ledger.ts'
import { checkLedger } from '../helpers/crash-checks.ts'
import { createAccount, createCrashLoad, runKillCycles, type Cycle } from '../helpers/crash-load.ts'
import { postgresCrashReader, type HoldRow } from '../helpers/crash-read-postgres.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'
import { REDIS_URL, redisAvailable } from '../helpers/redis.ts'
import { startServer, type ServerProcess } from '../helpers/server-process.ts'

const ADMIN_TOKEN = 'crash-test-admin-token'
const KILLS = 5
const WORKERS = 48
const CREDITS_LIMIT = 10_000_000
const ENDPOINT = '/api/v1/profile'
/**
 * The load phase is timed here with performance.now, rounded, while the server times a hold's renewal
 * with Date.now in whole milliseconds: a little slack keeps the bound an upper one.
 */
const CLOCK_SLACK_MS = 10

const available = (await postgresAvailable()) && (await redisAvailable())

describe.skipIf(!available)('SIGKILL under load, on PostgreSQL + Redis', () => {
  let db: { url: string; drop(): Promise<void> }
  let sql: pg.Client
  let dir: string
  let server: ServerProcess | undefined
  let accountId: string
  let apiKey: string
  let slugs: string[] = []
  /** Date.now() before the running server was started, and the longest a killed one lived (an upper bound). */
  let startedAt = 0
  let longestLife = 0
  /** The requests' clock less Date.now(), as last read from the server (the test clock starts at real time). */
  let clockOffset = 0
  /** The longest load phase of the cycles so far, with the slack, in ms. */
  let longestLoad = 0

  async function start(): Promise<void> {
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL,
      PRONET_SEED: '20',
      PRONET_ADMIN_TOKEN: ADMIN_TOKEN,
      PRONET_SECRET: 'crash-test-secret',
      PRONET_TEST_CLOCK: '1',
      LOG_LEVEL: 'warn',
    }
    startedAt = Date.now()
    server = await startServer({ dataDir: dir, env, timeoutMs: 120_000 })
  }

  /** The test clock of the running server (the requests' clock). */
  async function clock(set?: number): Promise<number> {
    const res = await fetch(`${server!.baseUrl}/admin/v1/clock`, {
      method: set === undefined ? 'GET' : 'PUT',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(set === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(set === undefined ? {} : { body: JSON.stringify({ now: new Date(set).toISOString() }) }),
    })
    const body = (await res.json()) as { now: string }
    expect(res.status, JSON.stringify(body)).toBe(200)
    clockOffset = Date.parse(body.now) - Date.now()
    return Date.parse(body.now)
  }

  beforeAll(async () => {
    db = await createTestDatabase('pronet_crash')
    sql = new pg.Client({ connectionString: db.url })
    await sql.connect()
    dir = mkdtempSync(join(tmpdir(), 'pronet-crash-pg-'))
    await start()
    ;({ accountId, apiKey } = await createAccount(server!, ADMIN_TOKEN, CREDITS_LIMIT))
    slugs = await postgresCrashReader(sql).slugs()
    expect(slugs.length).toBeGreaterThan(0)
  }, 180_000)

  afterAll(async () => {
    await server?.kill()
    await sql?.end()
    await db?.drop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  }, 60_000)

  it(`${KILLS} kills: the checks of the embedded store hold, no hold outlives its expiry, and dead holds never reduce the balance`, async () => {
    const read = postgresCrashReader(sql)
    const load = createCrashLoad({ server: () => server!, apiKey, slugs, endpoint: ENDPOINT, workers: WORKERS, creditsLimit: CREDITS_LIMIT })
    /** Per cycle: hold rows left at its kill, and how many were still live when the restarted server reported its balance. */
    const holdsLeft = new Map<number, { rows: number; liveAtBalance: number; clockStep: number }>()

    /** Rows of processes that were killed (every row found while no server runs). */
    const dead = new Set<string>()
    /** The bound on every row of a killed process (see the file's head), `killedBy` in the requests' clock. */
    function expectWithinExpiry(holds: HoldRow[], killedBy: number): void {
      for (const h of holds.filter((x) => dead.has(x.nodeId))) {
        expect(h.expiresAt, `row of ${h.nodeId}: expires_at`).toBeLessThanOrEqual(killedBy + HOLD_TTL_MS + CLOCK_SLACK_MS)
      }
    }

    async function verify(): Promise<{ debitedCredits: number }> {
      longestLife = Math.max(longestLife, Date.now() - startedAt)
      longestLoad = Math.max(...load.cycles.map((c) => c.loadMs)) + CLOCK_SLACK_MS
      await read.settled()
      const found = await read.ledger(accountId)
      const { debited, debitedCredits } = checkLedger(found.rows, load)

      // Every settle is recorded with its charge, and none was in doubt.
      const recorded = new Map(found.settled.map((s) => [s.requestId, s]))
      expect(found.settled.filter((s) => s.state !== 'settled')).toEqual([])
      expect(found.adjustments).toBe(0)
      for (const r of load.received) {
        expect({ requestId: r.requestId, recorded: recorded.get(r.requestId!)?.credits }).toEqual({ requestId: r.requestId, recorded: Number(r.charged) })
      }
      for (const [id, total] of debited) expect({ requestId: id, recorded: recorded.get(id)?.credits }).toEqual({ requestId: id, recorded: -total })
      for (const s of found.settled) {
        if (s.credits > 0) expect({ requestId: s.requestId, debited: -(debited.get(s.requestId) ?? 0) }).toEqual({ requestId: s.requestId, debited: s.credits })
      }

      // A key still claimed is one whose call the kill cut off: it has no answer.
      for (const key of found.claimed) expect({ key, call: load.keyed.has(key), answered: load.keyed.get(key)?.answered !== undefined }).toEqual({ key, call: true, answered: false })

      // No hold outlives its expiry, and what is held is requests in flight at a kill that were not billed.
      for (const h of found.holds) dead.add(h.nodeId)
      expectWithinExpiry(found.holds, Date.now() + clockOffset)
      const unbilledInFlight = load.cycles.reduce((a, c) => a + c.awaitingAtKill - c.unseenDebits, 0)
      const deadCredits = found.holds.reduce((a, h) => a + h.credits, 0)
      expect(deadCredits).toBeLessThanOrEqual(unbilledInFlight)
      const cycle = load.cycles.at(-1)!
      if (!holdsLeft.has(cycle.index)) holdsLeft.set(cycle.index, { rows: deadCredits, liveAtBalance: 0, clockStep: 0 })
      return { debitedCredits }
    }

    /**
     * Until a kill has left a dead hold live at a balance check, a kill waits (a renewal and a half at
     * most) for the running node's row to hold credits. The node grants most holds in memory and
     * writes the row with each batch and each renewal, so under a load whose batches settle nearly
     * every call in flight the row is often 0 at a random instant, and the balance check would prove
     * nothing.
     */
    async function beforeKill(): Promise<void> {
      if ([...holdsLeft.values()].some((h) => h.liveAtBalance > 0)) return
      const until = performance.now() + HOLD_RENEW_MS * 1.5
      while (performance.now() < until) {
        if ((await read.holds()).some((h) => !dead.has(h.nodeId) && h.credits > 0)) return
        await new Promise((r) => setTimeout(r, 5))
      }
    }

    /** The balance was just reported with the dead holds as they are; then the clock goes past them. */
    async function afterRestart(cycle: Cycle): Promise<void> {
      const now = await clock()
      const holds = await read.holds()
      expectWithinExpiry(holds, now)
      const step = Math.max(HOLD_TTL_MS, KEY_LEASE_MS) + longestLife + 1_000
      const left = holdsLeft.get(cycle.index)!
      left.liveAtBalance = holds.filter((h) => dead.has(h.nodeId) && h.expiresAt > now).reduce((a, h) => a + h.credits, 0)
      left.clockStep = step
      expect(await clock(now + step)).toBeGreaterThanOrEqual(now + step)
    }

    /** The cut-off calls are answered and the server is idle: no hold of a killed process is live, no claim runs. */
    async function afterRetries(): Promise<void> {
      const now = await clock()
      expect((await read.holds()).filter((h) => dead.has(h.nodeId) && h.credits > 0 && h.expiresAt > now)).toEqual([])
      expect(await read.claimed(accountId)).toEqual([])
    }

    await runKillCycles(load, {
      kills: KILLS,
      restart: start,
      verify,
      remaining: () => read.remaining(accountId),
      beforeKill,
      afterRestart,
      afterRetries,
      report: () => [
        `  credits held by killed processes at each kill: ${[...holdsLeft.values()].map((h) => `${h.rows} (${h.liveAtBalance} still live at the balance check, clock moved ${h.clockStep} ms)`).join(', ')}; ` +
          `longest load phase ${longestLoad} ms, longest life of a killed process ${longestLife} ms`,
      ],
    })
    // The balance checks above prove something only if some dead hold was still live during one of them.
    const live = [...holdsLeft.values()].reduce((a, h) => a + h.liveAtBalance, 0)
    expect(live, 'no hold of a killed process was live when the restarted server reported its balance').toBeGreaterThan(0)
  }, 300_000)
})
