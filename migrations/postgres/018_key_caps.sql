-- A key's spend controls: a monthly credit limit (NULL: none) and the endpoints it may call (NULL:
-- every one), as the paths after /api/v1/.
ALTER TABLE api_keys ADD COLUMN monthly_credit_limit bigint CHECK (monthly_credit_limit >= 0);
ALTER TABLE api_keys ADD COLUMN endpoints text[];

-- Credits each key's calls were billed per UTC month ('2026-12'), written by the settle that debits
-- them, in its transaction, and lowered by a compensation that gives a debit back.
CREATE TABLE key_spend (
  key_id   text COLLATE "C" NOT NULL,
  month    text COLLATE "C" NOT NULL,
  credits  bigint NOT NULL,
  PRIMARY KEY (key_id, month)
);

-- Credits reserved against a key's limit by calls in flight. A reservation stops counting once its
-- request's settle is recorded (settled_requests: its spend counts then), when its node deletes it
-- after the settle, or at expires_at (a node that died mid-call), in the requests' clock.
CREATE TABLE key_holds (
  id          text COLLATE "C" PRIMARY KEY,
  key_id      text COLLATE "C" NOT NULL,
  request_id  text COLLATE "C" NOT NULL,
  credits     bigint NOT NULL CHECK (credits >= 0),
  expires_at  bigint NOT NULL
);
CREATE INDEX key_holds_by_key ON key_holds (key_id);

-- Spend added per key and month (a pair at most once), in key order so two batches lock the rows alike.
CREATE FUNCTION pronet_add_key_spend(p_keys text[], p_months text[], p_credits bigint[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO key_spend (key_id, month, credits)
  SELECT * FROM unnest(p_keys, p_months, p_credits) AS s(key_id, month, credits) ORDER BY s.key_id, s.month
  ON CONFLICT (key_id, month) DO UPDATE SET credits = key_spend.credits + EXCLUDED.credits;
END
$$;

-- Reserves p_credits against the key's monthly limit for p_month, under the key's row lock, so two
-- reservations of one key never both take the last credits. Each statement of this (volatile)
-- function reads what committed before it ran, so the sums below see every reservation made before
-- the lock was granted. No row: the key has no limit (or does not exist), nothing reserved.
CREATE FUNCTION pronet_reserve_key(p_key text, p_hold text, p_request text, p_credits bigint, p_month text, p_at bigint, p_expires bigint)
RETURNS TABLE (o_ok boolean, o_limit bigint, o_remaining bigint)
LANGUAGE plpgsql AS $$
DECLARE
  cap bigint;
  spent bigint;
  held bigint;
BEGIN
  SELECT k.monthly_credit_limit INTO cap FROM api_keys k WHERE k.id = p_key FOR NO KEY UPDATE;
  IF cap IS NULL THEN
    RETURN;
  END IF;
  -- One statement, so one snapshot: a settle that commits meanwhile is counted once, as spend or as held.
  SELECT (SELECT COALESCE(sum(ks.credits), 0) FROM key_spend ks WHERE ks.key_id = p_key AND ks.month = p_month),
         (SELECT COALESCE(sum(h.credits), 0) FROM key_holds h
           WHERE h.key_id = p_key AND h.expires_at > p_at AND NOT EXISTS (SELECT 1 FROM settled_requests s WHERE s.request_id = h.request_id))
    INTO spent, held;
  DELETE FROM key_holds h WHERE h.key_id = p_key AND (h.expires_at <= p_at OR EXISTS (SELECT 1 FROM settled_requests s WHERE s.request_id = h.request_id));
  IF spent + held + p_credits > cap THEN
    o_ok := false;
    o_limit := cap;
    o_remaining := GREATEST(0, cap - spent - held);
    RETURN NEXT;
    RETURN;
  END IF;
  INSERT INTO key_holds (id, key_id, request_id, credits, expires_at) VALUES (p_hold, p_key, p_request, p_credits, p_expires);
  o_ok := true;
  o_limit := cap;
  o_remaining := cap - spent - held - p_credits;
  RETURN NEXT;
END
$$;
