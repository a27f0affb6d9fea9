/**
 * IdentityStore on PostgreSQL (migrations/postgres/009_identity.sql). Instants are bigint columns,
 * which the pool hands back as decimal strings (database.ts); Unix ms fit a double exactly, so they
 * become numbers here.
 */
import type {
  AccountMember,
  EmailTokenRecord,
  FailureWindow,
  IdentityStore,
  MembershipChange,
  Role,
  SessionRecord,
  UserMembership,
  UserRecord,
} from '../../ports/identity-store.ts'
import type pg from 'pg'
import { type PgPool, inTransaction } from './database.ts'

interface UserRow {
  id: string
  email: string
  password_hash: string
  email_verified_at: string | null
  created_at: string
  disabled_at: string | null
}

interface SessionRow {
  id_hash: string
  kind: SessionRecord['kind']
  user_id: string | null
  account_id: string | null
  created_at: string
  last_seen_at: string
  expires_at: string
}

interface TokenRow {
  hash: string
  kind: EmailTokenRecord['kind']
  user_id: string | null
  email: string | null
  account_id: string | null
  role: Role | null
  created_by: string | null
  created_at: string
  expires_at: string
  used_at: string | null
}

interface MembershipRow {
  accountId: string
  userId: string
  role: Role
  createdAt: string
}

const msOrNull = (v: string | null): number | null => (v === null ? null : Number(v))

const toUser = (r: UserRow): UserRecord => ({
  id: r.id,
  email: r.email,
  passwordHash: r.password_hash,
  emailVerifiedAt: msOrNull(r.email_verified_at),
  createdAt: Number(r.created_at),
  disabledAt: msOrNull(r.disabled_at),
})

const toSession = (r: SessionRow): SessionRecord => ({
  idHash: r.id_hash,
  kind: r.kind,
  userId: r.user_id,
  accountId: r.account_id,
  createdAt: Number(r.created_at),
  lastSeenAt: Number(r.last_seen_at),
  expiresAt: Number(r.expires_at),
})

const toToken = (r: TokenRow): EmailTokenRecord => ({
  hash: r.hash,
  kind: r.kind,
  userId: r.user_id,
  email: r.email,
  accountId: r.account_id,
  role: r.role,
  createdBy: r.created_by,
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  usedAt: msOrNull(r.used_at),
})

const USER_COLUMNS = 'id, email, password_hash, email_verified_at, created_at, disabled_at'
const INSERT_MEMBERSHIP = `INSERT INTO memberships (account_id, user_id, role, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`
const FAILURES = 'failures, window_start::text AS since'


const toWindow = (row: { failures: number; since: string }): FailureWindow => ({ failures: row.failures, since: Number(row.since) })

