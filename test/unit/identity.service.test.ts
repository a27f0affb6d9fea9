import { createHash, randomBytes } from 'node:crypto'
import { createServer, type AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { openSqlite } from '../../src/adapters/sqlite/database.ts'
import { createSqliteAccountStore } from '../../src/adapters/sqlite/sqlite-account-store.ts'
import { createSqliteIdentityStore } from '../../src/adapters/sqlite/sqlite-identity-store.ts'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { createAccountsService } from '../../src/domain/accounts/accounts.service.ts'
import { isApiError, type ApiError } from '../../src/domain/errors.ts'
import {
  createIdentityService,
  DEMO_EMAIL,
  OPERATOR_SESSION_MS,
  SESSION_IDLE_MS,
  SESSION_TOUCH_MS,
  TOKEN_VALID_MS,
  type SignupMode,
} from '../../src/identity/identity.service.ts'
import { createMailer, defaultFrom, type MailMessage, type Mailer } from '../../src/identity/mailer.ts'
import { FAILURE_WINDOW_MS, MAX_FAILURES_PER_ADDRESS, MAX_FAILURES_PER_EMAIL } from '../../src/identity/sign-in-throttle.ts'

const T0 = Date.UTC(2026, 10, 1, 9)
const PUBLIC_URL = 'https://console.example.com'
const ADMIN_TOKEN = 'Zq8vT3-kw0Lr9-Mx2pNa7'
const PASSWORD = 'correct horse battery'
const HERE = '192.0.2.1'

function setup(opts: { signup?: SignupMode; adminToken?: string; mailer?: Mailer } = {}) {
  const db = openSqlite(':memory:')
  const clock = createManualClock(T0)
  const accountStore = createSqliteAccountStore(db)
  const accounts = createAccountsService({ store: accountStore, clock, randomBytes })
  const store = createSqliteIdentityStore(db)
  const mail: MailMessage[] = []
  const mailErrors: { kind: string; error: string }[] = []
  const identity = createIdentityService({
    store,
    accounts,
    clock,
    randomBytes,
    mailer: opts.mailer ?? { send: async (m) => void mail.push(m) },
    publicUrl: PUBLIC_URL,
    signup: opts.signup ?? 'open',
    adminToken: opts.adminToken,
    onMailError: (f) => mailErrors.push(f),
  })
  const signUp = (email: string, password = PASSWORD) => identity.signUp({ email, password, address: HERE })
  const signIn = (email: string, password = PASSWORD, address = HERE) => identity.signIn({ email, password, address })
  return { db, clock, accounts, accountStore, store, mail, mailErrors, identity, signUp, signIn }
}

/** The ApiError `p` is refused with (fails the test if it resolves or throws something else). */
async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const outcome = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!isApiError(outcome)) throw new Error(`expected an ApiError, got ${outcome === undefined ? 'success' : String(outcome)}`)
  return outcome
}

const tokenOf = (m: MailMessage | undefined): string => {
  if (m === undefined) throw new Error('no such mail')
  const token = new URL(m.link).searchParams.get('token')
  if (token === null) throw new Error(`no token in ${m.link}`)
  return token
}
const lastMailTo = (mail: MailMessage[], to: string, page: string) => [...mail].reverse().find((m) => m.to === to && m.link.includes(`/console/${page}?`))
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

