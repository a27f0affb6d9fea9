/**
 * The bulk path of a content batch on PostgreSQL, its database half: one read of what the batch's
 * keys hold, the judging (pg-bulk-plan.ts), then one multi-row statement per table and slice. A batch
 * of thousands of rows costs a dozen round trips instead of several per row.
 *
 * The read takes the row path's locks: the profiles and pages the batch writes, for update (their card
 * is compared with the one they had); the authors of its posts, for share (a post shows its author's
 * card); the posts it writes, for update (the search totals move by exactly what each replaces). Each
 * set is locked in key order, so two batches meet in one order. A row whose key another transaction
 * took between the read and the writes (a slug, a share, a new post's id) fails its statement; the
 * caller then judges the batch once more, against that commit, and past that on the row path.
 */
import type pg from 'pg'
import type { AuthorRef, ContentRow, PostCard, WriteOutcome } from '../../ports/content-store.ts'
import { INT64_MAX } from '../../domain/content/ids.ts'
import { wellFormed } from '../../domain/code-points.ts'
import { docsWithCard, type PostDocs } from '../../domain/content/post-card.ts'
import {
  batchKeys,
  indexPosts,
  planBatch,
  type BatchKeys,
  type BatchPlan,
  type PlannedPost,
  type StoredComment,
  type StoredCompany,
  type StoredPost,
  type StoredProfile,
  type StoredState,
  type Totals,
} from './pg-bulk-plan.ts'

type Client = pg.ClientBase

/** A new post of the batch that another transaction stored first: the batch is judged again. */
export class BulkRaced extends Error {}

/**
 * Rows one statement writes at most, and the characters of text it carries at most: bounds what one
 * statement holds in memory on both sides (a post's documents are kilobytes, and may be far more).
 */
export const BULK_SLICE = 1_000
export const SLICE_CHARS = 8_000_000

/** `items` cut into slices of at most BULK_SLICE items and, past its first item, SLICE_CHARS characters (`chars`). */
export function slices<T>(items: readonly T[], chars: (item: T) => number = () => 0): T[][] {
  const out: T[][] = []
  let current: T[] = []
  let size = 0
  for (const item of items) {
    const n = chars(item)
    if (current.length > 0 && (current.length >= BULK_SLICE || size + n > SLICE_CHARS)) {
      out.push(current)
      current = []
      size = 0
    }
    current.push(item)
    size += n
  }
  if (current.length > 0) out.push(current)
  return out
}

// ---------- reads ----------

/** The rows of `select` as one JSON array (ids cast to text there: a JSON number cannot hold a 19-digit id). */
const rowsJson = (select: string): string => `(SELECT coalesce(json_agg(x), '[]') FROM (${select}) x)`
const idsJson = (select: string): string => `(SELECT coalesce(json_agg(id), '[]') FROM (${select}) x)`

const PROFILE_COLUMNS = `profile_id AS id, slug, member_id AS "memberId",
  json_build_object('name', name, 'headline', headline, 'url', url, 'imageUrl', picture_url) AS card`
const COMPANY_COLUMNS = `company_id AS id, slug,
  json_build_object('name', name, 'headline', headline, 'url', url, 'imageUrl', logo_url) AS card`

/**
 * Everything the batch's keys hold, in one round trip (BatchKeys names the parameters). The locked
 * reads come first, in a fixed order of tables, each in key order; the others read the statement's
 * snapshot.
 */
