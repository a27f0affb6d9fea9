/**
 * Tells every node that cached authentication facts changed (a key revoked, an account suspended or
 * resumed, a subscription changed), so a node's key cache does not trust them for the rest of its bound. Delivery is best
 * effort: the cache's own one-second bound (KEY_CACHE_MS) stays the backstop.
 */
export type InvalidationMessage =
  | { kind: 'key-revoked'; accountId: string; keyId: string }
  /** A key's spend controls (its monthly limit or endpoints) changed. */
  | { kind: 'key-changed'; accountId: string; keyId: string }
  | { kind: 'account-suspended' | 'account-resumed'; accountId: string }
  /** An operator changed the account's subscription (its per-second limit among it). */
  | { kind: 'subscription-changed'; accountId: string }
  /** The operator's test clock was set (PRONET_TEST_CLOCK=1): every node runs at this offset over real time. */
  | { kind: 'test-clock'; offset: number }
  /** The bus may have missed messages (its connection was lost): forget everything cached. */
  | { kind: 'resync' }

export interface InvalidationBus {
  /** Sends `message` to every subscriber on every node, this one included; never rejects. */
  publish(message: InvalidationMessage): Promise<void>
  /** Calls `handler` for every message from now on; returns the function that stops it. */
  subscribe(handler: (message: InvalidationMessage) => void): () => void
  close(): Promise<void>
}