describe('identity service: sign-up', () => {
  it('creates a user, an account on the free plan with its first key, the owner membership and a session; mails a verification link', async () => {
    const { identity, accounts, mail, signUp } = setup()
    const out = await signUp('  Jane.Doe@Example.COM ')
    expect(out.user.email).toBe('jane.doe@example.com')
    expect(out.account).toMatchObject({ plan: 'free', status: 'free', creditsLimit: 1000, suspendedAt: null })
    expect(await accounts.authenticate(out.apiKey.key)).toEqual({ accountId: out.account.id, keyId: out.apiKey.id })
    expect(out.session.expiresAt).toBe(T0 + SESSION_IDLE_MS)
    const session = await identity.session(out.session.id)
    expect(session).toEqual({
      kind: 'user',
      user: { id: out.user.id, email: 'jane.doe@example.com', emailVerified: false },
      memberships: [{ accountId: out.account.id, accountName: out.account.name, role: 'owner' }],
      account: { accountId: out.account.id, accountName: out.account.name, role: 'owner' },
      expiresAt: T0 + SESSION_IDLE_MS,
    })
    expect(mail).toHaveLength(1)
    expect(mail[0]?.to).toBe('jane.doe@example.com')
    expect(mail[0]?.link.startsWith(`${PUBLIC_URL}/console/verify?token=`)).toBe(true)
    expect(mail[0]?.text).toContain(mail[0]?.link)
  })

  it('names the account as asked, and refuses a bad name naming the form field, creating nothing', async () => {
    const { identity, store, db } = setup()
    const named = await identity.signUp({ email: 'a@example.com', password: PASSWORD, accountName: 'Acme Research' })
    expect(named.account.name).toBe('Acme Research')
    const bad = await refusal(identity.signUp({ email: 'b@example.com', password: PASSWORD, accountName: '   ' }))
    expect([bad.code, bad.details]).toEqual(['INVALID_PARAMETER', { parameter: 'accountName' }])
    expect(bad.message).toContain("'accountName'")
    expect(await store.findUserByEmail('b@example.com')).toBeUndefined()
    expect(db.prepare('SELECT count(*) FROM accounts').pluck().get()).toBe(1)
  })

  it('refuses an address that is not one, and a password against the policy, saying why', async () => {
    const { signUp, accountStore } = setup()
    const email = await refusal(signUp('not-an-address'))
    expect([email.code, email.details]).toEqual(['INVALID_PARAMETER', { parameter: 'email' }])
    const short = await refusal(signUp('a@example.com', 'short'))
    expect([short.code, short.details]).toEqual(['INVALID_PARAMETER', { parameter: 'password' }])
    expect(short.message).toContain('at least 10 characters')
    const same = await refusal(signUp('a@example.com', 'zzzzzzzzzzzz'))
    expect(same.message).toContain('one character repeated')
    expect(await accountStore.hasAccounts()).toBe(false)
  })

  it('refuses an address taken in any case without saying it is registered, makes no account, and tells its owner by mail', async () => {
    const { signUp, db, mail } = setup()
    await signUp('jane@example.com')
    const accountsBefore = db.prepare('SELECT count(*) FROM accounts').pluck().get()
    const refused = await refusal(signUp('JANE@Example.com', 'another password'))
    expect([refused.code, refused.details]).toEqual(['INVALID_PARAMETER', { parameter: 'email' }])
    expect(refused.message).not.toMatch(/regist|exist|already|taken|in use/i)
    expect(db.prepare('SELECT count(*) FROM accounts').pluck().get()).toBe(accountsBefore)
    expect(db.prepare('SELECT count(*) FROM users').pluck().get()).toBe(1)
    expect(mail.at(-1)).toMatchObject({ to: 'jane@example.com', subject: 'Someone tried to sign up to pronet with your address' })
  })

  it('signup modes: closed refuses everyone; invite refuses sign-up but an invitation makes a new user', async () => {
    const closed = setup({ signup: 'closed' })
    expect((await refusal(closed.signUp('a@example.com'))).code).toBe('FORBIDDEN')
    expect(await closed.accountStore.hasAccounts()).toBe(false)

    const invite = setup({ signup: 'invite' })
    expect((await refusal(invite.signUp('a@example.com'))).code).toBe('FORBIDDEN')
    const owner = await invite.identity.createUser({ email: 'owner@example.com', password: PASSWORD })
    await invite.identity.invite({ accountId: owner.accountId, email: 'new@example.com', role: 'member', by: owner.user.id })
    const accepted = await invite.identity.acceptInvitation(tokenOf(lastMailTo(invite.mail, 'new@example.com', 'invite')), { password: PASSWORD })
    expect(accepted).toMatchObject({ created: true, role: 'member', accountId: owner.accountId })
    expect((await invite.signIn('new@example.com')).userId).toBe(accepted.userId)
  })

  it('a mail that cannot be sent does not fail the sign-up; it is reported without its link', async () => {
    const failing: Mailer = {
      send: async (m) => {
        throw new Error(`SMTP refused the message for ${m.to}`)
      },
    }
    const { signUp, mailErrors } = setup({ mailer: failing })
    const out = await signUp('a@example.com')
    expect(out.apiKey.key).toMatch(/^pk_/)
    await new Promise((resolve) => setImmediate(resolve))
    expect(mailErrors).toEqual([{ kind: 'verify', error: 'SMTP refused the message for a@example.com' }])
  })
})

