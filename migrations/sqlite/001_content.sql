-- Content model (ports/content-store.ts). Documents are ready-to-send JSON text, never parsed on reads.
-- Activity, comment and article ids are decimals stored as 64-bit integers: the posts rowid is the
-- activity id, whose top bits are its creation time, so rowid order is time order, which feeds and
-- the full-text index walk backwards.
--
-- No FOREIGN KEY clauses: the adapter checks every link before writing (it must anyway, to report a
-- readable reason, and author/actor links point at a profile OR a company, which SQL cannot declare);
-- declared keys would repeat each lookup on the bulk-insert path.
--
-- Link checks read as little as possible: profiles and companies are checked through their primary-key
-- index alone, and posts keep their large documents in post_docs, so the check behind every reaction
-- or comment reads densely packed pages instead of about one page per post, which speeds bulk
-- inserts, the more so as the network outgrows the page cache.

CREATE TABLE profiles (
  profile_id  TEXT PRIMARY KEY,
  member_id   TEXT NOT NULL,
  slug        TEXT NOT NULL,          -- publicIdentifier, lower-cased
  name        TEXT NOT NULL,
  headline    TEXT NOT NULL,
  picture_url TEXT,
  url         TEXT NOT NULL,
  doc         TEXT NOT NULL
);
CREATE UNIQUE INDEX profiles_slug ON profiles (slug);
CREATE UNIQUE INDEX profiles_member_id ON profiles (member_id);

CREATE TABLE companies (
  company_id TEXT PRIMARY KEY,
  slug       TEXT,                    -- lower-cased; null for a page without one
  page_type  TEXT NOT NULL CHECK (page_type IN ('company', 'school', 'showcase')),
  name       TEXT NOT NULL,
  headline   TEXT NOT NULL,
  logo_url   TEXT,
  url        TEXT NOT NULL,
  doc        TEXT NOT NULL
);
CREATE UNIQUE INDEX companies_slug ON companies (slug) WHERE slug IS NOT NULL;

CREATE TABLE posts (
  id          INTEGER PRIMARY KEY,    -- activity id
  share_kind  TEXT NOT NULL CHECK (share_kind IN ('share', 'ugcPost')),
  share_id    TEXT NOT NULL,          -- only matched for equality, so kept as text
  author_kind TEXT NOT NULL CHECK (author_kind IN ('person', 'company')),
  author_id   TEXT NOT NULL,          -- profileId or companyId
  is_repost   INTEGER NOT NULL,
  meta        TEXT NOT NULL           -- facts for filters and search (small JSON)
);
CREATE UNIQUE INDEX posts_share ON posts (share_kind, share_id);
-- is_repost rides along so a feed page reads the index and post_docs only.
CREATE INDEX posts_author ON posts (author_kind, author_id, id DESC, is_repost);

CREATE TABLE post_docs (
  id          INTEGER PRIMARY KEY,    -- = posts.id, written in the same savepoint
  doc         TEXT NOT NULL,
  doc_trimmed TEXT NOT NULL,
  doc_older   TEXT NOT NULL,
  text        TEXT NOT NULL           -- author's own text, for the search index
);

CREATE TABLE articles (
  article_id        INTEGER PRIMARY KEY,
  author_profile_id TEXT NOT NULL,
  doc               TEXT NOT NULL
);
CREATE INDEX articles_author ON articles (author_profile_id, article_id DESC);

CREATE TABLE comments (
  comment_id     INTEGER PRIMARY KEY,
  post_id        INTEGER NOT NULL,
  parent_id      INTEGER,
  author_kind    TEXT NOT NULL CHECK (author_kind IN ('person', 'company')),
  author_id      TEXT NOT NULL,
  text           TEXT NOT NULL,
  created_at     TEXT NOT NULL,       -- returned exactly as received
  created_ms     INTEGER NOT NULL,    -- orders comments: ISO strings with offsets or fractions do not sort as text
  reaction_count INTEGER NOT NULL,
  pinned         INTEGER NOT NULL,
  permalink      TEXT NOT NULL
);
CREATE INDEX comments_top ON comments (post_id, pinned DESC, reaction_count DESC, created_ms DESC, comment_id DESC)
  WHERE parent_id IS NULL;
CREATE INDEX comments_replies ON comments (parent_id, created_ms, comment_id) WHERE parent_id IS NOT NULL;

-- seq numbers a post's reactions in the order they were recorded; an upsert keeps it. Keyed by
-- (post_id, seq) so a page of reactions is one range scan of the table itself.
CREATE TABLE post_reactions (
  post_id       INTEGER NOT NULL,
  seq           INTEGER NOT NULL,
  actor_kind    TEXT NOT NULL CHECK (actor_kind IN ('person', 'company')),
  actor_id      TEXT NOT NULL,
  reaction_type TEXT NOT NULL,
  PRIMARY KEY (post_id, seq)
) WITHOUT ROWID;
CREATE UNIQUE INDEX post_reactions_actor ON post_reactions (post_id, actor_kind, actor_id);

CREATE TABLE profile_reactions (
  profile_id    TEXT NOT NULL,
  post_id       INTEGER NOT NULL,
  reaction_type TEXT NOT NULL,
  reacted_at    INTEGER NOT NULL,     -- Unix ms
  PRIMARY KEY (profile_id, post_id)
) WITHOUT ROWID;
-- reaction_type rides along so a feed page reads this index and post_docs only.
CREATE INDEX profile_reactions_feed ON profile_reactions (profile_id, reacted_at DESC, post_id DESC, reaction_type);
