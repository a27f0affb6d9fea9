/**
 * PostgreSQL for tests: each suite gets a database of its own, created on the machine's server
 * (PRONET_TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres) and dropped after.
 * Under CI=true the server must be there: a missing one fails the run. Elsewhere the suites skip,
 * and say so once on stderr.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'

export const ADMIN_URL = process.env.PRONET_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const CI = process.env.CI === 'true' || process.env.CI === '1'

let reachable: Promise<boolean> | undefined

async function probe(): Promise<boolean> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2_000 })
  try {
    await client.connect()
    await client.query('SELECT 1')
    return true
  } catch (e) {
    if (CI) throw new Error(`CI=true but PostgreSQL is not reachable at ${ADMIN_URL}: ${e instanceof Error ? e.message : String(e)}`)
    process.stderr.write(`\n[notice] PostgreSQL not reachable at ${ADMIN_URL}: PostgreSQL suites are skipped (they run under CI=true).\n`)
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

/** Whether PostgreSQL suites run here (throws under CI when the server is missing). */
export function postgresAvailable(): Promise<boolean> {
  reachable ??= probe()
  return reachable
}

/** A fresh empty database; returns its URL and a function that drops it. */
export async function createTestDatabase(prefix = 'pronet_t', opts: { encoding?: 'SQL_ASCII' | 'LATIN1' } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: ADMIN_URL })
  await admin.connect()
  try {
    // Another encoding than the cluster's needs the template without any: template0 (and C collation).
    await admin.query(`CREATE DATABASE ${name}${opts.encoding ? ` ENCODING '${opts.encoding}' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'` : ''}`)
  } finally {
    await admin.end()
  }
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const a = new pg.Client({ connectionString: ADMIN_URL })
      await a.connect()
      try {
        await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await a.end()
      }
    },
  }
}

/** A custom-plan account (1,000 credits a month, 10 calls a second) written straight into the store, created at `at`; its id. */
export async function insertAccount(pool: { query(sql: string, values: unknown[]): Promise<unknown> }, at: number): Promise<string> {
  const id = `acc_${randomBytes(6).toString('hex')}`
  await pool.query(
    `INSERT INTO accounts (id, name, created_at, suspended_at, plan, status, credits_limit, rps_limit, anchor_at)
     VALUES ($1, 't', $2, NULL, 'custom', 'active', 1000, 10, $2)`,
    [id, at],
  )
  return id
}

/** The ledger's group commits registered in `registry` so far (pronet_ledger_commit_jobs), and the requests they carried. */
export async function ledgerCommits(registry: { getSingleMetric(name: string): { get(): Promise<{ values: unknown[] }> } | undefined }): Promise<{ batches: number; requests: number }> {
  const values = ((await registry.getSingleMetric('pronet_ledger_commit_jobs')?.get())?.values ?? []) as { metricName?: string; value: number }[]
  return {
    batches: values.find((v) => v.metricName === 'pronet_ledger_commit_jobs_count')?.value ?? 0,
    requests: values.find((v) => v.metricName === 'pronet_ledger_commit_jobs_sum')?.value ?? 0,
  }
}