describe('identity service: sign-in and sessions', () => {
  it('gives a new session id at every sign-in; each one works until signed out', async () => {
    const { identity, signUp, signIn } = setup()
    const up = await signUp('jane@example.com')
    const a = await signIn('JANE@example.com')
    const b = await signIn('jane@example.com')
    expect(new Set([up.session.id, a.session.id, b.session.id]).size).toBe(3)
    expect(a.userId).toBe(up.user.id)
    expect((await identity.session(a.session.id))?.kind).toBe('user')
    await identity.signOut(a.session.id)
    expect(await identity.session(a.session.id)).toBeUndefined()
    expect((await identity.session(b.session.id))?.kind).toBe('user')
  })

  it('keeps session ids and mailed tokens only as hashes', async () => {
    const { db, mail, signUp } = setup()
    const up = await signUp('jane@example.com')
    const stored = JSON.stringify([db.prepare('SELECT * FROM console_sessions').all(), db.prepare('SELECT * FROM email_tokens').all()])
    const token = tokenOf(mail[0])
    expect(stored).not.toContain(up.session.id)
    expect(stored).not.toContain(token)
    expect(stored).toContain(sha256(up.session.id))
    expect(stored).toContain(sha256(token))
  })

  it('refuses a wrong password and an unknown email alike', async () => {
    const { signUp, signIn } = setup()
    await signUp('jane@example.com')
    const wrong = await refusal(signIn('jane@example.com', 'wrong password!'))
    const unknown = await refusal(signIn('nobody@example.com', 'wrong password!'))
    const malformed = await refusal(signIn('nobody', ''))
    for (const e of [wrong, unknown, malformed]) expect([e.code, e.message, e.details]).toEqual([wrong.code, wrong.message, wrong.details])
    expect(wrong.code).toBe('UNAUTHENTICATED')
    expect(wrong.message).not.toMatch(/wrong password!/)
  })

  it(`throttles an email after ${MAX_FAILURES_PER_EMAIL} failures for the rest of the window, even the right password, alike for unknown emails`, async () => {
    const { clock, signUp, signIn } = setup()
    await signUp('jane@example.com')
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL; i++) {
      expect((await refusal(signIn('jane@example.com', 'wrong password!'))).code).toBe('UNAUTHENTICATED')
      expect((await refusal(signIn('nobody@example.com', 'wrong password!'))).code).toBe('UNAUTHENTICATED')
    }
    clock.advance(60_000)
    const locked = await refusal(signIn('jane@example.com'))
    const lockedUnknown = await refusal(signIn('nobody@example.com'))
    const wait = FAILURE_WINDOW_MS / 1000 - 60
    expect([locked.code, locked.details, locked.headers]).toEqual(['RATE_LIMITED', { retryAfterSeconds: wait }, { 'retry-after': String(wait) }])
    expect([lockedUnknown.code, lockedUnknown.message, lockedUnknown.details]).toEqual([locked.code, locked.message, locked.details])
    expect(locked.message).toContain(`${Math.ceil(wait / 60)} minutes`)
    clock.set(T0 + FAILURE_WINDOW_MS)
    expect((await signIn('jane@example.com')).session.id).toMatch(/^[\w-]{43}$/)
  })

  it("a successful sign-in clears the email's failures", async () => {
    const { signUp, signIn } = setup()
    await signUp('jane@example.com')
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < MAX_FAILURES_PER_EMAIL - 1; i++) await refusal(signIn('jane@example.com', 'wrong password!'))
      // Without the clearing, the second round's attempts would pass the limit.
      expect((await signIn('jane@example.com')).userId).toMatch(/^usr_/)
    }
  })

  it(`throttles a client address after ${MAX_FAILURES_PER_ADDRESS} failures over any emails; other addresses go on`, async () => {
    const { signUp, signIn } = setup()
    await signUp('jane@example.com')
    for (let i = 0; i < MAX_FAILURES_PER_ADDRESS; i++) await refusal(signIn(`guess${i}@example.com`, 'wrong password!', '198.51.100.7'))
    const locked = await refusal(signIn('jane@example.com', PASSWORD, '198.51.100.7'))
    expect([locked.code, locked.details]).toEqual(['RATE_LIMITED', { retryAfterSeconds: FAILURE_WINDOW_MS / 1000 }])
    expect((await signIn('jane@example.com', PASSWORD, '198.51.100.8')).userId).toMatch(/^usr_/)
  })

  it('a user session lasts 14 days from the last visit, its expiry moved at most once an hour', async () => {
    const { identity, store, clock, signUp } = setup()
    const { session } = await signUp('jane@example.com')
    clock.advance(SESSION_TOUCH_MS / 2)
    expect((await identity.session(session.id))?.expiresAt).toBe(T0 + SESSION_IDLE_MS)
    expect((await store.getSession(sha256(session.id)))?.lastSeenAt).toBe(T0)
    clock.set(T0 + SESSION_TOUCH_MS)
    expect((await identity.session(session.id))?.expiresAt).toBe(T0 + SESSION_TOUCH_MS + SESSION_IDLE_MS)
    expect((await store.getSession(sha256(session.id)))?.lastSeenAt).toBe(T0 + SESSION_TOUCH_MS)
    clock.set(T0 + SESSION_TOUCH_MS + SESSION_IDLE_MS - 1)
    expect((await identity.session(session.id))?.kind).toBe('user')
    // That visit moved it again: 14 idle days from now end it.
    clock.advance(SESSION_IDLE_MS)
    expect(await identity.session(session.id)).toBeUndefined()
    expect(await store.getSession(sha256(session.id))).toBeUndefined()
  })

  it('an idle user session ends after 14 days', async () => {
    const { identity, clock, signUp } = setup()
    const { session } = await signUp('jane@example.com')
    clock.set(T0 + SESSION_IDLE_MS)
    expect(await identity.session(session.id)).toBeUndefined()
  })

  it('unknown and malformed session ids are no one', async () => {
    const { identity } = setup()
    for (const id of ['', 'x', randomBytes(32).toString('base64url'), 'a'.repeat(500)]) expect(await identity.session(id)).toBeUndefined()
  })

  it('switches the account a session looks at, among the user’s own only', async () => {
    const { identity, mail, signUp } = setup()
    const jane = await signUp('jane@example.com')
    const joe = await signUp('joe@example.com')
    expect((await refusal(identity.switchAccount(jane.session.id, joe.account.id))).code).toBe('FORBIDDEN')
    await identity.invite({ accountId: joe.account.id, email: 'jane@example.com', role: 'member', by: joe.user.id })
    await identity.acceptInvitation(tokenOf(lastMailTo(mail, 'jane@example.com', 'invite')))
    const switched = await identity.switchAccount(jane.session.id, joe.account.id)
    expect(switched.account).toEqual({ accountId: joe.account.id, accountName: joe.account.name, role: 'member' })
    expect(switched.memberships.map((m) => [m.accountId, m.role])).toEqual([
      [jane.account.id, 'owner'],
      [joe.account.id, 'member'],
    ])
    // Kept in the session: the next page sees the same account.
    expect(await identity.session(jane.session.id)).toMatchObject({ account: { accountId: joe.account.id, role: 'member' } })
    expect((await refusal(identity.switchAccount('no-such-session', jane.account.id))).code).toBe('UNAUTHENTICATED')
  })
})

