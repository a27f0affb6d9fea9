/**
 * The Ledger port's contract, run against every adapter alike: holds and settles,
 * drawdown order, renewal and expiry decided by the instant of each debit, operator changes,
 * durability across a reopen, usage aggregation, packs granted once under a caller's lot id,
 * Idempotency-Key claims and the answers settles keep under them, and the ledger's own invariant (per
 * lot, SUM(delta) = remaining; a request is debited at most once).
 */
import { randomBytes } from 'node:crypto'
import { beforeEach, afterEach, describe, expect, it } from 'vitest'
import type { AccountRecord } from '../../src/ports/account-store.ts'
import { KEY_LEASE_MS, KEY_RETENTION_MS, type KeptAnswer, type KeyClaim, type KeyState, type Ledger, type UsageLine } from '../../src/ports/ledger.ts'

export interface LedgerHandle {
  ledger: Ledger
  /** Creates an account row (as the account store would) and returns its id. */
  createAccount(account: Partial<AccountRecord> & { createdAt: number }): Promise<string>
  /** Closes this ledger and opens a new one on the same data (durability checks). */
  reopen(): Promise<Ledger>
  dispose(): Promise<void>
}

const T0 = Date.UTC(2027, 0, 31, 9, 30) // a month end: renewals clamp to 28 Feb
const DAY = 86_400_000
let seq = 0
const line = (accountId: string, at: number, credits: number, status = 200, endpoint = '/api/v1/profile'): UsageLine => ({
  accountId,
  at,
  endpoint,
  status,
  credits,
  requestId: `req-${++seq}`,
})

