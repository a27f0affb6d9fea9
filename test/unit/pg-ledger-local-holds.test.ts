/**
 * The rule by which a PostgreSQL node grants a hold from its view of an account, without the
 * database: what the view must be (fresh in real time and in the requests' clock, no renewal due),
 * what the hold must leave (the floor, plus eight times what the node granted on its own since), what
 * counts as held (this node's holds, the other nodes' live rows), and how a failed guard keeps the
 * account's settles under the lock for a while.
 */
import { describe, expect, it } from 'vitest'
import type { BillingState } from '../../src/domain/billing/billing-rules.ts'
import { CONTENTION_MS, createLocalHolds, LOCAL_FLOOR_CREDITS, LOCAL_VIEW_MS } from '../../src/adapters/postgres/pg-ledger-local-holds.ts'
import { createNodeHolds } from '../../src/adapters/postgres/pg-ledger-node-holds.ts'

const T0 = Date.UTC(2027, 5, 1, 12)
const MONTH = 30 * 86_400_000

function state(remaining: number, renewalAt = T0 + MONTH): BillingState {
  return {
    accountId: 'acc',
    subscription: { plan: 'custom', status: 'active', creditsLimit: remaining, rpsLimit: 10, anchorAt: T0, periodStart: T0, renewalAt, cancelAtPeriodEnd: false },
    lots: [{ id: 'lot', kind: 'plan', credits: remaining, remaining, startsAt: T0, expiresAt: renewalAt, priceCents: null, seq: 1 }],
  }
}

function setup() {
  let real = 1_000_000
  let ids = 0
  const holds = createNodeHolds({ nodeId: 'node_a', holdTtlMs: 30_000, renewMs: 0, renew: () => {} })
  const local = createLocalHolds({ holds, newHoldId: () => `hold_${++ids}`, now: () => T0, realNow: () => real })
  return { holds, local, advance: (ms: number) => (real += ms) }
}

describe('PostgreSQL ledger: holds from the node\'s view', () => {
  it('grants nothing without a view, then grants from it, dated and billed as a batch would', () => {
    const { holds, local } = setup()
    expect(local.grant('acc', 1, T0 + 10)).toBeUndefined()
    local.seen('acc', state(100_000), [], T0 + 5)
    const r = local.grant('acc', 2, T0 + 10)
    expect(r).toEqual({ ok: true, hold: { id: 'hold_1', accountId: 'acc', credits: 2, at: T0 + 10 } })
    expect([...(holds.of('acc')?.values() ?? [])]).toEqual([expect.objectContaining({ credits: 2, at: T0 + 10 })])
  })

  it('keeps the floor plus eight times what it granted on its own since the view', () => {
    const { local } = setup()
    const balance = LOCAL_FLOOR_CREDITS + 900
    local.seen('acc', state(balance), [], T0)
    // Each grant of 10 needs: balance − held − 10 ≥ floor + 8 × (since + 10).
    let granted = 0
    while (local.grant('acc', 10, T0 + 1)) granted++
    // After k grants: 1,900 − 10(k+1) ≥ 1,000 + 80(k+1) holds for k + 1 ≤ 10.
    expect(granted).toBe(10)
    // A new view starts the count again, while what the node holds still counts: 1,900 − 100 held.
    local.seen('acc', state(balance), [], T0 + 2)
    expect(local.grant('acc', 10, T0 + 3)).toMatchObject({ ok: true })
    expect(local.grant('acc', 700, T0 + 3)).toBeUndefined()
  })

  it('counts the other nodes\' rows until they lapse', () => {
    const { local } = setup()
    const others = [{ credits: 920, expiresAt: T0 + 500 }]
    local.seen('acc', state(LOCAL_FLOOR_CREDITS + 920), others, T0)
    expect(local.grant('acc', 1, T0 + 100)).toBeUndefined()
    // Lapsed by the hold's instant: the row no longer reduces the balance.
    expect(local.grant('acc', 1, T0 + 600)).toMatchObject({ ok: true })
  })

  it('a view serves for a second of real time and of the requests\' clock, and never across a renewal', () => {
    const { local, advance } = setup()
    local.seen('acc', state(100_000), [], T0)
    advance(LOCAL_VIEW_MS + 1)
    expect(local.grant('acc', 1, T0 + 1)).toBeUndefined()
    // Dropped: a later grant does not find it again.
    expect(local.forSettles('acc')).toBeUndefined()

    local.seen('acc', state(100_000), [], T0)
    expect(local.grant('acc', 1, T0 + LOCAL_VIEW_MS + 1)).toBeUndefined()

    const renewalAt = T0 + 500
    local.seen('acc', state(100_000, renewalAt), [], T0)
    expect(local.grant('acc', 1, renewalAt - 1)).toMatchObject({ ok: true })
    expect(local.grant('acc', 1, renewalAt)).toBeUndefined()
  })

  it('a view moved on by a batch from it keeps the age of the last read', () => {
    const { local, advance } = setup()
    local.seen('acc', state(100_000), [], T0)
    advance(600)
    local.advanced('acc', state(99_990), T0 + 600)
    expect(local.forSettles('acc')?.state.lots[0]?.remaining).toBe(99_990)
    advance(500)
    expect(local.forSettles('acc')).toBeUndefined()
  })

  it('after a failed guard, settles go under the lock for a second, and only a new read serves again', () => {
    const { local, advance } = setup()
    local.seen('acc', state(100_000), [], T0)
    local.guardFailed('acc')
    expect(local.forSettles('acc')).toBeUndefined()
    expect(local.grant('acc', 1, T0)).toBeUndefined()
    local.seen('acc', state(100_000), [], T0 + 1)
    // Read again under the lock, but still within the second after the failure.
    expect(local.forSettles('acc')).toBeUndefined()
    advance(1_001)
    local.seen('acc', state(100_000), [], T0 + 2)
    expect(local.forSettles('acc')).toMatchObject({ state: { accountId: 'acc' } })
  })

  it('an account counts as served by other nodes for three seconds after a guard found it changed', () => {
    const { local, advance } = setup()
    expect(CONTENTION_MS).toBe(3_000)
    local.seen('acc', state(100_000), [], T0)
    expect(local.contended('acc')).toBe(false)
    local.guardFailed('acc')
    expect(local.contended('acc')).toBe(true)
    expect(local.contended('other')).toBe(false)
    // Past the second of settles under the lock, and read again: still contended.
    advance(CONTENTION_MS - 1)
    local.seen('acc', state(100_000), [], T0 + 1)
    expect(local.forSettles('acc')).toBeDefined()
    expect(local.contended('acc')).toBe(true)
    // A later failure starts the three seconds again.
    local.guardFailed('acc')
    advance(CONTENTION_MS)
    expect(local.contended('acc')).toBe(true)
    advance(1)
    expect(local.contended('acc')).toBe(false)
  })

  it('a change outside the batches forgets the view', () => {
    const { local } = setup()
    local.seen('acc', state(100_000), [], T0)
    local.forget('acc')
    expect(local.grant('acc', 1, T0)).toBeUndefined()
    expect(local.forSettles('acc')).toBeUndefined()
  })
})
