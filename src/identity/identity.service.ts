/**
 * The console's people: sign-up, sign-in, sessions, email verification, password resets, invitations
 * and members, and the operator's sign-in. Every secret (session ids, the tokens in mailed links) is
 * 32 random bytes, handed out once and stored only as its SHA-256. Answers never tell whether an email
 * belongs to a user: sign-in refuses alike, a reset request always answers the same.
 * Long because each flow (sign-up, sessions, mailed links, members) shares the same token and
 * throttle helpers; they are kept together so the rules on secrets stay in one place.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { AccountsService, CreatedKey } from '../domain/accounts/accounts.service.ts'
import { firstCodePoints } from '../domain/code-points.ts'
import { ApiError, invalidParameter, isApiError, missingParameter } from '../domain/errors.ts'
import type { AccountRecord } from '../ports/account-store.ts'
import type { Clock } from '../ports/clock.ts'
import type { EmailTokenKind, EmailTokenRecord, IdentityStore, MembershipChange, Role, SessionRecord, UserRecord } from '../ports/identity-store.ts'
import { normalizeEmail } from './email-address.ts'
import { consoleLink, invitationMail, resetMail, signUpAttemptMail, verificationMail, type MailMessage, type Mailer } from './mailer.ts'
import { hashPassword, needsRehash, passwordProblem, SALT_BYTES, verifyPassword } from './passwords.ts'
import {
  countAttempt,
  FAILURE_WINDOW_MS,
  failureKey,
  MAX_FAILURES_PER_ADDRESS,
  MAX_FAILURES_PER_EMAIL,
  MAX_INVITES_PER_ACCOUNT,
  MAX_INVITES_PER_EMAIL,
  refuseIfThrottled,
} from './sign-in-throttle.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR

/** A user's session ends after this long without a visit. */
export const SESSION_IDLE_MS = 14 * DAY
/** A visit moves a session's expiry at most this often: not a write for every page. */
export const SESSION_TOUCH_MS = HOUR
/** An operator's session ends this long after sign-in, visits or not. */
export const OPERATOR_SESSION_MS = 12 * HOUR
export const TOKEN_VALID_MS: Readonly<Record<EmailTokenKind, number>> = { verify: 48 * HOUR, reset: HOUR, invite: 7 * DAY }
/** Reset mails one address may be sent per window, however often they are asked for. */
export const MAX_RESET_MAILS = 5
export const DEMO_EMAIL = 'demo@pronet.local'
/** Longer passwords are refused at sign-in without hashing them (no policy allows them). */
const MAX_SIGN_IN_PASSWORD = 1024
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const GENERATED_PASSWORD_LENGTH = 24
/** What a session id and a mailed token look like: 32 bytes in base64url. */
const SECRET_SHAPE = /^[A-Za-z0-9_-]{43}$/

export type SignupMode = 'open' | 'invite' | 'closed'

export interface IdentityDeps {
  store: IdentityStore
  accounts: AccountsService
  clock: Clock
  /** Source of randomness (crypto.randomBytes in production). */
  randomBytes: (n: number) => Buffer
  mailer: Mailer
  /** The console's address, without a trailing slash: the mailed links start with it. */
  publicUrl: string
  signup: SignupMode
  /** PRONET_ADMIN_TOKEN; without it there is no operator sign-in. */
  adminToken?: string | undefined
  /** Hears of a message that could not be sent (never its link). */
  onMailError?: (failure: { kind: string; error: string }) => void
}

/** A session just begun: `id` goes into the cookie and is not kept anywhere else. */
export interface NewSession {
  id: string
  expiresAt: number
}

export interface AccountChoice {
  accountId: string
  accountName: string
  role: Role
}

export interface UserSession {
  kind: 'user'
  user: { id: string; email: string; emailVerified: boolean }
  /** Every account of the user, oldest membership first. */
  memberships: AccountChoice[]
  /** The account being looked at; undefined for a user who belongs to none. */
  account: AccountChoice | undefined
  expiresAt: number
}

export interface OperatorSession {
  kind: 'operator'
  expiresAt: number
}

export type ConsoleSession = UserSession | OperatorSession

