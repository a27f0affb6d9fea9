/**
 * OrderStore on PostgreSQL (migrations/postgres/010_orders.sql). Each write is one statement (a CTE
 * updating or inserting the order and appending its history line), so it is atomic without a
 * client-side transaction; of two nodes moving one order at once, the row lock makes the second
 * re-check the status the first left, and only one succeeds. Instants and cents are bigint columns,
 * which the pool hands back as decimal strings (database.ts).
 */
import type { OrderEvent, OrderRecord, OrderStore } from '../../ports/order-store.ts'
import type { PgPool } from './database.ts'

interface OrderRow {
  id: string
  account_id: string
  user_id: string | null
  credits: number
  price_cents: string
  currency: 'usd'
  provider: OrderRecord['provider']
  status: OrderRecord['status']
  provider_ref: string | null
  test: boolean
  lot_id: string | null
  paid_at: string | null
  created_at: string
  updated_at: string
}

const COLUMNS = 'id, account_id, user_id, credits, price_cents, currency, provider, status, provider_ref, test, lot_id, paid_at, created_at, updated_at'

const msOrNull = (v: string | null): number | null => (v === null ? null : Number(v))

const toOrder = (r: OrderRow): OrderRecord => ({
  id: r.id,
  accountId: r.account_id,
  userId: r.user_id,
  credits: r.credits,
  priceCents: Number(r.price_cents),
  currency: r.currency,
  provider: r.provider,
  status: r.status,
  providerRef: r.provider_ref,
  test: r.test,
  lotId: r.lot_id,
  paidAt: msOrNull(r.paid_at),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
})

const CREATE = `WITH o AS (
    INSERT INTO orders (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id
  )
  INSERT INTO order_events (order_id, status, at, actor, note) SELECT id, $8, $13, $15, $16 FROM o`

const TRANSITION = `WITH moved AS (
    UPDATE orders SET status = $2, updated_at = GREATEST(updated_at, $3), lot_id = $4, paid_at = $5
    WHERE id = $1 AND status = ANY($6::text[]) RETURNING id
  )
  INSERT INTO order_events (order_id, status, at, actor, note) SELECT id, $2, $3, $7, $8 FROM moved`

export function createPgOrderStore(pool: PgPool): OrderStore {
  return {
    async create(order, actor, note) {
      await pool.query(CREATE, [
        order.id,
        order.accountId,
        order.userId,
        order.credits,
        order.priceCents,
        order.currency,
        order.provider,
        order.status,
        order.providerRef,
        order.test,
        order.lotId,
        order.paidAt,
        order.createdAt,
        order.updatedAt,
        actor,
        note ?? null,
      ])
    },
    async get(id) {
      const { rows } = await pool.query<OrderRow>(`SELECT ${COLUMNS} FROM orders WHERE id = $1`, [id])
      return rows[0] && toOrder(rows[0])
    },
    async setProviderRef(id, providerRef, at) {
      const r = await pool.query('UPDATE orders SET provider_ref = $2, updated_at = GREATEST(updated_at, $3) WHERE id = $1', [id, providerRef, at])
      return r.rowCount === 1
    },
    async listByAccount(accountId, limit) {
      const { rows } = await pool.query<OrderRow>(
        `SELECT ${COLUMNS} FROM orders WHERE account_id = $1 ORDER BY created_at DESC, seq DESC LIMIT $2`,
        [accountId, limit],
      )
      return rows.map(toOrder)
    },
    async list({ status, limit }) {
      const { rows } =
        status === undefined
          ? await pool.query<OrderRow>(`SELECT ${COLUMNS} FROM orders ORDER BY created_at DESC, seq DESC LIMIT $1`, [limit])
          : await pool.query<OrderRow>(`SELECT ${COLUMNS} FROM orders WHERE status = $1 ORDER BY created_at DESC, seq DESC LIMIT $2`, [status, limit])
      return rows.map(toOrder)
    },
    async transition(id, m) {
      const paid = m.to === 'paid'
      const r = await pool.query(TRANSITION, [id, m.to, m.at, paid ? (m.lotId ?? null) : null, paid ? m.at : null, [...m.from], m.actor, m.note ?? null])
      return r.rowCount === 1
    },
    async history(id) {
      const { rows } = await pool.query<{ status: OrderEvent['status']; at: string; actor: string; note: string | null }>(
        'SELECT status, at, actor, note FROM order_events WHERE order_id = $1 ORDER BY id',
        [id],
      )
      return rows.map((r) => ({ status: r.status, at: Number(r.at), actor: r.actor, note: r.note }))
    },
    // The pool belongs to the container, which ends it after every adapter has stopped.
    async close() {},
  }
}
