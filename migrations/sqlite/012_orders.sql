-- Pack orders: a customer's purchase of one credit pack, paid through Stripe Checkout, approved
-- by the operator (manual) or paid at once with no money (test). Prices are integer cents, instants
-- Unix ms.
--
-- Granted exactly once: a paid order records the lot id its pack is granted under (derived from the
-- order's id), and the ledger inserts that lot under credit_lots' primary key, so a second grant of
-- the same order (a redelivered payment, two processes confirming it at once, a retry after a crash
-- between the two steps) adds nothing. The order moves to `paid` first, atomically (only one of
-- racing moves wins); whoever finds it paid then makes sure its lot exists.
CREATE TABLE orders (
  id            TEXT PRIMARY KEY,
  account_id    TEXT NOT NULL REFERENCES accounts (id),
  -- The console user who placed it. No foreign key: an order stays in the books after its user goes.
  user_id       TEXT,
  credits       INTEGER NOT NULL CHECK (credits > 0),
  price_cents   INTEGER NOT NULL CHECK (price_cents >= 0),
  currency      TEXT NOT NULL CHECK (currency = 'usd'),
  provider      TEXT NOT NULL CHECK (provider IN ('stripe', 'manual', 'test')),
  status        TEXT NOT NULL CHECK (status IN ('pending', 'paid', 'failed', 'canceled', 'rejected')),
  -- The provider's name for the payment (a Stripe Checkout Session id).
  provider_ref  TEXT,
  test          INTEGER NOT NULL DEFAULT 0 CHECK (test IN (0, 1)),
  lot_id        TEXT,
  paid_at       INTEGER,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  -- Paid, and only paid, names its lot and its payment instant (what a retried grant uses).
  CHECK ((status = 'paid') = (lot_id IS NOT NULL AND paid_at IS NOT NULL))
);
CREATE INDEX orders_by_account ON orders (account_id, created_at);
CREATE INDEX orders_by_status ON orders (status, created_at);
CREATE UNIQUE INDEX orders_lot_once ON orders (lot_id) WHERE lot_id IS NOT NULL;
CREATE UNIQUE INDEX orders_by_provider_ref ON orders (provider, provider_ref) WHERE provider_ref IS NOT NULL;

-- Every status an order entered, when, by whom (a user, the operator, a provider's event) and why.
CREATE TABLE order_events (
  id        INTEGER PRIMARY KEY,
  order_id  TEXT NOT NULL REFERENCES orders (id),
  status    TEXT NOT NULL CHECK (status IN ('pending', 'paid', 'failed', 'canceled', 'rejected')),
  at        INTEGER NOT NULL,
  actor     TEXT NOT NULL,
  note      TEXT
);
CREATE INDEX order_events_by_order ON order_events (order_id, id);
