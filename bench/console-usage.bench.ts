/**
 * Server time of the console's usage page for an account with a full year of history: 366 days × 14
 * endpoints × 6 statuses. Baseline in the same run: GET /api/v1/usage for the same days, which reads
 * the same report. Goal: the page's p99 within 100 ms on SQLite.
 *
 *   npm run bench:console
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { createManualClock } from '../src/adapters/system-clock.ts'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config/config.ts'
import { createContainer } from '../src/container.ts'
import { quantile } from './bench-helpers.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200)
const DAY_MS = 86_400_000
const ENDPOINTS = [
  'profile', 'profile/reactions', 'profile/articles', 'posts', 'posts/updates', 'company', 'company/batch',
  'company/posts', 'post/engagement', 'post/comments', 'post/reactions', 'search/posts', 'unknown', 'usage',
].map((e) => (e === 'unknown' ? e : `/api/v1/${e}`))
const STATUSES = [200, 400, 401, 402, 404, 429]

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pronet-bench-console-'))
  const now = Date.UTC(2027, 7, 1, 12)
  const clock = createManualClock(now)
  const config = loadConfig({ PRONET_DATA_DIR: dir, PRONET_SEED: 'none', LOG_LEVEL: 'silent', PRONET_SECRET: 'bench-console-secret' })
  const c = await createContainer(config, { clock, commitInWorker: false })
  const signedUp = await c.identity.signUp({ email: 'bench@example.com', password: 'bench password 1' })
  const accountId = signedUp.account.id

  // A year of history written straight into the daily aggregates, as a year of calls would leave them.
  const db = new Database(join(dir, 'pronet.db'))
  const insert = db.prepare('INSERT INTO usage_daily (account_id, day, endpoint, status, requests, billable, credits) VALUES (?, ?, ?, ?, ?, ?, ?)')
  db.transaction(() => {
    for (let d = 0; d < 366; d++) {
      const day = new Date(now - d * DAY_MS).toISOString().slice(0, 10)
      ENDPOINTS.forEach((endpoint, e) =>
        STATUSES.forEach((status, s) => {
          const requests = 1 + ((d * 7 + e * 13 + s * 31) % 97)
          const billable = status === 200 || status === 404 ? requests : 0
          insert.run(accountId, day, endpoint, status, requests, billable, billable * (1 + (e % 3)))
        }),
      )
    }
  })()
  db.close()

  const app = await buildApp(c)
  const from = new Date(now - 365 * DAY_MS).toISOString().slice(0, 10)
  const to = new Date(now).toISOString().slice(0, 10)
  const cookie = `pronet_session=${signedUp.session.id}`
  const page = () => app.inject({ method: 'GET', url: `/console/usage?from=${from}&to=${to}`, headers: { cookie } })
  const apiCall = () => {
    clock.advance(1_001)
    return app.inject({ method: 'GET', url: `/api/v1/usage?from=${from}&to=${to}`, headers: { 'x-api-key': signedUp.apiKey.key } })
  }
  const first = await page()
  if (first.statusCode !== 200 || !first.body.includes('usage-days')) throw new Error(`the usage page answered ${first.statusCode}`)
  const api = await apiCall()
  if (api.statusCode !== 200 || api.json().days.length !== 366) throw new Error(`GET /api/v1/usage answered ${api.statusCode}`)

  const timesPage: number[] = []
  const timesApi: number[] = []
  // Alternating rounds, so a slow moment of the machine weighs on both alike.
  for (let i = 0; i < ROUNDS; i++) {
    let t0 = performance.now()
    await page()
    timesPage.push(performance.now() - t0)
    t0 = performance.now()
    await apiCall()
    timesApi.push(performance.now() - t0)
  }
  const line = (name: string, xs: number[]) =>
    `${name.padEnd(28)} p50 ${quantile(xs, 0.5).toFixed(2).padStart(7)} ms   p99 ${quantile(xs, 0.99).toFixed(2).padStart(7)} ms`
  console.log(`usage history: 366 days × ${ENDPOINTS.length} endpoints × ${STATUSES.length} statuses (${366 * ENDPOINTS.length * STATUSES.length} rows); ${ROUNDS} rounds`)
  console.log(line('GET /api/v1/usage (baseline)', timesApi))
  console.log(line('GET /console/usage', timesPage))
  console.log(`page ÷ API at p99: ${(quantile(timesPage, 0.99) / quantile(timesApi, 0.99)).toFixed(2)}; page body ${(first.body.length / 1024).toFixed(0)} KiB`)
  const p99 = quantile(timesPage, 0.99)
  console.log(`goal p99 ≤ 100 ms: ${p99 <= 100 ? 'met' : 'MISSED'} (${p99.toFixed(2)} ms)`)
  await app.close()
  await c.close()
  rmSync(dir, { recursive: true, force: true })
}

await main()