describe('identity service: email verification and password reset', () => {
  it('verifies an address once; the link lasts 48 hours', async () => {
    const { identity, mail, clock, signUp } = setup()
    const up = await signUp('jane@example.com')
    const token = tokenOf(mail[0])
    expect(await identity.verifyEmail(token)).toEqual({ userId: up.user.id })
    expect(await identity.session(up.session.id)).toMatchObject({ user: { emailVerified: true } })
    const again = await refusal(identity.verifyEmail(token))
    expect([again.code, again.details]).toEqual(['INVALID_PARAMETER', { parameter: 'token' }])
    expect(again.message).not.toContain(token)

    const other = await signUp('joe@example.com')
    clock.advance(TOKEN_VALID_MS.verify)
    expect((await refusal(identity.verifyEmail(tokenOf(lastMailTo(mail, 'joe@example.com', 'verify')))))).toMatchObject({ code: 'INVALID_PARAMETER' })
    await identity.resendVerification(other.user.id)
    await identity.verifyEmail(tokenOf(lastMailTo(mail, 'joe@example.com', 'verify')))
    expect(await identity.session(other.session.id)).toMatchObject({ user: { emailVerified: true } })
  })

  it('a reset request answers the same for any address, and mails only a user', async () => {
    const { identity, mail, signUp } = setup()
    await signUp('jane@example.com')
    const before = mail.length
    expect(await identity.requestPasswordReset('nobody@example.com')).toBeUndefined()
    expect(await identity.requestPasswordReset('not an address')).toBeUndefined()
    expect(mail).toHaveLength(before)
    expect(await identity.requestPasswordReset('JANE@example.com')).toBeUndefined()
    expect(mail).toHaveLength(before + 1)
    expect(mail.at(-1)?.link.startsWith(`${PUBLIC_URL}/console/reset?token=`)).toBe(true)
  })

  it('a reset sets the new password once, ends every session of the user and every other reset link', async () => {
    const { identity, mail, signUp, signIn } = setup()
    const up = await signUp('jane@example.com')
    const other = await signIn('jane@example.com')
    await identity.requestPasswordReset('jane@example.com')
    const first = tokenOf(lastMailTo(mail, 'jane@example.com', 'reset'))
    await identity.requestPasswordReset('jane@example.com')
    const second = tokenOf(lastMailTo(mail, 'jane@example.com', 'reset'))
    // A refused password leaves the link usable.
    expect((await refusal(identity.resetPassword(second, 'short'))).details).toEqual({ parameter: 'password' })
    expect(await identity.resetPassword(second, 'a brand new password')).toEqual({ userId: up.user.id, sessionsEnded: 2 })
    expect(await identity.session(up.session.id)).toBeUndefined()
    expect(await identity.session(other.session.id)).toBeUndefined()
    expect((await refusal(signIn('jane@example.com'))).code).toBe('UNAUTHENTICATED')
    expect((await signIn('jane@example.com', 'a brand new password')).userId).toBe(up.user.id)
    expect((await refusal(identity.resetPassword(second, 'yet another password'))).details).toEqual({ parameter: 'token' })
    expect((await refusal(identity.resetPassword(first, 'yet another password'))).details).toEqual({ parameter: 'token' })
  })

  it('a reset link lasts one hour', async () => {
    const { identity, mail, clock, signUp } = setup()
    await signUp('jane@example.com')
    await identity.requestPasswordReset('jane@example.com')
    const token = tokenOf(lastMailTo(mail, 'jane@example.com', 'reset'))
    clock.advance(TOKEN_VALID_MS.reset)
    expect((await refusal(identity.resetPassword(token, 'a brand new password'))).details).toEqual({ parameter: 'token' })
  })

  it('a reset lifts the lock on the email', async () => {
    const { identity, mail, signUp, signIn } = setup()
    await signUp('jane@example.com')
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL; i++) await refusal(signIn('jane@example.com', 'wrong password!'))
    expect((await refusal(signIn('jane@example.com'))).code).toBe('RATE_LIMITED')
    await identity.requestPasswordReset('jane@example.com')
    await identity.resetPassword(tokenOf(lastMailTo(mail, 'jane@example.com', 'reset')), 'a brand new password')
    expect((await signIn('jane@example.com', 'a brand new password')).userId).toMatch(/^usr_/)
  })
})

