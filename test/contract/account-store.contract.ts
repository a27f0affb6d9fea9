/**
 * The AccountStore contract (src/ports/account-store.ts), written against the port only so every
 * adapter runs the same suite: `runAccountStoreContract('sqlite', makeStore)`. Each test gets an empty
 * store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AccountRecord, AccountStore, ApiKeyRecord } from '../../src/ports/account-store.ts'

export interface AccountStoreHandle {
  store: AccountStore
  dispose(): Promise<void>
}

/** A fixed instant in 2026 (Unix ms), past 2^32 and 2^40, so nothing 32-bit survives it. */
const T0 = Date.UTC(2026, 10, 1, 12, 30, 45, 678)

export function accountOf(n: number, over: Partial<AccountRecord> = {}): AccountRecord {
  return {
    id: `acc_${n}`,
    name: `Account ${n}`,
    createdAt: T0 + n,
    suspendedAt: null,
    plan: 'free',
    status: 'free',
    creditsLimit: 1000,
    rpsLimit: 5,
    ...over,
  }
}

export function keyOf(n: number, accountId: string, over: Partial<ApiKeyRecord & { hash: string }> = {}): ApiKeyRecord & { hash: string } {
  return {
    id: `key_${n}`,
    accountId,
    hash: `${String(n).padStart(4, '0')}${'ab'.repeat(30)}`,
    prefix: `pk_${String(n).padStart(7, '0')}`,
    createdAt: T0 + 100 + n,
    revokedAt: null,
    name: `key ${n}`,
    createdBy: null,
    lastUsedAt: null,
    monthlyCreditLimit: null,
    endpoints: null,
    ...over,
  }
}

/** What listKeys gives back of a stored key: never its hash. */
const listed = ({ hash: _hash, ...key }: ApiKeyRecord & { hash: string }): ApiKeyRecord => key

