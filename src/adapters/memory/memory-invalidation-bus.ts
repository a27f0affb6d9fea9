/** The invalidation bus of one process: every service built on it hears every message. */
import type { InvalidationBus, InvalidationMessage } from '../../ports/invalidation-bus.ts'

export function createMemoryInvalidationBus(): InvalidationBus {
  const handlers = new Set<(message: InvalidationMessage) => void>()
  return {
    async publish(message) {
      for (const handler of [...handlers]) {
        try {
          handler(message)
        } catch {
          // A subscriber's failure is its own; the others still hear the message.
        }
      }
    },
    subscribe(handler) {
      handlers.add(handler)
      return () => handlers.delete(handler)
    },
    async close() {
      handlers.clear()
    },
  }
}