export function createPgIdentityStore(pool: PgPool): IdentityStore {
  /**
   * A change to an account's members that must leave an owner: the account's row is locked first, so
   * changes to one account's members queue, and two owners demoting each other at once cannot both
   * succeed.
   */
  const changeMembers = (accountId: string, userId: string, role: Role | null): Promise<MembershipChange> =>
    inTransaction(pool, async (client) => {
      await client.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId])
      const { rows } = await client.query<{ role: Role; owners: number }>(
        `SELECT role, (SELECT count(*)::int FROM memberships WHERE account_id = $1 AND role = 'owner') AS owners
         FROM memberships WHERE account_id = $1 AND user_id = $2`,
        [accountId, userId],
      )
      const current = rows[0]
      if (current === undefined) return 'not-member'
      if (current.role === 'owner' && role !== 'owner' && current.owners <= 1) return 'last-owner'
      if (role === null) await client.query('DELETE FROM memberships WHERE account_id = $1 AND user_id = $2', [accountId, userId])
      else await client.query('UPDATE memberships SET role = $1 WHERE account_id = $2 AND user_id = $3', [role, accountId, userId])
      return 'done'
    })

  return {
    async createUser(user, memberships = []) {
      return inTransaction(pool, async (client) => {
        const inserted = await client.query(
          `INSERT INTO users (${USER_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
          [user.id, user.email, user.passwordHash, user.emailVerifiedAt, user.createdAt, user.disabledAt],
        )
        if (inserted.rowCount !== 1) return false
        for (const m of memberships) await client.query(INSERT_MEMBERSHIP, [m.accountId, user.id, m.role, user.createdAt])
        return true
      })
    },
    async getUser(id) {
      const { rows } = await pool.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id])
      return rows[0] && toUser(rows[0])
    },
    async findUserByEmail(email) {
      // lower(email) is what the unique index holds: the lookup uses it.
      const { rows } = await pool.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE lower(email) = lower($1)`, [email])
      return rows[0] && toUser(rows[0])
    },
    async setPasswordHash(userId, passwordHash) {
      const r = await pool.query('UPDATE users SET password_hash = $1 WHERE id = $2', [passwordHash, userId])
      return r.rowCount === 1
    },
    async setEmailVerified(userId, at) {
      await pool.query('UPDATE users SET email_verified_at = $1 WHERE id = $2 AND email_verified_at IS NULL', [at, userId])
    },

    async addMembership(m) {
      const r = await pool.query(INSERT_MEMBERSHIP, [m.accountId, m.userId, m.role, m.createdAt])
      return r.rowCount === 1
    },
    async listMemberships(userId) {
      const { rows } = await pool.query<MembershipRow & { accountName: string }>(
        `SELECT m.account_id AS "accountId", m.user_id AS "userId", m.role, m.created_at AS "createdAt", a.name AS "accountName"
         FROM memberships m JOIN accounts a ON a.id = m.account_id
         WHERE m.user_id = $1 ORDER BY m.created_at, m.seq`,
        [userId],
      )
      return rows.map((r): UserMembership => ({ ...r, createdAt: Number(r.createdAt) }))
    },
    async listMembers(accountId) {
      const { rows } = await pool.query<MembershipRow & { email: string; emailVerifiedAt: string | null }>(
        `SELECT m.account_id AS "accountId", m.user_id AS "userId", m.role, m.created_at AS "createdAt",
                u.email, u.email_verified_at AS "emailVerifiedAt"
         FROM memberships m JOIN users u ON u.id = m.user_id
         WHERE m.account_id = $1 ORDER BY m.created_at, m.seq`,
        [accountId],
      )
      return rows.map((r): AccountMember => ({ ...r, createdAt: Number(r.createdAt), emailVerifiedAt: msOrNull(r.emailVerifiedAt) }))
    },
    removeMembership: (accountId, userId) => changeMembers(accountId, userId, null),
    setRole: (accountId, userId, role) => changeMembers(accountId, userId, role),

    async createSession(s) {
      await pool.query(
        `INSERT INTO console_sessions (id_hash, kind, user_id, account_id, created_at, last_seen_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [s.idHash, s.kind, s.userId, s.accountId, s.createdAt, s.lastSeenAt, s.expiresAt],
      )
    },
    async getSession(idHash) {
      const { rows } = await pool.query<SessionRow>(
        'SELECT id_hash, kind, user_id, account_id, created_at, last_seen_at, expires_at FROM console_sessions WHERE id_hash = $1',
        [idHash],
      )
      return rows[0] && toSession(rows[0])
    },
    async touchSession(idHash, lastSeenAt, expiresAt) {
      await pool.query('UPDATE console_sessions SET last_seen_at = $1, expires_at = $2 WHERE id_hash = $3', [lastSeenAt, expiresAt, idHash])
    },
    async setSessionAccount(idHash, accountId) {
      await pool.query('UPDATE console_sessions SET account_id = $1 WHERE id_hash = $2', [accountId, idHash])
    },
    async deleteSession(idHash) {
      await pool.query('DELETE FROM console_sessions WHERE id_hash = $1', [idHash])
    },
    async deleteUserSessions(userId) {
      const r = await pool.query('DELETE FROM console_sessions WHERE user_id = $1', [userId])
      return r.rowCount ?? 0
    },

    async createToken(t) {
      await pool.query(
        `INSERT INTO email_tokens (hash, kind, user_id, email, account_id, role, created_by, created_at, expires_at, used_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [t.hash, t.kind, t.userId, t.email, t.accountId, t.role, t.createdBy, t.createdAt, t.expiresAt, t.usedAt],
      )
    },
    async findToken(hash, kind, at) {
      const { rows } = await pool.query<TokenRow>(
        'SELECT * FROM email_tokens WHERE hash = $1 AND kind = $2 AND used_at IS NULL AND expires_at > $3',
        [hash, kind, at],
      )
      return rows[0] && toToken(rows[0])
    },
    async useToken(hash, kind, at) {
      // One statement: of two callers racing for a token, the second finds used_at set and gets nothing.
      const { rows } = await pool.query<TokenRow>(
        'UPDATE email_tokens SET used_at = $3 WHERE hash = $1 AND kind = $2 AND used_at IS NULL AND expires_at > $3 RETURNING *',
        [hash, kind, at],
      )
      return rows[0] && toToken(rows[0])
    },
    async revokeUserTokens(userId, kind, at) {
      await pool.query('UPDATE email_tokens SET used_at = $1 WHERE user_id = $2 AND kind = $3 AND used_at IS NULL', [at, userId, kind])
    },
    async openInvitations(accountId, at) {
      const { rows } = await pool.query<TokenRow>(
        "SELECT * FROM email_tokens WHERE kind = 'invite' AND account_id = $1 AND used_at IS NULL AND expires_at > $2 ORDER BY created_at, hash",
        [accountId, at],
      )
      return rows.map(toToken)
    },
    async revokeInvitation(accountId, hash, at) {
      const { rowCount } = await pool.query(
        "UPDATE email_tokens SET used_at = $3 WHERE hash = $1 AND kind = 'invite' AND account_id = $2 AND used_at IS NULL AND expires_at > $3",
        [hash, accountId, at],
      )
      return (rowCount ?? 0) > 0
    },
    async revokeInvitationsBy(accountId, userId, at) {
      await pool.query("UPDATE email_tokens SET used_at = $3 WHERE kind = 'invite' AND account_id = $1 AND created_by = $2 AND used_at IS NULL", [accountId, userId, at])
    },

    async addFailure(key, at, windowMs) {
      const { rows } = await pool.query<{ failures: number; since: string }>(
        `INSERT INTO sign_in_failures AS f (key, window_start, failures) VALUES ($1, $2, 1)
         ON CONFLICT (key) DO UPDATE SET
           failures = CASE WHEN f.window_start <= $2::bigint - $3::bigint THEN 1 ELSE f.failures + 1 END,
           window_start = CASE WHEN f.window_start <= $2::bigint - $3::bigint THEN $2::bigint ELSE f.window_start END
         RETURNING ${FAILURES}`,
        [key, at, windowMs],
      )
      return toWindow(rows[0] as { failures: number; since: string })
    },
    async failures(key, at, windowMs) {
      const { rows } = await pool.query<{ failures: number; since: string }>(
        `SELECT ${FAILURES} FROM sign_in_failures WHERE key = $1 AND window_start > $2::bigint - $3::bigint`,
        [key, at, windowMs],
      )
      return rows[0] ? toWindow(rows[0]) : { failures: 0, since: at }
    },
    async clearFailures(key) {
      await pool.query('DELETE FROM sign_in_failures WHERE key = $1', [key])
    },

    async purge(at, windowMs) {
      await inTransaction(pool, async (client) => {
        await client.query('DELETE FROM console_sessions WHERE expires_at <= $1', [at])
        await client.query('DELETE FROM email_tokens WHERE expires_at <= $1 OR used_at IS NOT NULL', [at])
        await client.query('DELETE FROM sign_in_failures WHERE window_start <= $1::bigint - $2::bigint', [at, windowMs])
      })
    },
    // The pool belongs to the container, which ends it after every adapter has stopped.
    async close() {},
  }
}
