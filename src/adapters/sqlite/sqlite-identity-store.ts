/** IdentityStore on the embedded SQLite store (migrations/sqlite/011_identity.sql). */
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
import type { SqliteDb } from './database.ts'

interface UserRow {
  id: string
  email: string
  password_hash: string
  email_verified_at: number | null
  created_at: number
  disabled_at: number | null
}

interface SessionRow {
  id_hash: string
  kind: SessionRecord['kind']
  user_id: string | null
  account_id: string | null
  created_at: number
  last_seen_at: number
  expires_at: number
}

interface TokenRow {
  hash: string
  kind: EmailTokenRecord['kind']
  user_id: string | null
  email: string | null
  account_id: string | null
  role: Role | null
  created_by: string | null
  created_at: number
  expires_at: number
  used_at: number | null
}

const toUser = (r: UserRow): UserRecord => ({
  id: r.id,
  email: r.email,
  passwordHash: r.password_hash,
  emailVerifiedAt: r.email_verified_at,
  createdAt: r.created_at,
  disabledAt: r.disabled_at,
})

const toSession = (r: SessionRow): SessionRecord => ({
  idHash: r.id_hash,
  kind: r.kind,
  userId: r.user_id,
  accountId: r.account_id,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
  expiresAt: r.expires_at,
})

const toToken = (r: TokenRow): EmailTokenRecord => ({
  hash: r.hash,
  kind: r.kind,
  userId: r.user_id,
  email: r.email,
  accountId: r.account_id,
  role: r.role,
  createdBy: r.created_by,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  usedAt: r.used_at,
})

