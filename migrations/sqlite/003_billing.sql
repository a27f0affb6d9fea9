-- Metering: subscription periods, credit lots, the append-only ledger, daily usage aggregates and the
-- operator's subscription history. Credits are integers everywhere.

-- The billing period: anchor_at is the instant monthly renewals are counted from (clamped to the
-- month's length); renewal_at is the end of the current period (NULL until the first period is
-- opened, and for accounts without a plan).
ALTER TABLE accounts ADD COLUMN anchor_at INTEGER;
ALTER TABLE accounts ADD COLUMN period_start INTEGER;
ALTER TABLE accounts ADD COLUMN renewal_at INTEGER;
ALTER TABLE accounts ADD COLUMN cancel_at_period_end INTEGER NOT NULL DEFAULT 0;
UPDATE accounts SET anchor_at = created_at;
-- A pack-only account never had a plan: its status is `free` (good standing), not `canceled`.
UPDATE accounts SET status = 'free' WHERE plan = 'none' AND status = 'canceled';

-- A lot is one source of credits: the plan allowance of one period, or one pack. It is live while
-- starts_at <= t < expires_at; spending takes the plan lot first, then packs by soonest expiry.
CREATE TABLE credit_lots (
  id           TEXT PRIMARY KEY,
  account_id   TEXT NOT NULL REFERENCES accounts(id),
  kind         TEXT NOT NULL CHECK (kind IN ('plan', 'pack')),
  credits      INTEGER NOT NULL CHECK (credits >= 0),
  remaining    INTEGER NOT NULL CHECK (remaining >= 0),
  starts_at    INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  price_cents  INTEGER,
  seq          INTEGER NOT NULL
);
CREATE INDEX credit_lots_by_account ON credit_lots (account_id, expires_at);

-- Append-only: every change of a lot's remaining credits is one row, so for every lot
-- SUM(delta) = remaining. A debit names the request that was billed; a request is billed at most once
-- per lot.
CREATE TABLE ledger_entries (
  id          INTEGER PRIMARY KEY,
  account_id  TEXT NOT NULL,
  lot_id      TEXT NOT NULL REFERENCES credit_lots(id),
  at          INTEGER NOT NULL,
  kind        TEXT NOT NULL CHECK (kind IN ('grant', 'debit', 'adjust')),
  delta       INTEGER NOT NULL,
  request_id  TEXT,
  endpoint    TEXT
);
CREATE INDEX ledger_entries_by_account ON ledger_entries (account_id, id);
CREATE UNIQUE INDEX ledger_debit_once ON ledger_entries (request_id, lot_id) WHERE request_id IS NOT NULL;

-- Every request made with an account's key, aggregated per UTC day, endpoint and status.
CREATE TABLE usage_daily (
  account_id  TEXT NOT NULL,
  day         TEXT NOT NULL,
  endpoint    TEXT NOT NULL,
  status      INTEGER NOT NULL,
  requests    INTEGER NOT NULL,
  billable    INTEGER NOT NULL,
  credits     INTEGER NOT NULL,
  PRIMARY KEY (account_id, day, endpoint, status)
) WITHOUT ROWID;

-- Operator changes of a subscription, each recorded with its time.
CREATE TABLE subscription_events (
  id          INTEGER PRIMARY KEY,
  account_id  TEXT NOT NULL,
  at          INTEGER NOT NULL,
  change      TEXT NOT NULL
);
CREATE INDEX subscription_events_by_account ON subscription_events (account_id, id);
