-- The console's people, as migrations/sqlite/011_identity.sql: users (email and scrypt password
-- hash), their memberships of accounts, console sessions, one-time email tokens and failed sign-in
-- counters. Session ids and tokens are stored only as SHA-256 hashes: the plaintext exists only in
-- the cookie or the link. Instants are Unix ms (bigint).
CREATE TABLE users (
  id                text COLLATE "C" PRIMARY KEY,
  -- Kept lower-cased by the service; the index keeps two spellings of one address apart regardless.
  email             text NOT NULL,
  password_hash     text NOT NULL,
  email_verified_at bigint,
  created_at        bigint NOT NULL,
  disabled_at       bigint
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

-- A user may belong to several accounts; an account keeps at least one owner (the store's rule).
CREATE TABLE memberships (
  account_id  text COLLATE "C" NOT NULL REFERENCES accounts (id),
  user_id     text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role        text NOT NULL CHECK (role IN ('owner', 'member')),
  created_at  bigint NOT NULL,
  -- Creation order among memberships made in the same millisecond (SQLite orders those by rowid).
  seq         bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (account_id, user_id)
);
CREATE INDEX memberships_by_user ON memberships (user_id, created_at, seq);

-- A user's session follows the account they look at (account_id); an operator's has no user.
CREATE TABLE console_sessions (
  id_hash      text COLLATE "C" PRIMARY KEY,
  kind         text NOT NULL CHECK (kind IN ('user', 'operator')),
  user_id      text COLLATE "C" REFERENCES users (id) ON DELETE CASCADE,
  account_id   text COLLATE "C" REFERENCES accounts (id),
  created_at   bigint NOT NULL,
  last_seen_at bigint NOT NULL,
  expires_at   bigint NOT NULL,
  CHECK ((kind = 'user') = (user_id IS NOT NULL))
);
CREATE INDEX console_sessions_by_user ON console_sessions (user_id);
CREATE INDEX console_sessions_by_expiry ON console_sessions (expires_at);

-- Links sent by mail: verify (a user's address), reset (a user's password), invite (an address to an
-- account with a role). Single use: used_at is set by the one call that consumes it.
CREATE TABLE email_tokens (
  hash        text COLLATE "C" PRIMARY KEY,
  kind        text NOT NULL CHECK (kind IN ('verify', 'reset', 'invite')),
  user_id     text COLLATE "C" REFERENCES users (id) ON DELETE CASCADE,
  email       text,
  account_id  text COLLATE "C" REFERENCES accounts (id),
  role        text CHECK (role IN ('owner', 'member')),
  created_by  text,
  created_at  bigint NOT NULL,
  expires_at  bigint NOT NULL,
  used_at     bigint
);
CREATE INDEX email_tokens_by_user ON email_tokens (user_id, kind);
CREATE INDEX email_tokens_by_expiry ON email_tokens (expires_at);

-- Failed sign-ins per key (a hash of "email:<address>" or "address:<client address>"), counted in a
-- window that starts at its first failure; kept in the store so that every node sees them.
CREATE TABLE sign_in_failures (
  key          text COLLATE "C" PRIMARY KEY,
  window_start bigint NOT NULL,
  failures     integer NOT NULL CHECK (failures >= 1)
);
