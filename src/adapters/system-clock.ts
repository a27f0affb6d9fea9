import type { Clock } from '../ports/clock.ts'

export const systemClock: Clock = { now: () => Date.now() }

/**
 * The operator's test clock (PRONET_TEST_CLOCK=1): an offset over real time, so time keeps running
 * from an instant that was set.
 */
export function createOffsetClock(base: Clock = systemClock): Clock & { set(ms: number): void; offset(): number; restore(offset: number): void } {
  let offset = 0
  return {
    now: () => base.now() + offset,
    set(ms: number) {
      offset = ms - base.now()
    },
    offset: () => offset,
    /** An offset kept from before (the store's record of the last `set`). */
    restore(saved: number) {
      offset = saved
    },
  }
}

/** A clock that only moves when told to; for tests. */
export function createManualClock(start: number): Clock & { set(ms: number): void; advance(ms: number): void } {
  let t = start
  return {
    now: () => t,
    set(ms: number) {
      t = ms
    },
    advance(ms: number) {
      t += ms
    },
  }
}