export function createSqliteIdentityStore(db: SqliteDb): IdentityStore {
  const insertUser = db.prepare(
    `INSERT INTO users (id, email, password_hash, email_verified_at, created_at, disabled_at)
     VALUES (@id, @email, @passwordHash, @emailVerifiedAt, @createdAt, @disabledAt)
     ON CONFLICT DO NOTHING`,
  )
  const insertMembership = db.prepare(
    `INSERT INTO memberships (account_id, user_id, role, created_at) VALUES (@accountId, @userId, @role, @createdAt)
     ON CONFLICT DO NOTHING`,
  )
  const selectUser = db.prepare('SELECT * FROM users WHERE id = ?')
  // The column's NOCASE collation makes this match whatever the case.
  const selectUserByEmail = db.prepare('SELECT * FROM users WHERE email = ?')
  const updatePassword = db.prepare('UPDATE users SET password_hash = ? WHERE id = ?')
  const updateVerified = db.prepare('UPDATE users SET email_verified_at = ? WHERE id = ? AND email_verified_at IS NULL')
  const selectMemberships = db.prepare(
    `SELECT m.account_id AS accountId, m.user_id AS userId, m.role, m.created_at AS createdAt, a.name AS accountName
     FROM memberships m JOIN accounts a ON a.id = m.account_id
     WHERE m.user_id = ? ORDER BY m.created_at, m.rowid`,
  )
  const selectMembers = db.prepare(
    `SELECT m.account_id AS accountId, m.user_id AS userId, m.role, m.created_at AS createdAt, u.email, u.email_verified_at AS emailVerifiedAt
     FROM memberships m JOIN users u ON u.id = m.user_id
     WHERE m.account_id = ? ORDER BY m.created_at, m.rowid`,
  )
  const selectRole = db.prepare('SELECT role FROM memberships WHERE account_id = ? AND user_id = ?').pluck()
  const countOwners = db.prepare("SELECT count(*) FROM memberships WHERE account_id = ? AND role = 'owner'").pluck()
  const deleteMembership = db.prepare('DELETE FROM memberships WHERE account_id = ? AND user_id = ?')
  const updateRole = db.prepare('UPDATE memberships SET role = ? WHERE account_id = ? AND user_id = ?')
  const insertSession = db.prepare(
    `INSERT INTO console_sessions (id_hash, kind, user_id, account_id, created_at, last_seen_at, expires_at)
     VALUES (@idHash, @kind, @userId, @accountId, @createdAt, @lastSeenAt, @expiresAt)`,
  )
  const selectSession = db.prepare('SELECT * FROM console_sessions WHERE id_hash = ?')
  const updateSeen = db.prepare('UPDATE console_sessions SET last_seen_at = ?, expires_at = ? WHERE id_hash = ?')
  const updateSessionAccount = db.prepare('UPDATE console_sessions SET account_id = ? WHERE id_hash = ?')
  const deleteSessionStmt = db.prepare('DELETE FROM console_sessions WHERE id_hash = ?')
  const deleteUserSessionsStmt = db.prepare('DELETE FROM console_sessions WHERE user_id = ?')
  const insertToken = db.prepare(
    `INSERT INTO email_tokens (hash, kind, user_id, email, account_id, role, created_by, created_at, expires_at, used_at)
     VALUES (@hash, @kind, @userId, @email, @accountId, @role, @createdBy, @createdAt, @expiresAt, @usedAt)`,
  )
  const selectLiveToken = db.prepare('SELECT * FROM email_tokens WHERE hash = ? AND kind = ? AND used_at IS NULL AND expires_at > ?')
  const consumeToken = db.prepare(
    'UPDATE email_tokens SET used_at = @at WHERE hash = @hash AND kind = @kind AND used_at IS NULL AND expires_at > @at RETURNING *',
  )
  const revokeTokens = db.prepare('UPDATE email_tokens SET used_at = ? WHERE user_id = ? AND kind = ? AND used_at IS NULL')
  const selectInvitations = db.prepare(
    "SELECT * FROM email_tokens WHERE kind = 'invite' AND account_id = ? AND used_at IS NULL AND expires_at > ? ORDER BY created_at, hash",
  )
  const revokeInvitationsByStmt = db.prepare("UPDATE email_tokens SET used_at = ? WHERE kind = 'invite' AND account_id = ? AND created_by = ? AND used_at IS NULL")
  const revokeInvitationStmt = db.prepare(
    "UPDATE email_tokens SET used_at = ? WHERE hash = ? AND kind = 'invite' AND account_id = ? AND used_at IS NULL AND expires_at > ?",
  )
  // Every SET expression reads the row as it was, so both CASEs see the old window.
  const countFailure = db.prepare(
    `INSERT INTO sign_in_failures (key, window_start, failures) VALUES (@key, @at, 1)
     ON CONFLICT (key) DO UPDATE SET
       failures = CASE WHEN window_start <= @at - @windowMs THEN 1 ELSE failures + 1 END,
       window_start = CASE WHEN window_start <= @at - @windowMs THEN @at ELSE window_start END
     RETURNING failures, window_start AS since`,
  )
  const selectFailures = db.prepare('SELECT failures, window_start AS since FROM sign_in_failures WHERE key = ? AND window_start > ?')
  const deleteFailures = db.prepare('DELETE FROM sign_in_failures WHERE key = ?')
  const purgeSessions = db.prepare('DELETE FROM console_sessions WHERE expires_at <= ?')
  const purgeTokens = db.prepare('DELETE FROM email_tokens WHERE expires_at <= ? OR used_at IS NOT NULL')
  const purgeFailures = db.prepare('DELETE FROM sign_in_failures WHERE window_start <= ?')

  const purgeAll = db.transaction((at: number, windowMs: number) => {
    purgeSessions.run(at)
    purgeTokens.run(at)
    purgeFailures.run(at - windowMs)
  })

  const createUserTx = db.transaction((user: UserRecord, memberships: { accountId: string; role: Role }[]) => {
    if (insertUser.run(user).changes === 0) return false
    for (const m of memberships) insertMembership.run({ accountId: m.accountId, userId: user.id, role: m.role, createdAt: user.createdAt })
    return true
  })

  /**
   * A change to an account's members that must leave an owner: checked and made in one immediate
   * (write-locked) transaction, so two owners demoting each other at once cannot both succeed.
   */
  const changeMembers = db.transaction((accountId: string, userId: string, role: Role | null): MembershipChange => {
    const current = selectRole.get(accountId, userId) as Role | undefined
    if (current === undefined) return 'not-member'
    if (current === 'owner' && role !== 'owner' && (countOwners.get(accountId) as number) <= 1) return 'last-owner'
    if (role === null) deleteMembership.run(accountId, userId)
    else updateRole.run(role, accountId, userId)
    return 'done'
  })

  return {
    async createUser(user, memberships = []) {
      return createUserTx.immediate(user, memberships)
    },
    async getUser(id) {
      const row = selectUser.get(id) as UserRow | undefined
      return row && toUser(row)
    },
    async findUserByEmail(email) {
      const row = selectUserByEmail.get(email) as UserRow | undefined
      return row && toUser(row)
    },
    async setPasswordHash(userId, passwordHash) {
      return updatePassword.run(passwordHash, userId).changes === 1
    },
    async setEmailVerified(userId, at) {
      updateVerified.run(at, userId)
    },

    async addMembership(m) {
      return insertMembership.run(m).changes === 1
    },
    async listMemberships(userId) {
      return selectMemberships.all(userId) as UserMembership[]
    },
    async listMembers(accountId) {
      return selectMembers.all(accountId) as AccountMember[]
    },
    async removeMembership(accountId, userId) {
      return changeMembers.immediate(accountId, userId, null)
    },
    async setRole(accountId, userId, role) {
      return changeMembers.immediate(accountId, userId, role)
    },

    async createSession(s) {
      insertSession.run(s)
    },
    async getSession(idHash) {
      const row = selectSession.get(idHash) as SessionRow | undefined
      return row && toSession(row)
    },
    async touchSession(idHash, lastSeenAt, expiresAt) {
      updateSeen.run(lastSeenAt, expiresAt, idHash)
    },
    async setSessionAccount(idHash, accountId) {
      updateSessionAccount.run(accountId, idHash)
    },
    async deleteSession(idHash) {
      deleteSessionStmt.run(idHash)
    },
    async deleteUserSessions(userId) {
      return deleteUserSessionsStmt.run(userId).changes
    },

    async createToken(t) {
      insertToken.run(t)
    },
    async findToken(hash, kind, at) {
      const row = selectLiveToken.get(hash, kind, at) as TokenRow | undefined
      return row && toToken(row)
    },
    async useToken(hash, kind, at) {
      const row = consumeToken.get({ hash, kind, at }) as TokenRow | undefined
      return row && toToken(row)
    },
    async revokeUserTokens(userId, kind, at) {
      revokeTokens.run(at, userId, kind)
    },
    async openInvitations(accountId, at) {
      return (selectInvitations.all(accountId, at) as TokenRow[]).map(toToken)
    },
    async revokeInvitation(accountId, hash, at) {
      return revokeInvitationStmt.run(at, hash, accountId, at).changes > 0
    },
    async revokeInvitationsBy(accountId, userId, at) {
      revokeInvitationsByStmt.run(at, accountId, userId)
    },

    async addFailure(key, at, windowMs) {
      return countFailure.get({ key, at, windowMs }) as FailureWindow
    },
    async failures(key, at, windowMs) {
      return (selectFailures.get(key, at - windowMs) as FailureWindow | undefined) ?? { failures: 0, since: at }
    },
    async clearFailures(key) {
      deleteFailures.run(key)
    },

    async purge(at, windowMs) {
      purgeAll.immediate(at, windowMs)
    },
    async close() {},
  }
}
