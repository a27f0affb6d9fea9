/**
 * Key limits on the embedded store. One process serves a data directory (serving-claim.ts), so the
 * credits reserved by calls in flight live in its memory; the spend of settled calls is read from
 * key_spend, which each settle writes in its transaction and which is durable before the settle
 * resolves. A reservation is released after that, so a call is always counted once at least.
 */
import { addToCount } from '../../domain/billing/counts.ts'
import { monthOf, type KeyCaps } from '../../ports/key-caps.ts'
import type { SqliteDb } from './database.ts'

export function createSqliteKeyCaps(db: SqliteDb): KeyCaps {
  const limitOf = db.prepare('SELECT monthly_credit_limit FROM api_keys WHERE id = ?').pluck()
  const spentOf = db.prepare('SELECT credits FROM key_spend WHERE key_id = ? AND month = ?').pluck()
  const held = new Map<string, number>()
  let next = 0
  return {
    async reserve(keyId, credits, at) {
      const limit = limitOf.get(keyId) as number | null | undefined
      if (limit === null || limit === undefined) return { ok: true, reservation: null }
      const spent = (spentOf.get(keyId, monthOf(at)) as number | undefined) ?? 0
      const inFlight = held.get(keyId) ?? 0
      if (spent + inFlight + credits > limit) return { ok: false, limit, remaining: Math.max(0, limit - spent - inFlight) }
      addToCount(held, keyId, credits)
      return { ok: true, reservation: { id: String(++next), keyId, credits } }
    },
    async release(reservation) {
      addToCount(held, reservation.keyId, -reservation.credits)
    },
  }
}