const READ_STATE = `SELECT
  ${rowsJson(`SELECT ${PROFILE_COLUMNS} FROM profiles WHERE profile_id = ANY($1::text[]) ORDER BY profile_id FOR UPDATE`)} AS "writtenProfiles",
  ${rowsJson(`SELECT ${PROFILE_COLUMNS} FROM profiles WHERE profile_id = ANY($2::text[]) ORDER BY profile_id FOR SHARE`)} AS "authorProfiles",
  ${rowsJson(`SELECT ${COMPANY_COLUMNS} FROM companies WHERE company_id = ANY($3::text[]) ORDER BY company_id FOR UPDATE`)} AS "writtenCompanies",
  ${rowsJson(`SELECT ${COMPANY_COLUMNS} FROM companies WHERE company_id = ANY($4::text[]) ORDER BY company_id FOR SHARE`)} AS "authorCompanies",
  ${rowsJson(`SELECT id::text AS id, share_kind AS "shareKind", share_id AS "shareId", search_len AS "searchLen"
    FROM posts WHERE id = ANY($5::bigint[]) ORDER BY id FOR UPDATE`)} AS posts,
  ${rowsJson(`SELECT ${PROFILE_COLUMNS} FROM profiles WHERE slug = ANY($6::text[]) OR member_id = ANY($7::text[])`)} AS "profileOwners",
  ${idsJson('SELECT profile_id AS id FROM profiles WHERE profile_id = ANY($8::text[])')} AS "linkedProfiles",
  ${rowsJson(`SELECT ${COMPANY_COLUMNS} FROM companies WHERE slug = ANY($9::text[])`)} AS "companyOwners",
  ${idsJson('SELECT company_id AS id FROM companies WHERE company_id = ANY($10::text[])')} AS "linkedCompanies",
  ${rowsJson(`SELECT p.id::text AS id, p.share_kind AS "shareKind", p.share_id AS "shareId"
    FROM posts p JOIN unnest($11::text[], $12::text[]) AS s(kind, id) ON p.share_kind = s.kind AND p.share_id = s.id`)} AS "shareOwners",
  ${idsJson('SELECT id::text AS id FROM posts WHERE id = ANY($13::bigint[])')} AS "linkedPosts",
  ${rowsJson(`SELECT comment_id::text AS id, post_id::text AS "postId", parent_id::text AS "parentId"
    FROM comments WHERE comment_id = ANY($14::bigint[])`)} AS comments,
  ${rowsJson('SELECT parent_id::text AS id, count(*)::int AS n FROM comments WHERE parent_id = ANY($15::bigint[]) GROUP BY parent_id')} AS "replyCounts"`

interface ReadState {
  writtenProfiles: StoredProfile[]
  authorProfiles: StoredProfile[]
  writtenCompanies: StoredCompany[]
  authorCompanies: StoredCompany[]
  posts: StoredPost[]
  profileOwners: StoredProfile[]
  linkedProfiles: string[]
  companyOwners: StoredCompany[]
  linkedCompanies: string[]
  shareOwners: Omit<StoredPost, 'searchLen'>[]
  linkedPosts: string[]
  comments: StoredComment[]
  replyCounts: { id: string; n: number }[]
}

/** Sends the read of what the batch's keys hold; the first read of a key wins (the locked ones come first). */
async function readState(c: Client, k: BatchKeys): Promise<StoredState> {
  const { rows } = await c.query<ReadState>(READ_STATE, [
    k.writtenProfiles,
    k.authorProfiles,
    k.writtenCompanies,
    k.authorCompanies,
    k.writtenPosts,
    k.profileSlugs,
    k.memberIds,
    k.linkedProfiles,
    k.companySlugs,
    k.linkedCompanies,
    k.shareKinds,
    k.shareIds,
    k.linkedPosts,
    k.comments,
    k.writtenComments,
  ])
  const r = rows[0]!
  const first = <T extends { id: string }>(...lists: T[][]): T[] => {
    const byId = new Map<string, T>()
    for (const x of lists.flat()) if (!byId.has(x.id)) byId.set(x.id, x)
    return [...byId.values()]
  }
  return {
    profiles: first(r.writtenProfiles, r.authorProfiles, r.profileOwners),
    linkedProfiles: r.linkedProfiles,
    companies: first(r.writtenCompanies, r.authorCompanies, r.companyOwners),
    linkedCompanies: r.linkedCompanies,
    posts: r.posts,
    shareOwners: r.shareOwners,
    linkedPosts: r.linkedPosts,
    comments: r.comments,
    replyCounts: new Map(r.replyCounts.map((x) => [x.id, x.n])),
  }
}

// ---------- writes ----------

/**
 * Each column of a slice travels as one JSON array, read back row by row with its place (`n`): a
 * JSON array is built and parsed several times faster than a text[] literal of the same strings.
 * Strings are made well-formed first, as the driver makes every string it sends (a lone surrogate is
 * U+FFFD either way), since PostgreSQL refuses a lone surrogate's JSON escape; a NUL, which no text
 * column can hold, fails its statement as it would as text[].
 */
const jsonRows = (columns: readonly string[]): string =>
  `ROWS FROM (${columns.map((_, i) => `json_array_elements_text($${i + 1}::json)`).join(', ')}) WITH ORDINALITY AS u(${columns.join(', ')}, n)`

const jsonColumn = (values: readonly unknown[]): string => JSON.stringify(values.map((v) => (typeof v === 'string' ? wellFormed(v) : v)))

