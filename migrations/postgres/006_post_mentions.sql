-- The post search mentionsCompanies filter's own index: a search with this filter walks the posts
-- that mention the companies (`mentions && $1`, newest first) and checks the query on each, rather
-- than reading a common word's newest matches for the few that mention one.
CREATE INDEX posts_mentions ON posts USING gin (mentions);
