import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { openSqlite, type SqliteDb } from '../../src/adapters/sqlite/database.ts'
import { createSqliteAccountStore } from '../../src/adapters/sqlite/sqlite-account-store.ts'
import { VERSION_CHECK_MS, createSqliteLedger } from '../../src/adapters/sqlite/sqlite-ledger.ts'
import { createThreadCommitter, createWorkerCommitter } from '../../src/adapters/sqlite/ledger-committer.ts'
import { createMeteringService } from '../../src/domain/billing/metering.service.ts'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { createMemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.ts'
import type { AccountRecord } from '../../src/ports/account-store.ts'
import { runLedgerContract } from './ledger.contract.ts'

const newLotId = () => `lot_${randomBytes(6).toString('hex')}`

function open(path: string, inWorker = false): { db: SqliteDb; ledger: ReturnType<typeof createSqliteLedger> } {
  const db = openSqlite(path)
  const committer = inWorker ? createWorkerCommitter(path, (e) => { throw e }) : undefined
  return { db, ledger: createSqliteLedger(db, { newLotId, ...(committer ? { committer } : {}) }) }
}

async function addAccount(db: SqliteDb, a: Partial<AccountRecord> & { createdAt: number }): Promise<string> {
  const id = `acc_${randomBytes(6).toString('hex')}`
  await createSqliteAccountStore(db).createAccount(
    { id, name: 't', suspendedAt: null, plan: 'free', status: 'free', creditsLimit: 1000, rpsLimit: 5, ...a },
    { id: `key_${id}`, accountId: id, hash: randomBytes(16).toString('hex'), prefix: 'pk_', createdAt: a.createdAt, revokedAt: null, name: '', createdBy: null, lastUsedAt: null, monthlyCreditLimit: null, endpoints: null },
  )
  return id
}

for (const mode of ['event-loop thread', 'worker thread'] as const) {
  runLedgerContract(`sqlite, commits on the ${mode}`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pronet-ledger-'))
    const path = join(dir, 'ledger.db')
    const inWorker = mode === 'worker thread'
    let current = open(path, inWorker)
    return {
      get ledger() {
        return current.ledger
      },
      createAccount: (a) => addAccount(current.db, a),
      async reopen() {
        await current.ledger.close()
        current.db.close()
        current = open(path, inWorker)
        return current.ledger
      },
      async dispose() {
        await current.ledger.close()
        current.db.close()
        rmSync(dir, { recursive: true, force: true })
      },
    }
  })
}

