/**
 * `pronet ingest` beside a serving node on the same SQLite file (README: a CLI run while the server
 * runs is supported). Both write: the CLI its content batches, the server its ledger group commits.
 * A write transaction that began by reading could not take the write lock once the other process
 * had committed since its read (SQLITE_BUSY_SNAPSHOT, which no busy timeout waits out), so the
 * ingest died part-way with "database is locked" and the server answered 500 on settles. Every
 * writer now takes the write lock first (BEGIN IMMEDIATE), waiting its turn within the busy timeout.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config/config.ts'
import { createContainer } from '../../src/container.ts'
import { generateNetwork } from '../../src/synth/synthetic-network.ts'
import type { IngestRecord } from '../../src/contract/ingest.schemas.ts'
import { cliMain } from '../helpers/server-process.ts'

const ANCHOR = Date.UTC(2026, 10, 1)
const POSTS = 4_000

let dir: string
let file: string
let written = 0

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pronet-beside-'))
  file = join(dir, 'network.ndjson')
  // Pages, members and their posts of the synthetic network: enough batches of 500 to overlap the
  // server's commits many times.
  const lines: string[] = []
  let posts = 0
  for (const record of generateNetwork({ seed: 7, size: 'small', anchorMs: ANCHOR, platformHost: 'www.linkedin.com' }) as Iterable<IngestRecord>) {
    if (record.kind === 'post' && posts++ >= POSTS) break
    if (record.kind !== 'company' && record.kind !== 'profile' && record.kind !== 'post') continue
    lines.push(JSON.stringify(record))
  }
  written = lines.length
  writeFileSync(file, `${lines.join('\n')}\n`)
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('pronet ingest beside a serving node (one SQLite file, two writers)', () => {
  it.each([false, true])('the ingest completes and no call fails while the server commits (commit worker: %s)', async (commitInWorker) => {
    const dataDir = join(dir, `data-${String(commitInWorker)}`)
    const env = { PRONET_DATA_DIR: dataDir, PRONET_SEED: 'none', LOG_LEVEL: 'silent' }
    const c = await createContainer(loadConfig(env), { commitInWorker })
    const app = await buildApp(c)
    try {
      const { account, apiKey } = await c.accounts.create({ name: 'beside', plan: 'custom', creditsLimit: 1_000_000, rpsLimit: 100_000 })
      const before = (await c.metering.subscription(account.id)).creditsRemaining

      let cliDone = false
      const cli = new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(process.execPath, [cliMain(), 'ingest', file, '--json'], { env: { ...process.env, ...env }, timeout: 120_000 }, (err, stdout, stderr) => {
          cliDone = true
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr })
        })
      })
      // Calls back to back while the CLI writes: each one settles through a ledger commit.
      const statuses = new Map<number, number>()
      let billed = 0
      while (!cliDone) {
        const res = await app.inject({ method: 'GET', url: '/api/v1/company?companyUrlOrUrn=urn:li:fsd_company:1', headers: { 'x-api-key': apiKey.key } })
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
        billed += Number(res.headers['x-credits-charged'] ?? 0)
      }
      const done = await cli
      expect(done.code, done.stderr || done.stdout).toBe(0)
      expect(JSON.parse(done.stdout)).toMatchObject({ lines: written, ok: written, failed: 0 })
      // Every call answered as a call on an idle store would: a page that is there, or a billed 404.
      expect([...statuses.keys()].every((s) => s === 200 || s === 404), JSON.stringify([...statuses])).toBe(true)
      expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(10)
      expect((await c.metering.subscription(account.id)).creditsRemaining).toBe(before - billed)
    } finally {
      await app.close()
      await c.close()
    }
  }, 180_000)
})
