/**
 * Throughput of the PostgreSQL ledger's hold → settle pair (two transactions, each locking the
 * account's row, each a durable COMMIT) with BENCH_CALLERS concurrent callers on one pool, against
 * two baselines measured in the same run:
 *   - bare: the same callers doing two durable single-row INSERT commits per pair on the same pool
 *     (the floor of "two commits per request" on this server and disk), and
 *   - sqlite: the embedded ledger (file, commit worker, group commit) under the same callers.
 * Cases: every caller on one account (the worst case: the account's row lock serialises them) and
 * one account per caller. Every pair holds 1 credit and settles it; after each case the ledger must
 * balance (a check of the bench, not a measurement).
 *
 *   npm run bench:pg-ledger
 *   BENCH_SECONDS=5 BENCH_CALLERS=20 BENCH_POOL=10 npm run bench:pg-ledger
 *   PRONET_BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres (a database is created and dropped)
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { migratePostgres, openPostgres, type PgPool } from '../src/adapters/postgres/database.ts'
import { createPgLedger } from '../src/adapters/postgres/pg-ledger.ts'
import { createWorkerCommitter } from '../src/adapters/sqlite/ledger-committer.ts'
import { openSqlite } from '../src/adapters/sqlite/database.ts'
import { createSqliteAccountStore } from '../src/adapters/sqlite/sqlite-account-store.ts'
import { createSqliteLedger } from '../src/adapters/sqlite/sqlite-ledger.ts'
import type { Ledger } from '../src/ports/ledger.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const CALLERS = Number(process.env.BENCH_CALLERS ?? 20)
const POOL = Number(process.env.BENCH_POOL ?? 10)
const ADMIN_URL = process.env.PRONET_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const T0 = Date.UTC(2027, 0, 10)
const CREDITS = 100_000_000
const newLotId = () => `lot_${randomBytes(9).toString('base64url')}`

/** Runs `pair` from CALLERS loops for SECONDS (after a one-second warm-up); pairs per second. */
async function measure(pair: (caller: number, n: number) => Promise<void>): Promise<number> {
  let counting = false
  let done = 0
  let stop = false
  const loops = Array.from({ length: CALLERS }, async (_, caller) => {
    for (let n = 0; !stop; n++) {
      await pair(caller, n)
      if (counting) done++
    }
  })
  await new Promise((r) => setTimeout(r, 1000))
  counting = true
  const start = performance.now()
  await new Promise((r) => setTimeout(r, SECONDS * 1000))
  const rate = done / ((performance.now() - start) / 1000)
  stop = true
  await Promise.all(loops)
  return rate
}

async function holdAndSettle(ledger: Ledger, accountId: string, caller: number, n: number): Promise<void> {
  const held = await ledger.hold(accountId, 1, T0)
  if (!held.ok) throw new Error('refused')
  const settled = await ledger.settle(held.hold, {
    accountId,
    at: T0,
    endpoint: '/api/v1/profile',
    status: 200,
    credits: 1,
    requestId: `r-${caller}-${n}-${randomBytes(4).toString('hex')}`,
  })
  if (!settled.ok) throw new Error('insufficient')
}

async function pgAccount(pool: PgPool): Promise<string> {
  const id = `acc_${randomBytes(6).toString('hex')}`
  await pool.query(
    `INSERT INTO accounts (id, name, created_at, plan, status, credits_limit, rps_limit, anchor_at)
     VALUES ($1, 'bench', $2, 'custom', 'active', $3, 1000, $2)`,
    [id, T0, CREDITS],
  )
  return id
}