describe('identity service: invitations and members', () => {
  it('an owner invites a new address as a member: one link, a new user signed in, listed among the members', async () => {
    const { identity, mail, clock, signUp, signIn } = setup()
    const owner = await signUp('owner@example.com')
    const sent = await identity.invite({ accountId: owner.account.id, email: 'New@Example.com', role: 'member', by: owner.user.id })
    expect(sent).toEqual({ email: 'new@example.com', role: 'member', expiresAt: T0 + TOKEN_VALID_MS.invite })
    const message = lastMailTo(mail, 'new@example.com', 'invite')
    expect(message?.link.startsWith(`${PUBLIC_URL}/console/invite?token=`)).toBe(true)
    expect(message?.text).toContain(owner.account.name)
    const token = tokenOf(message)
    expect(await identity.describeInvitation(token)).toEqual({
      email: 'new@example.com',
      accountId: owner.account.id,
      accountName: owner.account.name,
      role: 'member',
      expiresAt: T0 + TOKEN_VALID_MS.invite,
      existingUser: false,
    })
    expect((await refusal(identity.acceptInvitation(token))).code).toBe('MISSING_PARAMETER')
    clock.advance(1000)
    const accepted = await identity.acceptInvitation(token, { password: 'the new one’s password' })
    expect(accepted).toMatchObject({ accountId: owner.account.id, role: 'member', created: true, alreadyMember: false })
    expect(await identity.session(accepted.session?.id ?? '')).toMatchObject({
      user: { email: 'new@example.com', emailVerified: true },
      account: { accountId: owner.account.id, role: 'member' },
    })
    expect((await refusal(identity.acceptInvitation(token, { password: 'the new one’s password' }))).details).toEqual({ parameter: 'token' })
    expect((await identity.members(owner.account.id)).map((m) => [m.email, m.role, m.since])).toEqual([
      ['owner@example.com', 'owner', T0],
      ['new@example.com', 'member', T0 + 1000],
    ])
    expect((await signIn('new@example.com', 'the new one’s password')).userId).toBe(accepted.userId)
  })

  it('an existing user joins without a new user or a session, and keeps their own account', async () => {
    const { identity, mail, signUp, db } = setup()
    const owner = await signUp('owner@example.com')
    const joe = await signUp('joe@example.com')
    await identity.invite({ accountId: owner.account.id, email: 'joe@example.com', role: 'owner', by: owner.user.id })
    const token = tokenOf(lastMailTo(mail, 'joe@example.com', 'invite'))
    expect((await identity.describeInvitation(token)).existingUser).toBe(true)
    const accepted = await identity.acceptInvitation(token, { password: 'ignored for an existing user' })
    expect(accepted).toEqual({ userId: joe.user.id, accountId: owner.account.id, role: 'owner', created: false, alreadyMember: false, session: undefined })
    expect(db.prepare('SELECT count(*) FROM users').pluck().get()).toBe(2)
    expect(await identity.session(joe.session.id)).toMatchObject({
      memberships: [
        { accountId: joe.account.id, role: 'owner' },
        { accountId: owner.account.id, role: 'owner' },
      ],
    })
    expect((await refusal(identity.invite({ accountId: owner.account.id, email: 'joe@example.com', role: 'member', by: owner.user.id }))).details).toEqual({
      parameter: 'email',
    })
  })

  it('only an owner invites; an invitation lasts 7 days; closed sign-up lets no new user in through one', async () => {
    const { identity, mail, clock, signUp } = setup()
    const owner = await signUp('owner@example.com')
    const member = await identity.createUser({ email: 'member@example.com', password: PASSWORD, accountId: owner.account.id })
    expect((await refusal(identity.invite({ accountId: owner.account.id, email: 'x@example.com', role: 'member', by: member.user.id }))).code).toBe('FORBIDDEN')
    expect(mail.some((m) => m.to === 'x@example.com')).toBe(false)
    await identity.invite({ accountId: owner.account.id, email: 'late@example.com', role: 'member', by: owner.user.id })
    clock.advance(TOKEN_VALID_MS.invite)
    const late = tokenOf(lastMailTo(mail, 'late@example.com', 'invite'))
    expect((await refusal(identity.acceptInvitation(late, { password: PASSWORD }))).details).toEqual({ parameter: 'token' })

    const closed = setup({ signup: 'closed' })
    const boss = await closed.identity.createUser({ email: 'boss@example.com', password: PASSWORD })
    await closed.identity.invite({ accountId: boss.accountId, email: 'new@example.com', role: 'member', by: boss.user.id })
    const token = tokenOf(lastMailTo(closed.mail, 'new@example.com', 'invite'))
    expect((await refusal(closed.identity.acceptInvitation(token, { password: PASSWORD }))).code).toBe('FORBIDDEN')
    expect(await closed.store.findUserByEmail('new@example.com')).toBeUndefined()
    // Once the operator has made the user, the same link lets them join.
    await closed.identity.createUser({ email: 'new@example.com', password: PASSWORD })
    expect(await closed.identity.acceptInvitation(token)).toMatchObject({ created: false, accountId: boss.accountId, role: 'member' })
  })

  it('an account keeps at least one owner; only owners change roles; members may leave', async () => {
    const { identity, signUp } = setup()
    const owner = await signUp('owner@example.com')
    const acc = owner.account.id
    const member = await identity.createUser({ email: 'member@example.com', password: PASSWORD, accountId: acc })
    const third = await identity.createUser({ email: 'third@example.com', password: PASSWORD, accountId: acc, role: 'member' })
    expect((await refusal(identity.removeMember({ accountId: acc, userId: owner.user.id, by: owner.user.id }))).code).toBe('FORBIDDEN')
    expect((await refusal(identity.changeRole({ accountId: acc, userId: owner.user.id, role: 'member', by: owner.user.id }))).code).toBe('FORBIDDEN')
    expect((await refusal(identity.changeRole({ accountId: acc, userId: member.user.id, role: 'owner', by: member.user.id }))).code).toBe('FORBIDDEN')
    expect((await refusal(identity.removeMember({ accountId: acc, userId: third.user.id, by: member.user.id }))).code).toBe('FORBIDDEN')
    expect((await refusal(identity.removeMember({ accountId: acc, userId: 'usr_nobody', by: owner.user.id }))).code).toBe('NOT_FOUND')
    await identity.changeRole({ accountId: acc, userId: member.user.id, role: 'owner', by: owner.user.id })
    await identity.changeRole({ accountId: acc, userId: owner.user.id, role: 'member', by: member.user.id })
    await identity.removeMember({ accountId: acc, userId: third.user.id, by: third.user.id })
    expect((await identity.members(acc)).map((m) => [m.email, m.role])).toEqual([
      ['owner@example.com', 'member'],
      ['member@example.com', 'owner'],
    ])
    // Removed from the account it looked at, a session falls back to the user's other accounts (none here).
    await identity.removeMember({ accountId: acc, userId: owner.user.id, by: member.user.id })
    expect(await identity.session(owner.session.id)).toMatchObject({ memberships: [], account: undefined })
  })
})

