import type { AccountRecord, AccountStore, ApiKeyRecord, KeyLookup } from '../../ports/account-store.ts'
import { fromEndpointsText, toEndpointsText } from '../key-endpoints-text.ts'
import type { SqliteDb } from './database.ts'

interface AccountRow {
  id: string
  name: string
  created_at: number
  suspended_at: number | null
  plan: AccountRecord['plan']
  status: AccountRecord['status']
  credits_limit: number
  rps_limit: number
}

interface KeyRow {
  id: string
  account_id: string
  prefix: string
  created_at: number
  revoked_at: number | null
  name: string
  created_by: string | null
  last_used_at: number | string | null
  monthly_credit_limit: number | null
  endpoints: string | null
}

/** `text` with LIKE's wildcards taken literally. */
const likeEscape = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`)

const toAccount = (r: AccountRow): AccountRecord => ({
  id: r.id,
  name: r.name,
  createdAt: r.created_at,
  suspendedAt: r.suspended_at,
  plan: r.plan,
  status: r.status,
  creditsLimit: r.credits_limit,
  rpsLimit: r.rps_limit,
})

const toKey = (r: KeyRow): ApiKeyRecord => ({
  id: r.id,
  accountId: r.account_id,
  prefix: r.prefix,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
  name: r.name,
  createdBy: r.created_by,
  lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
  monthlyCreditLimit: r.monthly_credit_limit,
  endpoints: fromEndpointsText(r.endpoints),
})

export function createSqliteAccountStore(db: SqliteDb): AccountStore {
  const insertAccount = db.prepare(
    `INSERT INTO accounts (id, name, created_at, suspended_at, plan, status, credits_limit, rps_limit, anchor_at)
     VALUES (@id, @name, @createdAt, @suspendedAt, @plan, @status, @creditsLimit, @rpsLimit, @createdAt)`,
  )
  const insertKey = db.prepare(
    `INSERT INTO api_keys (id, account_id, hash, prefix, created_at, revoked_at, name, created_by, last_used_at, monthly_credit_limit, endpoints)
     VALUES (@id, @accountId, @hash, @prefix, @createdAt, @revokedAt, @name, @createdBy, @lastUsedAt, @monthlyCreditLimit, @endpointsText)`,
  )
  const keyRow = (k: ApiKeyRecord & { hash: string }) => ({ ...k, endpointsText: toEndpointsText(k.endpoints) })
  const selectAccount = db.prepare('SELECT * FROM accounts WHERE id = ?')
  const selectKeys = db.prepare(
    `SELECT id, account_id, prefix, created_at, revoked_at, name, created_by, last_used_at, monthly_credit_limit, endpoints
     FROM api_keys WHERE account_id = ? ORDER BY created_at, rowid`,
  )
  const newest = db.prepare('SELECT * FROM accounts ORDER BY created_at DESC, id LIMIT ?')
  const search = db.prepare(
    `SELECT * FROM accounts a WHERE a.id = @q OR lower(a.name) LIKE @like ESCAPE '\\'
       OR EXISTS (SELECT 1 FROM api_keys k WHERE k.account_id = a.id AND substr(k.prefix, 1, length(@q)) = @q)
     ORDER BY a.created_at DESC, a.id LIMIT @limit`,
  )
  const used = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)')
  const recordUses = db.transaction((uses: readonly { keyId: string; at: number }[]) => {
    for (const u of uses) used.run(u.at, u.keyId, u.at)
  })
  const revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE account_id = ? AND id = ? AND revoked_at IS NULL')
  const lookup = db.prepare(
    `SELECT k.id AS keyId, k.account_id AS accountId, a.suspended_at IS NOT NULL AS suspended,
       k.monthly_credit_limit AS monthlyCreditLimit, k.endpoints
     FROM api_keys k JOIN accounts a ON a.id = k.account_id
     WHERE k.hash = ? AND k.revoked_at IS NULL`,
  )
  const updateKey = db.prepare(
    `UPDATE api_keys SET
       name = CASE WHEN @setName = 1 THEN @name ELSE name END,
       monthly_credit_limit = CASE WHEN @setLimit = 1 THEN @limit ELSE monthly_credit_limit END,
       endpoints = CASE WHEN @setEndpoints = 1 THEN @endpoints ELSE endpoints END
     WHERE account_id = @accountId AND id = @keyId AND revoked_at IS NULL`,
  )
  const spendOf = db.prepare(
    `SELECT s.key_id AS keyId, s.credits FROM key_spend s JOIN api_keys k ON k.id = s.key_id WHERE k.account_id = ? AND s.month = ?`,
  )
  const revokedOwner = db.prepare('SELECT account_id FROM api_keys WHERE hash = ? AND revoked_at IS NOT NULL').pluck()
  const suspend = db.prepare('UPDATE accounts SET suspended_at = ? WHERE id = ?')
  const anyAccount = db.prepare('SELECT 1 FROM accounts LIMIT 1')
  const createBoth = db.transaction((account: AccountRecord, key: ApiKeyRecord & { hash: string }) => {
    insertAccount.run(account)
    insertKey.run(keyRow(key))
  })

  return {
    async createAccount(account, key) {
      createBoth.immediate(account, key)
    },
    async getAccount(id) {
      const row = selectAccount.get(id) as AccountRow | undefined
      return row && toAccount(row)
    },
    async addKey(key) {
      insertKey.run(keyRow(key))
    },
    async updateKey(accountId, keyId, patch) {
      // A field left out keeps its value (the flag says whether it was given).
      const r = updateKey.run({
        accountId,
        keyId,
        setName: patch.name === undefined ? 0 : 1,
        name: patch.name ?? '',
        setLimit: patch.monthlyCreditLimit === undefined ? 0 : 1,
        limit: patch.monthlyCreditLimit ?? null,
        setEndpoints: patch.endpoints === undefined ? 0 : 1,
        endpoints: toEndpointsText(patch.endpoints ?? null),
      })
      return r.changes === 1
    },
    async keySpend(accountId, month) {
      const rows = spendOf.all(accountId, month) as { keyId: string; credits: number }[]
      return new Map(rows.filter((r) => r.credits !== 0).map((r) => [r.keyId, r.credits]))
    },
    async revokeKey(accountId, keyId, at) {
      return revoke.run(at, accountId, keyId).changes === 1
    },
    async searchAccounts(query, limit) {
      const q = query.trim()
      const rows = (q === '' ? newest.all(limit) : search.all({ q, like: `%${likeEscape(q.toLowerCase())}%`, limit })) as AccountRow[]
      return rows.map(toAccount)
    },
    async recordKeyUses(uses) {
      if (uses.length > 0) recordUses.immediate(uses)
    },
    async listKeys(accountId) {
      return (selectKeys.all(accountId) as KeyRow[]).map(toKey)
    },
    async findKeyByHash(hash) {
      const row = lookup.get(hash) as { keyId: string; accountId: string; suspended: number; monthlyCreditLimit: number | null; endpoints: string | null } | undefined
      return (
        row &&
        ({
          keyId: row.keyId,
          accountId: row.accountId,
          suspended: row.suspended === 1,
          monthlyCreditLimit: row.monthlyCreditLimit,
          endpoints: fromEndpointsText(row.endpoints),
        } satisfies KeyLookup)
      )
    },
    async findRevokedKeyAccount(hash) {
      return revokedOwner.get(hash) as string | undefined
    },
    async setSuspended(accountId, at) {
      return suspend.run(at, accountId).changes === 1
    },
    async hasAccounts() {
      return anyAccount.get() !== undefined
    },
    async close() {},
  }
}
