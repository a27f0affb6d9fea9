/**
 * The IdentityStore contract (src/ports/identity-store.ts), written against the port only so every
 * adapter runs the same suite: `runIdentityStoreContract('sqlite', makeStore)`. Each test gets an empty
 * store; `makeAccount` puts an account in the accounts table the memberships refer to.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { EmailTokenRecord, IdentityStore, SessionRecord, UserRecord } from '../../src/ports/identity-store.ts'

export interface IdentityStoreHandle {
  store: IdentityStore
  /** Creates account `acc_<n>` named `Account <n>`. */
  makeAccount(n: number): Promise<string>
  dispose(): Promise<void>
}

/** A fixed instant in 2026 (Unix ms), past 2^32 and 2^40, so nothing 32-bit survives it. */
const T0 = Date.UTC(2026, 10, 1, 12, 30, 45, 678)
const WINDOW = 15 * 60_000

const userOf = (n: number, over: Partial<UserRecord> = {}): UserRecord => ({
  id: `usr_${n}`,
  email: `user${n}@example.com`,
  passwordHash: `scrypt$32768$8$1$salt${n}$hash${n}`,
  emailVerifiedAt: null,
  createdAt: T0 + n,
  disabledAt: null,
  ...over,
})

const sessionOf = (n: number, over: Partial<SessionRecord> = {}): SessionRecord => ({
  idHash: `${String(n).padStart(4, '0')}${'cd'.repeat(30)}`,
  kind: 'user',
  userId: 'usr_1',
  accountId: 'acc_1',
  createdAt: T0,
  lastSeenAt: T0,
  expiresAt: T0 + 14 * 86_400_000,
  ...over,
})

const tokenOf = (n: number, over: Partial<EmailTokenRecord> = {}): EmailTokenRecord => ({
  hash: `${String(n).padStart(4, '0')}${'ef'.repeat(30)}`,
  kind: 'verify',
  userId: 'usr_1',
  email: null,
  accountId: null,
  role: null,
  createdBy: null,
  createdAt: T0,
  expiresAt: T0 + 3_600_000,
  usedAt: null,
  ...over,
})