export function runAccountStoreContract(name: string, makeStore: () => Promise<AccountStoreHandle>): void {
  describe(`AccountStore contract: ${name}`, () => {
    let handle: AccountStoreHandle
    let store: AccountStore

    beforeEach(async () => {
      handle = await makeStore()
      store = handle.store
    })
    afterEach(async () => {
      await handle.dispose()
    })

    describe('accounts', () => {
      it('an empty store has no accounts and knows no ids', async () => {
        expect(await store.hasAccounts()).toBe(false)
        expect(await store.getAccount('acc_1')).toBeUndefined()
        expect(await store.listKeys('acc_1')).toEqual([])
      })

      it('creates an account with its first key, and reads back every field exactly', async () => {
        const account = accountOf(1, { plan: 'custom', status: 'past_due', creditsLimit: 2_000_000_000, rpsLimit: 250, name: 'Zoë “Ünal” 🚀' })
        const key = keyOf(1, account.id)
        await store.createAccount(account, key)
        expect(await store.hasAccounts()).toBe(true)
        expect(await store.getAccount(account.id)).toEqual(account)
        expect(await store.listKeys(account.id)).toEqual([listed(key)])
        expect(await store.findKeyByHash(key.hash)).toEqual({ keyId: key.id, accountId: account.id, suspended: false, monthlyCreditLimit: null, endpoints: null })
      })

      it('keeps every plan and status the port names', async () => {
        const cases: Pick<AccountRecord, 'plan' | 'status'>[] = [
          { plan: 'free', status: 'free' },
          { plan: 'none', status: 'canceled' },
          { plan: 'custom', status: 'active' },
          { plan: 'custom', status: 'trialing' },
          { plan: 'custom', status: 'incomplete' },
          { plan: 'custom', status: 'unpaid' },
        ]
        for (const [i, c] of cases.entries()) {
          const account = accountOf(i + 1, { ...c, creditsLimit: 0, rpsLimit: 1 })
          await store.createAccount(account, keyOf(i + 1, account.id))
          expect(await store.getAccount(account.id)).toEqual(account)
        }
      })

      it('creates nothing when the first key cannot be stored (one transaction)', async () => {
        const first = accountOf(1)
        await store.createAccount(first, keyOf(1, first.id))
        const second = accountOf(2)
        // The same hash as the first account's key: the key insert fails, so must the account.
        await expect(store.createAccount(second, keyOf(2, second.id, { hash: keyOf(1, first.id).hash }))).rejects.toThrow()
        expect(await store.getAccount(second.id)).toBeUndefined()
        expect(await store.listKeys(second.id)).toEqual([])
        // A key id already taken fails the same way.
        const third = accountOf(3)
        await expect(store.createAccount(third, keyOf(1, third.id, { hash: 'f'.repeat(64) }))).rejects.toThrow()
        expect(await store.getAccount(third.id)).toBeUndefined()
      })

      it('refuses a second account with the same id and keeps the first', async () => {
        const account = accountOf(1)
        await store.createAccount(account, keyOf(1, account.id))
        await expect(store.createAccount(accountOf(1, { name: 'Other' }), keyOf(2, account.id))).rejects.toThrow()
        expect(await store.getAccount(account.id)).toEqual(account)
        expect(await store.findKeyByHash(keyOf(2, account.id).hash)).toBeUndefined()
      })
    })

    describe('keys', () => {
      const account = accountOf(1)
      const first = keyOf(1, account.id)
      beforeEach(async () => {
        await store.createAccount(account, first)
      })

      it('adds keys, listed oldest first (creation order within one millisecond) and found by hash', async () => {
        const later = keyOf(2, account.id, { createdAt: first.createdAt + 5 })
        const sameMs = [3, 4, 5].map((n) => keyOf(n, account.id, { createdAt: first.createdAt + 10 }))
        const earlier = keyOf(6, account.id, { createdAt: first.createdAt - 1 })
        await store.addKey(later)
        for (const k of sameMs) await store.addKey(k)
        await store.addKey(earlier)
        expect((await store.listKeys(account.id)).map((k) => k.id)).toEqual(['key_6', 'key_1', 'key_2', 'key_3', 'key_4', 'key_5'])
        for (const k of [later, ...sameMs, earlier]) {
          expect(await store.findKeyByHash(k.hash)).toEqual({ keyId: k.id, accountId: account.id, suspended: false, monthlyCreditLimit: null, endpoints: null })
        }
        expect(await store.findKeyByHash('0'.repeat(64))).toBeUndefined()
      })

      it("lists only the account's own keys", async () => {
        const other = accountOf(2)
        await store.createAccount(other, keyOf(2, other.id))
        expect((await store.listKeys(account.id)).map((k) => k.id)).toEqual([first.id])
        expect((await store.listKeys(other.id)).map((k) => k.id)).toEqual(['key_2'])
      })

      it('refuses a key whose hash or id is taken, or whose account does not exist', async () => {
        await expect(store.addKey(keyOf(2, account.id, { hash: first.hash }))).rejects.toThrow()
        await expect(store.addKey(keyOf(1, account.id, { hash: 'e'.repeat(64) }))).rejects.toThrow()
        await expect(store.addKey(keyOf(3, 'acc_missing'))).rejects.toThrow()
        expect(await store.listKeys(account.id)).toEqual([listed(first)])
        expect(await store.listKeys('acc_missing')).toEqual([])
      })

      it('revokes a live key once: it is no longer found by hash and lists its revocation time', async () => {
        const second = keyOf(2, account.id)
        await store.addKey(second)
        expect(await store.revokeKey(account.id, first.id, T0 + 5000)).toBe(true)
        expect(await store.findKeyByHash(first.hash)).toBeUndefined()
        expect(await store.findKeyByHash(second.hash)).toMatchObject({ keyId: second.id })
        // A revoked key still names its account; a live or unknown one is not a revoked one.
        expect(await store.findRevokedKeyAccount(first.hash)).toBe(account.id)
        expect(await store.findRevokedKeyAccount(second.hash)).toBeUndefined()
        expect(await store.findRevokedKeyAccount('0'.repeat(64))).toBeUndefined()
        expect(await store.revokeKey(account.id, first.id, T0 + 6000)).toBe(false)
        expect(await store.listKeys(account.id)).toEqual([{ ...listed(first), revokedAt: T0 + 5000 }, listed(second)])
      })

      it('keeps a key\'s name and maker, and records its last use, never going back in time', async () => {
        const named = keyOf(3, account.id, { name: 'production crawler', createdBy: 'usr_1' })
        await store.addKey(named)
        await store.recordKeyUses([])
        await store.recordKeyUses([{ keyId: named.id, at: T0 + 9000 }, { keyId: 'key_404', at: T0 + 9000 }])
        await store.recordKeyUses([{ keyId: named.id, at: T0 + 8000 }])
        const read = (await store.listKeys(account.id)).find((k) => k.id === named.id)
        expect(read).toEqual({ ...listed(named), lastUsedAt: T0 + 9000 })
        expect((await store.listKeys(account.id)).find((k) => k.id === first.id)?.lastUsedAt).toBeNull()
        await store.recordKeyUses([{ keyId: named.id, at: T0 + 9500 }, { keyId: first.id, at: T0 + 100 }])
        expect((await store.listKeys(account.id)).map((k) => [k.id, k.lastUsedAt])).toEqual([
          [first.id, T0 + 100],
          [named.id, T0 + 9500],
        ])
      })

      it("keeps a key's spend controls, changes only the fields given, and only a live key of the account", async () => {
        const capped = keyOf(4, account.id, { monthlyCreditLimit: 2_000_000_000, endpoints: ['profile', 'search/posts'] })
        await store.addKey(capped)
        expect((await store.listKeys(account.id)).find((k) => k.id === capped.id)).toEqual(listed(capped))
        expect(await store.findKeyByHash(capped.hash)).toEqual({
          keyId: capped.id,
          accountId: account.id,
          suspended: false,
          monthlyCreditLimit: 2_000_000_000,
          endpoints: ['profile', 'search/posts'],
        })
        expect(await store.updateKey(account.id, capped.id, { monthlyCreditLimit: 0 })).toBe(true)
        expect(await store.findKeyByHash(capped.hash)).toMatchObject({ monthlyCreditLimit: 0, endpoints: ['profile', 'search/posts'] })
        expect(await store.updateKey(account.id, capped.id, { endpoints: null, name: 'renamed' })).toBe(true)
        expect((await store.listKeys(account.id)).find((k) => k.id === capped.id)).toMatchObject({ name: 'renamed', monthlyCreditLimit: 0, endpoints: null })
        expect(await store.updateKey(account.id, capped.id, {})).toBe(true)
        expect(await store.updateKey(account.id, capped.id, { monthlyCreditLimit: null, endpoints: ['company'] })).toBe(true)
        expect(await store.findKeyByHash(capped.hash)).toMatchObject({ monthlyCreditLimit: null, endpoints: ['company'] })

        await store.createAccount(accountOf(2), keyOf(5, 'acc_2'))
        expect(await store.updateKey('acc_2', capped.id, { monthlyCreditLimit: 1 })).toBe(false)
        expect(await store.updateKey(account.id, 'key_404', { monthlyCreditLimit: 1 })).toBe(false)
        await store.revokeKey(account.id, capped.id, T0 + 50)
        expect(await store.updateKey(account.id, capped.id, { monthlyCreditLimit: 1 })).toBe(false)
        expect((await store.listKeys(account.id)).find((k) => k.id === capped.id)?.monthlyCreditLimit).toBeNull()
        // Spend is written by the ledger's settles; keys that spent nothing are left out.
        expect(await store.keySpend(account.id, '2026-11')).toEqual(new Map())
      })

      it('finds accounts by id, by a part of the name in any case, and by the start of a key', async () => {
        const other = accountOf(7, { name: 'Acme 100% Data_Co' })
        await store.createAccount(other, keyOf(7, other.id, { prefix: 'pk_Zq81abc' }))
        const ids = async (q: string) => (await store.searchAccounts(q, 10)).map((a) => a.id)
        expect(await ids(other.id)).toEqual([other.id])
        expect(await ids('acme')).toEqual([other.id])
        expect(await ids('100%')).toEqual([other.id])
        expect(await ids('_co')).toEqual([other.id])
        expect(await ids('%')).toEqual([other.id])
        expect(await ids('pk_Zq81')).toEqual([other.id])
        expect(await ids('pk_zq81')).toEqual([])
        expect(await ids('nothing like it')).toEqual([])
        // Newest first; an empty query lists them all up to the limit.
        expect(await ids('')).toEqual([other.id, account.id])
        expect(await ids('account')).toEqual([account.id])
        expect((await store.searchAccounts('', 1)).map((a) => a.id)).toEqual([other.id])
      })

      it('does not revoke an unknown key, nor a key of another account', async () => {
        const other = accountOf(2)
        await store.createAccount(other, keyOf(2, other.id))
        expect(await store.revokeKey(account.id, 'key_2', T0)).toBe(false)
        expect(await store.revokeKey(account.id, 'key_404', T0)).toBe(false)
        expect(await store.revokeKey('acc_missing', first.id, T0)).toBe(false)
        expect(await store.findKeyByHash(keyOf(2, other.id).hash)).toMatchObject({ accountId: other.id })
        expect(await store.findKeyByHash(first.hash)).toMatchObject({ accountId: account.id })
      })
    })

    describe('suspension', () => {
      it('suspends and resumes an account; its keys say so while suspended', async () => {
        const account = accountOf(1)
        const key = keyOf(1, account.id)
        await store.createAccount(account, key)
        expect(await store.setSuspended(account.id, T0 + 42)).toBe(true)
        expect(await store.getAccount(account.id)).toEqual({ ...account, suspendedAt: T0 + 42 })
        expect(await store.findKeyByHash(key.hash)).toEqual({ keyId: key.id, accountId: account.id, suspended: true, monthlyCreditLimit: null, endpoints: null })
        expect(await store.setSuspended(account.id, null)).toBe(true)
        expect(await store.getAccount(account.id)).toEqual(account)
        expect(await store.findKeyByHash(key.hash)).toMatchObject({ suspended: false, monthlyCreditLimit: null, endpoints: null })
      })

      it('an account created suspended reads so', async () => {
        const account = accountOf(1, { suspendedAt: T0 })
        await store.createAccount(account, keyOf(1, account.id))
        expect(await store.getAccount(account.id)).toEqual(account)
        expect(await store.findKeyByHash(keyOf(1, account.id).hash)).toMatchObject({ suspended: true, monthlyCreditLimit: null, endpoints: null })
      })

      it('reports false for an unknown account', async () => {
        expect(await store.setSuspended('acc_missing', T0)).toBe(false)
        expect(await store.setSuspended('acc_missing', null)).toBe(false)
        expect(await store.hasAccounts()).toBe(false)
      })

      it("suspending one account leaves another's keys alone", async () => {
        const a = accountOf(1)
        const b = accountOf(2)
        await store.createAccount(a, keyOf(1, a.id))
        await store.createAccount(b, keyOf(2, b.id))
        await store.setSuspended(a.id, T0)
        expect(await store.findKeyByHash(keyOf(2, b.id).hash)).toMatchObject({ suspended: false, monthlyCreditLimit: null, endpoints: null })
        expect((await store.getAccount(b.id))?.suspendedAt).toBeNull()
      })
    })
  })
}
