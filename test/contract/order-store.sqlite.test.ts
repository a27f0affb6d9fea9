import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSqlite, type SqliteDb } from '../../src/adapters/sqlite/database.ts'
import { createSqliteOrderStore } from '../../src/adapters/sqlite/sqlite-order-store.ts'
import { runOrderStoreContract } from './order-store.contract.ts'

let accounts = 0
function addAccount(db: SqliteDb): string {
  const id = `acc_${++accounts}`
  db.prepare(
    `INSERT INTO accounts (id, name, created_at, plan, status, credits_limit, rps_limit, anchor_at) VALUES (?, 't', 0, 'free', 'free', 1000, 5, 0)`,
  ).run(id)
  return id
}

// A file, so that a second connection (another process on it) races the first.
runOrderStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pronet-orders-'))
  const path = join(dir, 'orders.db')
  const db = openSqlite(path)
  const others: SqliteDb[] = []
  return {
    store: createSqliteOrderStore(db),
    async another() {
      const second = openSqlite(path)
      others.push(second)
      return createSqliteOrderStore(second)
    },
    createAccount: async () => addAccount(db),
    async dispose() {
      for (const d of [db, ...others]) d.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
})
