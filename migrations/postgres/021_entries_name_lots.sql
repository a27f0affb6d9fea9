-- Every ledger entry names a credit lot that exists, as the foreign key from ledger_entries.lot_id
-- said. The foreign key looked its lot up once per entry, in a query of its own, and a batch of
-- debits inserts an entry per call: those lookups were a large part of the batch's own time. A
-- trigger per statement now checks all the entries a statement inserts in one query.
--
-- The foreign key also refused to delete, or to give another id to, a lot that entries name. Lots are
-- never deleted (each has at least its grant entry), so both are refused outright: no check of
-- ledger_entries is needed, and no insert running beside a delete can leave an entry without its lot.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_lot_id_fkey;

CREATE FUNCTION pronet_entries_name_lots() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  missing text;
BEGIN
  SELECT n.lot_id INTO missing FROM new_entries n
   WHERE NOT EXISTS (SELECT 1 FROM credit_lots l WHERE l.id = n.lot_id) LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'a ledger entry names credit lot %, which does not exist', missing USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER ledger_entries_name_lots AFTER INSERT ON ledger_entries
  REFERENCING NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION pronet_entries_name_lots();

CREATE FUNCTION pronet_lots_stay() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'credit lot % cannot be deleted or renamed: the ledger names its lots', OLD.id USING ERRCODE = 'foreign_key_violation';
END
$$;

CREATE TRIGGER credit_lots_stay BEFORE DELETE OR UPDATE OF id ON credit_lots
  FOR EACH ROW EXECUTE FUNCTION pronet_lots_stay();
