/**
 * Concurrency of the hold → settle path, zero tolerance: 200 simultaneous calls over real sockets
 * against an account holding 7 credits bill exactly 7, refuse the rest with 402, leave 0, and the
 * usage report agrees. Then the same with a pack and an allowance together, and with 2-credit calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fixtureRecords, PERSON_POST_ID } from '../helpers/ingest-fixtures.ts'
import { ADMIN_TOKEN, makeTestApp, type TestApp } from '../helpers/test-app.ts'

let t: TestApp
let base: string

beforeAll(async () => {
  t = await makeTestApp({ nowMs: Date.UTC(2026, 10, 22, 12), records: fixtureRecords() })
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  const address = t.app.server.address()
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
})
afterAll(async () => t.close())

async function account(body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/admin/v1/accounts',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  })
  return { id: res.json().account.id, key: res.json().apiKey.key }
}

async function storm(key: string, path: string, n: number): Promise<{ status: number; charged: number }[]> {
  return Promise.all(
    Array.from({ length: n }, async () => {
      const res = await fetch(`${base}${path}`, { headers: { 'x-api-key': key } })
      await res.arrayBuffer()
      return { status: res.status, charged: Number(res.headers.get('x-credits-charged')) }
    }),
  )
}

async function figures(key: string) {
  t.clock.advance(1000)
  const sub = await (await fetch(`${base}/api/v1/subscription`, { headers: { 'x-api-key': key } })).json()
  const usage = await (await fetch(`${base}/api/v1/usage`, { headers: { 'x-api-key': key } })).json()
  return { sub, usage }
}

const count = (rs: { status: number }[], status: number) => rs.filter((r) => r.status === status).length

describe('200 concurrent calls against a small balance', () => {
  it('7 credits: exactly 7 billed successes, 193 refusals with 402, balance 0, usage agrees', async () => {
    const a = await account({ plan: 'custom', creditsLimit: 7, rpsLimit: 100_000 })
    const results = await storm(a.key, '/api/v1/profile?profileUrlOrUrn=member-1', 200)
    expect(count(results, 200)).toBe(7)
    expect(count(results, 402)).toBe(193)
    expect(results.filter((r) => r.status === 200).every((r) => r.charged === 1)).toBe(true)
    expect(results.filter((r) => r.status === 402).every((r) => r.charged === 0)).toBe(true)
    const { sub, usage } = await figures(a.key)
    expect(sub.creditsRemaining).toBe(0)
    expect(sub.creditsUsed).toBe(7)
    expect(usage).toMatchObject({ requests: 200, billableRequests: 7, creditsUsed: 7, creditsRemaining: 0 })
    expect(usage.endpoints).toEqual([
      { endpoint: '/api/v1/profile', requests: 200, billableRequests: 7, creditsUsed: 7, statusCodes: { '200': 7, '402': 193 } },
    ])
    const debits = (await t.c.ledger.entries(a.id)).filter((e) => e.kind === 'debit')
    expect(debits).toHaveLength(7)
    expect(new Set(debits.map((d) => d.requestId)).size).toBe(7)
  })

  it('allowance 3 + a pack: mixed 2-credit and 404 calls drain the allowance first, then the pack', async () => {
    const a = await account({ plan: 'custom', creditsLimit: 3, rpsLimit: 100_000 })
    await t.app.inject({
      method: 'POST',
      url: `/admin/v1/accounts/${a.id}/packs`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ credits: 50_000 }),
    })
    const [engagement, missing] = await Promise.all([
      storm(a.key, `/api/v1/post/engagement?postUrlOrUrn=${PERSON_POST_ID}`, 100),
      storm(a.key, '/api/v1/profile?profileUrlOrUrn=nobody-here', 100),
    ])
    expect(engagement.every((r) => r.status === 200 && r.charged === 2)).toBe(true)
    expect(missing.every((r) => r.status === 404 && r.charged === 1)).toBe(true)
    const { sub, usage } = await figures(a.key)
    expect(sub).toMatchObject({ subscriptionCreditsRemaining: 0, paygCreditsRemaining: 50_003 - 300, creditsUsed: 3 })
    expect(usage).toMatchObject({ requests: 200, billableRequests: 200, creditsUsed: 300 })
    // The ledger balances per lot, and no debit touched the pack while the allowance had credits.
    const entries = await t.c.ledger.entries(a.id)
    const lots = (await t.c.ledger.state(a.id, t.clock.now()))!.lots
    for (const lot of lots) {
      expect(entries.filter((e) => e.lotId === lot.id).reduce((sum, e) => sum + e.delta, 0)).toBe(lot.remaining)
    }
    const plan = lots.find((l) => l.kind === 'plan')!
    const debits = entries.filter((e) => e.kind === 'debit')
    const lastPlanDebit = Math.max(...debits.filter((e) => e.lotId === plan.id).map((e) => e.id))
    const firstPackDebit = Math.min(...debits.filter((e) => e.lotId !== plan.id).map((e) => e.id))
    expect(lastPlanDebit).toBeLessThan(firstPackDebit)
  })

  it('2-credit calls against an odd balance: floor(balance / 2) succeed and one credit is left', async () => {
    const a = await account({ plan: 'custom', creditsLimit: 9, rpsLimit: 100_000 })
    const results = await storm(a.key, `/api/v1/post/engagement?postUrlOrUrn=${PERSON_POST_ID}`, 200)
    expect(count(results, 200)).toBe(4)
    expect(count(results, 402)).toBe(196)
    const { sub, usage } = await figures(a.key)
    expect(sub.creditsRemaining).toBe(1)
    expect(usage).toMatchObject({ requests: 200, billableRequests: 4, creditsUsed: 8 })
  })
})
