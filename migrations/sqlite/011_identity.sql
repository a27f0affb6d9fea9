-- The console's people: users (email and scrypt password hash), their memberships of accounts,
-- console sessions, one-time email tokens and failed sign-in counters. Session ids and tokens are
-- stored only as SHA-256 hashes: the plaintext exists only in the cookie or the link. Instants are
-- Unix ms.
CREATE TABLE users (
  id                TEXT PRIMARY KEY,
  -- Kept lower-cased by the service; NOCASE keeps two spellings of one address apart regardless.
  email             TEXT NOT NULL COLLATE NOCASE UNIQUE,
  password_hash     TEXT NOT NULL,
  email_verified_at INTEGER,
  created_at        INTEGER NOT NULL,
  disabled_at       INTEGER
);

-- A user may belong to several accounts; an account keeps at least one owner (the store's rule).
CREATE TABLE memberships (
  account_id  TEXT NOT NULL REFERENCES accounts (id),
  user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role        TEXT NOT NULL CHECK (role IN ('owner', 'member')),
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (account_id, user_id)
);
CREATE INDEX memberships_by_user ON memberships (user_id, created_at);

-- A user's session follows the account they look at (account_id); an operator's has no user.
CREATE TABLE console_sessions (
  id_hash      TEXT PRIMARY KEY,
  kind         TEXT NOT NULL CHECK (kind IN ('user', 'operator')),
  user_id      TEXT REFERENCES users (id) ON DELETE CASCADE,
  account_id   TEXT REFERENCES accounts (id),
  created_at   INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  CHECK ((kind = 'user') = (user_id IS NOT NULL))
);
CREATE INDEX console_sessions_by_user ON console_sessions (user_id);
CREATE INDEX console_sessions_by_expiry ON console_sessions (expires_at);

-- Links sent by mail: verify (a user's address), reset (a user's password), invite (an address to an
-- account with a role). Single use: used_at is set by the one call that consumes it.
CREATE TABLE email_tokens (
  hash        TEXT PRIMARY KEY,
  kind        TEXT NOT NULL CHECK (kind IN ('verify', 'reset', 'invite')),
  user_id     TEXT REFERENCES users (id) ON DELETE CASCADE,
  email       TEXT,
  account_id  TEXT REFERENCES accounts (id),
  role        TEXT CHECK (role IN ('owner', 'member')),
  created_by  TEXT,
  created_at  INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL,
  used_at     INTEGER
);
CREATE INDEX email_tokens_by_user ON email_tokens (user_id, kind);
CREATE INDEX email_tokens_by_expiry ON email_tokens (expires_at);

-- Failed sign-ins per key (a hash of "email:<address>" or "address:<client address>"), counted in a
-- window that starts at its first failure; kept in the store so that every node sees them.
CREATE TABLE sign_in_failures (
  key          TEXT PRIMARY KEY,
  window_start INTEGER NOT NULL,
  failures     INTEGER NOT NULL CHECK (failures >= 1)
);
