/**
 * What the gateway asks of a key's spend controls: its endpoints (403 before anything is taken) and
 * its monthly credit limit (a reservation before the account's hold, 402 past it), both free.
 */
import type { KeyCaps, KeyReservation } from '../ports/key-caps.ts'
import { keyLimitReached } from './key-settings.ts'

export type KeyLimits = ReturnType<typeof createKeyLimits>

export function createKeyLimits(caps: KeyCaps) {
  return {
    /** Reserves a call's full price against its key's limit, or refuses it with 402; null when the key has no limit now. */
    async reserve(keyId: string, credits: number, at: number, requestId: string): Promise<KeyReservation | null> {
      const reserved = await caps.reserve(keyId, credits, at, requestId)
      if (!reserved.ok) throw keyLimitReached(credits, reserved.limit, reserved.remaining)
      return reserved.reservation
    },

    /**
     * Ends a reservation once its call's settle resolved, before the answer goes, so the key's next
     * call finds it gone. A reservation that cannot be ended (the store is out of reach) lapses.
     */
    async release(reservation: KeyReservation): Promise<void> {
      await caps.release(reservation).catch(() => {})
    },
  }
}
