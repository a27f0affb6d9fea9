/**
 * The zero-tolerance checks of the crash tests, on rows read from the store with the server dead
 * (crash-read-sqlite.ts, crash-read-postgres.ts), against what the client saw (crash-load.ts):
 * 1. the ledger balances: every lot's remaining = SUM(delta) of its entries;
 * 2. every response the client received as billed (X-Credits-Charged > 0) has debits with its
 *    X-Request-Id summing to -charged; a response that says 0 has none; request ids never repeat;
 * 3. nothing is billed twice: a request is debited at most once per lot, and debits the client never
 *    saw answered are only those of requests in flight at the kill (their response died with the
 *    process), never more;
 * 4. usage_daily agrees with the ledger: credits = debited credits, billable = debited requests,
 *    requests >= responses received;
 * 5. each key's answer is billed exactly once: a key with a kept answer has one debit, of its price,
 *    under the request that kept it, and its other answers are repeats of that one (free, the same
 *    status and body); a key without one was never billed nor answered. Nothing is debited but the
 *    kept answers.
 */
import { expect } from 'vitest'
import { prefixOf, type CrashLoad, type Keyed, type Received } from './crash-load.ts'

/** The store's billing rows for one account, as plain values whatever the database. */
export interface LedgerRows {
  /** Every lot (of every account) with the SUM(delta) of its entries. */
  lots: { id: string; remaining: number; total: number }[]
  /** Entries whose lot does not exist. */
  orphans: number
  /** (request, lot) pairs debited more than once, every account. */
  twice: unknown[]
  /** The account's debits. */
  debits: { requestId: string | null; lotId: string; delta: number; endpoint: string | null }[]
  /** The account's kept answers, by Idempotency-Key. */
  kept: { key: string; requestId: string; status: number; body: Buffer }[]
  /** The account's usage_daily rows. */
  usage: { endpoint: string; status: number; requests: number; billable: number; credits: number }[]
  /** SUM(remaining) of the account's lots. */
  remaining: number
}

/** What the checks worked out, for a backend's own checks. */
export interface LedgerFindings {
  /** Credits debited per request id (negative). */
  debited: Map<string, number>
  debitedCredits: number
}

export function checkLedger(rows: LedgerRows, load: CrashLoad): LedgerFindings {
  const { received, cycles, keyed, endpoint } = load
  // (1) Every lot balances: remaining = SUM(delta) of its entries (grants +, debits −, adjustments ±).
  expect(rows.lots.length).toBeGreaterThan(0)
  for (const lot of rows.lots) expect({ lot: lot.id, remaining: lot.remaining }).toEqual({ lot: lot.id, remaining: lot.total })
  expect(rows.orphans).toBe(0)

  // (3) A request is debited at most once per lot.
  expect(rows.twice).toEqual([])
  const debited = new Map<string, number>()
  for (const d of rows.debits) {
    expect(d.requestId).not.toBeNull()
    expect(d.endpoint).toBe(endpoint)
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
  const kept = new Map(rows.kept.map((k) => [k.key, k]))
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
  // The balance checks after each restart are recorded too, free.
  const checks = rows.usage.filter((u) => u.endpoint === '/api/v1/subscription')
  expect(checks.reduce((a, u) => a + u.requests, 0)).toBe(load.subscriptionChecks())
  expect(checks.every((u) => u.status === 200 && u.billable === 0 && u.credits === 0)).toBe(true)
  const usage = rows.usage.filter((u) => u.endpoint !== '/api/v1/subscription')
  const sum = (k: 'requests' | 'billable' | 'credits', status?: number) =>
    usage.filter((u) => status === undefined || u.status === status).reduce((a, u) => a + u[k], 0)
  expect(usage.filter((u) => u.endpoint !== endpoint || (u.status !== 200 && u.status !== 404))).toEqual([])
  expect(sum('credits')).toBe(debitedCredits)
  expect(sum('billable')).toBe(debited.size)
  expect(sum('requests')).toBeGreaterThanOrEqual(received.length)
  for (const status of [200, 404]) expect(sum('requests', status)).toBeGreaterThanOrEqual(received.filter((r) => r.status === status).length)
  const everStarted = cycles.reduce((a, c) => a + c.started, 0) + load.retries()
  expect(sum('requests')).toBeLessThanOrEqual(everStarted)

  // The account's lots hold what was granted minus what was debited.
  expect(rows.remaining).toBe(load.creditsLimit - debitedCredits)
  return { debited, debitedCredits }
}

/** The answer a call got is the answer to its request: the member it named, or the refusal of a missing one. */
function expectAnswerTo(c: Keyed): void {
  const r = c.answered!
  const body = JSON.parse(r.body) as { publicIdentifier?: string; code?: string }
  const slug = new URLSearchParams(c.path.slice(c.path.indexOf('?') + 1)).get('profileUrlOrUrn')
  if (r.status === 200) expect({ key: c.key, member: body.publicIdentifier }).toEqual({ key: c.key, member: slug })
  else expect({ key: c.key, code: body.code }).toEqual({ key: c.key, code: 'PROFILE_NOT_FOUND' })
}
