/**
 * The console's people: users, their memberships of accounts, console sessions, one-time email tokens
 * and failed sign-in counters. Session ids and tokens reach the store only as SHA-256 hashes; emails
 * arrive lower-cased from the service, and are matched case-insensitively all the same.
 */
export type Role = 'owner' | 'member'
export type EmailTokenKind = 'verify' | 'reset' | 'invite'

export interface UserRecord {
  id: string
  email: string
  passwordHash: string
  emailVerifiedAt: number | null
  createdAt: number
  disabledAt: number | null
}

export interface MembershipRecord {
  accountId: string
  userId: string
  role: Role
  createdAt: number
}

/** A user's membership with the account's name, as a user's list of accounts shows it. */
export interface UserMembership extends MembershipRecord {
  accountName: string
}

/** An account's member with their address, as the account's members page shows them. */
export interface AccountMember extends MembershipRecord {
  email: string
  emailVerifiedAt: number | null
}

export interface SessionRecord {
  idHash: string
  kind: 'user' | 'operator'
  /** Null for an operator's session. */
  userId: string | null
  /** The account the user is looking at; null for an operator, or a user without accounts. */
  accountId: string | null
  createdAt: number
  lastSeenAt: number
  expiresAt: number
}

export interface EmailTokenRecord {
  hash: string
  kind: EmailTokenKind
  /** The user a verify or reset token is for. */
  userId: string | null
  /** The address an invitation was sent to. */
  email: string | null
  /** The account and role an invitation offers. */
  accountId: string | null
  role: Role | null
  /** The user who sent an invitation. */
  createdBy: string | null
  createdAt: number
  expiresAt: number
  usedAt: number | null
}

/** Failures counted under one key in the window that began at `since` (0 failures: no window open). */
export interface FailureWindow {
  failures: number
  since: number
}

/** What a change to an account's members did; an account keeps at least one owner. */
export type MembershipChange = 'done' | 'not-member' | 'last-owner'

export interface IdentityStore {
  /** Creates a user with their first memberships in one transaction; false when the email is taken. */
  createUser(user: UserRecord, memberships?: { accountId: string; role: Role }[]): Promise<boolean>
  /** The user with this id. */
  getUser(id: string): Promise<UserRecord | undefined>
  /** The user with this email, whatever its case. */
  findUserByEmail(email: string): Promise<UserRecord | undefined>
  /** Replaces a user's password hash; false for an unknown user. */
  setPasswordHash(userId: string, passwordHash: string): Promise<boolean>
  /** Records when a user's address was proven theirs (kept when it was already). */
  setEmailVerified(userId: string, at: number): Promise<void>

  /** Adds a user to an account; false when they are a member already (their role is kept). */
  addMembership(membership: MembershipRecord): Promise<boolean>
  /** A user's accounts, oldest membership first. */
  listMemberships(userId: string): Promise<UserMembership[]>
  /** An account's members, oldest first. */
  listMembers(accountId: string): Promise<AccountMember[]>
  /** Removes a member, unless they are the account's last owner (checked and done atomically). */
  removeMembership(accountId: string, userId: string): Promise<MembershipChange>
  /** Changes a member's role, unless that leaves the account without an owner (atomically). */
  setRole(accountId: string, userId: string, role: Role): Promise<MembershipChange>

  /** Stores a new session. */
  createSession(session: SessionRecord): Promise<void>
  /** The session with this id hash, expired or not. */
  getSession(idHash: string): Promise<SessionRecord | undefined>
  /** Slides a session's idle expiry. */
  touchSession(idHash: string, lastSeenAt: number, expiresAt: number): Promise<void>
  /** Points a session at another account. */
  setSessionAccount(idHash: string, accountId: string | null): Promise<void>
  /** Ends one session. */
  deleteSession(idHash: string): Promise<void>
  /** Ends every session of a user (a password reset); returns how many. */
  deleteUserSessions(userId: string): Promise<number>

  /** Stores a new email token. */
  createToken(token: EmailTokenRecord): Promise<void>
  /** The token with this hash and kind while it is unused and unexpired at `at`. */
  findToken(hash: string, kind: EmailTokenKind, at: number): Promise<EmailTokenRecord | undefined>
  /** Marks a live token used and returns it; undefined when it was not live (so only one caller gets it). */
  useToken(hash: string, kind: EmailTokenKind, at: number): Promise<EmailTokenRecord | undefined>
  /** Marks every unused token of this kind for a user used (a reset ends the other reset links). */
  revokeUserTokens(userId: string, kind: EmailTokenKind, at: number): Promise<void>
  /** The account's invitations still open at `at` (unused, unexpired), oldest first. */
  openInvitations(accountId: string, at: number): Promise<EmailTokenRecord[]>
  /** Marks the account's open invitation with this hash used; false when there is none. */
  revokeInvitation(accountId: string, hash: string, at: number): Promise<boolean>
  /** Marks every open invitation `userId` sent for the account used. */
  revokeInvitationsBy(accountId: string, userId: string, at: number): Promise<void>

  /** Counts one failure under `key`, opening a new window when none is open at `at`. */
  addFailure(key: string, at: number, windowMs: number): Promise<FailureWindow>
  /** The failures under `key` in the window open at `at`. */
  failures(key: string, at: number, windowMs: number): Promise<FailureWindow>
  /** Forgets the failures under `key`. */
  clearFailures(key: string): Promise<void>

  /** Deletes expired sessions, dead tokens and closed failure windows (older than `windowMs`). */
  purge(at: number, windowMs: number): Promise<void>
  close(): Promise<void>
}
