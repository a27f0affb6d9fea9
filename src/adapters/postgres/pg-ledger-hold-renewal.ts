/**
 * Keeps alive the holds this node granted and has not settled. A hold's row expires a fixed time
 * after its request's arrival, so that credits held by a node that died come back; a call still
 * running here (a batch may wait a long time) has its row's expiry moved on periodically, so it keeps
 * its credits however long it runs.
 */
import type { PgPool } from './database.ts'
import { failure, type PgLedgerLogger } from './pg-ledger-transactions.ts'

/** A hold this node granted: its request's arrival instant, and Date.now() when it was granted. */
export interface UnsettledHold {
  at: number
  granted: number
}

export interface HoldRenewalOptions {
  pool: PgPool
  /** Lifetime of a hold past its last renewal, in ms. */
  holdTtlMs: number
  /** Period of the renewal, real ms (0: never). */
  holdRenewMs: number
  logger?: PgLedgerLogger | undefined
}

export interface HoldRenewal {
  /**
   * Holds this node granted whose settle has not come, by hold id: their rows' expiry is moved on
   * every holdRenewMs to their arrival instant plus the real time since plus holdTtlMs, so a call that
   * runs long keeps its credits while one of a node that died lapses holdTtlMs after its last renewal.
   */
  unsettled: Map<string, UnsettledHold>
  /** Stops the timer (a renewal under way goes on: see running()). */
  stop(): void
  /** The renewal under way, if any. */
  running(): Promise<unknown> | undefined
}

export function startHoldRenewal({ pool, holdTtlMs, holdRenewMs, logger }: HoldRenewalOptions): HoldRenewal {
  const unsettled = new Map<string, UnsettledHold>()
  let renewing: Promise<unknown> | undefined
  const renewTimer =
    holdRenewMs > 0
      ? setInterval(() => {
          if (unsettled.size === 0 || renewing) return
          const now = Date.now()
          const ids: string[] = []
          const expiries: number[] = []
          for (const [id, h] of unsettled) {
            // A settle that never came (it cannot: the gateway settles every call) is let go after an hour.
            if (now - h.granted > 3_600_000) unsettled.delete(id)
            else {
              ids.push(id)
              expiries.push(h.at + (now - h.granted) + holdTtlMs)
            }
          }
          renewing = pool
            .query(
              `UPDATE credit_holds h SET expires_at = GREATEST(h.expires_at, u.expires_at)
               FROM unnest($1::text[], $2::bigint[]) AS u(id, expires_at) WHERE h.id = u.id`,
              [ids, expiries],
            )
            .catch((e: unknown) => logger?.warn(failure(e), 'renewing this node\'s holds failed; will retry'))
            .finally(() => (renewing = undefined))
        }, holdRenewMs)
      : undefined
  renewTimer?.unref()
  return {
    unsettled,
    stop: () => clearInterval(renewTimer),
    running: () => renewing,
  }
}