describe('sqlite ledger with another process on the same file', () => {
  const T0 = Date.UTC(2027, 0, 10)
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

  it('sees a pack added by another connection within the version check interval', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pronet-ledger-'))
    const server = open(join(dir, 'x.db'), true)
    const cli = open(join(dir, 'x.db'))
    const id = await addAccount(server.db, { plan: 'none', status: 'free', creditsLimit: 0, createdAt: T0 })
    expect((await server.ledger.hold(id, 1, T0)).ok).toBe(false)
    await cli.ledger.addPack(id, { credits: 50_000, purchasedAt: T0, priceCents: 7500 })
    await sleep(VERSION_CHECK_MS + 10)
    expect((await server.ledger.hold(id, 1, T0)).ok).toBe(true)
    for (const x of [server, cli]) {
      await x.ledger.close()
      x.db.close()
    }
    rmSync(dir, { recursive: true, force: true })
  })

  it('a debit that no longer fits rows changed underneath is worked out again from them: refused as insufficient (the late 402), not failed; the others commit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pronet-ledger-'))
    const server = open(join(dir, 'x.db'))
    const cli = open(join(dir, 'x.db'))
    const ids = [
      await addAccount(server.db, { plan: 'custom', status: 'active', creditsLimit: 3, createdAt: T0 }),
      await addAccount(server.db, { plan: 'custom', status: 'active', creditsLimit: 3, createdAt: T0 }),
    ] as const
    // Both accounts' periods exist on disk before the other connection looks.
    for (const id of ids) await server.ledger.state(id, T0)
    await server.ledger.usage(ids[0], '2027-01-01', '2027-01-31')
    const holds = await Promise.all(ids.map((id) => server.ledger.hold(id, 3, T0)))
    // The other process takes the first account's allowance to 0 before the server settles.
    await cli.ledger.changeSubscription(ids[0], { creditsLimit: 0 }, T0)
    const settled = await Promise.allSettled(
      holds.map((h, i) => (h.ok ? server.ledger.settle(h.hold, { accountId: ids[i] as string, at: T0, endpoint: '/api/v1/profile', status: 200, credits: 3, requestId: `r${i}` }) : Promise.reject(new Error('refused')))),
    )
    // It was a rejection (a 500 to the client) whose usage line was lost: the gateway records the 402's.
    expect(settled[0]).toMatchObject({ status: 'fulfilled', value: { ok: false, reason: 'insufficient' } })
    expect(settled[1]).toMatchObject({ status: 'fulfilled', value: { ok: true, charged: 3 } })
    const state0 = await server.ledger.state(ids[0], T0)
    expect(state0!.lots[0]).toMatchObject({ credits: 0, remaining: 0 })
    expect((await server.ledger.entries(ids[0])).some((e) => e.kind === 'debit')).toBe(false)
    expect(await server.ledger.usage(ids[0], '2027-01-01', '2027-01-31')).toEqual([])
    expect(await server.ledger.usage(ids[1], '2027-01-01', '2027-01-31')).toEqual([expect.objectContaining({ status: 200, requests: 1, credits: 3 })])
    expect((await server.ledger.entries(ids[1])).filter((e) => e.kind === 'debit')).toHaveLength(1)
    for (const x of [server, cli]) {
      await x.ledger.close()
      x.db.close()
    }
    rmSync(dir, { recursive: true, force: true })
  })

  it("the CLI's allowance change, worked out before the server's debits landed, is worked out again from the rows", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pronet-ledger-'))
    const path = join(dir, 'x.db')
    const server = open(path)
    const id = await addAccount(server.db, { plan: 'custom', status: 'active', creditsLimit: 100, createdAt: T0 })
    await server.ledger.state(id, T0)
    await server.ledger.usage(id, '2027-01-01', '2027-01-31')
    // The CLI reads the account (100 left); the server's debits of 60 land before the CLI's change does.
    const cliDb = openSqlite(path)
    const writes = createThreadCommitter(cliDb)
    let first = true
    const cli = createSqliteLedger(cliDb, {
      newLotId,
      committer: {
        async write(jobs) {
          if (first) {
            first = false
            const h = await server.ledger.hold(id, 60, T0)
            if (!h.ok) throw new Error('hold refused')
            await server.ledger.settle(h.hold, { accountId: id, at: T0, endpoint: '/api/v1/company/batch', status: 200, credits: 60, requestId: 'r60' })
          }
          return writes.write(jobs)
        },
        close: () => writes.close(),
      },
    })
    await cli.state(id, T0)
    // Lowering the allowance to 50 with 60 used leaves nothing; worked out from the stale 100 left, the
    // adjustment took 50 from the 40 there (the CHECK refused it, and the command failed).
    // (The plan lot keeps the 60 spent from it as its credits, as an in-process change leaves it.)
    const after = await cli.changeSubscription(id, { creditsLimit: 50 }, T0)
    expect(after.subscription.creditsLimit).toBe(50)
    expect(after.lots[0]).toMatchObject({ credits: 60, remaining: 0 })
    await sleep(VERSION_CHECK_MS + 10)
    expect((await server.ledger.state(id, T0))!.lots[0]).toMatchObject({ credits: 60, remaining: 0 })
    expect((await server.ledger.entries(id)).filter((e) => e.kind === 'debit').map((e) => e.delta)).toEqual([-60])
    await cli.close()
    cliDb.close()
    await server.ledger.close()
    server.db.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('the metering service refuses with 402 details when a hold cannot be taken', async () => {
    const { db, ledger } = open(':memory:')
    const clock = createManualClock(T0)
    const metering = createMeteringService({ ledger, limiter: createMemoryRateLimiter(), clock, sleep: async () => {}, buyCreditsUrl: 'https://buy' })
    const id = await addAccount(db, { plan: 'custom', status: 'active', creditsLimit: 1, createdAt: T0 })
    await expect(metering.hold(id, 2, T0)).rejects.toMatchObject({
      code: 'QUOTA_EXHAUSTED',
      details: { creditsRemaining: 1, subscriptionCreditsRemaining: 1, paygCreditsRemaining: 0, creditsRequired: 2, creditsHeld: 0, buyCreditsUrl: 'https://buy' },
    })
    // With a call in flight holding part of the balance, the details and the message say how much.
    const id2 = await addAccount(db, { plan: 'custom', status: 'active', creditsLimit: 7, createdAt: T0 })
    const first = await metering.hold(id2, 5, T0)
    await expect(metering.hold(id2, 3, T0)).rejects.toMatchObject({
      code: 'QUOTA_EXHAUSTED',
      message: expect.stringContaining('the balance of 7 less the 5 held'),
      details: { creditsRemaining: 7, creditsRequired: 3, creditsHeld: 5 },
    })
    await metering.settle(first, { accountId: id2, at: T0, endpoint: '/api/v1/profile', status: 200, credits: 5, requestId: 'r-held' })
    await expect(metering.hold(id2, 3, T0)).rejects.toMatchObject({ details: { creditsRemaining: 2, creditsRequired: 3, creditsHeld: 0 } })
    await ledger.close()
    db.close()
  })
})
