import { describe, expect, it } from 'vitest'
import { createArrivalLog, createDeadlines } from '../../src/http/arrival-log.ts'

describe('the arrival log (units that reached the node with a key in the last second)', () => {
  it('counts the units in (at − window, at] for each key separately, this arrival included', () => {
    const log = createArrivalLog(1000)
    expect(log.note('a', 0, 1)).toBe(1)
    expect(log.note('a', 400, 2)).toBe(3)
    expect(log.note('b', 500, 1)).toBe(1)
    expect(log.note('a', 999, 1)).toBe(4)
    // The arrival at 0 has left (1000 − 1000 is not inside the window); the one at 400 has not.
    expect(log.note('a', 1000, 1)).toBe(4)
    expect(log.note('a', 1400, 1)).toBe(3)
    expect(log.note('b', 1499, 1)).toBe(2)
    expect(log.note('b', 1500, 1)).toBe(2)
  })

  it('forgets keys whose last arrival left the window, so a flood of distinct keys stays bounded', () => {
    const log = createArrivalLog(1000)
    for (let i = 0; i < 10_000; i++) log.note(`key-${i}`, i, 1)
    // Only the keys of the last second are held.
    expect(log.size()).toBe(1000)
    expect(log.note('key-9999', 10_000, 1)).toBe(2)
    expect(log.note('fresh', 20_000, 1)).toBe(1)
    expect(log.size()).toBe(1)
  })

  it('keeps its count right over a long steady stream of one key', () => {
    const log = createArrivalLog(1000)
    let last = 0
    for (let i = 0; i < 5_000; i++) last = log.note('steady', i * 10, 1)
    expect(last).toBe(100)
  })
})

describe('per-account deadlines', () => {
  it('is active before its instant, not at or after it, and for that key only', () => {
    const d = createDeadlines()
    d.extend('a', 1000)
    expect(d.active('a', 999)).toBe(true)
    expect(d.active('b', 999)).toBe(false)
    expect(d.active('a', 1000)).toBe(false)
    d.extend('a', 3000)
    expect(d.active('a', 2000)).toBe(true)
  })

  it('drops lapsed deadlines as it is asked', () => {
    const d = createDeadlines()
    for (let i = 0; i < 1000; i++) d.extend(`acct-${i}`, i + 1000)
    expect(d.active('acct-999', 1500)).toBe(true)
    expect(d.size()).toBe(499)
  })
})
