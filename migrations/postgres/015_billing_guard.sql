-- A transaction that a node decided from the billing state it last saw (its writes sent with their
-- lock in one round trip) first checks, under the lock, that the account is still in that state.
-- pronet_expect(false) fails the statement with SQLSTATE PN001, so the whole transaction rolls back
-- and the node decides again from what the database holds.
CREATE FUNCTION pronet_expect(ok boolean) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF ok IS NOT TRUE THEN
    RAISE EXCEPTION 'the billing state changed since it was read' USING ERRCODE = 'PN001';
  END IF;
END
$$;
