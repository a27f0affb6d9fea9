/**
 * AccountStore on PostgreSQL (migrations/postgres/002_accounts.sql). Instants are bigint columns,
 * which the pool hands back as decimal strings (database.ts); Unix ms fit a double exactly, so they
 * become numbers here.
 */
import type { AccountRecord, AccountStore, ApiKeyRecord, KeyLookup } from '../../ports/account-store.ts'
import type pg from 'pg'
import { endFailedTransaction, type PgPool } from './database.ts'

interface AccountRow {
  id: string
  name: string
  created_at: string
  suspended_at: string | null
  plan: AccountRecord['plan']
  status: AccountRecord['status']
  credits_limit: number
  rps_limit: number
}

interface KeyRow {
  id: string
  account_id: string
  prefix: string
  created_at: string
  revoked_at: string | null
  name: string
  created_by: string | null
  last_used_at: string | null
  monthly_credit_limit: string | null
  endpoints: string[] | null
}

const msOrNull = (v: string | null): number | null => (v === null ? null : Number(v))
/** A bigint column the pool hands back as text, as a number (limits are far below 2^53). */
const bigintOrNull = msOrNull

const toAccount = (r: AccountRow): AccountRecord => ({
  id: r.id,
  name: r.name,
  createdAt: Number(r.created_at),
  suspendedAt: msOrNull(r.suspended_at),
  plan: r.plan,
  status: r.status,
  creditsLimit: r.credits_limit,
  rpsLimit: r.rps_limit,
})

const toKey = (r: KeyRow): ApiKeyRecord => ({
  id: r.id,
  accountId: r.account_id,
  prefix: r.prefix,
  createdAt: Number(r.created_at),
  revokedAt: msOrNull(r.revoked_at),
  name: r.name,
  createdBy: r.created_by,
  lastUsedAt: msOrNull(r.last_used_at),
  monthlyCreditLimit: bigintOrNull(r.monthly_credit_limit),
  endpoints: r.endpoints,
})

const KEY_COLUMNS = 'id, account_id, prefix, created_at, revoked_at, name, created_by, last_used_at, monthly_credit_limit, endpoints'

const INSERT_ACCOUNT = `INSERT INTO accounts (id, name, created_at, suspended_at, plan, status, credits_limit, rps_limit, anchor_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $3)`
const INSERT_KEY = `INSERT INTO api_keys (id, account_id, hash, prefix, created_at, revoked_at, name, created_by, last_used_at, monthly_credit_limit, endpoints)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`

const accountParams = (a: AccountRecord) => [a.id, a.name, a.createdAt, a.suspendedAt, a.plan, a.status, a.creditsLimit, a.rpsLimit]
const keyParams = (k: ApiKeyRecord & { hash: string }) => [
  k.id,
  k.accountId,
  k.hash,
  k.prefix,
  k.createdAt,
  k.revokedAt,
  k.name,
  k.createdBy,
  k.lastUsedAt,
  k.monthlyCreditLimit,
  k.endpoints,
]

/**
 * Key lookups wait this long for an answer (a one-row index read), as long as the pool waits for a
 * connection: every call starts with one, and when the database stops answering, a call should get
 * its 503 then whether or not it found an idle connection.
 */
const KEY_LOOKUP_TIMEOUT_MS = 5_000

