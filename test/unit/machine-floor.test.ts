import { describe, expect, it } from 'vitest'
import { crossing, floorWork } from '../../bench/machine-floor.ts'

describe('the metering bench: what the machine leaves for a server', () => {
  it('finds where a falling rate crosses half, between the two points around it', () => {
    const points = [
      { x: 0, y: 1 },
      { x: 5, y: 0.7 },
      { x: 10, y: 0.4 },
      { x: 15, y: 0.3 },
    ]
    // 0.7 → 0.4 over 5 µs: 0.5 is two thirds of the way.
    expect(crossing(points, 0.5)).toBeCloseTo(5 + (0.2 / 0.3) * 5, 10)
    // A point exactly at the target is where the rate reaches it.
    expect(crossing(points, 0.7)).toBe(5)
  })

  it('says none when the rate never falls below the target', () => {
    expect(crossing([{ x: 0, y: 1 }, { x: 10, y: 0.6 }], 0.5)).toBeNull()
    expect(crossing([{ x: 0, y: 0.4 }, { x: 10, y: 0.3 }], 0.5)).toBeNull()
  })

  it('reads the work list, leaving out empty, zero and unreadable entries', () => {
    expect(floorWork('5,10,15')).toEqual([5, 10, 15])
    expect(floorWork(' 2.5 , x, 0, ')).toEqual([2.5])
    expect(floorWork('')).toEqual([])
    expect(floorWork('0')).toEqual([])
  })
})