export function runLedgerContract(name: string, make: () => Promise<LedgerHandle>): void {
  describe(`Ledger contract: ${name}`, () => {
    let h: LedgerHandle
    let ledger: Ledger
    beforeEach(async () => {
      h = await make()
      ledger = h.ledger
    })
    afterEach(async () => h.dispose())

    const custom = (creditsLimit: number) => h.createAccount({ plan: 'custom', status: 'active', creditsLimit, rpsLimit: 10, createdAt: T0 })

    async function balanced(accountId: string, at: number) {
      const state = await ledger.state(accountId, at)
      const entries = await ledger.entries(accountId)
      for (const lot of state!.lots) {
        expect(entries.filter((e) => e.lotId === lot.id).reduce((s, e) => s + e.delta, 0), `lot ${lot.id}`).toBe(lot.remaining)
      }
      const debited = entries.filter((e) => e.requestId !== null).map((e) => `${e.requestId}/${e.lotId}`)
      expect(new Set(debited).size).toBe(debited.length)
    }

    it('opens the first period at the account creation instant and grants its allowance', async () => {
      const id = await custom(100)
      const state = await ledger.state(id, T0 + 1000)
      expect(state!.subscription).toMatchObject({ periodStart: T0, renewalAt: Date.UTC(2027, 1, 28, 9, 30) })
      expect(state!.lots).toEqual([expect.objectContaining({ kind: 'plan', credits: 100, remaining: 100, startsAt: T0 })])
      expect(await ledger.state('acc_missing', T0)).toBeUndefined()
      await balanced(id, T0)
    })

    it('a node whose clock is behind the one that opened the account or added a pack sees its credits (billingInstant)', async () => {
      const spend = async (credits: number, at: number) => {
        const held = await ledger.hold(id, credits, at)
        expect(held.ok, `hold of ${credits} at T0${at - T0 >= 0 ? '+' : ''}${at - T0}`).toBe(true)
        if (!held.ok) throw new Error('unreachable')
        expect(await ledger.settle(held.hold, line(id, at, credits))).toEqual({ ok: true, charged: credits })
      }
      // Opened at T0 by a node ahead: a node 100 ms behind reads the allowance, holds and bills it.
      const id = await custom(5)
      expect((await ledger.state(id, T0 - 100))!.lots).toEqual([expect.objectContaining({ kind: 'plan', remaining: 5, startsAt: T0 })])
      await spend(2, T0 - 100)
      await spend(3, T0)
      // A pack bought at T1 by the node ahead is spendable at once behind it.
      const T1 = T0 + 60_000
      await ledger.addPack(id, { credits: 100, purchasedAt: T1, priceCents: 100 })
      await spend(1, T1 - 50)
      expect((await ledger.state(id, T1 - 50))!.lots.map((l) => [l.kind, l.remaining])).toEqual([
        ['plan', 0],
        ['pack', 99],
      ])
      await balanced(id, T1)
    })

    it('holds reduce what others can hold; settles debit at most the hold and release it', async () => {
      const id = await custom(5)
      const a = await ledger.hold(id, 3, T0)
      expect(a.ok).toBe(true)
      const b = await ledger.hold(id, 3, T0)
      // The refusal says what other calls hold: the balance less that is what admits.
      expect(b).toMatchObject({ ok: false, balance: { total: 5, subscription: 5, payg: 0 }, held: 3 })
      if (!a.ok) throw new Error('unreachable')
      // A 404 settles 1 of the 3 held; the other 2 come back.
      expect(await ledger.settle(a.hold, line(id, T0, 1, 404))).toEqual({ ok: true, charged: 1 })
      expect((await ledger.hold(id, 4, T0)).ok).toBe(true)
      await expect(ledger.settle(null, line(id, T0, 1))).rejects.toThrow()
      await balanced(id, T0)
    })

    it('a call still running keeps its hold however far the requests\' clock moves', async () => {
      // A test clock (or a node whose clock jumps) moves past the holds' lifetime while a call runs:
      // its credits stay reserved, so a later call cannot spend them and the first never gets a late 402.
      const id = await custom(5)
      const a = await ledger.hold(id, 5, T0)
      expect(a.ok).toBe(true)
      if (!a.ok) throw new Error('unreachable')
      const later = T0 + 10 * 60_000
      expect(await ledger.hold(id, 1, later)).toMatchObject({ ok: false, held: 5 })
      expect(await ledger.settle(a.hold, line(id, T0, 5))).toEqual({ ok: true, charged: 5 })
      expect(await ledger.hold(id, 1, later)).toMatchObject({ ok: false, held: 0, balance: { total: 0 } })
      await balanced(id, later)
    })

    it('draws the allowance first, then packs by soonest expiry, splitting a debit across lots', async () => {
      const id = await custom(2)
      await ledger.state(id, T0)
      const late = await ledger.addPack(id, { credits: 50_000, purchasedAt: T0, priceCents: 7500 })
      const early = await ledger.addPack(id, { credits: 50_000, purchasedAt: T0 - 30 * DAY, priceCents: 7500 })
      const hold = await ledger.hold(id, 3, T0 + 1)
      if (!hold.ok) throw new Error('refused')
      await ledger.settle(hold.hold, line(id, T0 + 1, 3))
      const debits = (await ledger.entries(id)).filter((e) => e.kind === 'debit')
      const plan = (await ledger.state(id, T0 + 1))!.lots.find((l) => l.kind === 'plan')!
      expect(debits.map((d) => [d.lotId, d.delta])).toEqual([
        [plan.id, -2],
        [early.id, -1],
      ])
      expect(late.expiresAt).toBe(Date.UTC(2028, 0, 31, 9, 30))
      await balanced(id, T0 + 1)
    })

    it('a pack is spendable until the millisecond before its expiry; 29 Feb + 12 months = 28 Feb', async () => {
      const id = await h.createAccount({ plan: 'none', status: 'free', creditsLimit: 0, rpsLimit: 5, createdAt: T0 })
      const leap = Date.UTC(2028, 1, 29, 12)
      const pack = await ledger.addPack(id, { credits: 50_000, purchasedAt: leap, priceCents: 7500 })
      expect(pack.expiresAt).toBe(Date.UTC(2029, 1, 28, 12))
      expect((await ledger.hold(id, 1, pack.expiresAt - 1)).ok).toBe(true)
      expect(await ledger.hold(id, 1, pack.expiresAt)).toMatchObject({ ok: false, balance: { total: 0, paygExpiresAt: null }, held: 1 })
      // Before its purchase instant a pack is not spendable either.
      expect(await ledger.hold(id, 50_000, leap - 1)).toMatchObject({ ok: false })
    })

    it('renewal replaces the allowance, skips idle periods, and keeps packs', async () => {
      const id = await custom(10)
      const h1 = await ledger.hold(id, 4, T0)
      if (!h1.ok) throw new Error('refused')
      await ledger.settle(h1.hold, line(id, T0, 4))
      const feb28 = Date.UTC(2027, 1, 28, 9, 30)
      expect((await ledger.hold(id, 7, feb28 - 1)).ok).toBe(false)
      const renewed = await ledger.state(id, feb28)
      expect(renewed!.subscription).toMatchObject({ periodStart: feb28, renewalAt: Date.UTC(2027, 2, 31, 9, 30) })
      // Months later: one grant for the period containing the instant, none for the idle ones.
      const later = Date.UTC(2027, 6, 1)
      const state = await ledger.state(id, later)
      expect(state!.subscription).toMatchObject({ periodStart: Date.UTC(2027, 5, 30, 9, 30), renewalAt: Date.UTC(2027, 6, 31, 9, 30) })
      expect((await ledger.entries(id)).filter((e) => e.kind === 'grant')).toHaveLength(3)
      await balanced(id, later)
    })

    it('cancel at period end: the plan ends at renewal; status canceled, packs stay', async () => {
      const id = await custom(10)
      await ledger.state(id, T0)
      await ledger.addPack(id, { credits: 50_000, purchasedAt: T0, priceCents: 7500 })
      await ledger.changeSubscription(id, { cancelAtPeriodEnd: true }, T0 + 1)
      const after = await ledger.state(id, Date.UTC(2027, 1, 28, 9, 30))
      expect(after!.subscription).toMatchObject({ plan: 'none', status: 'canceled', renewalAt: null, cancelAtPeriodEnd: false })
      const hold = await ledger.hold(id, 50_001, Date.UTC(2027, 1, 28, 9, 30))
      expect(hold).toMatchObject({ ok: false, balance: { subscription: 0, payg: 50_000 } })
      // A clock set back before the renewal date does not give the discarded allowance back.
      const before = Date.UTC(2027, 1, 28, 9, 29)
      expect((await ledger.hold(id, 50_001, before)) as unknown).toMatchObject({ ok: false, balance: { subscription: 0, payg: 50_000 } })
      expect((await ledger.state(id, before))!.subscription).toMatchObject({ plan: 'none', status: 'canceled' })
    })

    it('a plan cancelled at once stays ended for a clock set back before the cancellation', async () => {
      const id = await custom(10)
      await ledger.changeSubscription(id, { status: 'canceled' }, T0 + 5_000)
      const hold = await ledger.hold(id, 1, T0 + 1_000)
      expect(hold).toMatchObject({ ok: false, balance: { subscription: 0, payg: 0, total: 0 } })
      await balanced(id, T0 + 5_000)
    })

    it('operator changes: a new limit adjusts this period, a new plan starts a period now', async () => {
      const id = await custom(10)
      const h1 = await ledger.hold(id, 4, T0)
      if (!h1.ok) throw new Error('refused')
      await ledger.settle(h1.hold, line(id, T0, 4))
      await ledger.changeSubscription(id, { creditsLimit: 3 }, T0 + 1)
      let state = await ledger.state(id, T0 + 1)
      // Below what was spent: nothing left, and the lot has granted the 4 spent (credits − remaining).
      expect(state!.subscription.creditsLimit).toBe(3)
      expect(state!.lots.find((l) => l.kind === 'plan')).toMatchObject({ credits: 4, remaining: 0 })
      // Raised again: the 4 spent stay spent.
      await ledger.changeSubscription(id, { creditsLimit: 10 }, T0 + 1)
      state = await ledger.state(id, T0 + 1)
      expect(state!.lots.find((l) => l.kind === 'plan')).toMatchObject({ credits: 10, remaining: 6 })
      await ledger.changeSubscription(id, { creditsLimit: 3 }, T0 + 1)
      await ledger.changeSubscription(id, { plan: 'free' }, T0 + 2)
      state = await ledger.state(id, T0 + 2)
      expect(state!.subscription).toMatchObject({ plan: 'free', status: 'free', creditsLimit: 1000, anchorAt: T0 + 2, periodStart: T0 + 2 })
      const big = await ledger.hold(id, 1000, T0 + 2)
      if (!big.ok) throw new Error('refused')
      await ledger.settle(big.hold, line(id, T0 + 2, 0, 500))
      await ledger.changeSubscription(id, { status: 'canceled' }, T0 + 3)
      expect(await ledger.hold(id, 1, T0 + 3)).toMatchObject({ ok: false })
      await balanced(id, T0 + 3)
    })

    it('everything acknowledged survives a reopen', async () => {
      const id = await custom(10)
      const hold = await ledger.hold(id, 2, T0)
      if (!hold.ok) throw new Error('refused')
      await ledger.settle(hold.hold, line(id, T0, 2))
      await ledger.addPack(id, { credits: 100_000, purchasedAt: T0, priceCents: 15000 })
      await ledger.changeSubscription(id, { rpsLimit: 7, cancelAtPeriodEnd: true }, T0)
      await ledger.settle(null, line(id, T0, 0, 429))
      const before = { state: await ledger.state(id, T0), entries: await ledger.entries(id), usage: await ledger.usage(id, '2027-01-01', '2027-12-31') }
      ledger = await h.reopen()
      expect(await ledger.state(id, T0)).toEqual(before.state)
      expect(await ledger.entries(id)).toEqual(before.entries)
      expect(await ledger.usage(id, '2027-01-01', '2027-12-31')).toEqual(before.usage)
    })

    it('aggregates usage lines per UTC day, endpoint and status', async () => {
      const id = await custom(100)
      const late = Date.UTC(2027, 0, 31, 23, 59, 59, 999)
      for (const [at, credits, status, endpoint] of [
        [T0, 1, 200, '/api/v1/profile'],
        [late, 1, 404, '/api/v1/profile'],
        [late, 0, 400, '/api/v1/profile'],
        [late + 1, 2, 200, '/api/v1/post/engagement'],
        [late + 1, 0, 404, 'unknown'],
      ] as const) {
        const hold = credits > 0 ? await ledger.hold(id, credits, at) : undefined
        await ledger.settle(hold?.ok ? hold.hold : null, line(id, at, credits, status, endpoint))
      }
      expect(await ledger.usage(id, '2027-01-31', '2027-02-01')).toEqual([
        { day: '2027-01-31', endpoint: '/api/v1/profile', status: 200, requests: 1, billable: 1, credits: 1 },
        { day: '2027-01-31', endpoint: '/api/v1/profile', status: 400, requests: 1, billable: 0, credits: 0 },
        { day: '2027-01-31', endpoint: '/api/v1/profile', status: 404, requests: 1, billable: 1, credits: 1 },
        { day: '2027-02-01', endpoint: '/api/v1/post/engagement', status: 200, requests: 1, billable: 1, credits: 2 },
        { day: '2027-02-01', endpoint: 'unknown', status: 404, requests: 1, billable: 0, credits: 0 },
      ])
      expect(await ledger.usage(id, '2027-02-01', '2027-02-01')).toHaveLength(2)
    })

    it('a pack added under a lot id is granted once: repeated, concurrent and reopened calls add nothing more', async () => {
      const id = await h.createAccount({ plan: 'none', status: 'free', creditsLimit: 0, rpsLimit: 5, createdAt: T0 })
      const [first, second] = [`lot_ord_${randomBytes(6).toString('hex')}`, `lot_ord_${randomBytes(6).toString('hex')}`] as const
      const pack = { credits: 50_000, purchasedAt: T0 + 1_000, priceCents: 7500 }
      expect(await ledger.addPack(id, pack, first)).toMatchObject({ id: first, kind: 'pack', credits: 50_000, remaining: 50_000, startsAt: T0 + 1_000, priceCents: 7500 })
      const held = await ledger.hold(id, 10, T0 + 2_000)
      if (!held.ok) throw new Error('refused')
      await ledger.settle(held.hold, line(id, T0 + 2_000, 10))
      // Asked again later (a redelivered payment): the lot as stored, spent from, at its first instant.
      expect(await ledger.addPack(id, { ...pack, purchasedAt: T0 + 5_000 }, first)).toMatchObject({ id: first, credits: 50_000, remaining: 49_990, startsAt: T0 + 1_000 })
      // Asked at once by several callers: one grant, and every caller is answered with it. Which caller
      // wins is the store's race to decide (on PostgreSQL any of them may), so the winner is read back.
      const racing = await Promise.all(Array.from({ length: 8 }, (_, i) => ledger.addPack(id, { ...pack, purchasedAt: T0 + 3_000 + i }, second)))
      const won = racing[0]!.startsAt
      expect(won).toBeGreaterThanOrEqual(T0 + 3_000)
      expect(won).toBeLessThan(T0 + 3_008)
      expect(new Set(racing.map((l) => `${l.id}@${l.startsAt}`))).toEqual(new Set([`${second}@${won}`]))
      ledger = await h.reopen()
      expect(await ledger.addPack(id, pack, second)).toMatchObject({ id: second, remaining: 50_000, startsAt: won })
      const grants = (await ledger.entries(id)).filter((e) => e.kind === 'grant')
      expect(grants.map((g) => [g.lotId, g.delta]).sort()).toEqual([[first, 50_000], [second, 50_000]].sort())
      expect((await ledger.state(id, T0 + 5_000))!.lots.filter((l) => l.kind === 'pack')).toHaveLength(2)
      // Another account never gets a lot under an id already granted; without an id every call is a new pack.
      const other = await h.createAccount({ plan: 'none', status: 'free', creditsLimit: 0, rpsLimit: 5, createdAt: T0 })
      await expect(ledger.addPack(other, pack, first)).rejects.toThrow()
      expect((await ledger.entries(other)).filter((e) => e.kind === 'grant')).toEqual([])
      await ledger.addPack(id, pack)
      await ledger.addPack(id, pack)
      expect((await ledger.state(id, T0 + 5_000))!.lots.filter((l) => l.kind === 'pack')).toHaveLength(4)
      await balanced(id, T0 + 5_000)
    })

    describe('Idempotency-Key claims and kept answers', () => {
      const use = (accountId: string, key: string, at = T0, fingerprint = 'fp-1') => ({ accountId, key, fingerprint, at })
      // Every byte value, so nothing is lost to an encoding on the way to the store and back.
      const answer = (status = 200): KeptAnswer => ({
        status,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: Buffer.concat([Buffer.from('{"x":"\u00e9"}'), Buffer.from(Array.from({ length: 256 }, (_, i) => i))]),
      })
      const claimed = (found: KeyState): KeyClaim => {
        expect(found.state).toBe('claimed')
        if (found.state !== 'claimed') throw new Error('unreachable')
        return found.claim
      }

      it('a claim holds its key: the same request is running, another is a mismatch; other accounts and keys are free', async () => {
        const id = await custom(10)
        const other = await custom(10)
        const claim = claimed(await ledger.claimKey(use(id, 'k1')))
        expect(claim).toMatchObject({ accountId: id, key: 'k1', fingerprint: 'fp-1', at: T0, token: expect.any(String) })
        expect(await ledger.claimKey(use(id, 'k1', T0 + 5))).toEqual({ state: 'running' })
        expect(await ledger.claimKey(use(id, 'k1', T0 + 5, 'fp-2'))).toEqual({ state: 'mismatch' })
        claimed(await ledger.claimKey(use(other, 'k1')))
        claimed(await ledger.claimKey(use(id, 'k2')))
        // Released (a refusal worth a retry): the next call with the key runs, whatever its request.
        await ledger.releaseKey(claim)
        const again = claimed(await ledger.claimKey(use(id, 'k1', T0 + 10, 'fp-2')))
        expect(again.token).not.toBe(claim.token)
        // A release of a claim that has ended does not touch the one that holds the key now.
        await ledger.releaseKey(claim)
        expect(await ledger.claimKey(use(id, 'k1', T0 + 20, 'fp-2'))).toEqual({ state: 'running' })
      })

      it('kept answers come back byte for byte, whatever their bytes: JSON text, quotes, backslashes, a NUL, bytes that are not UTF-8', async () => {
        const id = await custom(10)
        const bodies = [
          Buffer.from(JSON.stringify({ name: "Zoë O'Neil", about: 'it\'s "quoted", a \\ and a\nline, 東京 🚀', empty: '' })),
          Buffer.from("'; SELECT 1; --"),
          Buffer.from('E\'\\x00\''),
          Buffer.from('{"a":"\u0000"}'),
          Buffer.from([0x7b, 0x00, 0x7d]),
          Buffer.from([0xc3, 0x28, 0xa0, 0xa1]),
          Buffer.alloc(0),
          Buffer.from('x'.repeat(20_000) + "'"),
        ]
        const kept = await Promise.all(
          bodies.map(async (body, n) => {
            const claim = claimed(await ledger.claimKey(use(id, `bytes-${n}`)))
            const kept: KeptAnswer = { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body }
            expect(await ledger.settle(null, line(id, T0, 0, 200), { claim, answer: kept })).toEqual({ ok: true, charged: 0 })
            return kept
          }),
        )
        ledger = await h.reopen()
        for (const [n, answer] of kept.entries()) expect(await ledger.claimKey(use(id, `bytes-${n}`, T0 + 1))).toEqual({ state: 'answered', answer })
      })

      it('racing claims of one key: exactly one runs', async () => {
        const id = await custom(10)
        const found = await Promise.all(Array.from({ length: 8 }, (_, i) => ledger.claimKey(use(id, 'race', T0 + i))))
        expect(found.filter((f) => f.state === 'claimed')).toHaveLength(1)
        expect(found.filter((f) => f.state === 'running')).toHaveLength(7)
      })

      it('a billed settle keeps the answer with its debit: repeated as kept, across a reopen, for a day of the requests\' clock', async () => {
        const id = await custom(10)
        const claim = claimed(await ledger.claimKey(use(id, 'billed')))
        const held = await ledger.hold(id, 3, T0)
        if (!held.ok) throw new Error('refused')
        const l = line(id, T0, 3)
        expect(await ledger.settle(held.hold, l, { claim, answer: answer() })).toEqual({ ok: true, charged: 3 })
        expect(await ledger.claimKey(use(id, 'billed', T0 + 1))).toEqual({ state: 'answered', answer: answer() })
        expect(await ledger.claimKey(use(id, 'billed', T0 + 1, 'fp-2'))).toEqual({ state: 'mismatch' })
        ledger = await h.reopen()
        expect(await ledger.claimKey(use(id, 'billed', T0 + KEY_RETENTION_MS - 1))).toEqual({ state: 'answered', answer: answer() })
        // Debited once, under the call that kept the answer.
        expect((await ledger.entries(id)).filter((e) => e.kind === 'debit').map((e) => [e.requestId, e.delta])).toEqual([[l.requestId, -3]])
        // A day after the first call the key is free again, for any request.
        const later = claimed(await ledger.claimKey(use(id, 'billed', T0 + KEY_RETENTION_MS, 'fp-3')))
        expect(await ledger.settle(null, { ...line(id, T0 + KEY_RETENTION_MS, 0, 400) }, { claim: later, answer: answer(400) })).toEqual({ ok: true, charged: 0 })
        expect(await ledger.claimKey(use(id, 'billed', T0 + KEY_RETENTION_MS + 1, 'fp-3'))).toEqual({ state: 'answered', answer: answer(400) })
        await balanced(id, T0 + KEY_RETENTION_MS)
      })

      it('a free settle keeps its answer too (a 400 of the request), with its usage line', async () => {
        const id = await custom(10)
        const claim = claimed(await ledger.claimKey(use(id, 'free')))
        expect(await ledger.settle(null, line(id, T0, 0, 400), { claim, answer: answer(400) })).toEqual({ ok: true, charged: 0 })
        expect(await ledger.claimKey(use(id, 'free', T0 + 1))).toEqual({ state: 'answered', answer: answer(400) })
        expect(await ledger.usage(id, '2027-01-31', '2027-01-31')).toEqual([
          { day: '2027-01-31', endpoint: '/api/v1/profile', status: 400, requests: 1, billable: 0, credits: 0 },
        ])
      })

      it('a settle refused for want of credits keeps nothing: the key is the caller\'s to release', async () => {
        const id = await custom(5)
        const claim = claimed(await ledger.claimKey(use(id, 'refused')))
        const held = await ledger.hold(id, 5, T0)
        if (!held.ok) throw new Error('refused')
        // An operator lowers the allowance below what the call held while it runs.
        await ledger.changeSubscription(id, { creditsLimit: 2 }, T0)
        expect(await ledger.settle(held.hold, line(id, T0, 5), { claim, answer: answer() })).toEqual({ ok: false, reason: 'insufficient' })
        expect(await ledger.claimKey(use(id, 'refused', T0 + 1))).toEqual({ state: 'running' })
        await ledger.releaseKey(claim)
        claimed(await ledger.claimKey(use(id, 'refused', T0 + 2)))
        expect((await ledger.entries(id)).filter((e) => e.kind === 'debit')).toEqual([])
      })

      it('the claim of a holder that died is taken over once its lease has lapsed', async () => {
        const id = await custom(10)
        claimed(await ledger.claimKey(use(id, 'orphan')))
        // The holder's ledger goes away with its call unsettled (a crash, for the store).
        ledger = await h.reopen()
        const taken = claimed(await ledger.claimKey(use(id, 'orphan', T0 + KEY_LEASE_MS + 1)))
        expect(await ledger.settle(null, line(id, T0 + KEY_LEASE_MS + 1, 0, 404), { claim: taken, answer: answer(404) })).toEqual({ ok: true, charged: 0 })
        expect(await ledger.claimKey(use(id, 'orphan', T0 + KEY_LEASE_MS + 2))).toEqual({ state: 'answered', answer: answer(404) })
      })
    })

    it('concurrent settles of many holds never overdraw and each is one debit', async () => {
      const id = await custom(50)
      const holds = await Promise.all(Array.from({ length: 80 }, () => ledger.hold(id, 1, T0)))
      expect(holds.filter((x) => x.ok)).toHaveLength(50)
      await Promise.all(holds.flatMap((x) => (x.ok ? [ledger.settle(x.hold, line(id, T0, 1))] : [])))
      const state = await ledger.state(id, T0)
      expect(state!.lots[0]!.remaining).toBe(0)
      expect((await ledger.entries(id)).filter((e) => e.kind === 'debit')).toHaveLength(50)
      await balanced(id, T0)
    })
  })
}