export function createPgAccountStore(pool: PgPool): AccountStore {
  return {
    async createAccount(account, key) {
      const client = await pool.connect()
      // A connection that cannot even roll back is closed rather than handed back to the pool.
      let broken: Error | undefined
      try {
        await client.query('BEGIN')
        try {
          await client.query(INSERT_ACCOUNT, accountParams(account))
          await client.query(INSERT_KEY, keyParams(key))
          await client.query('COMMIT')
        } catch (e) {
          broken = await endFailedTransaction(client, e)
          throw e
        }
      } finally {
        client.release(broken)
      }
    },
    async getAccount(id) {
      const { rows } = await pool.query<AccountRow>(
        `SELECT id, name, created_at, suspended_at, plan, status, credits_limit, rps_limit FROM accounts WHERE id = $1`,
        [id],
      )
      return rows[0] && toAccount(rows[0])
    },
    async addKey(key) {
      await pool.query(INSERT_KEY, keyParams(key))
    },
    async revokeKey(accountId, keyId, at) {
      const r = await pool.query('UPDATE api_keys SET revoked_at = $1 WHERE account_id = $2 AND id = $3 AND revoked_at IS NULL', [
        at,
        accountId,
        keyId,
      ])
      return r.rowCount === 1
    },
    async listKeys(accountId) {
      const { rows } = await pool.query<KeyRow>(
        `SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created_at, seq`,
        [accountId],
      )
      return rows.map(toKey)
    },
    async findKeyByHash(hash) {
      const { rows } = await pool.query<Omit<KeyLookup, 'monthlyCreditLimit'> & { monthlyCreditLimit: string | null }>({
        text: `SELECT k.id AS "keyId", k.account_id AS "accountId", a.suspended_at IS NOT NULL AS suspended,
                 k.monthly_credit_limit AS "monthlyCreditLimit", k.endpoints
               FROM api_keys k JOIN accounts a ON a.id = k.account_id
               WHERE k.hash = $1 AND k.revoked_at IS NULL`,
        values: [hash],
        query_timeout: KEY_LOOKUP_TIMEOUT_MS,
      } as pg.QueryConfig)
      const row = rows[0]
      return row && { ...row, monthlyCreditLimit: bigintOrNull(row.monthlyCreditLimit) }
    },
    async updateKey(accountId, keyId, patch) {
      // A field left out keeps its value (the flag says whether it was given).
      const r = await pool.query(
        `UPDATE api_keys SET
           name = CASE WHEN $3 THEN $4 ELSE name END,
           monthly_credit_limit = CASE WHEN $5 THEN $6::bigint ELSE monthly_credit_limit END,
           endpoints = CASE WHEN $7 THEN $8::text[] ELSE endpoints END
         WHERE account_id = $1 AND id = $2 AND revoked_at IS NULL`,
        [
          accountId,
          keyId,
          patch.name !== undefined,
          patch.name ?? '',
          patch.monthlyCreditLimit !== undefined,
          patch.monthlyCreditLimit ?? null,
          patch.endpoints !== undefined,
          patch.endpoints ?? null,
        ],
      )
      return r.rowCount === 1
    },
    async keySpend(accountId, month) {
      const { rows } = await pool.query<{ key_id: string; credits: string }>(
        'SELECT s.key_id, s.credits FROM key_spend s JOIN api_keys k ON k.id = s.key_id WHERE k.account_id = $1 AND s.month = $2',
        [accountId, month],
      )
      return new Map(rows.filter((r) => Number(r.credits) !== 0).map((r) => [r.key_id, Number(r.credits)]))
    },
    async findRevokedKeyAccount(hash) {
      const { rows } = await pool.query<{ accountId: string }>({
        text: 'SELECT account_id AS "accountId" FROM api_keys WHERE hash = $1 AND revoked_at IS NOT NULL',
        values: [hash],
        query_timeout: KEY_LOOKUP_TIMEOUT_MS,
      } as pg.QueryConfig)
      return rows[0]?.accountId
    },
    async searchAccounts(query, limit) {
      const q = query.trim()
      const columns = 'a.id, a.name, a.created_at, a.suspended_at, a.plan, a.status, a.credits_limit, a.rps_limit'
      const { rows } =
        q === ''
          ? await pool.query<AccountRow>(`SELECT ${columns} FROM accounts a ORDER BY a.created_at DESC, a.id LIMIT $1`, [limit])
          : await pool.query<AccountRow>(
              `SELECT ${columns} FROM accounts a WHERE a.id = $1 OR strpos(lower(a.name), lower($1)) > 0
                 OR EXISTS (SELECT 1 FROM api_keys k WHERE k.account_id = a.id AND left(k.prefix, length($1)) = $1)
               ORDER BY a.created_at DESC, a.id LIMIT $2`,
              [q, limit],
            )
      return rows.map(toAccount)
    },
    async recordKeyUses(uses) {
      if (uses.length === 0) return
      await pool.query(
        `UPDATE api_keys k SET last_used_at = u.at FROM unnest($1::text[], $2::bigint[]) AS u (id, at)
         WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`,
        [uses.map((u) => u.keyId), uses.map((u) => u.at)],
      )
    },
    async setSuspended(accountId, at) {
      const r = await pool.query('UPDATE accounts SET suspended_at = $1 WHERE id = $2', [at, accountId])
      return r.rowCount === 1
    },
    async hasAccounts() {
      const { rows } = await pool.query('SELECT 1 FROM accounts LIMIT 1')
      return rows.length > 0
    },
    // The pool belongs to the container, which ends it after every adapter has stopped.
    async close() {},
  }
}
