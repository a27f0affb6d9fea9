-- Post search (POST /api/v1/search/posts).
--
-- post_search is a contentless FTS5 index of each post's own text (the text itself stays in
-- post_docs), keyed by the activity id: rowid order is time order, so newest-first is a walk of
-- the index backwards and never a sort. `tokenchars '#'` keeps #hiring apart from hiring.
-- contentless_delete lets a re-ingested post replace its entry. Reposts without commentary are never
-- returned, so they are not indexed.
CREATE VIRTUAL TABLE post_search USING fts5(
  text,
  content = '',
  contentless_delete = 1,
  tokenize = "unicode61 remove_diacritics 2 tokenchars '#'"
);
INSERT INTO post_search (rowid, text)
  SELECT d.id, d.text FROM post_docs d JOIN posts p ON p.id = d.id WHERE p.is_repost = 0;

-- The facts search filters read for each candidate, as plain columns: content kinds as a bit mask
-- (image 1, video 2, liveVideo 4, jobPost 8, document 16) and mentioned company ids as ",id,id,".
ALTER TABLE posts ADD COLUMN content_kinds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE posts ADD COLUMN mentions TEXT;
UPDATE posts SET
  content_kinds =
      (CASE (SELECT json_extract(d.doc, '$.postType') FROM post_docs d WHERE d.id = posts.id)
         WHEN 'image' THEN 1 WHEN 'platformVideo' THEN 2 WHEN 'linkedinVideo' THEN 2 WHEN 'document' THEN 16 ELSE 0 END)
    | (CASE WHEN json_extract(meta, '$.liveVideo') THEN 4 ELSE 0 END)
    | (CASE WHEN json_extract(meta, '$.jobPost') THEN 8 ELSE 0 END),
  mentions = (SELECT ',' || group_concat(value, ',') || ',' FROM json_each(meta, '$.mentionsCompanies'));

-- The search result item: the Post plus isEdited, reactionTypeCounts (upper-case keys) and the
-- video's width/height, ready to send like every other document.
ALTER TABLE post_docs ADD COLUMN doc_search TEXT;
UPDATE post_docs SET doc_search = (
  SELECT json_set(
    json_set(post_docs.doc,
      '$.isEdited', json(CASE WHEN json_extract(p.meta, '$.isEdited') THEN 'true' ELSE 'false' END),
      '$.reactionTypeCounts',
        json((SELECT coalesce(json_group_object(upper(key), value), '{}') FROM json_each(post_docs.doc, '$.reactionsByType')))),
    '$.video',
      CASE WHEN json_type(post_docs.doc, '$.video') = 'object'
        THEN json_set(json_extract(post_docs.doc, '$.video'),
          '$.width', json_extract(post_docs.doc, '$.video.progressiveStreams[0].width'),
          '$.height', json_extract(post_docs.doc, '$.video.progressiveStreams[0].height'))
        ELSE json('null') END)
  FROM posts p WHERE p.id = post_docs.id);

-- authorJobTitle is matched against the author's current title. A profile document is a template
-- whose duration labels sit between raw U+0001 marks (profile-doc.ts), which JSON forbids; the marks
-- only ever stand there (JSON.stringify escapes control characters in member text), so reading them
-- as quotes gives valid JSON. No title is NULL, as the writer stores it.
ALTER TABLE profiles ADD COLUMN job_title TEXT;
UPDATE profiles SET job_title = NULLIF(json_extract(replace(doc, char(1), '"'), '$.jobTitle'), '');
