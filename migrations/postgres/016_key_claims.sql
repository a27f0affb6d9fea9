-- Idempotency-Key claims and releases of a batch in one statement, and the answers a batch keeps in
-- another, whose plans the connection keeps (sent as text, a claim's three statements and a kept
-- answer's were parsed and planned for every call that sent a key).
-- Row i is a release of the claim p_tokens[i] when p_release[i], else a claim, in the order given:
-- take the key if it is free (no row, an answer past its day, a claim whose lease lapsed); else take
-- its answer for a repeat of the same request, marking it replayed; else say what holds it. Each
-- statement sees what the ones before it did. A row per claim: 'claimed', 'answered' (with the
-- answer), 'running', 'mismatch', or 'again' when the row went between the statements.
CREATE FUNCTION pronet_key_ops(p_release boolean[], p_accounts text[], p_keys text[], p_fingerprints text[], p_tokens text[],
                               p_ats bigint[], p_lease bigint, p_retention bigint)
RETURNS TABLE (o_n integer, o_outcome text, o_status integer, o_headers text, o_body bytea)
LANGUAGE plpgsql AS $$
DECLARE
  i integer;
  taken text;
BEGIN
  FOR i IN 1 .. COALESCE(array_length(p_accounts, 1), 0) LOOP
    o_n := i;
    o_status := NULL;
    o_headers := NULL;
    o_body := NULL;
    IF p_release[i] THEN
      DELETE FROM idempotency_keys k
       WHERE k.account_id = p_accounts[i] AND k.idem_key = p_keys[i] AND k.token = p_tokens[i] AND k.state = 'running';
      CONTINUE;
    END IF;
    taken := NULL;
    INSERT INTO idempotency_keys AS k (account_id, idem_key, fingerprint, state, token, created_at, lease_until)
    VALUES (p_accounts[i], p_keys[i], p_fingerprints[i], 'running', p_tokens[i], p_ats[i], p_ats[i] + p_lease)
    ON CONFLICT (account_id, idem_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, state = 'running', token = EXCLUDED.token,
      created_at = EXCLUDED.created_at, lease_until = EXCLUDED.lease_until, request_id = NULL, status = NULL, headers = NULL,
      body = NULL, replayed = false, recorded_at = now()
    WHERE k.created_at <= p_ats[i] - p_retention OR (k.state = 'running' AND k.lease_until <= p_ats[i])
    RETURNING k.token INTO taken;
    IF taken IS NOT DISTINCT FROM p_tokens[i] THEN
      o_outcome := 'claimed';
      RETURN NEXT;
      CONTINUE;
    END IF;
    UPDATE idempotency_keys k SET replayed = true
     WHERE k.account_id = p_accounts[i] AND k.idem_key = p_keys[i] AND k.state = 'done' AND k.fingerprint = p_fingerprints[i]
       AND k.created_at > p_ats[i] - p_retention
    RETURNING k.status, k.headers, k.body INTO o_status, o_headers, o_body;
    IF FOUND THEN
      o_outcome := 'answered';
      RETURN NEXT;
      CONTINUE;
    END IF;
    SELECT CASE WHEN k.fingerprint <> p_fingerprints[i] THEN 'mismatch' WHEN k.state = 'running' THEN 'running' ELSE 'again' END
      INTO o_outcome FROM idempotency_keys k WHERE k.account_id = p_accounts[i] AND k.idem_key = p_keys[i];
    IF NOT FOUND THEN
      o_outcome := 'again';
    END IF;
    RETURN NEXT;
  END LOOP;
END
$$;

-- Answers kept under their keys, replacing the claims, in the order given (the order in which claims
-- lock keys). Bodies in base64, the shortest text form of bytes.
CREATE FUNCTION pronet_keep_answers(p_accounts text[], p_keys text[], p_fingerprints text[], p_tokens text[], p_ats bigint[],
                                    p_requests text[], p_statuses integer[], p_headers text[], p_bodies text[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1 .. COALESCE(array_length(p_accounts, 1), 0) LOOP
    INSERT INTO idempotency_keys AS k (account_id, idem_key, fingerprint, state, token, created_at, lease_until, request_id, status, headers, body)
    VALUES (p_accounts[i], p_keys[i], p_fingerprints[i], 'done', p_tokens[i], p_ats[i], p_ats[i], p_requests[i], p_statuses[i], p_headers[i],
            decode(p_bodies[i], 'base64'))
    ON CONFLICT (account_id, idem_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, state = 'done', token = EXCLUDED.token,
      created_at = EXCLUDED.created_at, lease_until = EXCLUDED.lease_until, request_id = EXCLUDED.request_id, status = EXCLUDED.status,
      headers = EXCLUDED.headers, body = EXCLUDED.body, replayed = false, recorded_at = now();
  END LOOP;
END
$$;

-- The answers kept under keys are compressed with lz4 where the server has it: a call that sends a
-- key keeps its whole answer, and pglz, the default, cost the server more than the rest of such a
-- call's writes. A server built without lz4 keeps the default. Rows already stored keep theirs.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    ALTER TABLE idempotency_keys ALTER COLUMN body SET COMPRESSION lz4;
  END IF;
END
$$;
