/**
 * Crash test of the metering layer (acceptance criterion of the metering issue): the real server, run
 * as a process on a data directory, is killed with SIGKILL under load several times. After every kill
 * the SQLite file is read directly and checked with zero tolerance (test/helpers/crash-checks.ts):
 * the ledger balances; every response received as billed is on it with exactly its charge; nothing is
 * billed twice, and debits never seen answered are only those of requests in flight at the kill;
 * usage_daily agrees with the ledger; each Idempotency-Key's answer is billed once. Every call a kill
 * cut off is sent again with its key once the server is back, until answered, so in the end the
 * credits debited are the credits of the answers received.
 * After every kill the server is started again on the same directory and must serve, with the balance
 * it reports equal to the ledger's. Starts alternate the billing commits between the worker thread and
 * the event-loop thread (PRONET_COMMIT_WORKER on / off), so kills land under both.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkLedger } from '../helpers/crash-checks.ts'
import { createAccount, createCrashLoad, runKillCycles } from '../helpers/crash-load.ts'
import { sqliteCrashReader } from '../helpers/crash-read-sqlite.ts'
import { startServer, type ServerProcess } from '../helpers/server-process.ts'

const ADMIN_TOKEN = 'crash-test-admin-token'
const KILLS = 5
const WORKERS = 48
const CREDITS_LIMIT = 10_000_000
const ENDPOINT = '/api/v1/profile'

const env = { PRONET_SEED: '20', PRONET_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'warn', PRONET_SECRET: 'crash-test-secret' }

let dir: string
let server: ServerProcess | undefined
let accountId: string
let apiKey: string
let slugs: string[] = []
let starts = 0

/** Each start commits the other way: the worker thread, then the event-loop thread (PRONET_COMMIT_WORKER). */
async function start(): Promise<void> {
  const commits = starts++ % 2 === 0 ? 'on' : 'off'
  server = await startServer({ dataDir: dir, env: { ...env, PRONET_COMMIT_WORKER: commits }, timeoutMs: 30_000 })
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pronet-crash-'))
  await start()
  ;({ accountId, apiKey } = await createAccount(server!, ADMIN_TOKEN, CREDITS_LIMIT))
  slugs = sqliteCrashReader(dir).slugs()
  expect(slugs.length).toBeGreaterThan(0)
}, 60_000)

afterAll(async () => {
  await server?.kill()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('SIGKILL under load', () => {
  it(`${KILLS} kills: after each, the ledger balances, every billed response is on it once, usage agrees, and the server restarts`, async () => {
    const read = sqliteCrashReader(dir)
    const load = createCrashLoad({ server: () => server!, apiKey, slugs, endpoint: ENDPOINT, workers: WORKERS, creditsLimit: CREDITS_LIMIT })
    await runKillCycles(load, {
      kills: KILLS,
      restart: start,
      verify: async () => checkLedger(read.ledger(accountId), load),
      remaining: async () => read.remaining(accountId),
    })
  }, 120_000)
})
