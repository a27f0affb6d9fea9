-- Account webhooks. The facts they report are already durable where they happen (a plan lot granted,
-- a subscription event, an order paid, a pack's expiry, a balance): webhook_events records each once
-- under an id made from the fact, in the same transaction as its deliveries. A delivery is retried
-- with backoff for a day.
CREATE TABLE webhooks (
  id          TEXT PRIMARY KEY,
  account_id  TEXT NOT NULL REFERENCES accounts (id),
  url         TEXT NOT NULL,
  events      TEXT NOT NULL,
  secret      TEXT NOT NULL,
  enabled     INTEGER NOT NULL DEFAULT 1,
  created_at  INTEGER NOT NULL
);
CREATE INDEX webhooks_by_account ON webhooks (account_id, created_at);

CREATE TABLE webhook_alerts (
  account_id       TEXT PRIMARY KEY REFERENCES accounts (id),
  low_credits      INTEGER CHECK (low_credits >= 0),
  low_sent         INTEGER NOT NULL DEFAULT 0,
  exhausted_sent   INTEGER NOT NULL DEFAULT 0,
  low_round        INTEGER NOT NULL DEFAULT 0,
  exhausted_round  INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE webhook_events (
  id          TEXT PRIMARY KEY,
  account_id  TEXT NOT NULL,
  type        TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  body        TEXT NOT NULL
);

CREATE TABLE webhook_deliveries (
  id            TEXT PRIMARY KEY,
  event_id      TEXT NOT NULL REFERENCES webhook_events (id),
  webhook_id    TEXT NOT NULL,
  state         TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts      INTEGER NOT NULL DEFAULT 0,
  next_at       INTEGER NOT NULL,
  lease_until   INTEGER NOT NULL DEFAULT 0,
  created_at    INTEGER NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at);

CREATE TABLE webhook_attempts (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id  TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  at           INTEGER NOT NULL,
  status       INTEGER,
  error        TEXT,
  duration_ms  INTEGER NOT NULL
);
CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts (delivery_id, id);