describe('identity service: open invitations', () => {
  it('owners list the open ones, oldest first, and withdraw one: its link stops working', async () => {
    const { identity, mail, clock, signUp } = setup()
    const owner = await signUp('owner@example.com')
    const acc = owner.account.id
    const member = await identity.createUser({ email: 'member@example.com', password: PASSWORD, accountId: acc, role: 'member' })
    await identity.invite({ accountId: acc, email: 'first@example.com', role: 'member', by: owner.user.id })
    clock.advance(1000)
    await identity.invite({ accountId: acc, email: 'second@example.com', role: 'owner', by: owner.user.id })
    await identity.invite({ accountId: acc, email: 'used@example.com', role: 'member', by: owner.user.id })
    await identity.acceptInvitation(tokenOf(lastMailTo(mail, 'used@example.com', 'invite')), { password: PASSWORD })
    const open = await identity.invitations(acc, owner.user.id)
    expect(open).toEqual([
      { id: sha256(tokenOf(lastMailTo(mail, 'first@example.com', 'invite'))), email: 'first@example.com', role: 'member', invitedBy: 'owner@example.com', sentAt: T0, expiresAt: T0 + TOKEN_VALID_MS.invite },
      { id: sha256(tokenOf(lastMailTo(mail, 'second@example.com', 'invite'))), email: 'second@example.com', role: 'owner', invitedBy: 'owner@example.com', sentAt: T0 + 1000, expiresAt: T0 + 1000 + TOKEN_VALID_MS.invite },
    ])
    // Members neither see nor withdraw them; another account's owner cannot reach them.
    expect((await refusal(identity.invitations(acc, member.user.id))).code).toBe('FORBIDDEN')
    expect((await refusal(identity.revokeInvitation({ accountId: acc, id: open[1]!.id, by: member.user.id }))).code).toBe('FORBIDDEN')
    const stranger = await signUp('stranger@example.com')
    expect((await refusal(identity.revokeInvitation({ accountId: stranger.account.id, id: open[1]!.id, by: stranger.user.id }))).code).toBe('NOT_FOUND')
    for (const bad of ['', 'nope', open[1]!.id.toUpperCase(), `${open[1]!.id}0`]) {
      expect((await refusal(identity.revokeInvitation({ accountId: acc, id: bad, by: owner.user.id }))).code).toBe('NOT_FOUND')
    }
    await identity.revokeInvitation({ accountId: acc, id: open[1]!.id, by: owner.user.id })
    expect((await refusal(identity.revokeInvitation({ accountId: acc, id: open[1]!.id, by: owner.user.id }))).code).toBe('NOT_FOUND')
    expect((await identity.invitations(acc, owner.user.id)).map((i) => i.email)).toEqual(['first@example.com'])
    const withdrawn = tokenOf(lastMailTo(mail, 'second@example.com', 'invite'))
    expect((await refusal(identity.describeInvitation(withdrawn))).details).toEqual({ parameter: 'token' })
    expect((await refusal(identity.acceptInvitation(withdrawn, { password: PASSWORD }))).details).toEqual({ parameter: 'token' })
  })

  it('an owner removed or made a member takes back the invitations they sent', async () => {
    const { identity, mail, signUp, store } = setup()
    const owner = await signUp('owner@example.com')
    const acc = owner.account.id
    const second = await identity.createUser({ email: 'second@example.com', password: PASSWORD, accountId: acc, role: 'owner' })
    const third = await identity.createUser({ email: 'third@example.com', password: PASSWORD, accountId: acc, role: 'owner' })
    await identity.invite({ accountId: acc, email: 'by-second@example.com', role: 'owner', by: second.user.id })
    await identity.invite({ accountId: acc, email: 'by-third@example.com', role: 'member', by: third.user.id })
    await identity.invite({ accountId: acc, email: 'by-owner@example.com', role: 'member', by: owner.user.id })
    await identity.removeMember({ accountId: acc, userId: second.user.id, by: owner.user.id })
    await identity.changeRole({ accountId: acc, userId: third.user.id, role: 'member', by: owner.user.id })
    expect((await identity.invitations(acc, owner.user.id)).map((i) => [i.email, i.invitedBy])).toEqual([['by-owner@example.com', 'owner@example.com']])
    for (const to of ['by-second@example.com', 'by-third@example.com']) {
      const token = tokenOf(lastMailTo(mail, to, 'invite'))
      const refused = await refusal(identity.acceptInvitation(token, { password: PASSWORD }))
      expect([refused.code, refused.details]).toEqual(['INVALID_PARAMETER', { parameter: 'token' }])
      expect(await store.findUserByEmail(to)).toBeUndefined()
    }
    expect((await identity.members(acc)).map((m) => m.email)).toEqual(['owner@example.com', 'third@example.com'])
    // Made an owner again, the third does not get them back: they were withdrawn.
    await identity.changeRole({ accountId: acc, userId: third.user.id, role: 'owner', by: owner.user.id })
    expect((await refusal(identity.acceptInvitation(tokenOf(lastMailTo(mail, 'by-third@example.com', 'invite')), { password: PASSWORD }))).details).toEqual({ parameter: 'token' })
    expect((await identity.invitations(acc, owner.user.id)).map((i) => i.email)).toEqual(['by-owner@example.com'])
    // An invitation left open by an earlier build, whose sender has since stopped being an owner, is not honoured either.
    const fourth = await identity.createUser({ email: 'fourth@example.com', password: PASSWORD, accountId: acc, role: 'owner' })
    await identity.invite({ accountId: acc, email: 'by-fourth@example.com', role: 'owner', by: fourth.user.id })
    await store.setRole(acc, fourth.user.id, 'member')
    expect((await identity.invitations(acc, owner.user.id)).map((i) => i.email)).toEqual(['by-owner@example.com'])
    const stale = await refusal(identity.acceptInvitation(tokenOf(lastMailTo(mail, 'by-fourth@example.com', 'invite')), { password: PASSWORD }))
    expect(stale.message).toBe(
      "Invalid parameter 'token': the invitation was withdrawn: whoever sent it is no longer an owner of the account; ask an owner for a new one.",
    )
    const kept = await identity.acceptInvitation(tokenOf(lastMailTo(mail, 'by-owner@example.com', 'invite')), { password: PASSWORD })
    expect(kept).toMatchObject({ accountId: acc, role: 'member', created: true })
  })
})

