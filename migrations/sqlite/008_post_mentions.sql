-- The post search mentionsCompanies filter's own index: the searchable posts (reposts without
-- commentary excluded, as from post_search) that mention each company, newest first. A company is
-- mentioned in few posts next to the matches of a common word, so a search with this filter walks
-- these posts and checks the query on each, rather than reading the word's newest matches for the
-- few that mention it: that way a date walk would give short, billed pages, and relevance would see
-- only the mentions among the word's newest matches.
-- posts.mentions (",id,id,") stays: the filter's facts read it where the matches drive the search.
CREATE TABLE post_mentions (
  company_id  TEXT NOT NULL,
  post_id     INTEGER NOT NULL,
  PRIMARY KEY (company_id, post_id)
) WITHOUT ROWID;
-- A re-written post replaces its rows.
CREATE INDEX post_mentions_post ON post_mentions (post_id);
-- Mentioned ids are digits (the ingest schema), so ",1,2," reads as the JSON list ["1","2"].
INSERT OR IGNORE INTO post_mentions (company_id, post_id)
  SELECT j.value, p.id
  FROM posts p, json_each('["' || replace(substr(p.mentions, 2, length(p.mentions) - 2), ',', '","') || '"]') j
  WHERE p.mentions IS NOT NULL AND p.is_repost = 0;
