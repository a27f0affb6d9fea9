/**
 * The setting of the suites that lose a PostgreSQL COMMIT on purpose: a fresh database, a direct pool
 * for verification reads, the TCP proxy of pg-proxy.ts in front of it, ledger "nodes" whose pools go
 * through the proxy (their log lines kept), and accounts written straight into the store.
 */
import { randomBytes } from 'node:crypto'
import { Registry } from 'prom-client'
import { afterAll, beforeAll } from 'vitest'
import { migratePostgres, openPostgres, type PgPool } from '../../src/adapters/postgres/database.ts'
import { createPgLedger, type PgLedgerOptions } from '../../src/adapters/postgres/pg-ledger.ts'
import { ADMIN_URL, createTestDatabase } from './postgres.ts'
import { startPgProxy, type PgProxy } from './pg-proxy.ts'

export const T0 = Date.UTC(2027, 2, 10, 12)
export const newLotId = () => `lot_${randomBytes(6).toString('hex')}`

/** The query carrying a billing group's writes and its COMMIT. */
/** A transaction that records billed settles (a batch calls pronet_record_settled), sent with its COMMIT. */
export const settleCommit = (sql: string) => (sql.includes('INSERT INTO settled_requests') || sql.includes('pronet_record_settled(')) && /COMMIT\s*$/.test(sql)

export interface LogLine {
  level: 'warn' | 'error'
  obj: Record<string, unknown>
  msg: string
}

/** Call inside a `describe`: its hooks make the database and the proxy before the suite and remove them after. */
export function lostCommitSetting(databaseName: string) {
  let db: { url: string; drop(): Promise<void> }
  let direct: PgPool
  let proxy: PgProxy

  beforeAll(async () => {
    db = await createTestDatabase(databaseName)
    direct = openPostgres(db.url, { max: 4 })
    await migratePostgres(direct)
    const admin = new URL(ADMIN_URL)
    proxy = await startPgProxy({ host: admin.hostname, port: Number(admin.port || 5432) })
  })
  afterAll(async () => {
    await proxy?.close()
    await direct?.end()
    await db?.drop()
  })

  return {
    get url(): string {
      return db.url
    },
    /** Straight to PostgreSQL, never through the proxy: what is really stored. */
    get direct(): PgPool {
      return direct
    },
    get proxy(): PgProxy {
      return proxy
    },

    /** A node whose pool goes through the proxy. */
    node(options: Partial<PgLedgerOptions> = {}, idleInTransactionTimeoutMs?: number) {
      const pool = openPostgres(proxy.url(db.url), { max: 4, idleInTransactionTimeoutMs })
      const logs: LogLine[] = []
      const registry = new Registry()
      const ledger = createPgLedger(pool, {
        newLotId,
        registry,
        logger: {
          warn: (obj, msg) => logs.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
          error: (obj, msg) => logs.push({ level: 'error', obj: obj as Record<string, unknown>, msg }),
        },
        ...options,
      })
      let closed: Promise<void> | undefined
      return {
        ledger,
        logs,
        registry,
        close() {
          closed ??= ledger.close().then(() => pool.end())
          return closed
        },
      }
    },

    /** A custom-plan account with `creditsLimit` credits, anchored at T0. */
    async account(creditsLimit: number): Promise<string> {
      const id = `acc_${randomBytes(6).toString('hex')}`
      await direct.query(
        `INSERT INTO accounts (id, name, created_at, suspended_at, plan, status, credits_limit, rps_limit, anchor_at)
         VALUES ($1, 't', $2, NULL, 'custom', 'active', $3, 10, $2)`,
        [id, T0, creditsLimit],
      )
      return id
    },
  }
}