export function runIdentityStoreContract(name: string, makeStore: () => Promise<IdentityStoreHandle>): void {
  describe(`IdentityStore contract: ${name}`, () => {
    let handle: IdentityStoreHandle
    let store: IdentityStore

    beforeEach(async () => {
      handle = await makeStore()
      store = handle.store
    })
    afterEach(async () => {
      await handle.dispose()
    })

    describe('users', () => {
      it('creates a user and reads every field back exactly, by id and by email', async () => {
        const user = userOf(1, { emailVerifiedAt: T0 + 5, disabledAt: T0 + 9, email: 'zoë.ünal@exämple.com' })
        expect(await store.createUser(user)).toBe(true)
        expect(await store.getUser(user.id)).toEqual(user)
        expect(await store.findUserByEmail(user.email)).toEqual(user)
        expect(await store.getUser('usr_2')).toBeUndefined()
        expect(await store.findUserByEmail('nobody@example.com')).toBeUndefined()
      })

      it('finds an email whatever its case, and refuses a second user with it in any case', async () => {
        const user = userOf(1, { email: 'jane.doe@example.com' })
        expect(await store.createUser(user)).toBe(true)
        expect((await store.findUserByEmail('Jane.Doe@EXAMPLE.com'))?.id).toBe(user.id)
        expect(await store.createUser(userOf(2, { email: 'JANE.DOE@example.com' }))).toBe(false)
        expect(await store.getUser('usr_2')).toBeUndefined()
        expect(await store.getUser(user.id)).toEqual(user)
      })

      it('creates a user with memberships in one transaction: a membership that fails leaves no user', async () => {
        const acc = await handle.makeAccount(1)
        expect(await store.createUser(userOf(1), [{ accountId: acc, role: 'owner' }])).toBe(true)
        expect((await store.listMemberships('usr_1')).map((m) => [m.accountId, m.role])).toEqual([[acc, 'owner']])
        // acc_404 does not exist: the reference fails, and the user goes with it.
        await expect(store.createUser(userOf(2), [{ accountId: acc, role: 'member' }, { accountId: 'acc_404', role: 'owner' }])).rejects.toThrow()
        expect(await store.getUser('usr_2')).toBeUndefined()
        expect((await store.listMembers(acc)).map((m) => m.userId)).toEqual(['usr_1'])
      })

      it('replaces a password hash; keeps the first verification instant', async () => {
        await store.createUser(userOf(1))
        expect(await store.setPasswordHash('usr_1', 'scrypt$65536$8$1$new$new')).toBe(true)
        expect(await store.setPasswordHash('usr_404', 'x')).toBe(false)
        await store.setEmailVerified('usr_1', T0 + 100)
        await store.setEmailVerified('usr_1', T0 + 200)
        expect(await store.getUser('usr_1')).toEqual({ ...userOf(1), passwordHash: 'scrypt$65536$8$1$new$new', emailVerifiedAt: T0 + 100 })
      })
    })

    describe('memberships', () => {
      it('a user belongs to several accounts and an account has several members, oldest first, with names and emails', async () => {
        const a1 = await handle.makeAccount(1)
        const a2 = await handle.makeAccount(2)
        await store.createUser(userOf(1, { emailVerifiedAt: T0 }))
        await store.createUser(userOf(2))
        expect(await store.addMembership({ accountId: a2, userId: 'usr_1', role: 'member', createdAt: T0 + 10 })).toBe(true)
        expect(await store.addMembership({ accountId: a1, userId: 'usr_1', role: 'owner', createdAt: T0 + 20 })).toBe(true)
        expect(await store.addMembership({ accountId: a1, userId: 'usr_2', role: 'member', createdAt: T0 + 30 })).toBe(true)
        expect(await store.listMemberships('usr_1')).toEqual([
          { accountId: a2, userId: 'usr_1', role: 'member', createdAt: T0 + 10, accountName: 'Account 2' },
          { accountId: a1, userId: 'usr_1', role: 'owner', createdAt: T0 + 20, accountName: 'Account 1' },
        ])
        expect(await store.listMembers(a1)).toEqual([
          { accountId: a1, userId: 'usr_1', role: 'owner', createdAt: T0 + 20, email: 'user1@example.com', emailVerifiedAt: T0 },
          { accountId: a1, userId: 'usr_2', role: 'member', createdAt: T0 + 30, email: 'user2@example.com', emailVerifiedAt: null },
        ])
        expect(await store.listMemberships('usr_404')).toEqual([])
        expect(await store.listMembers('acc_404')).toEqual([])
      })

      it('adding a member twice keeps the first role', async () => {
        const a1 = await handle.makeAccount(1)
        await store.createUser(userOf(1))
        expect(await store.addMembership({ accountId: a1, userId: 'usr_1', role: 'member', createdAt: T0 })).toBe(true)
        expect(await store.addMembership({ accountId: a1, userId: 'usr_1', role: 'owner', createdAt: T0 + 1 })).toBe(false)
        expect((await store.listMembers(a1)).map((m) => [m.role, m.createdAt])).toEqual([['member', T0]])
      })

      it('an account keeps at least one owner: the last cannot leave or be demoted; another owner can', async () => {
        const a1 = await handle.makeAccount(1)
        for (const n of [1, 2, 3]) await store.createUser(userOf(n))
        await store.addMembership({ accountId: a1, userId: 'usr_1', role: 'owner', createdAt: T0 })
        await store.addMembership({ accountId: a1, userId: 'usr_2', role: 'member', createdAt: T0 + 1 })
        expect(await store.removeMembership(a1, 'usr_1')).toBe('last-owner')
        expect(await store.setRole(a1, 'usr_1', 'member')).toBe('last-owner')
        expect(await store.setRole(a1, 'usr_1', 'owner')).toBe('done')
        expect(await store.removeMembership(a1, 'usr_3')).toBe('not-member')
        expect(await store.setRole(a1, 'usr_3', 'owner')).toBe('not-member')
        expect(await store.setRole(a1, 'usr_2', 'owner')).toBe('done')
        expect(await store.setRole(a1, 'usr_1', 'member')).toBe('done')
        expect(await store.removeMembership(a1, 'usr_1')).toBe('done')
        expect(await store.removeMembership(a1, 'usr_2')).toBe('last-owner')
        expect((await store.listMembers(a1)).map((m) => [m.userId, m.role])).toEqual([['usr_2', 'owner']])
      })

      it('two owners demoting each other at once: one of them stays an owner (every round)', async () => {
        for (const n of [1, 2]) await store.createUser(userOf(n))
        // Rounds, each on an account of its own: a race lost only now and then is still caught.
        for (let round = 1; round <= 12; round++) {
          const account = await handle.makeAccount(round)
          for (const n of [1, 2]) await store.addMembership({ accountId: account, userId: `usr_${n}`, role: 'owner', createdAt: T0 + n })
          const results = await Promise.all([store.setRole(account, 'usr_1', 'member'), store.removeMembership(account, 'usr_2')])
          expect(results.slice().sort()).toEqual(['done', 'last-owner'])
          expect((await store.listMembers(account)).filter((m) => m.role === 'owner')).toHaveLength(1)
        }
      })
    })

    describe('sessions', () => {
      beforeEach(async () => {
        await handle.makeAccount(1)
        await handle.makeAccount(2)
        await store.createUser(userOf(1))
        await store.createUser(userOf(2))
      })

      it('stores user and operator sessions and reads them back exactly', async () => {
        const user = sessionOf(1)
        const operator = sessionOf(2, { kind: 'operator', userId: null, accountId: null, expiresAt: T0 + 12 * 3_600_000 })
        await store.createSession(user)
        await store.createSession(operator)
        expect(await store.getSession(user.idHash)).toEqual(user)
        expect(await store.getSession(operator.idHash)).toEqual(operator)
        expect(await store.getSession(sessionOf(3).idHash)).toBeUndefined()
      })

      it('slides, switches account, and ends one session or all of a user', async () => {
        const a = sessionOf(1)
        const b = sessionOf(2)
        const other = sessionOf(3, { userId: 'usr_2' })
        for (const s of [a, b, other]) await store.createSession(s)
        await store.touchSession(a.idHash, T0 + 7_200_000, T0 + 7_200_000 + 14 * 86_400_000)
        await store.setSessionAccount(a.idHash, 'acc_2')
        expect(await store.getSession(a.idHash)).toEqual({ ...a, lastSeenAt: T0 + 7_200_000, expiresAt: T0 + 7_200_000 + 14 * 86_400_000, accountId: 'acc_2' })
        await store.deleteSession(b.idHash)
        expect(await store.getSession(b.idHash)).toBeUndefined()
        expect(await store.deleteUserSessions('usr_1')).toBe(1)
        expect(await store.getSession(a.idHash)).toBeUndefined()
        expect(await store.getSession(other.idHash)).toEqual(other)
        expect(await store.deleteUserSessions('usr_1')).toBe(0)
      })
    })

    describe('email tokens', () => {
      beforeEach(async () => {
        await handle.makeAccount(1)
        await store.createUser(userOf(1))
      })

      it('an invitation reads back with every field; found only by its kind, while unused and unexpired', async () => {
        const invite = tokenOf(1, { kind: 'invite', userId: null, email: 'new@example.com', accountId: 'acc_1', role: 'member', createdBy: 'usr_1' })
        await store.createToken(invite)
        expect(await store.findToken(invite.hash, 'invite', T0)).toEqual(invite)
        expect(await store.findToken(invite.hash, 'reset', T0)).toBeUndefined()
        expect(await store.findToken(invite.hash, 'invite', invite.expiresAt - 1)).toEqual(invite)
        expect(await store.findToken(invite.hash, 'invite', invite.expiresAt)).toBeUndefined()
        expect(await store.findToken(tokenOf(9).hash, 'invite', T0)).toBeUndefined()
      })

      it("lists an account's open invitations, oldest first, and revokes one of them once", async () => {
        await handle.makeAccount(2)
        const invite = (n: number, over: Partial<EmailTokenRecord> = {}) =>
          tokenOf(n, { kind: 'invite', userId: null, email: `new${n}@example.com`, accountId: 'acc_1', role: 'member', createdBy: 'usr_1', ...over })
        const second = invite(1, { createdAt: T0 + 5, role: 'owner' })
        const first = invite(2)
        const used = invite(3)
        const expired = invite(4, { expiresAt: T0 + 10 })
        const otherAccount = invite(5, { accountId: 'acc_2' })
        for (const t of [second, first, used, expired, otherAccount, tokenOf(6, { kind: 'reset' })]) await store.createToken(t)
        await store.useToken(used.hash, 'invite', T0 + 1)
        expect(await store.openInvitations('acc_1', T0 + 10)).toEqual([first, second])
        expect(await store.openInvitations('acc_1', T0 + 9)).toEqual([first, expired, second])
        // Another account's invitation, a used one, a reset token: not this account's to revoke.
        expect(await store.revokeInvitation('acc_1', otherAccount.hash, T0 + 20)).toBe(false)
        expect(await store.revokeInvitation('acc_1', used.hash, T0 + 20)).toBe(false)
        expect(await store.revokeInvitation('acc_1', tokenOf(6).hash, T0 + 20)).toBe(false)
        expect(await store.revokeInvitation('acc_1', second.hash, T0 + 20)).toBe(true)
        expect(await store.revokeInvitation('acc_1', second.hash, T0 + 21)).toBe(false)
        expect(await store.findToken(second.hash, 'invite', T0 + 22)).toBeUndefined()
        expect(await store.useToken(second.hash, 'invite', T0 + 22)).toBeUndefined()
        expect(await store.openInvitations('acc_1', T0 + 22)).toEqual([first])
        expect(await store.openInvitations('acc_2', T0 + 22)).toEqual([otherAccount])
        // Every open invitation one user sent for one account, and nothing else.
        const byOther = invite(7, { createdBy: 'usr_2' })
        const theirsElsewhere = invite(8, { accountId: 'acc_2', createdBy: 'usr_2' })
        for (const t of [byOther, theirsElsewhere]) await store.createToken(t)
        await store.revokeInvitationsBy('acc_1', 'usr_1', T0 + 30)
        expect(await store.openInvitations('acc_1', T0 + 31)).toEqual([byOther])
        expect(await store.openInvitations('acc_2', T0 + 31)).toEqual([otherAccount, theirsElsewhere])
        expect(await store.findToken(first.hash, 'invite', T0 + 31)).toBeUndefined()
      })

      it('a token is used once: the first use returns it, later ones nothing; an expired one never', async () => {
        const t = tokenOf(1, { kind: 'reset' })
        const expired = tokenOf(2, { kind: 'reset', expiresAt: T0 + 10 })
        await store.createToken(t)
        await store.createToken(expired)
        expect(await store.useToken(t.hash, 'verify', T0 + 1)).toBeUndefined()
        expect(await store.useToken(t.hash, 'reset', T0 + 1)).toEqual({ ...t, usedAt: T0 + 1 })
        expect(await store.useToken(t.hash, 'reset', T0 + 2)).toBeUndefined()
        expect(await store.findToken(t.hash, 'reset', T0 + 2)).toBeUndefined()
        expect(await store.useToken(expired.hash, 'reset', T0 + 10)).toBeUndefined()
      })

      it('of uses racing for one token, exactly one gets it', async () => {
        const t = tokenOf(1, { kind: 'invite', userId: null, email: 'x@example.com', accountId: 'acc_1', role: 'owner' })
        await store.createToken(t)
        const uses = await Promise.all(Array.from({ length: 8 }, () => store.useToken(t.hash, 'invite', T0 + 1)))
        expect(uses.filter((u) => u !== undefined)).toHaveLength(1)
      })

      it("revokes every unused token of one kind for a user, not other kinds or users' tokens", async () => {
        await store.createUser(userOf(2))
        const r1 = tokenOf(1, { kind: 'reset' })
        const r2 = tokenOf(2, { kind: 'reset' })
        const v = tokenOf(3, { kind: 'verify' })
        const theirs = tokenOf(4, { kind: 'reset', userId: 'usr_2' })
        for (const t of [r1, r2, v, theirs]) await store.createToken(t)
        await store.revokeUserTokens('usr_1', 'reset', T0 + 5)
        expect(await store.findToken(r1.hash, 'reset', T0 + 6)).toBeUndefined()
        expect(await store.findToken(r2.hash, 'reset', T0 + 6)).toBeUndefined()
        expect(await store.findToken(v.hash, 'verify', T0 + 6)).toEqual(v)
        expect(await store.findToken(theirs.hash, 'reset', T0 + 6)).toEqual(theirs)
      })
    })

    describe('failure counters', () => {
      it('count per key within a window that opens at the first failure, and start again after it', async () => {
        expect(await store.failures('k1', T0, WINDOW)).toEqual({ failures: 0, since: T0 })
        expect(await store.addFailure('k1', T0, WINDOW)).toEqual({ failures: 1, since: T0 })
        expect(await store.addFailure('k1', T0 + 1000, WINDOW)).toEqual({ failures: 2, since: T0 })
        expect(await store.addFailure('k2', T0 + 2000, WINDOW)).toEqual({ failures: 1, since: T0 + 2000 })
        expect(await store.failures('k1', T0 + WINDOW - 1, WINDOW)).toEqual({ failures: 2, since: T0 })
        expect((await store.failures('k1', T0 + WINDOW, WINDOW)).failures).toBe(0)
        expect(await store.addFailure('k1', T0 + WINDOW, WINDOW)).toEqual({ failures: 1, since: T0 + WINDOW })
        await store.clearFailures('k1')
        expect((await store.failures('k1', T0 + WINDOW, WINDOW)).failures).toBe(0)
        expect(await store.failures('k2', T0 + WINDOW, WINDOW)).toEqual({ failures: 1, since: T0 + 2000 })
      })

      it('failures added at once are all counted', async () => {
        const windows = await Promise.all(Array.from({ length: 10 }, () => store.addFailure('k', T0, WINDOW)))
        expect(windows.map((w) => w.failures).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
        expect(await store.failures('k', T0, WINDOW)).toEqual({ failures: 10, since: T0 })
      })
    })

    it('purge deletes expired sessions, used or expired tokens and closed windows; keeps the rest', async () => {
      await handle.makeAccount(1)
      await store.createUser(userOf(1))
      const live = sessionOf(1, { expiresAt: T0 + 100 })
      const ended = sessionOf(2, { expiresAt: T0 + 50 })
      const liveToken = tokenOf(1, { expiresAt: T0 + 100 })
      const expiredToken = tokenOf(2, { expiresAt: T0 + 50 })
      const usedToken = tokenOf(3, { expiresAt: T0 + 100 })
      for (const s of [live, ended]) await store.createSession(s)
      for (const t of [liveToken, expiredToken, usedToken]) await store.createToken(t)
      await store.useToken(usedToken.hash, 'verify', T0 + 1)
      await store.addFailure('old', T0 + 60 - WINDOW, WINDOW)
      await store.addFailure('new', T0 + 61 - WINDOW, WINDOW)
      await store.purge(T0 + 60, WINDOW)
      expect(await store.getSession(live.idHash)).toEqual(live)
      expect(await store.getSession(ended.idHash)).toBeUndefined()
      expect(await store.findToken(liveToken.hash, 'verify', T0)).toEqual(liveToken)
      // Gone from the table: even an instant before its expiry finds nothing.
      expect(await store.findToken(expiredToken.hash, 'verify', T0)).toBeUndefined()
      // Its window would still be open at T0 + 59 had it been kept.
      expect((await store.failures('old', T0 + 59, WINDOW)).failures).toBe(0)
      expect((await store.failures('new', T0 + 60, WINDOW)).failures).toBe(1)
    })
  })
}
