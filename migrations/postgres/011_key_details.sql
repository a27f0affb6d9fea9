-- What the console shows of a key: a name its owner gave it, the console user who made it (members
-- see and revoke their own keys) and when it was last used (written in bulk, a few seconds late).
ALTER TABLE api_keys ADD COLUMN name text NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN created_by text;
ALTER TABLE api_keys ADD COLUMN last_used_at bigint;
