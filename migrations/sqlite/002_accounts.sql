-- Accounts and API keys. Keys are stored only as SHA-256 hashes; the plaintext exists only in the
-- creation response. Plan fields live on the account; the metering migration adds the ledger.
CREATE TABLE accounts (
  id            TEXT PRIMARY KEY,
  name          TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  suspended_at  INTEGER,
  plan          TEXT NOT NULL CHECK (plan IN ('free', 'custom', 'none')),
  status        TEXT NOT NULL CHECK (status IN ('active', 'free', 'trialing', 'past_due', 'incomplete', 'unpaid', 'canceled')),
  credits_limit INTEGER NOT NULL CHECK (credits_limit >= 0),
  rps_limit     INTEGER NOT NULL CHECK (rps_limit >= 1)
);

CREATE TABLE api_keys (
  id          TEXT PRIMARY KEY,
  account_id  TEXT NOT NULL REFERENCES accounts(id),
  hash        TEXT NOT NULL UNIQUE,
  prefix      TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  revoked_at  INTEGER
);
CREATE INDEX api_keys_by_account ON api_keys (account_id, created_at);