const UPSERT_PROFILES = `INSERT INTO profiles (profile_id, member_id, slug, name, headline, picture_url, url, doc, job_title, title_vector)
  SELECT id, member_id, slug, name, headline, picture_url, url, doc, job_title, title_vector::tsvector
  FROM ${jsonRows(['id', 'member_id', 'slug', 'name', 'headline', 'picture_url', 'url', 'doc', 'job_title', 'title_vector'])}
  ORDER BY n
  ON CONFLICT (profile_id) DO UPDATE SET member_id = excluded.member_id, slug = excluded.slug,
    name = excluded.name, headline = excluded.headline, picture_url = excluded.picture_url,
    url = excluded.url, doc = excluded.doc, job_title = excluded.job_title, title_vector = excluded.title_vector`
const UPSERT_COMPANIES = `INSERT INTO companies (company_id, slug, page_type, name, headline, logo_url, url, doc)
  SELECT id, slug, page_type, name, headline, logo_url, url, doc
  FROM ${jsonRows(['id', 'slug', 'page_type', 'name', 'headline', 'logo_url', 'url', 'doc'])}
  ORDER BY n
  ON CONFLICT (company_id) DO UPDATE SET slug = excluded.slug, page_type = excluded.page_type,
    name = excluded.name, headline = excluded.headline, logo_url = excluded.logo_url,
    url = excluded.url, doc = excluded.doc`
// A post stored before the batch was read under its lock and may be replaced ($17); one another
// transaction stored since is left alone, and the count returned tells the caller so.
const UPSERT_POSTS = `WITH u AS (
    SELECT * FROM ${jsonRows([
      'id', 'share_kind', 'share_id', 'author_kind', 'author_id', 'is_repost', 'meta', 'content_kinds', 'mentions', 'search',
      'search_len', 'doc', 'doc_trimmed', 'doc_older', 'doc_search', 'text',
    ])}),
  p AS (
    INSERT INTO posts (id, share_kind, share_id, author_kind, author_id, is_repost, meta, content_kinds, mentions, search, search_len)
    SELECT id::bigint, share_kind, share_id, author_kind, author_id, is_repost::boolean, meta, content_kinds::integer,
      ARRAY(SELECT m FROM json_array_elements_text(mentions::json) WITH ORDINALITY AS e(m, i) ORDER BY i),
      search::tsvector, search_len::integer
    FROM u ORDER BY n
    ON CONFLICT (id) DO UPDATE SET share_kind = excluded.share_kind, share_id = excluded.share_id,
      author_kind = excluded.author_kind, author_id = excluded.author_id, is_repost = excluded.is_repost,
      meta = excluded.meta, content_kinds = excluded.content_kinds, mentions = excluded.mentions,
      search = excluded.search, search_len = excluded.search_len
    WHERE posts.id = ANY($17::bigint[])
    RETURNING id),
  d AS (
    INSERT INTO post_docs (id, doc, doc_trimmed, doc_older, doc_search, text)
    SELECT id::bigint, doc, doc_trimmed, doc_older, doc_search, text FROM u WHERE id::bigint IN (SELECT id FROM p) ORDER BY n
    ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, doc_trimmed = excluded.doc_trimmed,
      doc_older = excluded.doc_older, doc_search = excluded.doc_search, text = excluded.text)
  SELECT count(*)::int AS written FROM p`
const UPSERT_ARTICLES = `INSERT INTO articles (article_id, author_profile_id, doc)
  SELECT id::bigint, author, doc FROM ${jsonRows(['id', 'author', 'doc'])} ORDER BY n
  ON CONFLICT (article_id) DO UPDATE SET author_profile_id = excluded.author_profile_id, doc = excluded.doc`
const UPSERT_COMMENTS = `INSERT INTO comments (comment_id, post_id, parent_id, author_kind, author_id, text, created_at, created_ms,
    reaction_count, pinned, permalink)
  SELECT id::bigint, post_id::bigint, parent_id::bigint, author_kind, author_id, text, created_at, created_ms::bigint,
    reaction_count::integer, pinned::boolean, permalink
  FROM ${jsonRows(['id', 'post_id', 'parent_id', 'author_kind', 'author_id', 'text', 'created_at', 'created_ms', 'reaction_count', 'pinned', 'permalink'])}
  ORDER BY n
  ON CONFLICT (comment_id) DO UPDATE SET parent_id = excluded.parent_id, author_kind = excluded.author_kind,
    author_id = excluded.author_id, text = excluded.text, created_at = excluded.created_at,
    created_ms = excluded.created_ms, reaction_count = excluded.reaction_count, pinned = excluded.pinned,
    permalink = excluded.permalink`
