/**
 * Builds the real app on a real in-memory SQLite store with a manual clock, writes the given records
 * through the real content writer, and creates an account with a key. No mocks.
 */
import Database from 'better-sqlite3'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { expect } from 'vitest'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config/config.ts'
import { createContainer, type Container, type ContainerOverrides } from '../../src/container.ts'
import type { NewAccount } from '../../src/domain/accounts/accounts.service.ts'
import { createTestDatabase, postgresAvailable } from './postgres.ts'
import { REDIS_URL, redisAvailable } from './redis.ts'

export const ADMIN_TOKEN = 'test-admin-token'

export interface TestApp {
  app: FastifyInstance
  c: Container
  clock: ReturnType<typeof createManualClock>
  key: string
  /** The id of `key`. */
  keyId: string
  accountId: string
  /** The embedded store's file (with `file: true` on SQLite); null on ':memory:' and on PostgreSQL. */
  sqliteFile: string | null
  get(url: string, key?: string | null): Promise<LightMyRequestResponse>
  close(): Promise<void>
}

/** The default test account: enough credits and rate that content tests never meet the gateway's limits. */
export const ROOMY_ACCOUNT: NewAccount = { name: 'test', plan: 'custom', creditsLimit: 1_000_000, rpsLimit: 100_000 }

export async function makeTestApp(
  opts: {
    records?: readonly unknown[]
    nowMs?: number
    env?: Record<string, string>
    account?: NewAccount
    /** How the batch waits for rate units; default: it moves the manual clock at once. */
    sleep?: (ms: number, clock: ReturnType<typeof createManualClock>) => Promise<void>
    /** Container overrides beside the clock, store and sleep this helper sets. */
    overrides?: Pick<ContainerOverrides, 'monotonic' | 'wrapSearchIndex' | 'searchWorkers' | 'searchObserver' | 'mailer'>
    /**
     * On SQLite, keep the store in a temporary file instead of ':memory:', so that the test can read
     * what was stored (storedRows). PostgreSQL stores can always be read.
     */
    file?: boolean
  } = {},
): Promise<TestApp> {
  const backend = await testBackend()
  const dir = opts.file && !backend.env.DATABASE_URL ? mkdtempSync(join(tmpdir(), 'pronet-app-')) : null
  const config = loadConfig({
    PRONET_SEED: 'none',
    LOG_LEVEL: 'silent',
    PRONET_SECRET: 'test-secret',
    PRONET_ADMIN_TOKEN: ADMIN_TOKEN,
    PRONET_DATA_DIR: dir ?? '/nonexistent-test-dir',
    ...backend.env,
    ...opts.env,
  })
  const clock = createManualClock(opts.nowMs ?? Date.UTC(2026, 10, 1))
  // The batch's wait for rate units moves the manual clock instead of sleeping.
  const sleep = opts.sleep
  const sqliteFile = dir ? join(dir, 'pronet.db') : null
  const c = await createContainer(config, {
    clock,
    sqlitePath: sqliteFile ?? ':memory:',
    // A file store commits on the event-loop thread, as ':memory:' does.
    ...(sqliteFile ? { commitInWorker: false } : {}),
    sleep: sleep ? (ms) => sleep(ms, clock) : async (ms) => clock.advance(ms),
    // On a loaded test machine Redis can take longer than a node waits for it (150 ms), and the node
    // then answers from its own share of the budget: a second call within the second is let through
    // where the suites expect its 429. Their budgets are about the window, not about that fallback,
    // which the rate limiter's own suites test; here the node waits as long as Redis takes.
    ...(backend.env.REDIS_URL ? { redisReplyTimeoutMs: 5_000 } : {}),
    ...opts.overrides,
  })
  const dropDatabase = backend.drop
  if (opts.records && opts.records.length > 0) {
    const outcomes = await c.writer.write(opts.records)
    const refused = outcomes.map((o, i) => ({ o, i })).filter(({ o }) => !o.ok)
    expect(refused, 'every fixture record is accepted').toEqual([])
  }
  const created = await c.accounts.create(opts.account ?? ROOMY_ACCOUNT)
  const app = await buildApp(c)
  const key = created.apiKey.key
  return {
    app,
    c,
    clock,
    key,
    keyId: created.apiKey.id,
    accountId: created.account.id,
    sqliteFile,
    get: (url, k = key) => app.inject({ method: 'GET', url, headers: k === null ? {} : { 'x-api-key': k } }),
    async close() {
      await app.close()
      await c.close()
      await dropDatabase?.()
      if (dir) rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * Every row of every table of the app's store, read over a connection of the test's own (not through
 * the app's ports): what is really stored. SQLite needs `makeTestApp({ file: true })`.
 */
export async function storedRows(t: TestApp): Promise<Map<string, Record<string, unknown>[]>> {
  const tables = new Map<string, Record<string, unknown>[]>()
  const url = t.c.config.databaseUrl
  if (url) {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const names = await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1")
      for (const { name } of names.rows) tables.set(name, (await client.query(`SELECT * FROM "${name}"`)).rows)
    } finally {
      await client.end()
    }
    return tables
  }
  if (!t.sqliteFile) throw new Error('storedRows reads an SQLite store from its file: makeTestApp({ file: true })')
  const db = new Database(t.sqliteFile, { readonly: true, fileMustExist: true })
  try {
    // A virtual table's rows are kept in its shadow tables, read here like any other (reading the
    // virtual table itself would need the app's own tokenizer).
    const names = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY 1")
      .pluck()
      .all() as string[]
    for (const name of names) tables.set(name, db.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[])
  } finally {
    db.close()
  }
  return tables
}

/**
 * The store the HTTP suites run on: in-memory SQLite by default; PRONET_TEST_BACKEND=postgres runs
 * them on a fresh PostgreSQL database of their own with the Redis limiter and bus (vitest's
 * `postgres+redis` project), so one suite checks every backend.
 */
export async function testBackend(): Promise<{ env: Record<string, string>; drop?: () => Promise<void> }> {
  if (process.env.PRONET_TEST_BACKEND !== 'postgres') return { env: {} }
  if (!(await postgresAvailable()) || !(await redisAvailable())) {
    throw new Error('PRONET_TEST_BACKEND=postgres needs PostgreSQL and Redis')
  }
  const db = await createTestDatabase()
  return { env: { DATABASE_URL: db.url, REDIS_URL }, drop: db.drop }
}

const compiled = new Map<TSchema, ReturnType<typeof Compile>>()

/** Asserts that a JSON body matches a contract schema exactly (closed objects: no stray fields). */
export function expectSchema(schema: TSchema, value: unknown, label = 'response'): void {
  let v = compiled.get(schema)
  if (!v) {
    v = Compile(schema)
    compiled.set(schema, v)
  }
  if (!v.Check(value)) {
    const errors = v.Errors(value).slice(0, 5).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`)
    expect.fail(`${label} does not match its schema:\n${errors.join('\n')}`)
  }
}

/** Asserts an error envelope with the given status and code. */
export function expectError(res: LightMyRequestResponse, status: number, code: string): Record<string, unknown> {
  expect(res.statusCode, res.body).toBe(status)
  expect(res.headers['content-type']).toMatch(/^application\/json/)
  const body = res.json() as Record<string, unknown>
  expect(body.code).toBe(code)
  expect(typeof body.error).toBe('string')
  expect(Object.keys(body).every((k) => ['error', 'code', 'details'].includes(k))).toBe(true)
  expect(res.body).not.toMatch(/at .*\.(ts|js):\d+|SQLITE|stack/i)
  return body
}
