-- The post search authorJobTitle filter's own index: each member's current job title as a tsvector of
-- the search model's tokens (pg-search-text.ts), so a search with this filter finds the title's holders
-- and walks their posts, rather than reading a common word's newest matches for the few whose author
-- holds it. The writer fills it with the title; titles written before this migration are filled by
-- the node that applies it (database.ts: SQL cannot tokenize as the model does).
ALTER TABLE profiles ADD COLUMN title_vector tsvector;
CREATE INDEX profiles_title_vector ON profiles USING gin (title_vector);
-- The titles still to fill: empty once they are, so finding none costs nothing at a later start.
CREATE INDEX profiles_title_unfilled ON profiles (profile_id) WHERE job_title IS NOT NULL AND title_vector IS NULL;
-- A title changed by a node older than this migration (during a rolling upgrade) keeps the vector of
-- the title before: the vector is dropped, so the title counts as unfilled (read as text by the search
-- index, and filled at the next start). A writer that sets the vector changes it with the title, unless
-- both titles have the same tokens ("CEO" to "ceo"), whose vector is dropped and filled the same way.
CREATE FUNCTION profiles_title_vector_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.job_title IS DISTINCT FROM OLD.job_title AND NEW.title_vector IS NOT DISTINCT FROM OLD.title_vector THEN
    NEW.title_vector := NULL;
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER profiles_title_vector_stale BEFORE UPDATE ON profiles
  FOR EACH ROW EXECUTE FUNCTION profiles_title_vector_stale();
