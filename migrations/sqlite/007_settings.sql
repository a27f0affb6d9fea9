-- Facts about the store itself, as in PostgreSQL's `settings` (its migration 005). The embedded
-- store keeps its secret in the data dir; what lives here is the first start's record (startup.ts):
-- kept in the database, not beside it, so it can never disagree with the data it describes.
CREATE TABLE settings (
  name   TEXT PRIMARY KEY,
  value  TEXT NOT NULL
);
