/**
 * OrderStore on SQLite (migrations/sqlite/012_orders.sql). Writes are BEGIN IMMEDIATE transactions,
 * so another process on the file (a second server, the CLI approving an order) waits its turn rather
 * than failing, and of two racing transitions exactly one finds the order in its `from` status.
 */
import type { OrderEvent, OrderRecord, OrderStore, OrderTransition } from '../../ports/order-store.ts'
import type { Statement } from 'better-sqlite3'
import type { SqliteDb } from './database.ts'

interface OrderRow {
  id: string
  account_id: string
  user_id: string | null
  credits: number
  price_cents: number
  currency: 'usd'
  provider: OrderRecord['provider']
  status: OrderRecord['status']
  provider_ref: string | null
  test: number
  lot_id: string | null
  paid_at: number | null
  created_at: number
  updated_at: number
}

const COLUMNS = 'id, account_id, user_id, credits, price_cents, currency, provider, status, provider_ref, test, lot_id, paid_at, created_at, updated_at'

const toOrder = (r: OrderRow): OrderRecord => ({
  id: r.id,
  accountId: r.account_id,
  userId: r.user_id,
  credits: r.credits,
  priceCents: r.price_cents,
  currency: r.currency,
  provider: r.provider,
  status: r.status,
  providerRef: r.provider_ref,
  test: r.test === 1,
  lotId: r.lot_id,
  paidAt: r.paid_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
})

export function createSqliteOrderStore(db: SqliteDb): OrderStore {
  const insertOrder = db.prepare(
    `INSERT INTO orders (${COLUMNS})
     VALUES (@id, @accountId, @userId, @credits, @priceCents, @currency, @provider, @status, @providerRef, @test, @lotId, @paidAt, @createdAt, @updatedAt)`,
  )
  const insertEvent = db.prepare('INSERT INTO order_events (order_id, status, at, actor, note) VALUES (?, ?, ?, ?, ?)')
  const selectOrder = db.prepare(`SELECT ${COLUMNS} FROM orders WHERE id = ?`)
  const updateRef = db.prepare('UPDATE orders SET provider_ref = ?, updated_at = max(updated_at, ?) WHERE id = ?')
  const byAccount = db.prepare(`SELECT ${COLUMNS} FROM orders WHERE account_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?`)
  const all = db.prepare(`SELECT ${COLUMNS} FROM orders ORDER BY created_at DESC, rowid DESC LIMIT ?`)
  const byStatus = db.prepare(`SELECT ${COLUMNS} FROM orders WHERE status = ? ORDER BY created_at DESC, rowid DESC LIMIT ?`)
  const selectEvents = db.prepare('SELECT status, at, actor, note FROM order_events WHERE order_id = ? ORDER BY id')

  const createWithEvent = db.transaction((order: OrderRecord, actor: string, note: string | null) => {
    insertOrder.run({ ...order, test: order.test ? 1 : 0 })
    insertEvent.run(order.id, order.status, order.createdAt, actor, note)
  })
  /** The conditional UPDATE of a transition from `n` statuses, prepared when first needed. */
  const moves = new Map<number, Statement>()
  const moveFrom = (n: number): Statement => {
    let statement = moves.get(n)
    if (!statement) {
      statement = db.prepare(
        `UPDATE orders SET status = ?, updated_at = max(updated_at, ?), lot_id = ?, paid_at = ?
         WHERE id = ? AND status IN (${Array(n).fill('?').join(', ')})`,
      )
      moves.set(n, statement)
    }
    return statement
  }
  const move = db.transaction((id: string, m: OrderTransition): boolean => {
    const paid = m.to === 'paid'
    const changed = moveFrom(m.from.length).run(m.to, m.at, paid ? (m.lotId ?? null) : null, paid ? m.at : null, id, ...m.from).changes
    if (changed !== 1) return false
    insertEvent.run(id, m.to, m.at, m.actor, m.note ?? null)
    return true
  })

  return {
    async create(order, actor, note) {
      createWithEvent.immediate(order, actor, note ?? null)
    },
    async get(id) {
      const row = selectOrder.get(id) as OrderRow | undefined
      return row && toOrder(row)
    },
    async setProviderRef(id, providerRef, at) {
      return updateRef.run(providerRef, at, id).changes === 1
    },
    async listByAccount(accountId, limit) {
      return (byAccount.all(accountId, limit) as OrderRow[]).map(toOrder)
    },
    async list({ status, limit }) {
      const rows = status === undefined ? all.all(limit) : byStatus.all(status, limit)
      return (rows as OrderRow[]).map(toOrder)
    },
    async transition(id, m) {
      if (m.from.length === 0) return false
      return move.immediate(id, m)
    },
    async history(id) {
      return selectEvents.all(id) as OrderEvent[]
    },
    async close() {},
  }
}
