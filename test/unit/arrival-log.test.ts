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

  it('counts exactly as the rate of a key rises and falls by orders of magnitude (its record grows and shrinks)', () => {
    const log = createArrivalLog(1000)
    const seen = new Map<string, { at: number; units: number }[]>()
    // A deterministic walk: bursts of up to 20,000 arrivals a second, then a trickle, over three keys.
    let seed = 7
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31
    let at = 0
    for (let phase = 0; phase < 12; phase++) {
      const perMs = phase % 3 === 0 ? 20 : phase % 3 === 1 ? 0.05 : 2
      for (let n = 0; n < 6_000; n++) {
        at += next() < 1 / (1 + perMs) ? 1 : 0
        const key = `k${Math.floor(next() * 3)}`
        const units = 1 + Math.floor(next() * 3)
        const own = (seen.get(key) ?? []).filter((a) => a.at > at - 1000)
        own.push({ at, units })
        seen.set(key, own)
        const expected = own.reduce((sum, a) => sum + a.units, 0)
        expect(log.note(key, at, units)).toBe(expected)
      }
    }
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