export interface SignedUp {
  user: { id: string; email: string }
  account: AccountRecord
  /** The account's first key: shown once, never stored in plain. */
  apiKey: CreatedKey
  session: NewSession
}

export interface InvitationView {
  email: string
  accountId: string
  accountName: string
  role: Role
  expiresAt: number
  /** Whether the address is a user's already (they join; no password to choose). */
  existingUser: boolean
}

/** An invitation not yet accepted, as its account's owners see it. */
export interface OpenInvitation {
  id: string
  email: string
  role: Role
  /** The email of the owner who sent it. */
  invitedBy: string
  sentAt: number
  expiresAt: number
}

export interface AcceptedInvitation {
  userId: string
  accountId: string
  role: Role
  /** A new user was created (and signed in). */
  created: boolean
  /** The user was a member of the account already; their role is kept. */
  alreadyMember: boolean
  /** For a new user only: an existing user signs in with their own password. */
  session: NewSession | undefined
}

export interface MemberView {
  userId: string
  email: string
  role: Role
  emailVerified: boolean
  since: number
}

export interface CreatedUser {
  user: { id: string; email: string }
  accountId: string
  role: Role
  /** The generated password when none was given: shown once. */
  password: string | undefined
  /** The first key of the account made for the user, when none was named: shown once. */
  apiKey: CreatedKey | undefined
}

export type IdentityService = ReturnType<typeof createIdentityService>

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex')

const invalidToken = (): ApiError => invalidParameter('token', 'the link is not valid, was used already or has expired; ask for a new one.')
const wrongCredentials = (): ApiError => new ApiError('UNAUTHENTICATED', 'The email or the password is not right.')
const notSignedIn = (): ApiError => new ApiError('UNAUTHENTICATED', 'Sign in first; the session has ended.')
const ownersOnly = (): ApiError => new ApiError('FORBIDDEN', 'Only an owner of this account can do this.')
const withdrawnInvitation = (): ApiError =>
  invalidParameter('token', 'the invitation was withdrawn: whoever sent it is no longer an owner of the account; ask an owner for a new one.')

function membershipRefusal(change: MembershipChange): void {
  if (change === 'not-member') throw new ApiError('NOT_FOUND', 'That user is not a member of this account.')
  if (change === 'last-owner') throw new ApiError('FORBIDDEN', 'An account keeps at least one owner: make another member an owner first.')
}

function mustEmail(raw: string, parameter = 'email'): string {
  const email = typeof raw === 'string' ? normalizeEmail(raw) : undefined
  if (email === undefined) throw invalidParameter(parameter, 'must be an email address (name@example.com).')
  return email
}

function mustPassword(password: string, parameter = 'password'): void {
  if (typeof password !== 'string' || password === '') throw missingParameter(parameter)
  const problem = passwordProblem(password)
  if (problem !== undefined) throw invalidParameter(parameter, problem)
}

function mustRole(role: string): asserts role is Role {
  if (role !== 'owner' && role !== 'member') throw invalidParameter('role', "must be 'owner' or 'member'.")
}

