-- Pack orders, as migrations/sqlite/012_orders.sql: a customer's purchase of one credit pack,
-- paid through Stripe Checkout, approved by the operator (manual) or paid at once with no money
-- (test). Prices are integer cents, instants Unix ms (bigint).
--
-- Granted exactly once: a paid order records the lot id its pack is granted under (derived from the
-- order's id), and the ledger inserts that lot under the account's lock and credit_lots' primary key,
-- so a second grant of the same order (a redelivered payment, two nodes confirming it at once, a
-- retry after a crash between the two steps) adds nothing. The order moves to `paid` first, in one
-- statement (only one of racing moves wins); whoever finds it paid then makes sure its lot exists.
CREATE TABLE orders (
  id            text COLLATE "C" PRIMARY KEY,
  account_id    text COLLATE "C" NOT NULL REFERENCES accounts (id),
  -- The console user who placed it. No foreign key: an order stays in the books after its user goes.
  user_id       text COLLATE "C",
  credits       integer NOT NULL CHECK (credits > 0),
  price_cents   bigint NOT NULL CHECK (price_cents >= 0),
  currency      text NOT NULL CHECK (currency = 'usd'),
  provider      text NOT NULL CHECK (provider IN ('stripe', 'manual', 'test')),
  status        text NOT NULL CHECK (status IN ('pending', 'paid', 'failed', 'canceled', 'rejected')),
  -- The provider's name for the payment (a Stripe Checkout Session id).
  provider_ref  text COLLATE "C",
  test          boolean NOT NULL DEFAULT false,
  lot_id        text COLLATE "C",
  paid_at       bigint,
  created_at    bigint NOT NULL,
  updated_at    bigint NOT NULL,
  -- Creation order among orders placed in the same millisecond (SQLite orders those by rowid).
  seq           bigint GENERATED ALWAYS AS IDENTITY,
  -- Paid, and only paid, names its lot and its payment instant (what a retried grant uses).
  CHECK ((status = 'paid') = (lot_id IS NOT NULL AND paid_at IS NOT NULL))
);
CREATE INDEX orders_by_account ON orders (account_id, created_at, seq);
CREATE INDEX orders_by_status ON orders (status, created_at, seq);
CREATE UNIQUE INDEX orders_lot_once ON orders (lot_id) WHERE lot_id IS NOT NULL;
CREATE UNIQUE INDEX orders_by_provider_ref ON orders (provider, provider_ref) WHERE provider_ref IS NOT NULL;

-- Every status an order entered, when, by whom (a user, the operator, a provider's event) and why.
CREATE TABLE order_events (
  id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  order_id  text COLLATE "C" NOT NULL REFERENCES orders (id),
  status    text NOT NULL CHECK (status IN ('pending', 'paid', 'failed', 'canceled', 'rejected')),
  at        bigint NOT NULL,
  actor     text NOT NULL,
  note      text
);
CREATE INDEX order_events_by_order ON order_events (order_id, id);
