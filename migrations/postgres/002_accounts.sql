-- STAND-IN (branch pg-ledger): the accounts and api_keys tables as the PostgreSQL ledger expects them,
-- with exactly the columns of SQLite's accounts after its migrations 002 and 003. The account-store
-- branch owns the real migrations/postgres/002_accounts.sql; at merge its file replaces this one. The
-- ledger reads and writes only these columns (cancel_at_period_end may be boolean or integer there).
CREATE TABLE accounts (
  id                    text PRIMARY KEY,
  name                  text NOT NULL,
  created_at            bigint NOT NULL,
  suspended_at          bigint,
  plan                  text NOT NULL CHECK (plan IN ('free', 'custom', 'none')),
  status                text NOT NULL CHECK (status IN ('active', 'free', 'trialing', 'past_due', 'incomplete', 'unpaid', 'canceled')),
  credits_limit         integer NOT NULL CHECK (credits_limit >= 0),
  rps_limit             integer NOT NULL CHECK (rps_limit >= 1),
  anchor_at             bigint,
  period_start          bigint,
  renewal_at            bigint,
  cancel_at_period_end  boolean NOT NULL DEFAULT false
);

CREATE TABLE api_keys (
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts(id),
  hash        text NOT NULL UNIQUE,
  prefix      text NOT NULL,
  created_at  bigint NOT NULL,
  revoked_at  bigint
);
CREATE INDEX api_keys_by_account ON api_keys (account_id, created_at);