// In the order of each reaction's first write: a new reaction's seq follows it.
const UPSERT_POST_REACTIONS = `INSERT INTO post_reactions (post_id, actor_kind, actor_id, reaction_type)
  SELECT post_id::bigint, kind, actor_id, type FROM ${jsonRows(['post_id', 'kind', 'actor_id', 'type'])} ORDER BY n
  ON CONFLICT (post_id, actor_kind, actor_id) DO UPDATE SET reaction_type = excluded.reaction_type`
const UPSERT_PROFILE_REACTIONS = `INSERT INTO profile_reactions (profile_id, post_id, reaction_type, reacted_at)
  SELECT profile_id, post_id::bigint, type, reacted_at::bigint FROM ${jsonRows(['profile_id', 'post_id', 'type', 'reacted_at'])} ORDER BY n
  ON CONFLICT (profile_id, post_id) DO UPDATE SET reaction_type = excluded.reaction_type, reacted_at = excluded.reacted_at`

/** Posts whose card one read takes when an author's record changes it. */
const RESTAMP_SLICE = 500
const AUTHOR_POST_DOCS = `SELECT d.id::text AS id, d.doc, d.doc_trimmed AS "docTrimmed", d.doc_older AS "docOlder", d.doc_search AS "docSearch"
  FROM posts p JOIN post_docs d ON d.id = p.id
  WHERE p.author_kind = $1 AND p.author_id = $2 AND p.id <= $3::bigint ORDER BY p.id DESC LIMIT $4`
const UPDATE_POST_DOCS = `UPDATE post_docs d SET doc = u.doc, doc_trimmed = u.doc_trimmed, doc_older = u.doc_older, doc_search = u.doc_search
  FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[]) AS u(id, doc, doc_trimmed, doc_older, doc_search)
  WHERE d.id = u.id`

/** Puts `card` into every stored post of `author` (its record changed what the card shows). */
export async function restampPosts(c: Client, author: AuthorRef, card: PostCard): Promise<void> {
  let upTo = INT64_MAX
  for (;;) {
    const { rows } = await c.query<PostDocs & { id: string }>(AUTHOR_POST_DOCS, [author.kind, author.id, upTo, RESTAMP_SLICE])
    if (rows.length > 0) {
      const docs = rows.map((r) => docsWithCard(r, card))
      await c.query(UPDATE_POST_DOCS, [
        rows.map((r) => r.id),
        docs.map((d) => d.doc),
        docs.map((d) => d.docTrimmed),
        docs.map((d) => d.docOlder),
        docs.map((d) => d.docSearch),
      ])
    }
    if (rows.length < RESTAMP_SLICE) return
    upTo = (BigInt(rows.at(-1)!.id) - 1n).toString()
  }
}

/** One statement of the writes: its parameters are made just before it is sent. */
interface Statement {
  sql: string
  params: () => unknown[]
  /** Checks what the statement returned. */
  check?: (rows: unknown[]) => void
}

/** A statement per slice of `items`, its parameters the columns `columns` makes of the slice, as JSON. */
function sliced<T>(sql: string, items: readonly T[], columns: (slice: readonly T[]) => unknown[][], chars?: (item: T) => number): Statement[] {
  return slices(items, chars).map((slice) => ({ sql, params: () => columns(slice).map(jsonColumn) }))
}

/**
 * Runs the statements in order, making each one's parameters while the one before runs on the
 * server, so the node's encoding overlaps the server's work instead of adding to it.
 */
async function runInTurn(c: Client, statements: readonly Statement[]): Promise<void> {
  let running: { result: Promise<pg.QueryResult>; check: Statement['check'] } | undefined
  const finish = async (): Promise<void> => {
    if (running === undefined) return
    const { rows } = await running.result
    running.check?.(rows)
  }
  for (const st of statements) {
    const params = st.params()
    await finish()
    const result = c.query(st.sql, params)
    // Awaited by finish(); a failure while the next parameters are made must not count as unhandled.
    result.catch(() => {})
    running = { result, check: st.check }
  }
  await finish()
}

