/**
 * Reservations against API keys' monthly credit limits. A call made with a limited key reserves its
 * full price here before its account hold; the key's spend this month (written by the ledger's settle,
 * in its transaction) plus what its calls in flight reserve never passes the limit, across every node
 * on the store. A reservation ends when its call's settle is recorded or it is released.
 */

/** Credits a call reserves against its key's limit until its settle. */
export interface KeyReservation {
  id: string
  keyId: string
  credits: number
}

export type ReserveResult =
  /** Reserved; null when the key has no limit (any more): nothing to release. */
  | { ok: true; reservation: KeyReservation | null }
  /** Refused: the limit, and what is left of it this month once its calls in flight are counted. */
  | { ok: false; limit: number; remaining: number }

/** Month keys are UTC calendar months, '2026-12'. */
export const monthOf = (at: number): string => new Date(at).toISOString().slice(0, 7)

export interface KeyCaps {
  /** Reserves `credits` of the key's limit for the month of `at` (the call's arrival) for request `requestId`. */
  reserve(keyId: string, credits: number, at: number, requestId: string): Promise<ReserveResult>
  /** Ends a reservation once its call's settle has resolved, whatever its outcome. */
  release(reservation: KeyReservation): Promise<void>
}
