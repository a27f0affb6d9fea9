/**
 * Key revocation fan-out: two accounts services (two nodes) over one account store, each with its
 * own key cache and its own bus connection. A key revoked, or an account suspended, on one node is
 * refused by the other at once, although the other had it cached and its clock stands still (so the
 * cache's own one-second bound never runs out: only the bus can explain the refusal).
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryInvalidationBus } from '../../src/adapters/memory/memory-invalidation-bus.ts'
import { createRedisInvalidationBus } from '../../src/adapters/redis/redis-invalidation-bus.ts'
import { openSqlite } from '../../src/adapters/sqlite/database.ts'
import { createSqliteAccountStore } from '../../src/adapters/sqlite/sqlite-account-store.ts'
import { createSqliteStoreSettings } from '../../src/adapters/sqlite/sqlite-store-settings.ts'
import { createSharedTestClock } from '../../src/adapters/shared-test-clock.ts'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { createAccountsService } from '../../src/domain/accounts/accounts.service.ts'
import { isApiError } from '../../src/domain/errors.ts'
import type { InvalidationBus, InvalidationMessage } from '../../src/ports/invalidation-bus.ts'
import { REDIS_URL, redisAvailable, uniquePrefix } from '../helpers/redis.ts'
import { redisServerBinaryAvailable, startRedisServer, type TestRedisServer } from '../helpers/redis-server.ts'

const hasRedis = await redisAvailable()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const codeOf = async (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (isApiError(e) ? e.code : 'thrown'))

/** Polls `check` until it holds; fails when it has not within `limitMs`. */
async function within(limitMs: number, check: () => Promise<boolean>): Promise<void> {
  const start = performance.now()
  for (;;) {
    if (await check()) return
    if (performance.now() - start > limitMs) throw new Error(`condition not met within ${limitMs} ms`)
    await sleep(2)
  }
}

function twoNodes(busA?: InvalidationBus, busB?: InvalidationBus) {
  const store = createSqliteAccountStore(openSqlite(':memory:'))
  const clock = createManualClock(Date.UTC(2026, 10, 1))
  return {
    a: createAccountsService({ store, clock, randomBytes, ...(busA ? { bus: busA } : {}) }),
    b: createAccountsService({ store, clock, randomBytes, ...(busB ? { bus: busB } : {}) }),
  }
}

