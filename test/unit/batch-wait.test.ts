/**
 * The automatic wait of the PostgreSQL ledger's batches: none while the machine's processors have
 * time to spare, 2 ms (the operating guide's figure) once they are nearly all busy, and none again
 * only once they are clearly less busy (no flapping around one threshold); and 2 ms however idle the
 * machine, while an account waiting is one other nodes serve too.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { adaptiveBatchWait, AUTO_WAIT_MS, machineTimes } from '../../src/adapters/postgres/batch-wait.ts'

describe('adaptiveBatchWait', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('waits while the processors are busy 85% of the time or more, and stops at 70% or less', () => {
    let busy = 0
    let total = 0
    const wait = adaptiveBatchWait({ times: () => ({ busy, total }), sampleMs: 100 })
    /** The next sample sees `share` of busy time over 1,000 ms of processor time. */
    const sample = (share: number) => {
      busy += share * 1_000
      total += 1_000
      vi.advanceTimersByTime(100)
    }
    expect(wait([])).toBe(0)
    // Each sample's busy share, and the wait after it: between the thresholds it keeps its state.
    // The wait the operating guide documents.
    const B = 2
    expect(AUTO_WAIT_MS).toBe(B)
    const steps: [number, number][] = [[0.6, 0], [0.84, 0], [0.9, B], [0.78, B], [0.7, 0], [0.8, 0], [1, B]]
    expect(steps.map(([share]) => (sample(share), wait([])))).toEqual(steps.map(([, ms]) => ms))
    // No processor time passed (a counter read twice in a row): no change.
    vi.advanceTimersByTime(100)
    expect(wait([])).toBe(B)
    wait.stop()
    sample(0)
    expect(wait([])).toBe(B)
  })

  it('takes its wait and thresholds as given', () => {
    let busy = 0
    let total = 0
    const wait = adaptiveBatchWait({ times: () => ({ busy, total }), sampleMs: 50, waitMs: 3, busyAbove: 0.5, idleBelow: 0.2 })
    busy += 500
    total += 1_000
    vi.advanceTimersByTime(50)
    expect(wait([])).toBe(3)
    wait.stop()
  })

  it("reads the machine's counters: busy time within the total, both growing", () => {
    const a = machineTimes()
    expect(a.total).toBeGreaterThan(0)
    expect(a.busy).toBeGreaterThanOrEqual(0)
    expect(a.busy).toBeLessThanOrEqual(a.total)
  })

  it('waits for a batch with a contended account among those waiting, however idle the machine', () => {
    let total = 0
    const contended = new Set(['acc_shared'])
    const wait = adaptiveBatchWait({ times: () => ({ busy: 0, total: (total += 1_000) }), sampleMs: 100, contended: (id) => contended.has(id) })
    vi.advanceTimersByTime(300)
    expect(wait([])).toBe(0)
    expect(wait(['acc_a', 'acc_b'])).toBe(0)
    expect(wait(['acc_a', 'acc_shared'])).toBe(2)
    // The accounts as the batcher gives them: the keys of its waiting requests, read now.
    const waiting = new Map([['acc_a', 1]])
    expect(wait(waiting.keys())).toBe(0)
    waiting.set('acc_shared', 1)
    expect(wait(waiting.keys())).toBe(2)
    contended.clear()
    expect(wait(waiting.keys())).toBe(0)
    wait.stop()
  })
})
