-- Accounts and API keys, as migrations/sqlite/002 and 003 leave them. Keys are stored only as SHA-256
-- hashes; the plaintext exists only in the creation response. The billing columns (plan, status,
-- limits, period and renewal instants, cancel_at_period_end) live on the account; the ledger's
-- migration (003_billing) adds lots, entries, usage and holds. Instants are Unix ms (bigint);
-- cancel_at_period_end is 0/1 as in SQLite.
CREATE TABLE accounts (
  id                   text COLLATE "C" PRIMARY KEY,
  name                 text NOT NULL,
  created_at           bigint NOT NULL,
  suspended_at         bigint,
  plan                 text NOT NULL CHECK (plan IN ('free', 'custom', 'none')),
  status               text NOT NULL CHECK (status IN ('active', 'free', 'trialing', 'past_due', 'incomplete', 'unpaid', 'canceled')),
  credits_limit        integer NOT NULL CHECK (credits_limit >= 0),
  rps_limit            integer NOT NULL CHECK (rps_limit >= 1),
  -- The billing period: anchor_at is the instant monthly renewals are counted from (clamped to the
  -- month's length); renewal_at is the end of the current period (NULL until the first period is
  -- opened, and for accounts without a plan).
  anchor_at            bigint,
  period_start         bigint,
  renewal_at           bigint,
  cancel_at_period_end integer NOT NULL DEFAULT 0
);

CREATE TABLE api_keys (
  id          text COLLATE "C" PRIMARY KEY,
  account_id  text COLLATE "C" NOT NULL REFERENCES accounts (id),
  hash        text COLLATE "C" NOT NULL UNIQUE,
  prefix      text NOT NULL,
  created_at  bigint NOT NULL,
  revoked_at  bigint,
  -- Creation order among keys made in the same millisecond (SQLite orders those by rowid).
  seq         bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX api_keys_by_account ON api_keys (account_id, created_at, seq);
