-- Answers kept under keys, their bodies given as text where that is exact: p_encodings[i] is 'utf8'
-- for a body sent as its own characters (valid UTF-8, no NUL, on a database whose encodings are
-- UTF-8), else 'base64'. Most answers are JSON, and the server reads a literal a character at a time:
-- the text is a quarter shorter than its base64, and needs no decoding.
-- The nine-argument function of migration 016 stays for nodes of the earlier release during an upgrade.
CREATE FUNCTION pronet_keep_answers(p_accounts text[], p_keys text[], p_fingerprints text[], p_tokens text[], p_ats bigint[],
                                    p_requests text[], p_statuses integer[], p_headers text[], p_bodies text[], p_encodings text[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1 .. COALESCE(array_length(p_accounts, 1), 0) LOOP
    INSERT INTO idempotency_keys AS k (account_id, idem_key, fingerprint, state, token, created_at, lease_until, request_id, status, headers, body)
    VALUES (p_accounts[i], p_keys[i], p_fingerprints[i], 'done', p_tokens[i], p_ats[i], p_ats[i], p_requests[i], p_statuses[i], p_headers[i],
            CASE WHEN p_encodings[i] = 'utf8' THEN convert_to(p_bodies[i], 'UTF8') ELSE decode(p_bodies[i], 'base64') END)
    ON CONFLICT (account_id, idem_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, state = 'done', token = EXCLUDED.token,
      created_at = EXCLUDED.created_at, lease_until = EXCLUDED.lease_until, request_id = EXCLUDED.request_id, status = EXCLUDED.status,
      headers = EXCLUDED.headers, body = EXCLUDED.body, replayed = false, recorded_at = now();
  END LOOP;
END
$$;