describe('identity service: operators', () => {
  it('an operator session lasts 12 hours from sign-in, whatever the visits', async () => {
    const { identity, clock } = setup({ adminToken: ADMIN_TOKEN })
    const s = await identity.operatorSignIn(ADMIN_TOKEN, HERE)
    expect(await identity.session(s.id)).toEqual({ kind: 'operator', expiresAt: T0 + OPERATOR_SESSION_MS })
    for (let h = 1; h < 12; h++) {
      clock.set(T0 + h * 3_600_000)
      expect((await identity.session(s.id))?.kind).toBe('operator')
    }
    clock.set(T0 + OPERATOR_SESSION_MS - 1)
    expect((await identity.session(s.id))?.kind).toBe('operator')
    clock.set(T0 + OPERATOR_SESSION_MS)
    expect(await identity.session(s.id)).toBeUndefined()
  })

  it(`wrong tokens are refused and throttled per address after ${MAX_FAILURES_PER_ADDRESS}, even the right one then`, async () => {
    const { identity } = setup({ adminToken: ADMIN_TOKEN })
    for (const wrong of ['', 'x', ADMIN_TOKEN.slice(0, -1), `${ADMIN_TOKEN}x`]) {
      const e = await refusal(identity.operatorSignIn(wrong, HERE))
      expect(e.code).toBe('UNAUTHENTICATED')
      expect(e.message).not.toContain(ADMIN_TOKEN.slice(0, 6))
      if (wrong !== '') expect(e.message).not.toContain(wrong)
    }
    for (let i = 4; i < MAX_FAILURES_PER_ADDRESS; i++) await refusal(identity.operatorSignIn('guess', HERE))
    const locked = await refusal(identity.operatorSignIn(ADMIN_TOKEN, HERE))
    expect([locked.code, locked.details]).toEqual(['RATE_LIMITED', { retryAfterSeconds: FAILURE_WINDOW_MS / 1000 }])
    expect((await identity.operatorSignIn(ADMIN_TOKEN, '198.51.100.8')).id).toMatch(/^[\w-]{43}$/)
  })

  it('without an admin token there is no operator sign-in, and earlier operator sessions end', async () => {
    const withToken = setup({ adminToken: ADMIN_TOKEN })
    const s = await withToken.identity.operatorSignIn(ADMIN_TOKEN, HERE)
    expect((await refusal(setup().identity.operatorSignIn(ADMIN_TOKEN, HERE))).code).toBe('NOT_FOUND')
    const sameStoreNoToken = createIdentityService({
      store: withToken.store,
      accounts: withToken.accounts,
      clock: withToken.clock,
      randomBytes,
      mailer: { send: async () => {} },
      publicUrl: PUBLIC_URL,
      signup: 'open',
    })
    expect(await sameStoreNoToken.session(s.id)).toBeUndefined()
    expect((await withToken.identity.session(s.id))?.kind).toBe('operator')
  })

  it('users create: a generated password shown once, a new account with its key, or a role in a named account', async () => {
    const { identity, accounts, signIn } = setup()
    const made = await identity.createUser({ email: 'Ops@Example.com' })
    expect(made.user.email).toBe('ops@example.com')
    expect(made.role).toBe('owner')
    expect(made.password).toMatch(/^[A-Za-z0-9]{24}$/)
    expect((await accounts.authenticate(made.apiKey?.key)).accountId).toBe(made.accountId)
    expect((await signIn('ops@example.com', made.password)).userId).toBe(made.user.id)
    const bare = (await accounts.create({ name: 'bare' })).account.id
    const first = await identity.createUser({ email: 'first@example.com', password: PASSWORD, accountId: bare })
    expect([first.role, first.password, first.apiKey]).toEqual(['owner', undefined, undefined])
    expect((await identity.createUser({ email: 'second@example.com', password: PASSWORD, accountId: bare })).role).toBe('member')
    expect((await refusal(identity.createUser({ email: 'OPS@example.com' }))).details).toEqual({ parameter: 'email' })
    expect((await refusal(identity.createUser({ email: 'x@example.com', accountId: 'acc_missing' }))).code).toBe('NOT_FOUND')
    expect((await refusal(identity.createUser({ email: 'y@example.com', role: 'member' }))).details).toEqual({ parameter: 'role' })
  })

  it('users reset-password: a new password that works, the old one not, every session ended', async () => {
    const { identity, signUp, signIn } = setup()
    const up = await signUp('jane@example.com')
    const reset = await identity.resetPasswordByOperator('JANE@example.com')
    expect(reset).toMatchObject({ user: { id: up.user.id, email: 'jane@example.com' }, sessionsEnded: 1 })
    expect(await identity.session(up.session.id)).toBeUndefined()
    expect((await refusal(signIn('jane@example.com'))).code).toBe('UNAUTHENTICATED')
    expect((await signIn('jane@example.com', reset.password)).userId).toBe(up.user.id)
    expect((await refusal(identity.resetPasswordByOperator('nobody@example.com'))).code).toBe('NOT_FOUND')
  })

  it('the demo user owns the demo account; made again, it gets a new password', async () => {
    const { identity, accounts, signIn } = setup()
    const demo = await accounts.create({ name: 'demo', plan: 'free' })
    const first = await identity.createDemoUser(demo.account.id)
    expect(first.email).toBe(DEMO_EMAIL)
    const signedIn = await signIn(DEMO_EMAIL, first.password)
    expect(await identity.session(signedIn.session.id)).toMatchObject({
      user: { email: DEMO_EMAIL, emailVerified: true },
      account: { accountId: demo.account.id, accountName: 'demo', role: 'owner' },
    })
    const again = await identity.createDemoUser(demo.account.id)
    expect(again.userId).toBe(first.userId)
    expect(again.password).not.toBe(first.password)
    expect((await refusal(signIn(DEMO_EMAIL, first.password))).code).toBe('UNAUTHENTICATED')
    expect((await signIn(DEMO_EMAIL, again.password)).userId).toBe(first.userId)
  })

  it('purge removes ended sessions and keeps live ones', async () => {
    const { identity, store, clock, signUp, signIn } = setup()
    const old = await signUp('jane@example.com')
    clock.advance(SESSION_IDLE_MS - 1000)
    const fresh = await signIn('jane@example.com')
    clock.advance(1000)
    await identity.purge()
    expect(await store.getSession(sha256(old.session.id))).toBeUndefined()
    expect(await store.getSession(sha256(fresh.session.id))).toBeDefined()
  })
})

