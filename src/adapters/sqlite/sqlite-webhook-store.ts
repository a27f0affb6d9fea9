/** WebhookStore on the embedded store (migrations/sqlite/018_webhooks.sql). */
import type { AlertSettings, AlertState, EventToRecord, Attempt, DeliveryRecord, DueDelivery, Facts, WebhookEventType, WebhookRecord, WebhookStore } from '../../ports/webhook-store.ts'
import type { SqliteDb } from './database.ts'

interface WebhookRow {
  id: string
  account_id: string
  url: string
  events: string
  secret: string
  enabled: number
  created_at: number
}

const toWebhook = (r: WebhookRow): WebhookRecord => ({
  id: r.id,
  accountId: r.account_id,
  url: r.url,
  events: JSON.parse(r.events) as WebhookEventType[],
  secret: r.secret,
  enabled: r.enabled === 1,
  createdAt: r.created_at,
})

const NO_ALERTS: AlertSettings = { lowCredits: null, lowSent: false, exhaustedSent: false, lowRound: 0, exhaustedRound: 0 }

export function createSqliteWebhookStore(db: SqliteDb): WebhookStore {
  const insert = db.prepare(
    'INSERT INTO webhooks (id, account_id, url, events, secret, enabled, created_at) VALUES (@id, @accountId, @url, @events, @secret, @enabled, @createdAt)',
  )
  const byAccount = db.prepare('SELECT * FROM webhooks WHERE account_id = ? ORDER BY created_at, rowid')
  const one = db.prepare('SELECT * FROM webhooks WHERE account_id = ? AND id = ?')
  const patch = db.prepare(
    `UPDATE webhooks SET url = COALESCE(@url, url), events = COALESCE(@events, events), enabled = COALESCE(@enabled, enabled)
     WHERE account_id = @accountId AND id = @id`,
  )
  const dropAttempts = db.prepare('DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = ?)')
  const dropDeliveries = db.prepare('DELETE FROM webhook_deliveries WHERE webhook_id = ?')
  const dropWebhook = db.prepare('DELETE FROM webhooks WHERE account_id = ? AND id = ?')
  const remove = db.transaction((accountId: string, webhookId: string): boolean => {
    if (!one.get(accountId, webhookId)) return false
    dropAttempts.run(webhookId)
    dropDeliveries.run(webhookId)
    return dropWebhook.run(accountId, webhookId).changes === 1
  })
  const all = db.prepare('SELECT * FROM webhooks ORDER BY account_id, created_at, rowid')
  const alertRow = db.prepare(
    `SELECT low_credits AS lowCredits, low_sent AS lowSent, exhausted_sent AS exhaustedSent, low_round AS lowRound, exhausted_round AS exhaustedRound
     FROM webhook_alerts WHERE account_id = ?`,
  )
  const setLow = db.prepare(
    `INSERT INTO webhook_alerts (account_id, low_credits) VALUES (?, ?)
     ON CONFLICT (account_id) DO UPDATE SET low_credits = excluded.low_credits, low_sent = 0, low_round = low_round + 1`,
  )
  const setState = db.prepare(
    `INSERT INTO webhook_alerts (account_id, low_sent, exhausted_sent, low_round, exhausted_round) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (account_id) DO UPDATE SET low_sent = excluded.low_sent, exhausted_sent = excluded.exhausted_sent,
       low_round = excluded.low_round, exhausted_round = excluded.exhausted_round`,
  )
  const insertEvent = db.prepare('INSERT INTO webhook_events (id, account_id, type, created_at, body) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING')
  const insertDelivery = db.prepare(
    `INSERT INTO webhook_deliveries (id, event_id, webhook_id, state, next_at, created_at) VALUES (?, ?, ?, 'pending', ?, ?)`,
  )
  const knownEvents = db.prepare('SELECT id FROM webhook_events WHERE id IN (SELECT value FROM json_each(?))').pluck()
  const anyDue = db.prepare(`SELECT 1 FROM webhook_deliveries WHERE state = 'pending' AND next_at <= ? AND lease_until <= ? LIMIT 1`)
  const recordTx = db.transaction((event: Parameters<WebhookStore['record']>[0], webhookIds: readonly string[]): boolean => {
    if (insertEvent.run(event.id, event.accountId, event.type, event.createdAt, event.body).changes === 0) return false
    for (const w of webhookIds) insertDelivery.run(`${event.id}.${w}`, event.id, w, event.createdAt, event.createdAt)
    return true
  })
  const stateTx = db.transaction((accountId: string, st: AlertState, event?: EventToRecord) => {
    setState.run(accountId, st.lowSent ? 1 : 0, st.exhaustedSent ? 1 : 0, st.lowRound, st.exhaustedRound)
    if (event) recordTx(event.event, event.webhookIds)
  })
  const due = db.prepare(
    `SELECT d.id, d.webhook_id AS webhookId, w.url, w.secret, e.body, e.created_at AS createdAt, d.attempts
     FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id JOIN webhook_events e ON e.id = d.event_id
     WHERE d.state = 'pending' AND d.next_at <= ? AND d.lease_until <= ? AND w.enabled = 1
     ORDER BY d.next_at LIMIT ?`,
  )
  const lease = db.prepare('UPDATE webhook_deliveries SET lease_until = ? WHERE id = ?')
  const take = db.transaction((now: number, limit: number, leaseMs: number): DueDelivery[] => {
    const rows = due.all(now, now, limit) as DueDelivery[]
    for (const r of rows) lease.run(now + leaseMs, r.id)
    return rows
  })
  const dueOne = db.prepare(
    `SELECT d.id, d.webhook_id AS webhookId, w.url, w.secret, e.body, e.created_at AS createdAt, d.attempts
     FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id JOIN webhook_events e ON e.id = d.event_id
     WHERE d.id = ? AND d.state = 'pending' AND d.lease_until <= ?`,
  )
  const takeOneTx = db.transaction((id: string, now: number, leaseMs: number): DueDelivery | undefined => {
    const row = dueOne.get(id, now) as DueDelivery | undefined
    if (row) lease.run(now + leaseMs, id)
    return row
  })
  const insertAttempt = db.prepare('INSERT INTO webhook_attempts (delivery_id, at, status, error, duration_ms) VALUES (?, ?, ?, ?, ?)')
  const advance = db.prepare('UPDATE webhook_deliveries SET state = ?, next_at = ?, attempts = attempts + 1, lease_until = 0 WHERE id = ?')
  const finishTx = db.transaction((id: string, a: Attempt, next: { state: string; nextAt: number }) => {
    insertAttempt.run(id, a.at, a.status, a.error, a.durationMs)
    advance.run(next.state, next.nextAt, id)
  })
  const deliveriesOf = db.prepare(
    `SELECT d.id, d.event_id AS eventId, d.webhook_id AS webhookId, e.type AS eventType, d.state, d.next_at AS nextAt, d.created_at AS createdAt
     FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE d.webhook_id = ? ORDER BY d.created_at DESC, d.rowid DESC LIMIT ?`,
  )
  const attemptsOf = db.prepare('SELECT at, status, error, duration_ms AS durationMs FROM webhook_attempts WHERE delivery_id = ? ORDER BY id')

  const takeTestTurn = db.prepare('UPDATE webhooks SET last_test_at = ? WHERE id = ? AND last_test_at <= ?')
  const lastTest = db.prepare('SELECT last_test_at FROM webhooks WHERE id = ?').pluck()
  return {
    async create(w) {
      insert.run({ ...w, events: JSON.stringify(w.events), enabled: w.enabled ? 1 : 0 })
    },
    async list(accountId) {
      return (byAccount.all(accountId) as WebhookRow[]).map(toWebhook)
    },
    async get(accountId, webhookId) {
      const row = one.get(accountId, webhookId) as WebhookRow | undefined
      return row && toWebhook(row)
    },
    async update(accountId, webhookId, p) {
      const r = patch.run({
        accountId,
        id: webhookId,
        url: p.url ?? null,
        events: p.events === undefined ? null : JSON.stringify(p.events),
        enabled: p.enabled === undefined ? null : p.enabled ? 1 : 0,
      })
      return r.changes === 1
    },
    async delete(accountId, webhookId) {
      return remove.immediate(accountId, webhookId)
    },
    async claimTest(webhookId, now, intervalMs) {
      if (takeTestTurn.run(now, webhookId, now - intervalMs).changes === 1) return null
      return (lastTest.get(webhookId) as number | undefined) ?? now
    },
    async watchedAccounts() {
      const byId = new Map<string, WebhookRecord[]>()
      for (const w of (all.all() as WebhookRow[]).map(toWebhook)) byId.set(w.accountId, [...(byId.get(w.accountId) ?? []), w])
      return [...byId].map(([accountId, webhooks]) => ({ accountId, webhooks, alerts: readAlerts(accountId) }))
    },
    async alerts(accountId) {
      return readAlerts(accountId)
    },
    async setLowCredits(accountId, lowCredits) {
      setLow.run(accountId, lowCredits)
    },
    async setAlertState(accountId, st, event) {
      stateTx.immediate(accountId, st, event)
    },
    async recorded(eventIds) {
      return new Set(knownEvents.all(JSON.stringify(eventIds)) as string[])
    },
    async record(event, webhookIds) {
      return recordTx.immediate(event, webhookIds)
    },
    // Nearly always nothing is due: a read first, so a round that finds nothing writes nothing.
    async takeDue(now, limit, leaseMs) {
      if (anyDue.get(now, now) === undefined) return []
      return take.immediate(now, limit, leaseMs)
    },
    async takeOne(deliveryId, now, leaseMs) {
      return takeOneTx.immediate(deliveryId, now, leaseMs)
    },
    async finish(deliveryId, attempt, next) {
      finishTx.immediate(deliveryId, attempt, next)
    },
    async deliveries(webhookId, limit) {
      const rows = deliveriesOf.all(webhookId, limit) as (Omit<DeliveryRecord, 'attempts' | 'nextAt'> & { nextAt: number })[]
      return rows.map((r) => ({ ...r, nextAt: r.state === 'pending' ? r.nextAt : null, attempts: attemptsOf.all(r.id) as Attempt[] }))
    },
    async facts(accountIds, since, packsUntil) {
      if (accountIds.length === 0) return { subscriptionEvents: [], paidOrders: [], packs: [] }
      const ids = JSON.stringify(accountIds)
      const subscriptionEvents = (
        db
          .prepare('SELECT id, account_id AS accountId, at, change FROM subscription_events WHERE account_id IN (SELECT value FROM json_each(?)) AND at >= ? ORDER BY id')
          .all(ids, since) as { id: number; accountId: string; at: number; change: string }[]
      ).map((r) => ({ ...r, change: JSON.parse(r.change) as Record<string, unknown> }))
      const paidOrders = (
        db
          .prepare(
            `SELECT id, account_id AS accountId, credits, price_cents AS priceCents, currency, test, paid_at AS paidAt FROM orders
             WHERE status = 'paid' AND account_id IN (SELECT value FROM json_each(?)) AND paid_at >= ?`,
          )
          .all(ids, since) as (Omit<Facts['paidOrders'][number], 'test'> & { test: number })[]
      ).map((r) => ({ ...r, test: r.test === 1 }))
      const packs = db
        .prepare(
          `SELECT id, account_id AS accountId, credits, remaining, starts_at AS startsAt, expires_at AS expiresAt FROM credit_lots
           WHERE kind = 'pack' AND account_id IN (SELECT value FROM json_each(?)) AND expires_at >= ? AND expires_at <= ?`,
        )
        .all(ids, since, packsUntil) as Facts['packs']
      return { subscriptionEvents, paidOrders, packs }
    },
  }

  function readAlerts(accountId: string): AlertSettings {
    const row = alertRow.get(accountId) as (Omit<AlertSettings, 'lowSent' | 'exhaustedSent'> & { lowSent: number; exhaustedSent: number }) | undefined
    return row ? { ...row, lowSent: row.lowSent === 1, exhaustedSent: row.exhaustedSent === 1 } : { ...NO_ALERTS }
  }
}
