-- Credits held by calls still running, one row per account and node: the sum of the node's holds on
-- the account and the instant (the requests' clock) after which that sum stops counting unless the
-- node writes the row again. A node keeps its holds one by one in memory and writes this row in the
-- transaction that grants or settles them, so a call costs no row of its own: a row per call,
-- inserted and deleted milliseconds apart, left the table and its index full of dead rows that every
-- balance check had to step over. A node that dies stops writing; its row lapses at expires_at and is
-- deleted by the next transaction of the account that sees it lapsed.
--
-- Only the primary key is indexed, and pages are left room, so the row's updates stay in its page.
CREATE TABLE node_holds (
  account_id  text NOT NULL REFERENCES accounts(id),
  node_id     text NOT NULL CHECK (length(node_id) <= 64),
  credits     bigint NOT NULL CHECK (credits >= 0),
  expires_at  bigint NOT NULL,
  PRIMARY KEY (account_id, node_id)
) WITH (fillfactor = 50);

-- credit_holds (a row per call) stays while nodes of the earlier release may still run beside these
-- during a rolling upgrade: its live rows are still counted, and its lapsed ones deleted.
