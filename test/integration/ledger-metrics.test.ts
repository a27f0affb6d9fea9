/**
 * The embedded ledger's group commit reports itself on GET /admin/v1/metrics (the PostgreSQL ledger
 * has metrics of its own, so this suite runs on the embedded store only).
 */
// @one-backend: the embedded ledger's metrics (vitest.config.ts runs it once, on SQLite)
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, expectError, makeTestApp, type TestApp } from '../helpers/test-app.ts'

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(async () => t.close())

const metrics = async () => (await t.app.inject({ method: 'GET', url: '/admin/v1/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).body
const value = (body: string, name: string) => Number(new RegExp(`^${name} (\\d+(?:\\.\\d+)?(?:e-?\\d+)?)$`, 'm').exec(body)?.[1] ?? NaN)

describe('admin API: metrics of the embedded ledger', () => {
  it('counts group commits and the requests in them once billed calls have settled', async () => {
    const created = (
      await t.app.inject({
        method: 'POST',
        url: '/admin/v1/accounts',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ plan: 'custom', creditsLimit: 100, rpsLimit: 50 }),
      })
    ).json()
    const before = await metrics()
    expect(before).toMatch(/^# HELP pronet_ledger_commit_seconds /m)
    expect(before).toMatch(/^# HELP pronet_ledger_commit_jobs /m)
    for (let i = 0; i < 3; i++) expectError(await t.get('/api/v1/company?companyUrlOrUrn=ghost', created.apiKey.key), 404, 'COMPANY_NOT_FOUND')
    const after = await metrics()
    // Three settles (each 404 of a record bills 1 and writes its usage line) went through commits.
    expect(value(after, 'pronet_ledger_commit_seconds_count')).toBeGreaterThan(value(before, 'pronet_ledger_commit_seconds_count'))
    expect(value(after, 'pronet_ledger_commit_jobs_sum') - value(before, 'pronet_ledger_commit_jobs_sum')).toBeGreaterThanOrEqual(3)
    expect(value(after, 'pronet_ledger_commit_seconds_sum')).toBeGreaterThan(0)
  })
})
