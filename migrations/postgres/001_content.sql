-- Content model (ports/content-store.ts) on PostgreSQL: the same tables as migrations/sqlite/001, 005
-- and 006 together. Documents are ready-to-send JSON text, never parsed on reads. Activity, comment and
-- article ids are 19-digit decimals below 2^63 whose top bits are their creation time, stored as bigint
-- so newest-first is an index order.
--
-- Keys and slugs are COLLATE "C": they are only ever matched for equality or ordered as ids, so byte
-- comparison is both what is meant and faster than the database's locale.
--
-- No FOREIGN KEY clauses, as in SQLite: the adapter checks every link before writing (to report a
-- readable reason, and because author/actor links point at a profile OR a company, which SQL cannot
-- declare); declared keys would repeat each lookup on the bulk-insert path.

CREATE TABLE profiles (
  profile_id  text COLLATE "C" PRIMARY KEY,
  member_id   text COLLATE "C" NOT NULL,
  slug        text COLLATE "C" NOT NULL,   -- publicIdentifier, lower-cased by the adapter
  name        text NOT NULL,
  headline    text NOT NULL,
  picture_url text,
  url         text NOT NULL,
  doc         text NOT NULL,
  job_title   text                         -- current title, for search's authorJobTitle
);
CREATE UNIQUE INDEX profiles_slug ON profiles (slug);
CREATE UNIQUE INDEX profiles_member_id ON profiles (member_id);

CREATE TABLE companies (
  company_id text COLLATE "C" PRIMARY KEY,
  slug       text COLLATE "C",             -- lower-cased; null for a page without one
  page_type  text NOT NULL CHECK (page_type IN ('company', 'school', 'showcase')),
  name       text NOT NULL,
  headline   text NOT NULL,
  logo_url   text,
  url        text NOT NULL,
  doc        text NOT NULL
);
CREATE UNIQUE INDEX companies_slug ON companies (slug) WHERE slug IS NOT NULL;

-- posts holds what feeds, link checks and search read; the large documents live in post_docs, so an
-- index probe or a search recheck reads densely packed pages.
--
-- search is the post's own text as a tsvector built by the adapter from the FTS5 tokenizer model
-- (src/domain/search/query-tokens.ts), with positions, so matches agree with the SQLite index: '#'
-- stays in hashtags and nothing is stemmed. search_len is the text's token count (BM25's document
-- length). Both are NULL for a repost without commentary, which is never a search result.
CREATE TABLE posts (
  id            bigint PRIMARY KEY,        -- activity id
  share_kind    text NOT NULL CHECK (share_kind IN ('share', 'ugcPost')),
  share_id      text COLLATE "C" NOT NULL, -- only matched for equality, so kept as text
  author_kind   text NOT NULL CHECK (author_kind IN ('person', 'company')),
  author_id     text COLLATE "C" NOT NULL, -- profileId or companyId
  is_repost     boolean NOT NULL,
  meta          text NOT NULL,             -- facts for filters and search (small JSON)
  content_kinds integer NOT NULL,          -- bit mask of CONTENT_KIND (image 1, video 2, liveVideo 4, jobPost 8, document 16)
  mentions      text[] NOT NULL,           -- company ids the post mentions
  search        tsvector,
  search_len    integer,
  CHECK ((search IS NULL) = is_repost AND (search_len IS NULL) = is_repost)
);
CREATE UNIQUE INDEX posts_share ON posts (share_kind, share_id);
-- is_repost rides along so a feed page and authorPosts read the index and post_docs only.
CREATE INDEX posts_author ON posts (author_kind, author_id, id DESC) INCLUDE (is_repost);
CREATE INDEX posts_search ON posts USING gin (search);

CREATE TABLE post_docs (
  id          bigint PRIMARY KEY,          -- = posts.id, written in the same statement
  doc         text NOT NULL,
  doc_trimmed text NOT NULL,
  doc_older   text NOT NULL,
  doc_search  text NOT NULL,               -- the search result item
  text        text NOT NULL                -- author's own text, as received
);

CREATE TABLE articles (
  article_id        bigint PRIMARY KEY,
  author_profile_id text COLLATE "C" NOT NULL,
  doc               text NOT NULL
);
CREATE INDEX articles_author ON articles (author_profile_id, article_id DESC);

CREATE TABLE comments (
  comment_id     bigint PRIMARY KEY,
  post_id        bigint NOT NULL,
  parent_id      bigint,
  author_kind    text NOT NULL CHECK (author_kind IN ('person', 'company')),
  author_id      text COLLATE "C" NOT NULL,
  text           text NOT NULL,
  created_at     text NOT NULL,            -- returned exactly as received
  created_ms     bigint NOT NULL,          -- orders comments: ISO strings with offsets or fractions do not sort as text
  reaction_count integer NOT NULL,
  pinned         boolean NOT NULL,
  permalink      text NOT NULL
);
CREATE INDEX comments_top ON comments (post_id, pinned DESC, reaction_count DESC, created_ms DESC, comment_id DESC)
  WHERE parent_id IS NULL;
CREATE INDEX comments_replies ON comments (parent_id, created_ms, comment_id) WHERE parent_id IS NOT NULL;

-- seq orders a post's reactions as they were recorded; an upsert keeps it. It comes from one sequence
-- rather than max(seq) + 1 per post, so two nodes recording reactions to one post at once never
-- collide (SQLite has a single writer and numbers per post).
CREATE SEQUENCE post_reactions_seq AS bigint;
CREATE TABLE post_reactions (
  post_id       bigint NOT NULL,
  seq           bigint NOT NULL DEFAULT nextval('post_reactions_seq'),
  actor_kind    text NOT NULL CHECK (actor_kind IN ('person', 'company')),
  actor_id      text COLLATE "C" NOT NULL,
  reaction_type text NOT NULL,
  PRIMARY KEY (post_id, seq)
);
ALTER SEQUENCE post_reactions_seq OWNED BY post_reactions.seq;
CREATE UNIQUE INDEX post_reactions_actor ON post_reactions (post_id, actor_kind, actor_id);

CREATE TABLE profile_reactions (
  profile_id    text COLLATE "C" NOT NULL,
  post_id       bigint NOT NULL,
  reaction_type text NOT NULL,
  reacted_at    bigint NOT NULL,           -- Unix ms
  PRIMARY KEY (profile_id, post_id)
);
-- Ascending, walked backwards: the page condition (reacted_at, post_id) < (…) is a row comparison,
-- which a btree serves as one range when the columns share a direction. reaction_type rides along.
CREATE INDEX profile_reactions_feed ON profile_reactions (profile_id, reacted_at, post_id) INCLUDE (reaction_type);

-- One row bumped by every transaction that writes content rows, so a node holding response caches
-- notices another node's (or an ingest's) commit. The same row carries the search index's totals for
-- BM25 (indexed posts and their tokens): every content write transaction locks this row anyway, so
-- keeping the totals here costs no second lock.
CREATE TABLE content_epoch (
  id            integer PRIMARY KEY CHECK (id = 1),
  n             bigint NOT NULL,
  search_docs   bigint NOT NULL,
  search_tokens bigint NOT NULL
);
INSERT INTO content_epoch (id, n, search_docs, search_tokens) VALUES (1, 0, 0, 0);