/** The post statements: each slice's columns as JSON, then the ids of its posts stored before the batch. */
function postStatements(posts: readonly PlannedPost[]): Statement[] {
  const size = (p: PlannedPost): number =>
    p.row.text.length + p.docs.doc.length + p.docs.docTrimmed.length + p.docs.docOlder.length + p.docs.docSearch.length + (p.indexed?.vector.length ?? 0)
  return slices(posts, size).map((s) => ({
    sql: UPSERT_POSTS,
    params: () => [
      ...[
        s.map((p) => p.row.id),
        s.map((p) => p.row.shareKind),
        s.map((p) => p.row.shareId),
        s.map((p) => p.row.author.kind),
        s.map((p) => p.row.author.id),
        s.map((p) => p.row.isRepost),
        s.map((p) => p.row.meta),
        s.map((p) => p.row.contentKinds),
        s.map((p) => jsonColumn(p.row.mentions)),
        s.map((p) => p.indexed?.vector ?? null),
        s.map((p) => p.indexed?.length ?? null),
        s.map((p) => p.docs.doc),
        s.map((p) => p.docs.docTrimmed),
        s.map((p) => p.docs.docOlder),
        s.map((p) => p.docs.docSearch),
        // A NUL separates tokens like a space does; PostgreSQL text cannot hold it.
        s.map((p) => p.row.text.replaceAll('\u0000', ' ')),
      ].map(jsonColumn),
      s.filter((p) => p.existed).map((p) => p.row.id),
    ],
    check: (rows) => {
      if ((rows[0] as { written: number }).written !== s.length) throw new BulkRaced('a post of the batch was stored by another transaction meanwhile')
    },
  }))
}

function statementsOf(plan: BatchPlan): Statement[] {
  return [
    ...sliced(UPSERT_PROFILES, plan.profiles, (s) => [
      s.map((p) => p.row.profileId),
      s.map((p) => p.row.memberId),
      s.map((p) => p.slug),
      s.map((p) => p.row.name),
      s.map((p) => p.row.headline),
      s.map((p) => p.row.pictureUrl),
      s.map((p) => p.row.url),
      s.map((p) => p.row.doc),
      s.map((p) => p.row.jobTitle),
      s.map((p) => p.titleVector),
    ], (p) => p.row.doc.length),
    ...sliced(UPSERT_COMPANIES, plan.companies, (s) => [
      s.map((p) => p.row.companyId),
      s.map((p) => p.slug),
      s.map((p) => p.row.pageType),
      s.map((p) => p.row.name),
      s.map((p) => p.row.headline),
      s.map((p) => p.row.logoUrl),
      s.map((p) => p.row.url),
      s.map((p) => p.row.doc),
    ], (p) => p.row.doc.length),
    ...postStatements(plan.posts),
    ...sliced(UPSERT_ARTICLES, plan.articles, (s) => [s.map((a) => a.articleId), s.map((a) => a.authorProfileId), s.map((a) => a.doc)], (a) => a.doc.length),
    ...sliced(UPSERT_COMMENTS, plan.comments, (s) => [
      s.map((x) => x.row.commentId),
      s.map((x) => x.row.postId),
      s.map((x) => x.row.parentId),
      s.map((x) => x.row.author.kind),
      s.map((x) => x.row.author.id),
      s.map((x) => x.row.text),
      s.map((x) => x.row.createdAt),
      s.map((x) => x.createdMs),
      s.map((x) => x.row.reactionCount),
      s.map((x) => x.row.pinned),
      s.map((x) => x.row.permalink),
    ], (x) => x.row.text.length),
    ...sliced(UPSERT_POST_REACTIONS, plan.postReactions, (s) => [
      s.map((r) => r.postId),
      s.map((r) => r.actor.kind),
      s.map((r) => r.actor.id),
      s.map((r) => r.reactionType),
    ]),
    ...sliced(UPSERT_PROFILE_REACTIONS, plan.profileReactions, (s) => [
      s.map((r) => r.profileId),
      s.map((r) => r.postId),
      s.map((r) => r.reactionType),
      s.map((r) => r.reactedAt),
    ]),
  ]
}

/**
 * Judges and writes `rows` inside the caller's transaction. Throws a statement's error when a row
 * fails one (a value PostgreSQL cannot store, a key another transaction took), or BulkRaced: the
 * caller rolls back and runs the batch on the row path.
 */
export async function writeBulk(c: Client, rows: readonly ContentRow[]): Promise<{ outcomes: WriteOutcome[]; totals: Totals }> {
  const reading = readState(c, batchKeys(rows))
  // Awaited below; the posts are indexed meanwhile, while the server reads.
  reading.catch(() => {})
  const indexed = indexPosts(rows)
  const plan = planBatch(rows, await reading, indexed)
  // Before the batch's posts are written: those carry the new card already.
  for (const { author, card } of plan.restamps) await restampPosts(c, author, card)
  await runInTurn(c, statementsOf(plan))
  return { outcomes: plan.outcomes, totals: plan.totals }
}