/** Per lot SUM(delta) = remaining, and debits = credits spent. */
async function checkPg(pool: PgPool, ids: string[]): Promise<void> {
  const r = await pool.query<{ bad: number }>(
    `SELECT count(*)::int AS bad FROM credit_lots l
     WHERE l.account_id = ANY($1) AND l.remaining <> (SELECT sum(delta) FROM ledger_entries e WHERE e.lot_id = l.id)`,
    [ids],
  )
  const holds = await pool.query<{ n: number }>('SELECT COALESCE(SUM(credits), 0)::int AS n FROM node_holds WHERE account_id = ANY($1)', [ids])
  if (r.rows[0]?.bad !== 0 || holds.rows[0]?.n !== 0) throw new Error('the PostgreSQL ledger does not balance after the run')
}

async function main(): Promise<void> {
  const name = `pronet_bench_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: ADMIN_URL })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  const dir = mkdtempSync(join(tmpdir(), 'pronet-bench-ledger-'))
  try {
    const pool = openPostgres(url.toString(), { max: POOL })
    await migratePostgres(pool)
    await pool.query('CREATE TABLE bench_bare (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, account_id text NOT NULL, n integer NOT NULL)')
    const ledger = createPgLedger(pool, { newLotId })
    const results: Record<string, number> = {}

    results.bare = await measure(async (caller, n) => {
      await pool.query('INSERT INTO bench_bare (account_id, n) VALUES ($1, $2)', [`c${caller}`, n])
      await pool.query('INSERT INTO bench_bare (account_id, n) VALUES ($1, $2)', [`c${caller}`, n])
    })

    const one = await pgAccount(pool)
    await ledger.state(one, T0)
    results.pgOneAccount = await measure((caller, n) => holdAndSettle(ledger, one, caller, n))
    const many = await Promise.all(Array.from({ length: CALLERS }, () => pgAccount(pool)))
    for (const id of many) await ledger.state(id, T0)
    results.pgAccountPerCaller = await measure((caller, n) => holdAndSettle(ledger, many[caller] as string, caller, n))
    await checkPg(pool, [one, ...many])
    await ledger.close()
    await pool.end()

    const path = join(dir, 'ledger.db')
    const db = openSqlite(path)
    const sqlite = createSqliteLedger(db, { newLotId, committer: createWorkerCommitter(path, (e) => { throw e }) })
    const store = createSqliteAccountStore(db)
    const sqliteOne = `acc_${randomBytes(6).toString('hex')}`
    await store.createAccount(
      { id: sqliteOne, name: 'bench', createdAt: T0, suspendedAt: null, plan: 'custom', status: 'active', creditsLimit: CREDITS, rpsLimit: 1000 },
      { id: `key_${sqliteOne}`, accountId: sqliteOne, hash: randomBytes(16).toString('hex'), prefix: 'pk_', createdAt: T0, revokedAt: null, name: '', createdBy: null, lastUsedAt: null, monthlyCreditLimit: null, endpoints: null },
    )
    results.sqliteOneAccount = await measure((caller, n) => holdAndSettle(sqlite, sqliteOne, caller, n))
    await sqlite.close()
    db.close()

    const f = (x: number) => x.toFixed(0).padStart(7)
    const ratio = (a: number, b: number) => (a / b).toFixed(2)
    process.stdout.write(
      [
        `hold+settle pairs per second, ${CALLERS} concurrent callers, pool of ${POOL}, ${SECONDS} s per case`,
        `  bare (2 durable INSERT commits per pair) ${f(results.bare)}`,
        `  postgres ledger, one account             ${f(results.pgOneAccount)}   ${ratio(results.pgOneAccount, results.bare)} × bare   ${ratio(results.pgOneAccount, results.sqliteOneAccount)} × sqlite`,
        `  postgres ledger, one account per caller  ${f(results.pgAccountPerCaller)}   ${ratio(results.pgAccountPerCaller, results.bare)} × bare   ${ratio(results.pgAccountPerCaller, results.sqliteOneAccount)} × sqlite`,
        `  sqlite ledger (file, group commit)       ${f(results.sqliteOneAccount)}`,
        '',
      ].join('\n'),
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
    const drop = new pg.Client({ connectionString: ADMIN_URL })
    await drop.connect()
    await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await drop.end()
  }
}

await main()