describe('key revocation across nodes', () => {
  it('without a bus, the other node trusts its cached key until the cache bound runs out', async () => {
    const { a, b } = twoNodes()
    const acc = await a.create()
    expect(await codeOf(b.authenticate(acc.apiKey.key))).toBe('ok')
    await a.revokeKey(acc.account.id, acc.apiKey.id)
    expect(await codeOf(a.authenticate(acc.apiKey.key))).toBe('INVALID_API_KEY')
    // The clock stands still: node b's cached entry is still within its bound.
    expect(await codeOf(b.authenticate(acc.apiKey.key))).toBe('ok')
  })

  it('with the in-process bus, the other service refuses the key as soon as the revoke returns', async () => {
    const bus = createMemoryInvalidationBus()
    const { a, b } = twoNodes(bus, bus)
    const acc = await a.create()
    expect(await codeOf(b.authenticate(acc.apiKey.key))).toBe('ok')
    await a.revokeKey(acc.account.id, acc.apiKey.id)
    expect(await codeOf(b.authenticate(acc.apiKey.key))).toBe('INVALID_API_KEY')
    await bus.close()
  })

  it('a lookup that read the store before a revoke does not cache its answer after it', async () => {
    const bus = createMemoryInvalidationBus()
    const store = createSqliteAccountStore(openSqlite(':memory:'))
    const clock = createManualClock(Date.UTC(2026, 10, 1))
    let gate: Promise<void> | undefined
    const slow: typeof store = { ...store, findKeyByHash: async (hash) => {
      const found = await store.findKeyByHash(hash)
      await gate
      return found
    } }
    const a = createAccountsService({ store, clock, randomBytes, bus })
    const b = createAccountsService({ store: slow, clock, randomBytes, bus })
    const acc = await a.create()
    let open!: () => void
    gate = new Promise((r) => (open = r))
    const inFlight = b.authenticate(acc.apiKey.key)
    await sleep(5)
    await a.revokeKey(acc.account.id, acc.apiKey.id)
    open()
    // The lookup answers what it read; the next one asks the store again.
    expect(await codeOf(inFlight)).toBe('ok')
    expect(await codeOf(b.authenticate(acc.apiKey.key))).toBe('INVALID_API_KEY')
  })

  describe.skipIf(!hasRedis)('over Redis pub/sub', () => {
    let busA: InvalidationBus
    let busB: InvalidationBus
    beforeAll(async () => {
      const channel = `${uniquePrefix('bus')}invalidate`
      busA = await createRedisInvalidationBus({ url: REDIS_URL, channel })
      busB = await createRedisInvalidationBus({ url: REDIS_URL, channel })
    })
    afterAll(async () => {
      await busA?.close()
      await busB?.close()
    })

    it('a key revoked on one node is refused by the other well within a second, despite its cache', async () => {
      const { a, b } = twoNodes(busA, busB)
      const acc = await a.create()
      const second = await a.createKey(acc.account.id)
      expect(await codeOf(b.authenticate(acc.apiKey.key))).toBe('ok')
      expect(await codeOf(b.authenticate(second.key))).toBe('ok')
      await a.revokeKey(acc.account.id, acc.apiKey.id)
      await within(500, async () => (await codeOf(b.authenticate(acc.apiKey.key))) === 'INVALID_API_KEY')
      // Only the revoked key stops working.
      expect(await codeOf(b.authenticate(second.key))).toBe('ok')
    })

    it('suspend and resume on one node take effect on the other at once', async () => {
      const { a, b } = twoNodes(busA, busB)
      const acc = await a.create()
      expect(await codeOf(b.authenticate(acc.apiKey.key))).toBe('ok')
      await a.suspend(acc.account.id)
      await within(500, async () => (await codeOf(b.authenticate(acc.apiKey.key))) === 'FORBIDDEN')
      await a.resume(acc.account.id)
      await within(500, async () => (await codeOf(b.authenticate(acc.apiKey.key))) === 'ok')
    })

    it('the test clock set on one node is the clock of the others at once, and of a node started later', async () => {
      const settings = createSqliteStoreSettings(openSqlite(':memory:'))
      const a = await createSharedTestClock({ settings, bus: busA })
      const b = await createSharedTestClock({ settings, bus: busB })
      const target = Date.UTC(2027, 1, 28, 23, 59)
      await a.set(target)
      await within(500, async () => Math.abs(b.now() - target) < 1000)
      expect(Math.abs(a.now() - b.now())).toBeLessThan(20)
      const later = await createSharedTestClock({ settings })
      expect(Math.abs(later.now() - a.now())).toBeLessThan(20)
      // A message that is not a finite offset is not one: the clock stays where it was set.
      await busA.publish({ kind: 'test-clock', offset: Number.NaN })
      await sleep(50)
      expect(Math.abs(b.now() - a.now())).toBeLessThan(20)
      a.stop()
      b.stop()
    })

    it('every node hears each message, the sender included; unknown messages are ignored', async () => {
      // Messages of the tests before may still be on their way: look only for this one.
      const accountId = `acc_${randomBytes(4).toString('hex')}`
      const ours = (m: InvalidationMessage) => 'accountId' in m && m.accountId === accountId
      const heard: InvalidationMessage[] = []
      const stop = busB.subscribe((m) => void (ours(m) && heard.push(m)))
      const mine: InvalidationMessage[] = []
      const stopMine = busA.subscribe((m) => void (ours(m) && mine.push(m)))
      await busA.publish({ kind: 'account-suspended', accountId })
      await within(500, async () => heard.length >= 1 && mine.length >= 1)
      await sleep(50)
      expect(heard).toEqual([{ kind: 'account-suspended', accountId }])
      expect(mine).toEqual(heard)
      stop()
      stopMine()
    })
  })

  describe.skipIf(!hasRedis || !redisServerBinaryAvailable())('when Redis goes away', () => {
    let server: TestRedisServer
    beforeAll(async () => {
      server = await startRedisServer()
    })
    afterAll(async () => server?.stop())

    it('publishing never fails the caller, and a reconnected subscriber tells its services to resync', async () => {
      const warnings: string[] = []
      const logger = { warn: (_o: object, msg: string) => void warnings.push(msg), info: () => {} }
      const bus = await createRedisInvalidationBus({ url: server.url, logger, commandTimeoutMs: 200 })
      const heard: InvalidationMessage[] = []
      bus.subscribe((m) => heard.push(m))
      await server.stop()
      await expect(bus.publish({ kind: 'key-revoked', accountId: 'acc_1', keyId: 'key_1' })).resolves.toBeUndefined()
      expect(warnings.some((w) => w.includes('publish failed'))).toBe(true)
      await server.start()
      await within(10_000, async () => heard.some((m) => m.kind === 'resync'))
      // And it is subscribed again (the publishing connection reconnects on its own schedule, and
      // a publish before it has is dropped with a warning: so publish until one is heard).
      await within(10_000, async () => {
        await bus.publish({ kind: 'account-resumed', accountId: 'acc_1' })
        await sleep(20)
        return heard.some((m) => m.kind === 'account-resumed')
      })
      await bus.close()
    })
  })
})