describe('mailer', () => {
  it('without SMTP_URL writes recipient, subject and link to the log at info level', async () => {
    const lines: { obj: object; msg: string }[] = []
    const mailer = createMailer({ smtpUrl: undefined, publicUrl: PUBLIC_URL, logger: { info: (obj, msg) => void lines.push({ obj, msg }) } })
    await mailer.send({ to: 'a@example.com', subject: 'Hello', text: 'body with the link', link: `${PUBLIC_URL}/console/verify?token=t` })
    expect(lines).toHaveLength(1)
    expect(lines[0]?.obj).toEqual({ to: 'a@example.com', subject: 'Hello', link: `${PUBLIC_URL}/console/verify?token=t` })
  })

  it('with SMTP_URL sends through that server', async () => {
    // A minimal SMTP server on the loopback: it accepts one message and keeps what it was sent.
    const received: string[] = []
    const server = createServer((socket) => {
      let data = false
      let buffer = ''
      socket.write('220 test ESMTP\r\n')
      socket.on('data', (chunk) => {
        buffer += chunk.toString('utf8')
        let end: number
        while ((end = data ? buffer.indexOf('\r\n.\r\n') : buffer.indexOf('\r\n')) >= 0) {
          if (data) {
            received.push(buffer.slice(0, end))
            buffer = buffer.slice(end + 5)
            data = false
            socket.write('250 queued\r\n')
            continue
          }
          const line = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          if (/^(EHLO|HELO)/i.test(line)) socket.write('250 test\r\n')
          else if (/^DATA/i.test(line)) {
            data = true
            socket.write('354 go on\r\n')
          } else if (/^QUIT/i.test(line)) socket.end('221 bye\r\n')
          else socket.write('250 ok\r\n')
        }
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const port = (server.address() as AddressInfo).port
      const mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, publicUrl: PUBLIC_URL, logger: { info: () => {} } })
      await mailer.send({ to: 'a@example.com', subject: 'Reset your pronet password', text: 'Open https://x/console/reset?token=abc', link: 'https://x/console/reset?token=abc' })
      expect(received).toHaveLength(1)
      expect(received[0]).toMatch(/^Subject: Reset your pronet password$/m)
      expect(received[0]).toMatch(/^To: a@example\.com$/m)
      expect(received[0]).toMatch(/^From: pronet <no-reply@console\.example\.com>$/m)
      expect(received[0]).toContain('token=abc')
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('sends from no-reply at the console host, or localhost when it is reached by IP address', () => {
    expect(defaultFrom('https://console.example.com/prefix')).toBe('pronet <no-reply@console.example.com>')
    expect(defaultFrom('http://127.0.0.1:8080')).toBe('pronet <no-reply@localhost>')
    expect(defaultFrom('http://[::1]:8080')).toBe('pronet <no-reply@localhost>')
  })
})
