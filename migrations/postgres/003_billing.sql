-- Metering for several stateless nodes on one database: credit lots, the append-only ledger, daily
-- usage aggregates, the operator's subscription history, and the credit holds of requests in flight.
-- The same model as migrations/sqlite/003_billing.sql; credits are integers everywhere, instants are
-- epoch milliseconds (bigint). Every writer of an account's billing rows first locks its accounts row
-- (SELECT ... FOR NO KEY UPDATE), so one account's billing changes are serialised across nodes.

-- A lot is one source of credits: the plan allowance of one period, or one pack. It is live while
-- starts_at <= t < expires_at; spending takes the plan lot first, then packs by soonest expiry.
CREATE TABLE credit_lots (
  id           text PRIMARY KEY,
  account_id   text NOT NULL REFERENCES accounts(id),
  kind         text NOT NULL CHECK (kind IN ('plan', 'pack')),
  credits      integer NOT NULL CHECK (credits >= 0),
  remaining    integer NOT NULL CHECK (remaining >= 0),
  starts_at    bigint NOT NULL,
  expires_at   bigint NOT NULL,
  price_cents  bigint,
  seq          integer NOT NULL,
  -- Creation order per account; also refuses a second writer that skipped the account lock.
  UNIQUE (account_id, seq)
);
CREATE INDEX credit_lots_by_account ON credit_lots (account_id, expires_at);

-- Append-only: every change of a lot's remaining credits is one row, so for every lot
-- SUM(delta) = remaining. A debit names the request that was billed; a request is billed at most once
-- per lot. Ids are assigned under the account lock, so one account's entries are in commit order.
CREATE TABLE ledger_entries (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id  text NOT NULL,
  lot_id      text NOT NULL REFERENCES credit_lots(id),
  at          bigint NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('grant', 'debit', 'adjust')),
  delta       integer NOT NULL,
  request_id  text,
  endpoint    text
);
CREATE INDEX ledger_entries_by_account ON ledger_entries (account_id, id);
CREATE UNIQUE INDEX ledger_debit_once ON ledger_entries (request_id, lot_id) WHERE request_id IS NOT NULL;

CREATE FUNCTION ledger_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger_entries is append-only (% refused)', TG_OP;
END
$$;
CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_entries_append_only();

-- Every request made with an account's key, aggregated per UTC day, endpoint and status. Byte order
-- ("C") for day and endpoint, as in SQLite, whatever the database's collation.
CREATE TABLE usage_daily (
  account_id  text NOT NULL,
  day         text COLLATE "C" NOT NULL,
  endpoint    text COLLATE "C" NOT NULL,
  status      integer NOT NULL,
  requests    bigint NOT NULL,
  billable    bigint NOT NULL,
  credits     bigint NOT NULL,
  PRIMARY KEY (account_id, day, endpoint, status)
);

-- Operator changes of a subscription, each recorded with its time.
CREATE TABLE subscription_events (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id  text NOT NULL,
  at          bigint NOT NULL,
  change      jsonb NOT NULL
);
CREATE INDEX subscription_events_by_account ON subscription_events (account_id, id);

-- Credits reserved by requests in flight, visible to every node. A hold is deleted by its settle; one
-- whose node died is ignored from expires_at on (instants of the requests' clock, like every billing
-- instant) and deleted by the next hold of the account that notices it. Ids are chosen by the node, so
-- several holds can be inserted in one statement and answered before it returns.
CREATE TABLE credit_holds (
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts(id),
  credits     integer NOT NULL CHECK (credits >= 0),
  at          bigint NOT NULL,
  expires_at  bigint NOT NULL CHECK (expires_at > at)
);
CREATE INDEX credit_holds_by_account ON credit_holds (account_id, expires_at);
