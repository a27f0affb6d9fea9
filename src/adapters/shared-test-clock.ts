/**
 * The operator's test clock (PRONET_TEST_CLOCK=1) as one setting for every node on a store: the
 * offset over real time is kept in the store (a restart and the CLI keep to it) and sent on the
 * invalidation bus, so nodes already running take it up at once. With a clock per node, one account
 * could be answered 200 on the node whose clock was set and 402 on the others, with usage reports
 * over different months. A node whose bus reconnected (and may have missed a message)
 * reads the store again.
 */
import type { Clock } from '../ports/clock.ts'
import type { InvalidationBus } from '../ports/invalidation-bus.ts'
import type { StoreSettings } from '../ports/store-settings.ts'
import { createOffsetClock } from './system-clock.ts'

/** The store setting holding the offset (ms). */
export const TEST_CLOCK_OFFSET = 'test_clock_offset'

export interface SharedTestClock extends Clock {
  /** Sets the clock to `ms` on every node; durable when it resolves. */
  set(ms: number): Promise<void>
  /** Stops listening to the bus. */
  stop(): void
}

export async function createSharedTestClock(deps: { settings: StoreSettings; bus?: InvalidationBus; base?: Clock }): Promise<SharedTestClock> {
  const clock = createOffsetClock(deps.base)
  const load = async () => {
    const saved = Number(await deps.settings.get(TEST_CLOCK_OFFSET))
    if (Number.isFinite(saved)) clock.restore(saved)
  }
  await load()
  const stop =
    deps.bus?.subscribe((message) => {
      if (message.kind === 'test-clock') clock.restore(message.offset)
      else if (message.kind === 'resync') void load().catch(() => {})
    }) ?? (() => {})
  return {
    now: clock.now,
    async set(ms) {
      clock.set(ms)
      const offset = clock.offset()
      await deps.settings.set(TEST_CLOCK_OFFSET, String(offset))
      await deps.bus?.publish({ kind: 'test-clock', offset })
    },
    stop,
  }
}
