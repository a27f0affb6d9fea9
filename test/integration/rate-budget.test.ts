/**
 * Rate budgets over HTTP with the test clock: random call sequences never get more than
 * `rpsLimit` units admitted in any rolling second, and every 429's Retry-After tells the truth: the
 * same call sent that many seconds later is admitted.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fixtureRecords, PERSON_POST_ID } from '../helpers/ingest-fixtures.ts'
import { ADMIN_TOKEN, makeTestApp, type TestApp } from '../helpers/test-app.ts'

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp({ nowMs: Date.UTC(2026, 10, 22, 12), records: fixtureRecords() })
})
afterAll(async () => t.close())

const CALLS = [
  { url: '/api/v1/profile?profileUrlOrUrn=member-1', units: 1 },
  { url: '/api/v1/profile?profileUrlOrUrn=nobody-here', units: 1 },
  { url: `/api/v1/post/engagement?postUrlOrUrn=${PERSON_POST_ID}`, units: 2 },
  { url: '/api/v1/profile', units: 1 },
]

describe('rate budget over HTTP', () => {
  it('no rolling second admits more than rpsLimit units; Retry-After is truthful', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 6 }),
        fc.array(fc.record({ gap: fc.oneof(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 1200 })), call: fc.integer({ min: 0, max: CALLS.length - 1 }) }), {
          minLength: 5,
          maxLength: 60,
        }),
        async (rps, steps) => {
          const created = await t.app.inject({
            method: 'POST',
            url: '/admin/v1/accounts',
            headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
            payload: JSON.stringify({ plan: 'custom', creditsLimit: 100_000, rpsLimit: rps }),
          })
          const key = created.json().apiKey.key as string
          const admitted: { at: number; units: number }[] = []
          const send = async (i: number) => {
            const call = CALLS[i] as (typeof CALLS)[number]
            const at = t.clock.now()
            const res = await t.get(call.url, key)
            if (res.statusCode !== 429) {
              admitted.push({ at, units: call.units })
              expect(res.headers['x-ratelimit-cost']).toBe(String(call.units))
            }
            return res
          }
          for (const { gap, call } of steps) {
            t.clock.advance(gap)
            const res = await send(call)
            if (res.statusCode === 429) {
              const after = Number(res.headers['retry-after'])
              expect(after).toBeGreaterThanOrEqual(1)
              t.clock.advance(after * 1000)
              expect((await send(call)).statusCode).not.toBe(429)
            }
          }
          for (const a of admitted) {
            const units = admitted.filter((b) => b.at > a.at - 1000 && b.at <= a.at).reduce((s, b) => s + b.units, 0)
            expect(units).toBeLessThanOrEqual(rps)
          }
        },
      ),
      { numRuns: 40 },
    )
  })
})
