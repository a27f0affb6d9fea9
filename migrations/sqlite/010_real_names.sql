-- The real service's words and shapes: companyLinkedinUrl, the linkedinVideo post type, the
-- linkedinArticle URN kind, undated entries without a timePeriod, the open-ended top company size
-- class and the newer profile sections. The stored documents are rewritten by the code that ingest
-- uses for records in an earlier release's shape (src/adapters/sqlite/document-upgrade.ts), run in
-- this migration's transaction right after this file.
SELECT 1;
