-- The post search authorJobTitle filter's own index: members' current job titles, in FTS5. A title
-- is held by few members next to the matches of a common word, so a search with this filter walks
-- the holders' posts and checks the query on each, rather than reading the word's newest matches for
-- the few whose author holds it: that way a date walk would give short, billed pages, and relevance
-- would see only a few of the holders' posts.
--
-- profile_titles gives each title a stable integer key (profiles' own rowid may change at a VACUUM,
-- and a backup is one), kept in step with profiles by triggers, whatever writes them.
CREATE TABLE profile_titles (
  k          INTEGER PRIMARY KEY,
  profile_id TEXT NOT NULL UNIQUE,
  job_title  TEXT NOT NULL
);
INSERT INTO profile_titles (profile_id, job_title) SELECT profile_id, job_title FROM profiles WHERE job_title IS NOT NULL;

CREATE TRIGGER profiles_title_insert AFTER INSERT ON profiles WHEN new.job_title IS NOT NULL BEGIN
  INSERT INTO profile_titles (profile_id, job_title) VALUES (new.profile_id, new.job_title);
END;
-- An upsert that leaves the title as it was (most re-ingested profiles) changes nothing here.
CREATE TRIGGER profiles_title_update AFTER UPDATE OF job_title, profile_id ON profiles
  WHEN old.job_title IS NOT new.job_title OR old.profile_id IS NOT new.profile_id BEGIN
  DELETE FROM profile_titles WHERE profile_id = old.profile_id;
  INSERT INTO profile_titles (profile_id, job_title) SELECT new.profile_id, new.job_title WHERE new.job_title IS NOT NULL;
END;
CREATE TRIGGER profiles_title_delete AFTER DELETE ON profiles BEGIN
  DELETE FROM profile_titles WHERE profile_id = old.profile_id;
END;

-- External content: the text stays in profile_titles. Made here with the base tokenizer; the database
-- adapter makes it again with the post index's (database.ts), as it does post_search.
CREATE VIRTUAL TABLE profile_title_search USING fts5(job_title, content = 'profile_titles', content_rowid = 'k',
  tokenize = "unicode61 remove_diacritics 2 tokenchars '#'");
CREATE TRIGGER profile_titles_insert AFTER INSERT ON profile_titles BEGIN
  INSERT INTO profile_title_search (rowid, job_title) VALUES (new.k, new.job_title);
END;
CREATE TRIGGER profile_titles_delete AFTER DELETE ON profile_titles BEGIN
  INSERT INTO profile_title_search (profile_title_search, rowid, job_title) VALUES ('delete', old.k, old.job_title);
END;
