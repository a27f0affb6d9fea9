-- The writes of the ledger's batches, as functions: a statement sent as text is parsed and planned
-- at every batch (about as long as it takes to run), while a function's statements keep their plans
-- for the life of the connection. Each takes one array per column, a row per index.

-- A transaction that a node decided from the billing state it last saw (its writes sent with their
-- lock in one round trip) first checks, under the lock, that the account is still in that state:
-- plan, period and every lot. Otherwise it fails with SQLSTATE PN001, the whole transaction rolls
-- back, and the node decides again from what the database holds.
CREATE FUNCTION pronet_expect_state(p_account text, p_plan text, p_renewal bigint, p_anchor bigint, p_limit integer, p_cancel integer,
                                    p_lots text[], p_remaining integer[], p_starts bigint[], p_expires bigint[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = p_account AND a.plan = p_plan AND a.renewal_at IS NOT DISTINCT FROM p_renewal
                   AND COALESCE(a.anchor_at, a.created_at) = p_anchor AND a.credits_limit = p_limit AND (a.cancel_at_period_end <> 0) = (p_cancel <> 0))
     OR EXISTS ((SELECT l.id, l.remaining, l.starts_at, l.expires_at FROM credit_lots l WHERE l.account_id = p_account
                 EXCEPT SELECT * FROM unnest(p_lots, p_remaining, p_starts, p_expires))
                UNION ALL
                (SELECT * FROM unnest(p_lots, p_remaining, p_starts, p_expires)
                 EXCEPT SELECT l.id, l.remaining, l.starts_at, l.expires_at FROM credit_lots l WHERE l.account_id = p_account)) THEN
    RAISE EXCEPTION 'the billing state changed since it was read' USING ERRCODE = 'PN001';
  END IF;
END
$$;

-- Debits of several accounts: each lot's remaining lowered once by its debits' sum (the CHECK on
-- remaining refuses an overdraft), and an entry per debit in the order given.
CREATE FUNCTION pronet_debit_many(p_accounts text[], p_lots text[], p_amounts integer[], p_ats bigint[], p_requests text[], p_endpoints text[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH d AS (SELECT * FROM unnest(p_accounts, p_lots, p_amounts, p_ats, p_requests, p_endpoints)
             WITH ORDINALITY AS d(account_id, lot_id, amount, at, request_id, endpoint, n)),
    spent AS (UPDATE credit_lots l SET remaining = l.remaining - s.amount
              FROM (SELECT d.account_id, d.lot_id, sum(d.amount) AS amount FROM d GROUP BY d.account_id, d.lot_id) s
              WHERE l.id = s.lot_id AND l.account_id = s.account_id)
  INSERT INTO ledger_entries (account_id, lot_id, at, kind, delta, request_id, endpoint)
  SELECT d.account_id, d.lot_id, d.at, 'debit', -d.amount, d.request_id, d.endpoint FROM d ORDER BY d.n;
END
$$;

-- Usage aggregates (a key at most once) added to usage_daily.
CREATE FUNCTION pronet_add_usage(p_accounts text[], p_days text[], p_endpoints text[], p_statuses integer[], p_requests bigint[], p_billable bigint[], p_credits bigint[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_daily (account_id, day, endpoint, status, requests, billable, credits)
  SELECT * FROM unnest(p_accounts, p_days, p_endpoints, p_statuses, p_requests, p_billable, p_credits)
  ON CONFLICT (account_id, day, endpoint, status) DO UPDATE SET
    requests = usage_daily.requests + EXCLUDED.requests,
    billable = usage_daily.billable + EXCLUDED.billable,
    credits = usage_daily.credits + EXCLUDED.credits;
END
$$;

-- The settled_requests rows of settles that billed.
CREATE FUNCTION pronet_record_settled(p_requests text[], p_accounts text[], p_ats bigint[], p_credits integer[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO settled_requests (request_id, account_id, at, credits) SELECT * FROM unnest(p_requests, p_accounts, p_ats, p_credits);
END
$$;

-- Nodes' rows of their holds (an account and node at most once).
CREATE FUNCTION pronet_write_node_holds(p_accounts text[], p_nodes text[], p_credits bigint[], p_expires bigint[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO node_holds (account_id, node_id, credits, expires_at) SELECT * FROM unnest(p_accounts, p_nodes, p_credits, p_expires)
  ON CONFLICT (account_id, node_id) DO UPDATE SET credits = EXCLUDED.credits, expires_at = EXCLUDED.expires_at;
END
$$;

-- The locks of a batch's accounts, taken in the order of their ids (so two batches never wait for
-- each other in a circle); the ids of those that exist, in that order.
CREATE FUNCTION pronet_lock_accounts(p_ids text[]) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
  locked text[];
BEGIN
  SELECT array_agg(s.id ORDER BY s.id) INTO locked
    FROM (SELECT a.id FROM accounts a WHERE a.id = ANY(p_ids) ORDER BY a.id FOR NO KEY UPDATE) s;
  RETURN COALESCE(locked, '{}');
END
$$;

-- After the locks: each account's billing state and the holds of the other nodes (not p_node's: a
-- node knows its own), with the rows of calls held by nodes of the earlier release (credit_holds)
-- during a rolling upgrade.
CREATE FUNCTION pronet_load_states(p_ids text[], p_node text)
RETURNS TABLE (id text, plan text, status text, credits_limit integer, rps_limit integer, anchor_at bigint, created_at bigint,
               period_start bigint, renewal_at bigint, cancel boolean, lots json, holds json)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT a.id::text, a.plan, a.status, a.credits_limit, a.rps_limit, a.anchor_at, a.created_at, a.period_start, a.renewal_at,
    (a.cancel_at_period_end::int <> 0),
    COALESCE((SELECT json_agg(json_build_array(l.id, l.kind, l.credits, l.remaining, l.starts_at, l.expires_at, l.price_cents, l.seq) ORDER BY l.seq)
              FROM credit_lots l WHERE l.account_id = a.id), '[]'::json),
    COALESCE((SELECT json_agg(o.x) FROM (
        SELECT json_build_array(h.node_id, h.credits, h.expires_at) AS x FROM node_holds h WHERE h.account_id = a.id AND h.node_id <> p_node
        UNION ALL SELECT json_build_array('call:' || c.id, c.credits, c.expires_at) FROM credit_holds c WHERE c.account_id = a.id) o), '[]'::json)
  FROM accounts a WHERE a.id = ANY(p_ids);
END
$$;
