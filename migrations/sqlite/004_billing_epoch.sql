-- Every transaction that writes billing rows bumps this counter. The server's ledger knows which
-- bumps are its own, so a change made by another process (the CLI) is noticed and its cache reloaded.
CREATE TABLE billing_epoch (
  id  INTEGER PRIMARY KEY CHECK (id = 1),
  n   INTEGER NOT NULL
);
INSERT INTO billing_epoch (id, n) VALUES (1, 0);
