/**
 * Key limits on PostgreSQL, shared by every node: a reservation is a row of key_holds, taken by
 * pronet_reserve_key under the key's row lock (migration 018), so two nodes never both take a key's
 * last credits. It stops counting once its call's settle is recorded, when it is released, or when it
 * expires (its node died mid-call).
 */
import { randomBytes } from 'node:crypto'
import { monthOf, type KeyCaps } from '../../ports/key-caps.ts'
import type { PgPool } from './database.ts'

/**
 * A reservation outlives its call by far: a call runs for at most a couple of minutes (a batch waits
 * up to 90 s), so only a node that died mid-call leaves one behind, blocking that many credits of its
 * key this long.
 */
export const KEY_HOLD_TTL_MS = 10 * 60_000

export function createPgKeyCaps(pool: PgPool, opts: { ttlMs?: number } = {}): KeyCaps {
  const ttl = opts.ttlMs ?? KEY_HOLD_TTL_MS
  const prefix = randomBytes(6).toString('hex')
  let next = 0
  return {
    async reserve(keyId, credits, at, requestId) {
      const id = `${prefix}-${++next}`
      const { rows } = await pool.query<{ o_ok: boolean; o_limit: string; o_remaining: string }>('SELECT * FROM pronet_reserve_key($1, $2, $3, $4, $5, $6, $7)', [
        keyId,
        id,
        requestId,
        credits,
        monthOf(at),
        at,
        at + ttl,
      ])
      const row = rows[0]
      if (!row) return { ok: true, reservation: null }
      if (!row.o_ok) return { ok: false, limit: Number(row.o_limit), remaining: Number(row.o_remaining) }
      return { ok: true, reservation: { id, keyId, credits } }
    },
    async release(reservation) {
      await pool.query('DELETE FROM key_holds WHERE id = $1', [reservation.id])
    },
  }
}
