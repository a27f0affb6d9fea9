import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { openSqlite } from '../../src/adapters/sqlite/database.ts'
import { createSqliteAccountStore } from '../../src/adapters/sqlite/sqlite-account-store.ts'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { KEY_CACHE_MS, createAccountsService, hashKey } from '../../src/domain/accounts/accounts.service.ts'
import { isApiError } from '../../src/domain/errors.ts'

function setup() {
  const store = createSqliteAccountStore(openSqlite(':memory:'))
  const clock = createManualClock(Date.UTC(2026, 10, 1))
  return { store, clock, accounts: createAccountsService({ store, clock, randomBytes }) }
}

const codeOf = async (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (isApiError(e) ? e.code : 'thrown'))

describe('accounts service', () => {
  it('creates free accounts with 1,000 credits and rps 5; keys are random, prefixed and stored hashed', async () => {
    const { accounts, store } = setup()
    const a = await accounts.create({ name: 'a' })
    const b = await accounts.create({ name: 'b' })
    expect(a.account).toMatchObject({ plan: 'free', status: 'free', creditsLimit: 1000, rpsLimit: 5, suspendedAt: null })
    expect(a.apiKey.key).not.toBe(b.apiKey.key)
    expect(a.apiKey.key.startsWith(a.apiKey.prefix)).toBe(true)
    expect(await store.findKeyByHash(hashKey(a.apiKey.key))).toMatchObject({ accountId: a.account.id })
    expect(JSON.stringify(await store.listKeys(a.account.id))).not.toContain(a.apiKey.key)
  })

  it('an account name is 1 to 200 characters, by whatever way the account is made (the CLI has no schema)', async () => {
    const { accounts, store } = setup()
    for (const name of ['', 'y'.repeat(201), 'y'.repeat(100_000)]) {
      const refused = await accounts.create({ name }).then(() => undefined, (e: unknown) => e)
      expect(isApiError(refused) && [refused.code, refused.toBody().details]).toEqual(['INVALID_PARAMETER', { parameter: 'name' }])
    }
    expect(await store.hasAccounts()).toBe(false)
    expect((await accounts.create({ name: 'y'.repeat(200) })).account.name).toHaveLength(200)
  })

  it('authenticate: 401 UNAUTHENTICATED without a key, INVALID_API_KEY for an unknown one', async () => {
    const { accounts } = setup()
    expect(await codeOf(accounts.authenticate(undefined))).toBe('UNAUTHENTICATED')
    expect(await codeOf(accounts.authenticate(''))).toBe('UNAUTHENTICATED')
    expect(await codeOf(accounts.authenticate('pk_nope'))).toBe('INVALID_API_KEY')
  })

  it('changes through the service take effect at once, despite the key cache', async () => {
    const { accounts } = setup()
    const a = await accounts.create()
    expect(await codeOf(accounts.authenticate(a.apiKey.key))).toBe('ok')
    await accounts.suspend(a.account.id)
    expect(await codeOf(accounts.authenticate(a.apiKey.key))).toBe('FORBIDDEN')
    await accounts.resume(a.account.id)
    expect(await codeOf(accounts.authenticate(a.apiKey.key))).toBe('ok')
    await accounts.revokeKey(a.account.id, a.apiKey.id)
    expect(await codeOf(accounts.authenticate(a.apiKey.key))).toBe('INVALID_API_KEY')
  })

  it('a key revoked by another process stops working within KEY_CACHE_MS', async () => {
    const { accounts, store, clock } = setup()
    const a = await accounts.create()
    expect(await codeOf(accounts.authenticate(a.apiKey.key))).toBe('ok')
    // Straight to the store, as the CLI or another node would.
    await store.revokeKey(a.account.id, a.apiKey.id, clock.now())
    clock.advance(KEY_CACHE_MS - 1)
    expect(await codeOf(accounts.authenticate(a.apiKey.key))).toBe('ok')
    clock.advance(1)
    expect(await codeOf(accounts.authenticate(a.apiKey.key))).toBe('INVALID_API_KEY')
  })

  it('a key carries its name and maker; a name is checked like an account name', async () => {
    const { accounts, store } = setup()
    const a = await accounts.create()
    const k = await accounts.createKey(a.account.id, { name: 'production crawler', createdBy: 'usr_1' })
    expect((await store.listKeys(a.account.id)).find((x) => x.id === k.id)).toMatchObject({ name: 'production crawler', createdBy: 'usr_1', lastUsedAt: null })
    for (const name of ['x'.repeat(101), ' \t ', 'line\nbreak']) expect(await codeOf(accounts.createKey(a.account.id, { name }))).toBe('INVALID_PARAMETER')
    expect((await store.listKeys(a.account.id)).length).toBe(2)
  })

  it('records when each key was last used, in bulk when flushed, whether or not the lookup was cached', async () => {
    const { accounts, store, clock } = setup()
    const a = await accounts.create()
    const other = await accounts.createKey(a.account.id)
    const lastUse = async (id: string) => (await store.listKeys(a.account.id)).find((k) => k.id === id)?.lastUsedAt
    await accounts.authenticate(a.apiKey.key)
    clock.advance(10)
    await accounts.authenticate(a.apiKey.key)
    // Nothing is written on a call's own path.
    expect(await lastUse(a.apiKey.id)).toBeNull()
    await accounts.flushKeyUses()
    expect(await lastUse(a.apiKey.id)).toBe(clock.now())
    expect(await lastUse(other.id)).toBeNull()
    clock.advance(KEY_CACHE_MS * 3)
    await accounts.authenticate(other.key)
    await accounts.flushKeyUses()
    await accounts.flushKeyUses()
    expect(await lastUse(other.id)).toBe(clock.now())
    expect(await lastUse(a.apiKey.id)).toBe(clock.now() - KEY_CACHE_MS * 3)
  })

  it('unknown accounts and keys are NOT_FOUND', async () => {
    const { accounts } = setup()
    const a = await accounts.create()
    expect(await codeOf(accounts.show('acc_missing'))).toBe('NOT_FOUND')
    expect(await codeOf(accounts.revokeKey(a.account.id, 'key_missing'))).toBe('NOT_FOUND')
    expect(await codeOf(accounts.createKey('acc_missing'))).toBe('NOT_FOUND')
  })
})
