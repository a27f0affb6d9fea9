-- Settles made idempotent by request id. Every settle that writes anything durable about its request
-- (a billed debit, a free usage line, a released hold counted with its line) inserts one row here in
-- the same transaction, so "did request R's settle commit?" has an exact answer after a connection
-- was lost while its COMMIT was in flight: the row is there or it is not. A settle refused for lack
-- of credits writes no row (it bills and counts nothing; its caller records the request's own line).
--
-- state:
--   settled      the settle committed; credits is what it charged.
--   void         a fence: the node gave up on a settle whose outcome it did not know, found no row,
--                and inserted this one so that the lost transaction, were it still in flight on the
--                server, can never commit afterwards (it would violate the primary key).
--   compensated  the settle had committed although its caller was answered 503 (not billed): its
--                debits were given back by 'adjust' entries naming the request and its usage line was
--                moved to status 503, free.
--
-- Bounded: a row is only ever read while its request's settle is being retried or is in doubt on its
-- node, seconds to minutes after it was written. The ledger deletes rows older than a day
-- (recorded_at, the server's clock) in small batches from a timer (pg-ledger.ts, pruneEveryMs).
CREATE TABLE settled_requests (
  request_id   text PRIMARY KEY,
  account_id   text NOT NULL,
  -- The request's instant (the clock of the requests, like every billing instant).
  at           bigint NOT NULL,
  credits      integer NOT NULL CHECK (credits >= 0),
  state        text NOT NULL DEFAULT 'settled' CHECK (state IN ('settled', 'void', 'compensated')),
  recorded_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX settled_requests_by_age ON settled_requests (recorded_at);

-- A compensating credit is an 'adjust' entry that names the request whose debit it gives back, on the
-- same lot. A request is still debited at most once per lot, and now also given back at most once per
-- lot: the unique index covers the kind.
DROP INDEX ledger_debit_once;
CREATE UNIQUE INDEX ledger_request_once ON ledger_entries (request_id, lot_id, kind) WHERE request_id IS NOT NULL;
