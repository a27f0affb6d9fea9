/**
 * WebhookStore on PostgreSQL (migrations/postgres/019_webhooks.sql), shared by every node: an event is
 * recorded once (its id names the fact), and a due delivery is taken by one node (FOR UPDATE SKIP
 * LOCKED, then a lease).
 */
import type { AlertSettings, Attempt, DeliveryRecord, DueDelivery, Facts, NewEvent, WebhookEventType, WebhookRecord, WebhookStore } from '../../ports/webhook-store.ts'
import { inTransaction, type PgPool } from './database.ts'
import type pg from 'pg'

interface WebhookRow {
  id: string
  account_id: string
  url: string
  events: string[]
  secret: string
  enabled: boolean
  created_at: string
}

const toWebhook = (r: WebhookRow): WebhookRecord => ({
  id: r.id,
  accountId: r.account_id,
  url: r.url,
  events: r.events as WebhookEventType[],
  secret: r.secret,
  enabled: r.enabled,
  createdAt: Number(r.created_at),
})

const COLUMNS = 'id, account_id, url, events, secret, enabled, created_at'

export function createPgWebhookStore(pool: PgPool): WebhookStore {
  const transaction = <T>(work: (c: pg.PoolClient) => Promise<T>): Promise<T> => inTransaction(pool, work)

  async function recordIn(c: pg.PoolClient | PgPool, event: NewEvent, webhookIds: readonly string[]): Promise<boolean> {
    const added = await c.query('INSERT INTO webhook_events (id, account_id, type, created_at, body) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING', [
      event.id,
      event.accountId,
      event.type,
      event.createdAt,
      event.body,
    ])
    if (added.rowCount !== 1) return false
    if (webhookIds.length > 0) {
      await c.query(
        `INSERT INTO webhook_deliveries (id, event_id, webhook_id, state, next_at, created_at)
         SELECT $1 || '.' || w, $1, w, 'pending', $2, $2 FROM unnest($3::text[]) AS w`,
        [event.id, event.createdAt, webhookIds],
      )
    }
    return true
  }

  async function readAlerts(accountId: string): Promise<AlertSettings> {
    const { rows } = await pool.query<{ low_credits: string | null; low_sent: boolean; exhausted_sent: boolean; low_round: number; exhausted_round: number }>(
      'SELECT low_credits, low_sent, exhausted_sent, low_round, exhausted_round FROM webhook_alerts WHERE account_id = $1',
      [accountId],
    )
    const r = rows[0]
    if (!r) return { lowCredits: null, lowSent: false, exhaustedSent: false, lowRound: 0, exhaustedRound: 0 }
    return { lowCredits: r.low_credits === null ? null : Number(r.low_credits), lowSent: r.low_sent, exhaustedSent: r.exhausted_sent, lowRound: r.low_round, exhaustedRound: r.exhausted_round }
  }

  return {
    async create(w) {
      await pool.query(`INSERT INTO webhooks (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [w.id, w.accountId, w.url, w.events, w.secret, w.enabled, w.createdAt])
    },
    async list(accountId) {
      const { rows } = await pool.query<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE account_id = $1 ORDER BY created_at, seq`, [accountId])
      return rows.map(toWebhook)
    },
    async get(accountId, webhookId) {
      const { rows } = await pool.query<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE account_id = $1 AND id = $2`, [accountId, webhookId])
      return rows[0] && toWebhook(rows[0])
    },
    async update(accountId, webhookId, p) {
      const r = await pool.query(
        `UPDATE webhooks SET url = COALESCE($3, url), events = COALESCE($4::text[], events), enabled = COALESCE($5, enabled)
         WHERE account_id = $1 AND id = $2`,
        [accountId, webhookId, p.url ?? null, p.events ?? null, p.enabled ?? null],
      )
      return r.rowCount === 1
    },
    async claimTest(webhookId, now, intervalMs) {
      const taken = await pool.query('UPDATE webhooks SET last_test_at = $2 WHERE id = $1 AND last_test_at <= $3', [webhookId, now, now - intervalMs])
      if (taken.rowCount === 1) return null
      // A statement of its own: its snapshot sees the test that won the race, which a SELECT in the
      // UPDATE's statement (whose snapshot predates the winner's commit) would not.
      const { rows } = await pool.query<{ last: string }>('SELECT last_test_at AS last FROM webhooks WHERE id = $1', [webhookId])
      return rows[0] ? Number(rows[0].last) : now
    },
    async delete(accountId, webhookId) {
      return transaction(async (c) => {
        const found = await c.query('SELECT 1 FROM webhooks WHERE account_id = $1 AND id = $2 FOR UPDATE', [accountId, webhookId])
        if (found.rowCount !== 1) return false
        await c.query('DELETE FROM webhook_deliveries WHERE webhook_id = $1', [webhookId])
        await c.query('DELETE FROM webhooks WHERE id = $1', [webhookId])
        return true
      })
    },
    async watchedAccounts() {
      const { rows } = await pool.query<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks ORDER BY account_id, created_at, seq`)
      const byId = new Map<string, WebhookRecord[]>()
      for (const w of rows.map(toWebhook)) byId.set(w.accountId, [...(byId.get(w.accountId) ?? []), w])
      return Promise.all([...byId].map(async ([accountId, webhooks]) => ({ accountId, webhooks, alerts: await readAlerts(accountId) })))
    },
    alerts: readAlerts,
    async setLowCredits(accountId, lowCredits) {
      await pool.query(
        `INSERT INTO webhook_alerts (account_id, low_credits) VALUES ($1, $2)
         ON CONFLICT (account_id) DO UPDATE SET low_credits = EXCLUDED.low_credits, low_sent = false, low_round = webhook_alerts.low_round + 1`,
        [accountId, lowCredits],
      )
    },
    async setAlertState(accountId, st, event) {
      await transaction(async (c) => {
        await c.query(
          `INSERT INTO webhook_alerts (account_id, low_sent, exhausted_sent, low_round, exhausted_round) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (account_id) DO UPDATE SET low_sent = EXCLUDED.low_sent, exhausted_sent = EXCLUDED.exhausted_sent,
             low_round = EXCLUDED.low_round, exhausted_round = EXCLUDED.exhausted_round`,
          [accountId, st.lowSent, st.exhaustedSent, st.lowRound, st.exhaustedRound],
        )
        if (event) await recordIn(c, event.event, event.webhookIds)
      })
    },
    async recorded(eventIds) {
      const { rows } = await pool.query<{ id: string }>('SELECT id FROM webhook_events WHERE id = ANY($1::text[])', [eventIds])
      return new Set(rows.map((r) => r.id))
    },
    async record(event, webhookIds) {
      return transaction((c) => recordIn(c, event, webhookIds))
    },
    async takeDue(now, limit, leaseMs) {
      const { rows } = await pool.query<{ id: string; webhook_id: string; url: string; secret: string; body: string; created_at: string; attempts: number }>(
        `WITH due AS (
           SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
           WHERE d.state = 'pending' AND d.next_at <= $1 AND d.lease_until <= $1 AND w.enabled
           ORDER BY d.next_at LIMIT $2 FOR UPDATE OF d SKIP LOCKED)
         UPDATE webhook_deliveries d SET lease_until = $1 + $3 FROM due, webhooks w, webhook_events e
         WHERE d.id = due.id AND w.id = d.webhook_id AND e.id = d.event_id
         RETURNING d.id, d.webhook_id, w.url, w.secret, e.body, e.created_at, d.attempts`,
        [now, limit, leaseMs],
      )
      return rows.map(
        (r): DueDelivery => ({ id: r.id, webhookId: r.webhook_id, url: r.url, secret: r.secret, body: r.body, createdAt: Number(r.created_at), attempts: r.attempts }),
      )
    },
    async takeOne(deliveryId, now, leaseMs) {
      const { rows } = await pool.query<{ id: string; webhook_id: string; url: string; secret: string; body: string; created_at: string; attempts: number }>(
        `UPDATE webhook_deliveries d SET lease_until = $2 + $3 FROM webhooks w, webhook_events e
         WHERE d.id = $1 AND d.state = 'pending' AND d.lease_until <= $2 AND w.id = d.webhook_id AND e.id = d.event_id
         RETURNING d.id, d.webhook_id, w.url, w.secret, e.body, e.created_at, d.attempts`,
        [deliveryId, now, leaseMs],
      )
      const r = rows[0]
      return r && { id: r.id, webhookId: r.webhook_id, url: r.url, secret: r.secret, body: r.body, createdAt: Number(r.created_at), attempts: r.attempts }
    },
    async finish(deliveryId, a, next) {
      await pool.query(
        `WITH attempt AS (INSERT INTO webhook_attempts (delivery_id, at, status, error, duration_ms) VALUES ($1, $2, $3, $4, $5))
         UPDATE webhook_deliveries SET state = $6, next_at = $7, attempts = attempts + 1, lease_until = 0 WHERE id = $1`,
        [deliveryId, a.at, a.status, a.error, Math.round(a.durationMs), next.state, next.nextAt],
      )
    },
    async deliveries(webhookId, limit) {
      const { rows } = await pool.query<{ id: string; event_id: string; webhook_id: string; type: string; state: DeliveryRecord['state']; next_at: string; created_at: string }>(
        `SELECT d.id, d.event_id, d.webhook_id, e.type, d.state, d.next_at, d.created_at
         FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE d.webhook_id = $1 ORDER BY d.created_at DESC, d.seq DESC LIMIT $2`,
        [webhookId, limit],
      )
      const attempts = await pool.query<{ delivery_id: string; at: string; status: number | null; error: string | null; duration_ms: number }>(
        'SELECT delivery_id, at, status, error, duration_ms FROM webhook_attempts WHERE delivery_id = ANY($1::text[]) ORDER BY id',
        [rows.map((r) => r.id)],
      )
      return rows.map((r) => ({
        id: r.id,
        eventId: r.event_id,
        webhookId: r.webhook_id,
        eventType: r.type,
        state: r.state,
        nextAt: r.state === 'pending' ? Number(r.next_at) : null,
        createdAt: Number(r.created_at),
        attempts: attempts.rows
          .filter((a) => a.delivery_id === r.id)
          .map((a): Attempt => ({ at: Number(a.at), status: a.status, error: a.error, durationMs: a.duration_ms })),
      }))
    },
    async facts(accountIds, since, packsUntil): Promise<Facts> {
      if (accountIds.length === 0) return { subscriptionEvents: [], paidOrders: [], packs: [] }
      const [events, orders, packs] = await Promise.all([
        pool.query<{ id: string; account_id: string; at: string; change: Record<string, unknown> }>(
          'SELECT id, account_id, at, change FROM subscription_events WHERE account_id = ANY($1::text[]) AND at >= $2 ORDER BY id',
          [accountIds, since],
        ),
        pool.query<{ id: string; account_id: string; credits: number; price_cents: string; currency: string; test: boolean; paid_at: string }>(
          `SELECT id, account_id, credits, price_cents, currency, test, paid_at FROM orders WHERE status = 'paid' AND account_id = ANY($1::text[]) AND paid_at >= $2`,
          [accountIds, since],
        ),
        pool.query<{ id: string; account_id: string; credits: number; remaining: number; starts_at: string; expires_at: string }>(
          `SELECT id, account_id, credits, remaining, starts_at, expires_at FROM credit_lots
           WHERE kind = 'pack' AND account_id = ANY($1::text[]) AND expires_at >= $2 AND expires_at <= $3`,
          [accountIds, since, packsUntil],
        ),
      ])
      return {
        subscriptionEvents: events.rows.map((r) => ({ id: Number(r.id), accountId: r.account_id, at: Number(r.at), change: r.change })),
        paidOrders: orders.rows.map((r) => ({
          id: r.id,
          accountId: r.account_id,
          credits: r.credits,
          priceCents: Number(r.price_cents),
          currency: r.currency,
          test: r.test,
          paidAt: Number(r.paid_at),
        })),
        packs: packs.rows.map((r) => ({ id: r.id, accountId: r.account_id, credits: r.credits, remaining: r.remaining, startsAt: Number(r.starts_at), expiresAt: Number(r.expires_at) })),
      }
    },
  }
}
