-- A key's spend controls: a monthly credit limit (NULL: none) and the endpoints it may call (NULL:
-- every one), a JSON array of the paths after /api/v1/.
ALTER TABLE api_keys ADD COLUMN monthly_credit_limit INTEGER CHECK (monthly_credit_limit >= 0);
ALTER TABLE api_keys ADD COLUMN endpoints TEXT;

-- Credits each key's calls were billed per UTC month ('2026-12'), written by the settle that debits
-- them, in its transaction.
CREATE TABLE key_spend (
  key_id   TEXT NOT NULL,
  month    TEXT NOT NULL,
  credits  INTEGER NOT NULL,
  PRIMARY KEY (key_id, month)
) WITHOUT ROWID;