export function createIdentityService(deps: IdentityDeps) {
  const { store, accounts, clock, publicUrl } = deps
  const secret = () => deps.randomBytes(32).toString('base64url')
  const newId = (prefix: string) => `${prefix}_${deps.randomBytes(9).toString('base64url')}`
  const newHash = (password: string) => hashPassword(password, deps.randomBytes(SALT_BYTES))
  /**
   * 24 letters and digits (about 143 random bits): no '-' or '_', which would stop a double-click
   * from selecting the whole password, or read as an option when pasted after a command.
   */
  function generatedPassword(): string {
    let out = ''
    while (out.length < GENERATED_PASSWORD_LENGTH) {
      // 248 = 4 × 62: bytes past it are dropped so that every character is equally likely.
      for (const b of deps.randomBytes(32)) if (b < 248 && out.length < GENERATED_PASSWORD_LENGTH) out += ALPHANUMERIC[b % 62]
    }
    return out
  }
  // An unknown email is checked against this hash of a password nobody knows, so that it takes as long
  // to refuse as a wrong password does.
  let decoy: Promise<string> | undefined
  const decoyHash = () => (decoy ??= newHash(secret()))

  /** Sends without waiting: an answer that waited for the mail server would be slower exactly when an address is a user's. */
  function deliver(kind: string, message: MailMessage): void {
    let sending: Promise<void>
    try {
      sending = deps.mailer.send(message)
    } catch (e) {
      sending = Promise.reject(e)
    }
    sending.catch((e: unknown) => deps.onMailError?.({ kind, error: e instanceof Error ? e.message : String(e) }))
  }

  async function issueToken(
    kind: EmailTokenKind,
    fields: Partial<Pick<EmailTokenRecord, 'userId' | 'email' | 'accountId' | 'role' | 'createdBy'>>,
  ): Promise<{ token: string; expiresAt: number }> {
    const token = secret()
    const now = clock.now()
    const expiresAt = now + TOKEN_VALID_MS[kind]
    await store.createToken({
      hash: sha256(token),
      kind,
      userId: fields.userId ?? null,
      email: fields.email ?? null,
      accountId: fields.accountId ?? null,
      role: fields.role ?? null,
      createdBy: fields.createdBy ?? null,
      createdAt: now,
      expiresAt,
      usedAt: null,
    })
    return { token, expiresAt }
  }

  const tokenHash = (token: string): string | undefined => (typeof token === 'string' && SECRET_SHAPE.test(token) ? sha256(token) : undefined)

  /** Consumes a live token of `kind` (once: a second call gets nothing), or refuses the link. */
  async function useToken(token: string, kind: EmailTokenKind): Promise<EmailTokenRecord> {
    const hash = tokenHash(token)
    const record = hash === undefined ? undefined : await store.useToken(hash, kind, clock.now())
    if (record === undefined) throw invalidToken()
    return record
  }

  /** A live token of `kind`, not consumed; undefined when its link does not work. */
  async function findLive(token: string, kind: EmailTokenKind): Promise<EmailTokenRecord | undefined> {
    const hash = tokenHash(token)
    return hash === undefined ? undefined : store.findToken(hash, kind, clock.now())
  }

  /**
   * Whether whoever sent an invitation is an owner of its account still: an owner removed or made a
   * member takes back the invitations they sent, which no owner left could otherwise see coming.
   */
  async function senderOwns(record: EmailTokenRecord): Promise<boolean> {
    if (record.createdBy === null || record.accountId === null) return false
    const accountId = record.accountId
    return (await store.listMemberships(record.createdBy)).some((m) => m.accountId === accountId && m.role === 'owner')
  }

  /** A live invitation, not consumed. */
  async function liveInvitation(token: string): Promise<EmailTokenRecord & { email: string; accountId: string; role: Role }> {
    const record = await findLive(token, 'invite')
    if (record === undefined || record.email === null || record.accountId === null || record.role === null) throw invalidToken()
    if (!(await senderOwns(record))) throw withdrawnInvitation()
    return { ...record, email: record.email, accountId: record.accountId, role: record.role }
  }

  async function sendVerification(user: { id: string; email: string }): Promise<void> {
    const { token } = await issueToken('verify', { userId: user.id })
    deliver('verify', verificationMail(user.email, consoleLink(publicUrl, 'verify', token), TOKEN_VALID_MS.verify))
  }

  async function startSession(kind: SessionRecord['kind'], userId: string | null, accountId: string | null): Promise<NewSession> {
    const id = secret()
    const now = clock.now()
    const expiresAt = now + (kind === 'operator' ? OPERATOR_SESSION_MS : SESSION_IDLE_MS)
    await store.createSession({ idHash: sha256(id), kind, userId, accountId, createdAt: now, lastSeenAt: now, expiresAt })
    return { id, expiresAt }
  }

  /** The stored session behind a cookie's id while it lasts; an expired one is deleted on sight. */
  async function liveSession(sessionId: string): Promise<SessionRecord | undefined> {
    const hash = tokenHash(sessionId)
    if (hash === undefined) return undefined
    const record = await store.getSession(hash)
    if (record === undefined) return undefined
    if (record.expiresAt <= clock.now()) {
      await store.deleteSession(hash)
      return undefined
    }
    return record
  }

  async function mustBeOwner(accountId: string, userId: string): Promise<void> {
    const memberships = await store.listMemberships(userId)
    if (!memberships.some((m) => m.accountId === accountId && m.role === 'owner')) throw ownersOnly()
  }

  /** accounts.create, with the name's refusal naming the sign-up form's field. */
  async function createAccount(name: string): Promise<{ account: AccountRecord; apiKey: CreatedKey }> {
    try {
      // The key is named as the sign-up page shows it, so the keys page and the operator's say the same.
      return await accounts.create({ name, plan: 'free', firstKey: { name: 'First key' } })
    } catch (e) {
      if (isApiError(e) && e.code === 'INVALID_PARAMETER' && e.details?.parameter === 'name') {
        throw new ApiError('INVALID_PARAMETER', e.message.replace("'name'", "'accountName'"), { parameter: 'accountName' })
      }
      throw e
    }
  }

  /**
   * The answer to a sign-up with an address that is a user's already. It cannot be the answer of a
   * sign-up that worked, so it says no more than that the address cannot be used; the address's owner
   * is told by mail, and the attempt counts against the client address as a failed sign-in does.
   */
  async function refuseTakenEmail(email: string, address: string | undefined): Promise<never> {
    if (address !== undefined) await store.addFailure(failureKey('address', address), clock.now(), FAILURE_WINDOW_MS)
    deliver('signup-attempt', signUpAttemptMail(email, `${publicUrl}/console/`))
    throw invalidParameter('email', 'cannot be used to sign up. If it is your address, sign in or reset your password; a message has been sent to it.')
  }

  async function session(sessionId: string): Promise<ConsoleSession | undefined> {
    const record = await liveSession(sessionId)
    if (record === undefined) return undefined
    if (record.kind === 'operator') return deps.adminToken === undefined ? undefined : { kind: 'operator', expiresAt: record.expiresAt }
    const user = record.userId === null ? undefined : await store.getUser(record.userId)
    if (user === undefined || user.disabledAt !== null) return undefined
    const now = clock.now()
    let expiresAt = record.expiresAt
    if (now - record.lastSeenAt >= SESSION_TOUCH_MS) {
      expiresAt = now + SESSION_IDLE_MS
      await store.touchSession(record.idHash, now, expiresAt)
    }
    const memberships = (await store.listMemberships(user.id)).map(({ accountId, accountName, role }) => ({ accountId, accountName, role }))
    return {
      kind: 'user',
      user: { id: user.id, email: user.email, emailVerified: user.emailVerifiedAt !== null },
      memberships,
      // An account the user was removed from gives way to their first.
      account: memberships.find((m) => m.accountId === record.accountId) ?? memberships[0],
      expiresAt,
    }
  }

  return {
    /**
     * Creates a user, an account on the free plan with its first key, and the owner membership; sends
     * the verification mail and begins a session. `address` (the client's) counts a refused address
     * against it as a failed sign-in.
     */
    async signUp(input: { email: string; password: string; accountName?: string; address?: string }): Promise<SignedUp> {
      if (deps.signup === 'closed') throw new ApiError('FORBIDDEN', 'Sign-up is closed on this service; ask its operator for an account.')
      if (deps.signup === 'invite') {
        throw new ApiError('FORBIDDEN', 'Sign-up is by invitation only on this service: open the link in the invitation you received.')
      }
      const email = mustEmail(input.email)
      mustPassword(input.password)
      if (input.address !== undefined) await refuseIfThrottled(store, failureKey('address', input.address), MAX_FAILURES_PER_ADDRESS, clock.now())
      // Hashed before the address is looked up, so that a taken address is refused as slowly as a new one is accepted.
      const passwordHash = await newHash(input.password)
      if ((await store.findUserByEmail(email)) !== undefined) return refuseTakenEmail(email, input.address)
      const created = await createAccount(input.accountName ?? firstCodePoints(email, 200))
      const user: UserRecord = { id: newId('usr'), email, passwordHash, emailVerifiedAt: null, createdAt: clock.now(), disabledAt: null }
      if (!(await store.createUser(user, [{ accountId: created.account.id, role: 'owner' }]))) {
        // Another sign-up took the address meanwhile: the account made for this one is suspended, its key of no use.
        await accounts.suspend(created.account.id)
        return refuseTakenEmail(email, input.address)
      }
      await sendVerification(user)
      const newSession = await startSession('user', user.id, created.account.id)
      return { user: { id: user.id, email }, account: created.account, apiKey: created.apiKey, session: newSession }
    },

    /**
     * A new session for the right email and password, or one refusal for every wrong pair, whether the
     * email is a user's or not. Throttled per email and per client address (429 with the seconds to
     * wait, even for the right password); a success clears the email's failures.
     */
    async signIn(input: { email: string; password: string; address: string }): Promise<{ userId: string; session: NewSession }> {
      const now = clock.now()
      const email = typeof input.email === 'string' ? input.email.trim().normalize('NFC').toLowerCase() : ''
      const addressKey = failureKey('address', input.address)
      const emailKey = failureKey('email', email)
      await refuseIfThrottled(store, addressKey, MAX_FAILURES_PER_ADDRESS, now)
      await countAttempt(store, emailKey, MAX_FAILURES_PER_EMAIL, now)
      const user = normalizeEmail(email) === undefined ? undefined : await store.findUserByEmail(email)
      const password = typeof input.password === 'string' ? input.password : ''
      const fits = password !== '' && password.length <= MAX_SIGN_IN_PASSWORD
      const matches = fits && (await verifyPassword(password, user?.passwordHash ?? (await decoyHash()))) && user !== undefined
      if (!matches || user === undefined) {
        await store.addFailure(addressKey, now, FAILURE_WINDOW_MS)
        throw wrongCredentials()
      }
      await store.clearFailures(emailKey)
      // Said only to whoever knows the password.
      if (user.disabledAt !== null) throw new ApiError('FORBIDDEN', 'This user is disabled; ask the operator of this service.')
      if (needsRehash(user.passwordHash)) await store.setPasswordHash(user.id, await newHash(password))
      const first = (await store.listMemberships(user.id))[0]
      return { userId: user.id, session: await startSession('user', user.id, first?.accountId ?? null) }
    },

    /** Ends a session (an unknown or ended one is fine). */
    async signOut(sessionId: string): Promise<void> {
      const hash = tokenHash(sessionId)
      if (hash !== undefined) await store.deleteSession(hash)
    },

    /** Who a session is, while it lasts; a user's visit slides its expiry (at most once an hour). */
    session,

    /** Points a user's session at another of their accounts. */
    async switchAccount(sessionId: string, accountId: string): Promise<UserSession> {
      const record = await liveSession(sessionId)
      if (record?.kind !== 'user' || record.userId === null) throw notSignedIn()
      const memberships = await store.listMemberships(record.userId)
      if (!memberships.some((m) => m.accountId === accountId)) throw new ApiError('FORBIDDEN', 'You are not a member of that account.')
      await store.setSessionAccount(record.idHash, accountId)
      const now = await session(sessionId)
      if (now?.kind !== 'user') throw notSignedIn()
      return now
    },

    /** Marks the address of the link's user verified (the link works once). */
    async verifyEmail(token: string): Promise<{ userId: string }> {
      const record = await useToken(token, 'verify')
      if (record.userId === null) throw invalidToken()
      await store.setEmailVerified(record.userId, clock.now())
      return { userId: record.userId }
    },

    /** Sends a new verification link, unless the address is verified already. */
    async resendVerification(userId: string): Promise<void> {
      const user = await store.getUser(userId)
      if (user !== undefined && user.emailVerifiedAt === null) await sendVerification(user)
    },

    /**
     * Mails a reset link when the address is an enabled user's (at most MAX_RESET_MAILS a window);
     * always answers the same, so the answer tells nothing about the address.
     */
    async requestPasswordReset(email: string): Promise<void> {
      const normalized = typeof email === 'string' ? normalizeEmail(email) : undefined
      if (normalized === undefined) return
      const sent = await store.addFailure(failureKey('reset', normalized), clock.now(), FAILURE_WINDOW_MS)
      const user = await store.findUserByEmail(normalized)
      if (user === undefined || user.disabledAt !== null || sent.failures > MAX_RESET_MAILS) return
      const { token } = await issueToken('reset', { userId: user.id })
      deliver('reset', resetMail(user.email, consoleLink(publicUrl, 'reset', token), TOKEN_VALID_MS.reset))
    },

    /** Sets a new password through a reset link (once), ends every session of the user and every other reset link. */
    async resetPassword(token: string, newPassword: string): Promise<{ userId: string; sessionsEnded: number }> {
      mustPassword(newPassword)
      if (tokenHash(token) === undefined) throw invalidToken()
      const passwordHash = await newHash(newPassword)
      const record = await useToken(token, 'reset')
      const user = record.userId === null ? undefined : await store.getUser(record.userId)
      if (user === undefined) throw invalidToken()
      const now = clock.now()
      await store.setPasswordHash(user.id, passwordHash)
      await store.revokeUserTokens(user.id, 'reset', now)
      const sessionsEnded = await store.deleteUserSessions(user.id)
      // The link reached the address: it is the user's.
      await store.setEmailVerified(user.id, now)
      await store.clearFailures(failureKey('email', user.email))
      return { userId: user.id, sessionsEnded }
    },

    /** Whether a reset link still works, without using it (the page that asks for the new password). */
    async resetLinkWorks(token: string): Promise<boolean> {
      return (await findLive(token, 'reset')) !== undefined
    },

    /** An owner invites an address to the account with a role; the link works once, for 7 days. */
    async invite(input: { accountId: string; email: string; role: Role; by: string }): Promise<{ email: string; role: Role; expiresAt: number }> {
      await mustBeOwner(input.accountId, input.by)
      const email = mustEmail(input.email)
      mustRole(input.role)
      const account = await accounts.get(input.accountId)
      if ((await store.listMembers(input.accountId)).some((m) => m.email === email)) {
        throw invalidParameter('email', 'is a member of this account already.')
      }
      const now = clock.now()
      await countAttempt(store, failureKey('invite-account', input.accountId), MAX_INVITES_PER_ACCOUNT, now, 'invitations from this account')
      await countAttempt(store, failureKey('invite-email', email), MAX_INVITES_PER_EMAIL, now, 'invitations to this address')
      const { token, expiresAt } = await issueToken('invite', { email, accountId: input.accountId, role: input.role, createdBy: input.by })
      deliver('invite', invitationMail(email, consoleLink(publicUrl, 'invite', token), account.name, input.role, TOKEN_VALID_MS.invite))
      return { email, role: input.role, expiresAt }
    },

    /**
     * The account's invitations that can still be accepted, oldest first (owners only): each named by
     * its id (the hash of its link, which cannot be turned back into the link).
     */
    async invitations(accountId: string, by: string): Promise<OpenInvitation[]> {
      await mustBeOwner(accountId, by)
      const members = await store.listMembers(accountId)
      const owners = new Set(members.filter((m) => m.role === 'owner').map((m) => m.userId))
      const emails = new Map(members.map((m) => [m.userId, m.email]))
      // Whoever sent one must be an owner still (see senderOwns): the account's owners are at hand.
      return (await store.openInvitations(accountId, clock.now())).flatMap((t) =>
        t.email === null || t.role === null || t.createdBy === null || !owners.has(t.createdBy)
          ? []
          : [{ id: t.hash, email: t.email, role: t.role, invitedBy: emails.get(t.createdBy) ?? '', sentAt: t.createdAt, expiresAt: t.expiresAt }],
      )
    },

    /** An owner withdraws an open invitation: its link stops working. */
    async revokeInvitation(input: { accountId: string; id: string; by: string }): Promise<void> {
      await mustBeOwner(input.accountId, input.by)
      const valid = typeof input.id === 'string' && /^[0-9a-f]{64}$/.test(input.id)
      if (!valid || !(await store.revokeInvitation(input.accountId, input.id, clock.now()))) {
        throw new ApiError('NOT_FOUND', 'There is no such open invitation in this account.')
      }
    },

    /** What an invitation link offers, without using it (the page that asks to accept). */
    async describeInvitation(token: string): Promise<InvitationView> {
      const record = await liveInvitation(token)
      const account = await accounts.get(record.accountId)
      return {
        email: record.email,
        accountId: record.accountId,
        accountName: account.name,
        role: record.role,
        expiresAt: record.expiresAt,
        existingUser: (await store.findUserByEmail(record.email)) !== undefined,
      }
    },

    /**
     * Uses an invitation: the address's user joins the account, or a new user is created with
     * `password` (and signed in) where sign-up is not closed. The link works once.
     */
    async acceptInvitation(token: string, input: { password?: string } = {}): Promise<AcceptedInvitation> {
      const invitation = await liveInvitation(token)
      const { accountId, role, email } = invitation
      const join = async (user: UserRecord): Promise<AcceptedInvitation> => {
        const now = clock.now()
        const added = await store.addMembership({ accountId, userId: user.id, role, createdAt: now })
        await store.setEmailVerified(user.id, now)
        return { userId: user.id, accountId, role, created: false, alreadyMember: !added, session: undefined }
      }
      const existing = await store.findUserByEmail(email)
      if (existing !== undefined) {
        await useToken(token, 'invite')
        return join(existing)
      }
      if (deps.signup === 'closed') {
        throw new ApiError('FORBIDDEN', 'New users are created by the operator of this service: ask them for yours, then open this link again.')
      }
      mustPassword(input.password ?? '')
      const passwordHash = await newHash(input.password ?? '')
      await useToken(token, 'invite')
      const now = clock.now()
      const user: UserRecord = { id: newId('usr'), email, passwordHash, emailVerifiedAt: now, createdAt: now, disabledAt: null }
      if (!(await store.createUser(user, [{ accountId, role }]))) {
        // The address became a user's meanwhile: that user joins.
        const other = await store.findUserByEmail(email)
        if (other === undefined) throw invalidToken()
        return join(other)
      }
      return { userId: user.id, accountId, role, created: true, alreadyMember: false, session: await startSession('user', user.id, accountId) }
    },

    /** An account's members, oldest first. */
    async members(accountId: string): Promise<MemberView[]> {
      return (await store.listMembers(accountId)).map((m) => ({
        userId: m.userId,
        email: m.email,
        role: m.role,
        emailVerified: m.emailVerifiedAt !== null,
        since: m.createdAt,
      }))
    },

    /** An owner removes a member, or a member leaves; the last owner stays. */
    async removeMember(input: { accountId: string; userId: string; by: string }): Promise<void> {
      if (input.by !== input.userId) await mustBeOwner(input.accountId, input.by)
      membershipRefusal(await store.removeMembership(input.accountId, input.userId))
      // Their invitations go with them, for good (not only while they are no owner).
      await store.revokeInvitationsBy(input.accountId, input.userId, clock.now())
    },

    /** An owner changes a member's role; the last owner stays one. */
    async changeRole(input: { accountId: string; userId: string; role: Role; by: string }): Promise<void> {
      mustRole(input.role)
      await mustBeOwner(input.accountId, input.by)
      membershipRefusal(await store.setRole(input.accountId, input.userId, input.role))
      if (input.role !== 'owner') await store.revokeInvitationsBy(input.accountId, input.userId, clock.now())
    },

    /**
     * An operator's session (12 hours, not extended by visits) for the admin token, compared in
     * constant time; wrong tokens are throttled per client address as sign-ins are. 404 without a token
     * configured.
     */
    async operatorSignIn(token: string, address: string): Promise<NewSession> {
      if (deps.adminToken === undefined) throw new ApiError('NOT_FOUND', 'The operator console is not enabled on this service.')
      const key = failureKey('operator', address)
      await countAttempt(store, key, MAX_FAILURES_PER_ADDRESS, clock.now())
      // Digests first: timingSafeEqual needs equal lengths, and the length of the token must not show either.
      const given = createHash('sha256').update(typeof token === 'string' ? token : '').digest()
      const expected = createHash('sha256').update(deps.adminToken).digest()
      if (!timingSafeEqual(given, expected)) throw new ApiError('UNAUTHENTICATED', 'That is not the operator token.')
      await store.clearFailures(key)
      return startSession('operator', null, null)
    },

    /**
     * `pronet users create`: a user (verified: the operator vouches for the address) who joins
     * `accountId` with `role` (default: owner when the account has none yet, else member), or, with no
     * account named, gets a new free account as its owner. A password is generated when none is given.
     */
    async createUser(input: { email: string; password?: string; accountId?: string; role?: Role }): Promise<CreatedUser> {
      const email = mustEmail(input.email)
      if (input.password !== undefined) mustPassword(input.password)
      if (input.role !== undefined) mustRole(input.role)
      if ((await store.findUserByEmail(email)) !== undefined) throw invalidParameter('email', 'is the address of an existing user.')
      const password = input.password ?? generatedPassword()
      const passwordHash = await newHash(password)
      let accountId: string
      let role: Role
      let apiKey: CreatedKey | undefined
      if (input.accountId !== undefined) {
        accountId = (await accounts.get(input.accountId)).id
        role = input.role ?? ((await store.listMembers(accountId)).some((m) => m.role === 'owner') ? 'member' : 'owner')
      } else {
        if (input.role === 'member') throw invalidParameter('role', "a new account's first user is its owner; name an account to add a member to it.")
        const created = await accounts.create({ name: firstCodePoints(email, 200), plan: 'free' })
        accountId = created.account.id
        apiKey = created.apiKey
        role = 'owner'
      }
      const now = clock.now()
      const user: UserRecord = { id: newId('usr'), email, passwordHash, emailVerifiedAt: now, createdAt: now, disabledAt: null }
      if (!(await store.createUser(user, [{ accountId, role }]))) throw invalidParameter('email', 'is the address of an existing user.')
      return { user: { id: user.id, email }, accountId, role, password: input.password === undefined ? password : undefined, apiKey }
    },

    /** `pronet users reset-password`: a new generated password, every session of the user ended. */
    async resetPasswordByOperator(email: string): Promise<{ user: { id: string; email: string }; password: string; sessionsEnded: number }> {
      const normalized = mustEmail(email)
      const user = await store.findUserByEmail(normalized)
      if (user === undefined) throw new ApiError('NOT_FOUND', `No user has the address ${normalized}.`)
      const password = generatedPassword()
      await store.setPasswordHash(user.id, await newHash(password))
      const now = clock.now()
      await store.revokeUserTokens(user.id, 'reset', now)
      const sessionsEnded = await store.deleteUserSessions(user.id)
      await store.clearFailures(failureKey('email', user.email))
      return { user: { id: user.id, email: user.email }, password, sessionsEnded }
    },

    /**
     * The first start's demo user, demo@pronet.local, owner of the demo account, with a generated
     * password for the caller to show once. Run again (a first start resumed), it gives the same user
     * a new password, as the earlier one may never have been shown.
     */
    async createDemoUser(accountId: string): Promise<{ userId: string; email: string; password: string }> {
      const password = generatedPassword()
      const passwordHash = await newHash(password)
      const now = clock.now()
      const existing = await store.findUserByEmail(DEMO_EMAIL)
      if (existing === undefined) {
        const user: UserRecord = { id: newId('usr'), email: DEMO_EMAIL, passwordHash, emailVerifiedAt: now, createdAt: now, disabledAt: null }
        if (await store.createUser(user, [{ accountId, role: 'owner' }])) return { userId: user.id, email: DEMO_EMAIL, password }
      }
      const user = existing ?? (await store.findUserByEmail(DEMO_EMAIL))
      if (user === undefined) throw new Error('the demo user could be neither created nor found')
      await store.setPasswordHash(user.id, passwordHash)
      if (!(await store.addMembership({ accountId, userId: user.id, role: 'owner', createdAt: now }))) await store.setRole(accountId, user.id, 'owner')
      return { userId: user.id, email: DEMO_EMAIL, password }
    },

    /** Deletes ended sessions, used or expired links and closed failure windows (housekeeping; any node may run it). */
    async purge(): Promise<void> {
      await store.purge(clock.now(), FAILURE_WINDOW_MS)
    },
  }
}
