/**
 * ContentStore on PostgreSQL (migrations/postgres/001_content.sql), for several nodes sharing one
 * database. It keeps the SQLite adapter's behaviour row for row: the same checks in the same order
 * with the same reasons, upserts by id, the same orderings. Activity, comment and article ids are
 * bigint columns bound as decimal strings and read back as strings (database.ts parses int8 so).
 * Long because it is one port's whole adapter, its SQL beside the code that runs it.
 *
 * A batch is one transaction (the cost of a write is per commit), written first on the bulk path
 * (pg-bulk-write.ts): the state of its keys read by one statement, every row judged in JS, one
 * statement per table. When one of those statements fails on a row (a value PostgreSQL cannot store, a
 * key another node's commit took and a second judging still meets), the batch is rolled back and run
 * on the row path below, each row checked and written by its own statements, which names the row
 * that fails.
 *
 * On the row path every row is checked before it writes anything, so a refused row needs no undo and
 * the batch runs without savepoints: released savepoints still give the transaction a subtransaction
 * id each, and past 64 of them every other session's snapshot checks fall back to pg_subtrans. Only
 * when a statement fails there too is the batch rolled back and run again with a SAVEPOINT around each
 * row, so that row alone fails.
 */
import type pg from 'pg'
import type {
  ArticleRow,
  AuthorRef,
  CommentRow,
  CommentView,
  CompanyRow,
  ContentCounts,
  ContentRow,
  ContentStore,
  PostCard,
  PostReactionRow,
  PostRow,
  ProfileReactionRow,
  ProfileRow,
  WriteOutcome,
} from '../../ports/content-store.ts'
import { endFailedTransaction, type PgPool } from './database.ts'
import { indexText } from './pg-search-text.ts'
import { BulkRaced, restampPosts, writeBulk } from './pg-bulk-write.ts'
import { replaceDoc, type Totals } from './pg-bulk-plan.ts'
import { commentKeyOf, toCard, toComment, type CardCols, type CommentCols } from '../content-rows.ts'
import { isStorableId } from '../../domain/content/ids.ts'
import { authorProblem, commentProblem, idProblem } from '../../domain/content/ingest-rules.ts'
import { docsWithCard, sameCard, type PostDocs } from '../../domain/content/post-card.ts'


/** How often version() reads the content epoch, i.e. how stale another node's commit may look. */
export const VERSION_CHECK_MS = 50

export interface PgContentStoreOptions {
  /** Interval of the content epoch check behind version() (default VERSION_CHECK_MS). */
  versionCheckMs?: number
}

/** A failing row: the reason goes back to the caller. Thrown only before the row writes anything. */
class RowRefused extends Error {}

const refuse = (reason: string): never => {
  throw new RowRefused(reason)
}

const requireId = (what: string, id: string): void => {
  const problem = idProblem(what, id)
  if (problem !== null) refuse(problem)
}

/** A statement failed in the batch run without savepoints: run the batch again, guarded. */
class NeedsSavepoints extends Error {}

const sqlState = (e: unknown): string | undefined => {
  const code: unknown = e instanceof Error ? (e as Error & { code?: unknown }).code : undefined
  return typeof code === 'string' ? code : undefined
}
/**
 * Errors that belong to one row: integrity constraints (23…), values PostgreSQL cannot store (22…)
 * and values past its limits (54…: a tsvector over 1 MB), so one bad line fails alone instead of
 * stopping a whole ingest with the good lines around it unwritten.
 */
const isRowError = (e: unknown): e is Error => /^(2[23]|54)/.test(sqlState(e) ?? '')
/**
 * A bulk statement met a key another transaction took after the batch's reads: judged once more on the
 * bulk path, the batch sees that commit (it may also be two rows of the batch itself, which the row
 * path then takes one by one).
 */
const bulkRaced = (e: unknown): boolean => e instanceof BulkRaced || sqlState(e) === '23505'
/**
 * A bulk statement failed on one of its rows, or on two rows PostgreSQL reads as one key (21000): the
 * batch runs on the row path instead, which names the row.
 */
const needsRowPath = (e: unknown): boolean => e instanceof BulkRaced || isRowError(e) || sqlState(e) === '21000'
/** Deadlock and serialization failures: the whole batch may simply run again. */
const isRetryable = (e: unknown): boolean => sqlState(e) === '40P01' || sqlState(e) === '40001'
const BATCH_ATTEMPTS = 3

/** Card columns of a person or company joined on (kind, id); `a` is the alias of the linking table. */
const cardColumns = (a: string, kindCol: string, idCol: string): string => `
  ${a}.${kindCol} AS "cardKind", ${a}.${idCol} AS "cardId",
  COALESCE(p.name, co.name, '') AS "cardName",
  COALESCE(p.headline, co.headline, '') AS "cardHeadline",
  CASE ${a}.${kindCol} WHEN 'person' THEN p.picture_url ELSE co.logo_url END AS "cardPictureUrl",
  COALESCE(p.url, co.url, '') AS "cardUrl",
  CASE ${a}.${kindCol} WHEN 'person' THEN p.slug ELSE co.slug END AS "cardSlug"`

const cardJoins = (a: string, kindCol: string, idCol: string): string => `
  LEFT JOIN profiles p ON ${a}.${kindCol} = 'person' AND p.profile_id = ${a}.${idCol}
  LEFT JOIN companies co ON ${a}.${kindCol} = 'company' AND co.company_id = ${a}.${idCol}`

/** Whether an author exists, by kind ($k) and id ($i); NULL for an unknown kind. */
const authorExists = (k: string, i: string): string => `CASE ${k}::text
  WHEN 'person' THEN EXISTS (SELECT 1 FROM profiles WHERE profile_id = ${i}::text)
  WHEN 'company' THEN EXISTS (SELECT 1 FROM companies WHERE company_id = ${i}::text) END`

/**
 * An author's card (post-card.ts) as JSON, by kind ($k) and id ($i): NULL when there is no such author.
 * A post reads it under a share lock: a change of the author's record, which puts its card into the
 * author's posts, either waits for the post's transaction or is what this read sees. A change of the
 * record reads it under the update lock, so two changes of one record take turns and each compares
 * its card with the one the other left.
 */
const authorCard = (k: string, i: string, lock: 'SHARE' | 'UPDATE'): string => `CASE ${k}::text
  WHEN 'person' THEN (SELECT json_build_object('name', name, 'headline', headline, 'url', url, 'imageUrl', picture_url)
    FROM profiles WHERE profile_id = ${i}::text FOR ${lock})
  WHEN 'company' THEN (SELECT json_build_object('name', name, 'headline', headline, 'url', url, 'imageUrl', logo_url)
    FROM companies WHERE company_id = ${i}::text FOR ${lock}) END`

interface PgCommentCols extends CommentCols {
  parentId: string | null
}

/**
 * Documents travel as text and leave as their UTF-8 bytes: bytea (convert_to) arrives hex-encoded,
 * twice the bytes, so text is faster for pages of mostly-ASCII JSON, and bytea gains only on text
 * that is mostly non-ASCII.
 */
const bytes = (doc: string): Buffer => Buffer.from(doc, 'utf8')

// ---------- statements ----------

const UPSERT_PROFILE = `INSERT INTO profiles (profile_id, member_id, slug, name, headline, picture_url, url, doc, job_title, title_vector)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::tsvector)
  ON CONFLICT (profile_id) DO UPDATE SET member_id = excluded.member_id, slug = excluded.slug,
    name = excluded.name, headline = excluded.headline, picture_url = excluded.picture_url,
    url = excluded.url, doc = excluded.doc, job_title = excluded.job_title, title_vector = excluded.title_vector`
const UPSERT_COMPANY = `INSERT INTO companies (company_id, slug, page_type, name, headline, logo_url, url, doc)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
  ON CONFLICT (company_id) DO UPDATE SET slug = excluded.slug, page_type = excluded.page_type,
    name = excluded.name, headline = excluded.headline, logo_url = excluded.logo_url,
    url = excluded.url, doc = excluded.doc`
// The post's current index state is read under a row lock, so the search totals move by exactly what
// this write replaces even when another node rewrites the same post at the same time.
const POST_STATE = `WITH old AS (SELECT search_len FROM posts WHERE id = $1 FOR UPDATE)
  SELECT (SELECT id FROM posts WHERE share_kind = $2 AND share_id = $3) AS "shareOwner",
         EXISTS (SELECT 1 FROM old) AS existed, (SELECT search_len FROM old) AS "oldLen",
         ${authorExists('$4', '$5')} AS "authorOk", ${authorCard('$4', '$5', 'SHARE')} AS "authorCard"`
// $16 says whether the row existed (and is locked): a post another node inserted since is left alone
// (nothing returned) and the write starts over from POST_STATE.
const WRITE_POST = `WITH p AS (
    INSERT INTO posts (id, share_kind, share_id, author_kind, author_id, is_repost, meta, content_kinds, mentions, search, search_len)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::tsvector, $11)
    ON CONFLICT (id) DO UPDATE SET share_kind = excluded.share_kind, share_id = excluded.share_id,
      author_kind = excluded.author_kind, author_id = excluded.author_id, is_repost = excluded.is_repost,
      meta = excluded.meta, content_kinds = excluded.content_kinds, mentions = excluded.mentions,
      search = excluded.search, search_len = excluded.search_len
    WHERE $16::boolean
    RETURNING 1),
  d AS (
    INSERT INTO post_docs (id, doc, doc_trimmed, doc_older, doc_search, text)
    SELECT $1::bigint, $12::text, $13::text, $14::text, $15::text, $17::text WHERE EXISTS (SELECT 1 FROM p)
    ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, doc_trimmed = excluded.doc_trimmed,
      doc_older = excluded.doc_older, doc_search = excluded.doc_search, text = excluded.text)
  SELECT EXISTS (SELECT 1 FROM p) AS written`
const UPSERT_ARTICLE = `INSERT INTO articles (article_id, author_profile_id, doc) VALUES ($1, $2, $3)
  ON CONFLICT (article_id) DO UPDATE SET author_profile_id = excluded.author_profile_id, doc = excluded.doc`
// A comment is checked and written by one statement (one round trip): the insert runs exactly when
// every check holds, the checks in SQL ($12 carries those the adapter makes itself: the date parses,
// the parent id is storable and not the comment's own). The adapter then judges the returned links in
// the SQLite adapter's order for the reason, and insists the statement agreed.
const WRITE_COMMENT = `WITH c AS (
    SELECT EXISTS (SELECT 1 FROM posts WHERE id = $2::bigint) AS "postOk",
      ${authorExists('$4', '$5')} AS "authorOk",
      (SELECT post_id FROM comments WHERE comment_id = $1::bigint) AS "existingPost",
      EXISTS (SELECT 1 FROM comments WHERE parent_id = $1::bigint) AS "hasReplies",
      (SELECT post_id FROM comments WHERE comment_id = $3::bigint) AS "parentPost",
      (SELECT parent_id IS NULL FROM comments WHERE comment_id = $3::bigint) AS "parentTop"),
  w AS (
    INSERT INTO comments (comment_id, post_id, parent_id, author_kind, author_id, text, created_at, created_ms,
      reaction_count, pinned, permalink)
    SELECT $1::bigint, $2::bigint, $3::bigint, $4::text, $5::text, $6::text, $7::text, $8::bigint, $9::integer, $10::boolean, $11::text
    FROM c
    WHERE $12::boolean AND "postOk" AND "authorOk" AND ("existingPost" IS NULL OR "existingPost" = $2::bigint)
      AND ($3::bigint IS NULL OR ("parentPost" = $2::bigint AND "parentTop" AND NOT ("existingPost" IS NOT NULL AND "hasReplies")))
    ON CONFLICT (comment_id) DO UPDATE SET parent_id = excluded.parent_id, author_kind = excluded.author_kind,
      author_id = excluded.author_id, text = excluded.text, created_at = excluded.created_at,
      created_ms = excluded.created_ms, reaction_count = excluded.reaction_count, pinned = excluded.pinned,
      permalink = excluded.permalink
    RETURNING 1)
  SELECT c.*, EXISTS (SELECT 1 FROM w) AS written FROM c`
// Reactions are most of a network's rows: check and write in one statement (one round trip). The
// insert runs exactly when both checks hold, which is when the adapter reports the row written.
const WRITE_POST_REACTION = `WITH c AS (
    SELECT EXISTS (SELECT 1 FROM posts WHERE id = $1::bigint) AS "postOk", ${authorExists('$2', '$3')} AS "authorOk"),
  w AS (
    INSERT INTO post_reactions (post_id, actor_kind, actor_id, reaction_type)
    SELECT $1::bigint, $2::text, $3::text, $4::text FROM c WHERE "postOk" AND "authorOk"
    ON CONFLICT (post_id, actor_kind, actor_id) DO UPDATE SET reaction_type = excluded.reaction_type
    RETURNING 1)
  SELECT "postOk", "authorOk", EXISTS (SELECT 1 FROM w) AS written FROM c`
const WRITE_PROFILE_REACTION = `WITH c AS (
    SELECT EXISTS (SELECT 1 FROM posts WHERE id = $2::bigint) AS "postOk",
           EXISTS (SELECT 1 FROM profiles WHERE profile_id = $1::text) AS "profileOk"),
  w AS (
    INSERT INTO profile_reactions (profile_id, post_id, reaction_type, reacted_at)
    SELECT $1::text, $2::bigint, $3::text, $4::bigint FROM c WHERE "postOk" AND "profileOk" AND $4::bigint IS NOT NULL
    ON CONFLICT (profile_id, post_id) DO UPDATE SET reaction_type = excluded.reaction_type, reacted_at = excluded.reacted_at
    RETURNING 1)
  SELECT "postOk", "profileOk", EXISTS (SELECT 1 FROM w) AS written FROM c`
// A run of consecutive reactions in a batch is checked and written by one statement: they depend on
// posts, profiles and companies (written earlier in the batch or before), never on one another. A
// reaction written twice in one run is one upsert: the first occurrence's place in the order (its seq,
// so the insert runs in input order) and the last occurrence's values, as writing them one by one would
// leave it.
const WRITE_POST_REACTIONS = `WITH i AS (
    SELECT * FROM unnest($1::int[], $2::bigint[], $3::text[], $4::text[], $5::text[]) AS i (n, post_id, kind, actor_id, type)),
  c AS (
    SELECT i.*, EXISTS (SELECT 1 FROM posts p WHERE p.id = i.post_id) AS post_ok, ${authorExists('i.kind', 'i.actor_id')} AS author_ok
    FROM i),
  w AS (
    INSERT INTO post_reactions (post_id, actor_kind, actor_id, reaction_type)
    SELECT post_id, kind, actor_id, (array_agg(type ORDER BY n DESC))[1] FROM c WHERE post_ok AND author_ok
    GROUP BY post_id, kind, actor_id ORDER BY min(n)
    ON CONFLICT (post_id, actor_kind, actor_id) DO UPDATE SET reaction_type = excluded.reaction_type)
  SELECT post_ok AS "postOk", author_ok AS "authorOk" FROM c ORDER BY n`
const WRITE_PROFILE_REACTIONS = `WITH i AS (
    SELECT * FROM unnest($1::int[], $2::text[], $3::bigint[], $4::text[], $5::bigint[]) AS i (n, profile_id, post_id, type, reacted_at)),
  c AS (
    SELECT i.*, EXISTS (SELECT 1 FROM posts p WHERE p.id = i.post_id) AS post_ok,
           EXISTS (SELECT 1 FROM profiles p WHERE p.profile_id = i.profile_id) AS profile_ok
    FROM i),
  w AS (
    INSERT INTO profile_reactions (profile_id, post_id, reaction_type, reacted_at)
    SELECT DISTINCT ON (profile_id, post_id) profile_id, post_id, type, reacted_at FROM c
    WHERE post_ok AND profile_ok AND reacted_at IS NOT NULL ORDER BY profile_id, post_id, n DESC
    ON CONFLICT (profile_id, post_id) DO UPDATE SET reaction_type = excluded.reaction_type, reacted_at = excluded.reacted_at)
  SELECT post_ok AS "postOk", profile_ok AS "profileOk" FROM c ORDER BY n`
/** Rows one run statement takes at most (its arrays are bound parameters). */
const RUN_MAX = 2_000
const BUMP_EPOCH = `UPDATE content_epoch SET n = n + 1, search_docs = search_docs + $1, search_tokens = search_tokens + $2
  WHERE id = 1 RETURNING n`

type Client = pg.PoolClient

export function createPgContentStore(pool: PgPool, opts: PgContentStoreOptions = {}): ContentStore {
  const checkMs = opts.versionCheckMs ?? VERSION_CHECK_MS

  // ---------- writes: each row checks first, then writes ----------

  const writeProfile = async (c: Client, r: ProfileRow): Promise<void> => {
    const slug = r.slug.toLowerCase()
    // The profile's row is locked first: its card is compared with the one it had, and posts written
    // meanwhile (which read the card under a share lock) wait.
    const { rows } = await c.query<{ slugOwner: string | null; memberOwner: string | null; before: PostCard | null }>(
      `SELECT (SELECT profile_id FROM profiles WHERE slug = $1) AS "slugOwner",
              (SELECT profile_id FROM profiles WHERE member_id = $2) AS "memberOwner",
              ${authorCard("'person'", '$3', 'UPDATE')} AS before`,
      [slug, r.memberId, r.profileId],
    )
    const { slugOwner, memberOwner, before } = rows[0]!
    if (slugOwner !== null && slugOwner !== r.profileId) refuse(`publicIdentifier '${slug}' is already used by profile ${slugOwner}`)
    if (memberOwner !== null && memberOwner !== r.profileId) refuse(`memberId '${r.memberId}' is already used by profile ${memberOwner}`)
    const titleVector = r.jobTitle === null ? null : indexText(r.jobTitle).vector
    await c.query(UPSERT_PROFILE, [r.profileId, r.memberId, slug, r.name, r.headline, r.pictureUrl, r.url, r.doc, r.jobTitle, titleVector])
    const card = { name: r.name, headline: r.headline, url: r.url, imageUrl: r.pictureUrl }
    if (before !== null && !sameCard(before, card)) await restampPosts(c, { kind: 'person', id: r.profileId }, card)
  }

  const writeCompany = async (c: Client, r: CompanyRow): Promise<void> => {
    const slug = r.slug === null ? null : r.slug.toLowerCase()
    // Locked first, as a profile is (writeProfile).
    const { rows } = await c.query<{ owner: string | null; before: PostCard | null }>(
      `SELECT (SELECT company_id FROM companies WHERE slug = $1) AS owner, ${authorCard("'company'", '$2', 'UPDATE')} AS before`,
      [slug, r.companyId],
    )
    const { owner, before } = rows[0]!
    if (slug !== null && owner !== null && owner !== r.companyId) refuse(`publicIdentifier '${slug}' is already used by company ${owner}`)
    await c.query(UPSERT_COMPANY, [r.companyId, slug, r.pageType, r.name, r.headline, r.logoUrl, r.url, r.doc])
    const card = { name: r.name, headline: r.headline, url: r.url, imageUrl: r.logoUrl }
    if (before !== null && !sameCard(before, card)) await restampPosts(c, { kind: 'company', id: r.companyId }, card)
  }

  const writePost = async (c: Client, r: PostRow, totals: Totals): Promise<void> => {
    requireId('post id', r.id)
    // A repost without commentary is never returned, so it is not indexed (as in SQLite).
    const indexed = r.isRepost ? null : indexText(r.text)
    for (let attempt = 0; attempt < 3; attempt++) {
      const { rows } = await c.query<{
        shareOwner: string | null
        existed: boolean
        oldLen: number | null
        authorOk: boolean | null
        authorCard: PostCard | null
      }>(POST_STATE, [
        r.id,
        r.shareKind,
        r.shareId,
        r.author.kind,
        r.author.id,
      ])
      const state = rows[0]!
      // The author is a link like a comment's: its page or member is written first (README: ingest order).
      refuseAuthor(r.author, state.authorOk)
      // The post shows its author's card (post-card.ts).
      const docs: PostDocs = sameCard(state.authorCard!, r.card) ? r : docsWithCard(r, state.authorCard!)
      if (state.shareOwner !== null && state.shareOwner !== r.id) refuse(`${r.shareKind} ${r.shareId} is already used by post ${state.shareOwner}`)
      const written = await c.query<{ written: boolean }>(WRITE_POST, [
        r.id,
        r.shareKind,
        r.shareId,
        r.author.kind,
        r.author.id,
        r.isRepost,
        r.meta,
        r.contentKinds,
        r.mentions,
        indexed?.vector ?? null,
        indexed?.length ?? null,
        docs.doc,
        docs.docTrimmed,
        docs.docOlder,
        docs.docSearch,
        state.existed,
        // A NUL separates tokens like a space does; PostgreSQL text cannot hold it.
        r.text.replaceAll('\u0000', ' '),
      ])
      if (!written.rows[0]!.written) continue
      replaceDoc(totals, state.oldLen, indexed?.length ?? null)
      return
    }
    throw new Error(`post ${r.id} kept changing under this write`)
  }

  const writeArticle = async (c: Client, r: ArticleRow): Promise<void> => {
    requireId('article id', r.articleId)
    const { rows } = await c.query<{ ok: boolean }>('SELECT EXISTS (SELECT 1 FROM profiles WHERE profile_id = $1) AS ok', [r.authorProfileId])
    if (!rows[0]!.ok) refuse(`profile ${r.authorProfileId} does not exist`)
    await c.query(UPSERT_ARTICLE, [r.articleId, r.authorProfileId, r.doc])
  }

  const refuseAuthor = (ref: AuthorRef, exists: boolean | null): void => {
    const problem = authorProblem(ref, exists)
    if (problem !== null) refuse(problem)
  }

  const writeComment = async (c: Client, r: CommentRow): Promise<void> => {
    requireId('comment id', r.commentId)
    requireId('post id', r.postId)
    const createdMs = Date.parse(r.createdAt)
    const parentStorable = r.parentId !== null && isStorableId(r.parentId)
    const ownChecks = !Number.isNaN(createdMs) && (r.parentId === null || (parentStorable && r.parentId !== r.commentId))
    const { rows } = await c.query<{
      postOk: boolean
      authorOk: boolean | null
      existingPost: string | null
      hasReplies: boolean
      parentPost: string | null
      parentTop: boolean | null
      written: boolean
    }>(WRITE_COMMENT, [
      r.commentId,
      r.postId,
      parentStorable ? r.parentId : null,
      r.author.kind,
      r.author.id,
      r.text,
      r.createdAt,
      ownChecks ? createdMs : null,
      r.reactionCount,
      r.pinned,
      r.permalink,
      ownChecks,
    ])
    const links = rows[0]!
    const outcome = outcomeOf(() => {
      const problem = commentProblem(r, {
        postExists: links.postOk,
        authorExists: links.authorOk,
        existingPost: links.existingPost,
        hasReplies: links.hasReplies,
        parent: links.parentPost === null ? null : { postId: links.parentPost, topLevel: links.parentTop === true },
      })
      if (problem !== null) refuse(problem)
    })
    if (outcome.ok !== links.written) throw new Error(`comment ${r.commentId}: the write and its checks disagree (a bug in this adapter)`)
    if (!outcome.ok) refuse(outcome.reason)
  }

  // The reasons of a refused reaction, in the SQLite adapter's order; shared by the one-row and run paths.
  const judgePostReaction = (r: PostReactionRow, postOk: boolean, authorOk: boolean | null): void => {
    if (!postOk) refuse(`post ${r.postId} does not exist`)
    refuseAuthor(r.actor, authorOk)
  }
  const judgeProfileReaction = (r: ProfileReactionRow, postOk: boolean, profileOk: boolean): void => {
    if (!postOk) refuse(`post ${r.postId} does not exist`)
    if (!profileOk) refuse(`profile ${r.profileId} does not exist`)
    if (!Number.isSafeInteger(r.reactedAt)) refuse(`reactedAt must be a whole number of Unix ms (got ${r.reactedAt})`)
  }

  const writePostReaction = async (c: Client, r: PostReactionRow): Promise<void> => {
    requireId('post id', r.postId)
    const { rows } = await c.query<{ postOk: boolean; authorOk: boolean | null; written: boolean }>(WRITE_POST_REACTION, [
      r.postId,
      r.actor.kind,
      r.actor.id,
      r.reactionType,
    ])
    judgePostReaction(r, rows[0]!.postOk, rows[0]!.authorOk)
  }

  const writeProfileReaction = async (c: Client, r: ProfileReactionRow): Promise<void> => {
    requireId('post id', r.postId)
    const { rows } = await c.query<{ postOk: boolean; profileOk: boolean; written: boolean }>(WRITE_PROFILE_REACTION, [
      r.profileId,
      r.postId,
      r.reactionType,
      Number.isSafeInteger(r.reactedAt) ? r.reactedAt : null,
    ])
    judgeProfileReaction(r, rows[0]!.postOk, rows[0]!.profileOk)
  }

  /** The outcome of a row judged by `judge` (which throws RowRefused). */
  const outcomeOf = (judge: () => void): WriteOutcome => {
    try {
      judge()
      return { ok: true }
    } catch (e) {
      if (e instanceof RowRefused) return { ok: false, reason: e.message }
      throw e
    }
  }

  /** A run of reactions of one kind, checked and written by one statement; fills `outcomes` from `at`. */
  const writeReactionRun = async (c: Client, run: readonly ContentRow[], outcomes: WriteOutcome[], at: number): Promise<void> => {
    // Ids a bigint cannot hold are refused before the statement, which would fail on them.
    const sent: number[] = []
    run.forEach((row, k) => {
      const postId = (row.row as PostReactionRow | ProfileReactionRow).postId
      if (isStorableId(postId)) sent.push(k)
      else outcomes[at + k] = outcomeOf(() => requireId('post id', postId))
    })
    if (sent.length === 0) return
    if (run[0]!.kind === 'postReaction') {
      const rs = sent.map((k) => run[k]!.row as PostReactionRow)
      const { rows } = await c.query<{ postOk: boolean; authorOk: boolean | null }>(WRITE_POST_REACTIONS, [
        sent,
        rs.map((r) => r.postId),
        rs.map((r) => r.actor.kind),
        rs.map((r) => r.actor.id),
        rs.map((r) => r.reactionType),
      ])
      rs.forEach((r, j) => {
        outcomes[at + sent[j]!] = outcomeOf(() => judgePostReaction(r, rows[j]!.postOk, rows[j]!.authorOk))
      })
    } else {
      const rs = sent.map((k) => run[k]!.row as ProfileReactionRow)
      const { rows } = await c.query<{ postOk: boolean; profileOk: boolean }>(WRITE_PROFILE_REACTIONS, [
        sent,
        rs.map((r) => r.profileId),
        rs.map((r) => r.postId),
        rs.map((r) => r.reactionType),
        rs.map((r) => (Number.isSafeInteger(r.reactedAt) ? r.reactedAt : null)),
      ])
      rs.forEach((r, j) => {
        outcomes[at + sent[j]!] = outcomeOf(() => judgeProfileReaction(r, rows[j]!.postOk, rows[j]!.profileOk))
      })
    }
  }

  const writeRow = (c: Client, row: ContentRow, totals: Totals): Promise<void> => {
    switch (row.kind) {
      case 'profile':
        return writeProfile(c, row.row)
      case 'company':
        return writeCompany(c, row.row)
      case 'post':
        return writePost(c, row.row, totals)
      case 'article':
        return writeArticle(c, row.row)
      case 'comment':
        return writeComment(c, row.row)
      case 'postReaction':
        return writePostReaction(c, row.row)
      case 'profileReaction':
        return writeProfileReaction(c, row.row)
      default:
        return Promise.reject(new RowRefused(`unknown row kind "${String((row as { kind: unknown }).kind)}"`))
    }
  }

  /** One row inside its own savepoint: a failed statement undoes this row only. */
  const writeGuarded = async (c: Client, row: ContentRow, totals: Totals): Promise<WriteOutcome> => {
    // A constraint another transaction's commit broke after this row's checks: the checks, run again,
    // now see that commit and give the readable reason (or pass, when that transaction rolled back).
    for (let attempt = 0; ; attempt++) {
      const delta: Totals = { docs: 0, tokens: 0 }
      await c.query('SAVEPOINT content_row')
      try {
        await writeRow(c, row, delta)
        await c.query('RELEASE SAVEPOINT content_row')
        totals.docs += delta.docs
        totals.tokens += delta.tokens
        return { ok: true }
      } catch (e) {
        if (!(e instanceof RowRefused) && !isRowError(e)) throw e
        await c.query('ROLLBACK TO SAVEPOINT content_row')
        await c.query('RELEASE SAVEPOINT content_row')
        if (e instanceof RowRefused || attempt > 0 || sqlState(e) !== '23505') return { ok: false, reason: e.message }
      }
    }
  }

  /** The row path: each row checked and written by its own statements. */
  const writeBatch = async (c: Client, rows: readonly ContentRow[], guarded: boolean): Promise<{ outcomes: WriteOutcome[]; totals: Totals }> => {
    const outcomes: WriteOutcome[] = new Array(rows.length)
    const totals: Totals = { docs: 0, tokens: 0 }
    for (let i = 0; i < rows.length; ) {
      const row = rows[i] as ContentRow
      if (guarded) {
        outcomes[i++] = await writeGuarded(c, row, totals)
        continue
      }
      try {
        if (row.kind === 'postReaction' || row.kind === 'profileReaction') {
          let end = i + 1
          while (end < rows.length && end - i < RUN_MAX && rows[end]!.kind === row.kind) end++
          await writeReactionRun(c, rows.slice(i, end), outcomes, i)
          i = end
          continue
        }
        await writeRow(c, row, totals)
        outcomes[i] = { ok: true }
      } catch (e) {
        if (!(e instanceof RowRefused)) throw new NeedsSavepoints(e instanceof Error ? e.message : String(e), { cause: e })
        outcomes[i] = { ok: false, reason: e.message }
      }
      i++
    }
    return { outcomes, totals }
  }

  /** The batch on `path`, then the epoch bump: last, so the epoch row (which serialises content commits across nodes) is locked only briefly. */
  const writeOn = async (c: Client, rows: readonly ContentRow[], path: 'bulk' | 'rows' | 'guarded'): Promise<WriteOutcome[]> => {
    const { outcomes, totals } = path === 'bulk' ? await writeBulk(c, rows) : await writeBatch(c, rows, path === 'guarded')
    const bumped = await c.query<{ n: string }>(BUMP_EPOCH, [totals.docs, totals.tokens])
    lastEpoch = bumped.rows[0]!.n
    return outcomes
  }

  // ---------- version ----------

  let localWrites = 0
  let lastEpoch = '0'
  let poller: NodeJS.Timeout | undefined
  let polling = false
  let closed = false
  const pollEpoch = (): void => {
    if (polling || closed) return
    polling = true
    pool
      .query<{ n: string }>('SELECT n FROM content_epoch WHERE id = 1')
      .then(
        (r) => {
          if (r.rows[0]) lastEpoch = r.rows[0].n
        },
        // An unreachable database keeps the last value; reads report the outage themselves.
        () => {},
      )
      .finally(() => {
        polling = false
      })
  }

  // Read once now, so the first version() a request sees is already the database's and the first poll
  // does not look like a change (which would drop every response cache once).
  pollEpoch()

  // ---------- reads ----------

  const one = async <T extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<T | undefined> =>
    (await pool.query<T>(sql, params)).rows[0]

  const commentColumns = `c.comment_id AS "commentId", c.post_id AS "postId", c.parent_id AS "parentId", c.text,
    c.created_at AS "createdAt", c.reaction_count AS "reactionCount", c.pinned, c.permalink,
    ${cardColumns('c', 'author_kind', 'author_id')}`

  return {
    async write(rows) {
      if (rows.length === 0) return []
      try {
        let path: 'bulk' | 'rows' | 'guarded' = 'bulk'
        // A deadlock or serialization failure runs the batch again on the same path; a change of path is no retry.
        let retries = 0
        let bulkAgain = true
        for (;;) {
          const client = await pool.connect()
          let broken: Error | undefined
          try {
            await client.query('BEGIN')
            try {
              const outcomes = await writeOn(client, rows, path)
              await client.query('COMMIT')
              return outcomes
            } catch (e) {
              broken = await endFailedTransaction(client, e)
              if (path === 'bulk' && bulkRaced(e) && bulkAgain) {
                bulkAgain = false
                continue
              }
              if (path === 'bulk' && needsRowPath(e)) {
                path = 'rows'
                continue
              }
              if (e instanceof NeedsSavepoints && path === 'rows') {
                path = 'guarded'
                continue
              }
              if (isRetryable(e) && ++retries < BATCH_ATTEMPTS) continue
              throw e instanceof NeedsSavepoints ? e.cause : e
            }
          } finally {
            client.release(broken)
          }
        }
      } finally {
        localWrites++
      }
    },

    version() {
      if (poller === undefined && !closed) {
        pollEpoch()
        poller = setInterval(pollEpoch, checkMs)
        // The check must never keep a process alive on its own.
        poller.unref()
      }
      return `${lastEpoch}.${localWrites}`
    },

    async getProfileBySlug(slug) {
      const r = await one<{ profile_id: string; doc: string }>('SELECT profile_id, doc FROM profiles WHERE slug = $1', [slug.toLowerCase()])
      return r && { profileId: r.profile_id, doc: bytes(r.doc) }
    },
    async hasProfile(profileId) {
      return (await one('SELECT 1 FROM profiles WHERE profile_id = $1', [profileId])) !== undefined
    },
    async hasCompany(companyId) {
      return (await one('SELECT 1 FROM companies WHERE company_id = $1', [companyId])) !== undefined
    },
    async getProfileDoc(profileId) {
      const r = await one<{ doc: string }>('SELECT doc FROM profiles WHERE profile_id = $1', [profileId])
      return r && bytes(r.doc)
    },
    async findProfileIdBySlug(slug) {
      return (await one<{ profile_id: string }>('SELECT profile_id FROM profiles WHERE slug = $1', [slug.toLowerCase()]))?.profile_id
    },
    async findProfileIdByMemberId(memberId) {
      return (await one<{ profile_id: string }>('SELECT profile_id FROM profiles WHERE member_id = $1', [memberId]))?.profile_id
    },

    async getCompany(companyId) {
      const r = await one<{ doc: string; pageType: CompanyRow['pageType'] }>(
        'SELECT doc, page_type AS "pageType" FROM companies WHERE company_id = $1',
        [companyId],
      )
      return r && { doc: bytes(r.doc), pageType: r.pageType }
    },
    async findCompanyIdBySlug(slug) {
      return (await one<{ company_id: string }>('SELECT company_id FROM companies WHERE slug = $1', [slug.toLowerCase()]))?.company_id
    },

    async listPosts(author, beforeId, limit) {
      if (beforeId !== null && !isStorableId(beforeId)) throw new RangeError(`beforeId "${beforeId}" is not a post id`)
      const take = Math.max(0, limit)
      // One row more than the page answers hasMore without a count.
      const { rows } = await pool.query<{ id: string; isRepost: boolean; doc: string }>(
        `SELECT p.id, p.is_repost AS "isRepost", d.doc FROM posts p JOIN post_docs d ON d.id = p.id
         WHERE p.author_kind = $1 AND p.author_id = $2 AND ($3::bigint IS NULL OR p.id < $3::bigint)
         ORDER BY p.id DESC LIMIT $4`,
        [author.kind, author.id, beforeId, take + 1],
      )
      return {
        rows: rows.slice(0, take).map((r) => ({ id: r.id, isRepost: r.isRepost, doc: bytes(r.doc) })),
        hasMore: rows.length > take,
      }
    },
    async listRecentPostsOlder(author, limit) {
      const { rows } = await pool.query<{ id: string; docOlder: string }>(
        `SELECT p.id, d.doc_older AS "docOlder" FROM posts p JOIN post_docs d ON d.id = p.id
         WHERE p.author_kind = $1 AND p.author_id = $2 AND NOT p.is_repost ORDER BY p.id DESC LIMIT $3`,
        [author.kind, author.id, Math.max(0, limit)],
      )
      return rows.map((r) => ({ id: r.id, docOlder: bytes(r.docOlder) }))
    },
    async getPost(activityId) {
      if (!isStorableId(activityId)) return undefined
      // A share or ugcPost id names the same post in another namespace; the activity id wins.
      const r = await one<{ id: string; doc: string }>(
        `(SELECT id, doc FROM post_docs WHERE id = $1::bigint)
         UNION ALL
         (SELECT d.id, d.doc FROM posts p JOIN post_docs d ON d.id = p.id
          WHERE p.share_kind IN ('share', 'ugcPost') AND p.share_id = $1::text ORDER BY p.share_kind LIMIT 1)
         LIMIT 1`,
        [activityId],
      )
      return r && { id: r.id, doc: bytes(r.doc) }
    },
    async findPostIdByShare(shareKind, shareId) {
      return (await one<{ id: string }>('SELECT id FROM posts WHERE share_kind = $1 AND share_id = $2', [shareKind, shareId]))?.id
    },

    async listProfileReactions(profileId, after, limit) {
      // As on SQLite: a reaction to a repost without commentary is left out in the query (such reposts are never listed).
      if (after !== null && !isStorableId(after.postId)) throw new RangeError(`after.postId "${after.postId}" is not a post id`)
      const take = Math.max(0, limit)
      const { rows } = await pool.query<{ reactionType: string; reactedAt: string; postId: string; postDoc: string }>(
        `SELECT r.reaction_type AS "reactionType", r.reacted_at AS "reactedAt", r.post_id AS "postId", d.doc_trimmed AS "postDoc"
         FROM profile_reactions r JOIN post_docs d ON d.id = r.post_id
         WHERE r.profile_id = $1 AND NOT EXISTS (SELECT 1 FROM posts p WHERE p.id = r.post_id AND p.is_repost)
           AND ($2::bigint IS NULL OR (r.reacted_at, r.post_id) < ($2::bigint, $3::bigint))
         ORDER BY r.reacted_at DESC, r.post_id DESC LIMIT $4`,
        [profileId, after?.reactedAt ?? null, after?.postId ?? null, take + 1],
      )
      return {
        rows: rows.slice(0, take).map((r) => ({
          reactionType: r.reactionType,
          reactedAt: Number(r.reactedAt),
          postId: r.postId,
          postDoc: bytes(r.postDoc),
        })),
        hasMore: rows.length > take,
      }
    },

    async listArticles(profileId, offset, limit) {
      const { rows } = await pool.query<{ doc: string }>(
        'SELECT doc FROM articles WHERE author_profile_id = $1 ORDER BY article_id DESC LIMIT $2 OFFSET $3',
        [profileId, Math.max(0, limit), Math.max(0, offset)],
      )
      return rows.map((r) => bytes(r.doc))
    },

    async listComments(postId, from, limit) {
      if (!isStorableId(postId)) return { comments: [], hasMore: false }
      const take = Math.max(0, limit)
      const top =
        typeof from === 'number'
          ? await pool.query<PgCommentCols>(
              `SELECT ${commentColumns}, c.created_ms AS "createdMs" FROM comments c ${cardJoins('c', 'author_kind', 'author_id')}
               WHERE c.post_id = $1 AND c.parent_id IS NULL
               ORDER BY c.pinned DESC, c.reaction_count DESC, c.created_ms DESC, c.comment_id DESC LIMIT $2 OFFSET $3`,
              [postId, take + 1, Math.max(0, from)],
            )
          : // After a place in that order (row values compare as the order does).
            await pool.query<PgCommentCols>(
              `SELECT ${commentColumns}, c.created_ms AS "createdMs" FROM comments c ${cardJoins('c', 'author_kind', 'author_id')}
               WHERE c.post_id = $1 AND c.parent_id IS NULL
                 AND (c.pinned, c.reaction_count, c.created_ms, c.comment_id) < ($2::boolean, $3::integer, $4::bigint, $5::bigint)
               ORDER BY c.pinned DESC, c.reaction_count DESC, c.created_ms DESC, c.comment_id DESC LIMIT $6`,
              [postId, from.after.pinned, from.after.reactionCount, from.after.createdMs, from.after.commentId, take + 1],
            )
      const page = top.rows.slice(0, take)
      // Every reply of the page in one read (not one per thread: each is a round trip here).
      const replies = new Map<string, CommentView[]>()
      if (page.length > 0) {
        const found = await pool.query<PgCommentCols>(
          `SELECT ${commentColumns} FROM comments c ${cardJoins('c', 'author_kind', 'author_id')}
           WHERE c.parent_id = ANY($1::bigint[]) ORDER BY c.parent_id, c.created_ms, c.comment_id`,
          [page.map((c) => c.commentId)],
        )
        for (const r of found.rows) {
          const list = replies.get(r.parentId as string)
          if (list) list.push(toComment(r, []))
          else replies.set(r.parentId as string, [toComment(r, [])])
        }
      }
      const end = page.at(-1)
      const comments = page.map((c) => toComment(c, replies.get(c.commentId) ?? []))
      return { comments, hasMore: top.rows.length > take, ...(end ? { last: commentKeyOf(end) } : {}) }
    },
    async listPostReactions(postId, offset, limit) {
      if (!isStorableId(postId)) return { reactions: [], hasMore: false }
      const take = Math.max(0, limit)
      const { rows } = await pool.query<CardCols & { reactionType: string }>(
        `SELECT r.reaction_type AS "reactionType", ${cardColumns('r', 'actor_kind', 'actor_id')}
         FROM post_reactions r ${cardJoins('r', 'actor_kind', 'actor_id')}
         WHERE r.post_id = $1 ORDER BY r.seq LIMIT $2 OFFSET $3`,
        [postId, take + 1, Math.max(0, offset)],
      )
      return {
        reactions: rows.slice(0, take).map((r) => ({ reactionType: r.reactionType, actor: toCard(r) })),
        hasMore: rows.length > take,
      }
    },

    async analyze() {
      await pool.query('ANALYZE posts, profiles, companies')
    },

    async counts() {
      const n = (await one<Record<keyof ContentCounts, string>>(
        `SELECT (SELECT count(*) FROM profiles) AS profiles, (SELECT count(*) FROM companies) AS companies,
                (SELECT count(*) FROM posts) AS posts, (SELECT count(*) FROM articles) AS articles,
                (SELECT count(*) FROM comments) AS comments, (SELECT count(*) FROM post_reactions) AS "postReactions",
                (SELECT count(*) FROM profile_reactions) AS "profileReactions"`,
        [],
      )) as Record<keyof ContentCounts, string>
      return {
        profiles: Number(n.profiles),
        companies: Number(n.companies),
        posts: Number(n.posts),
        articles: Number(n.articles),
        comments: Number(n.comments),
        postReactions: Number(n.postReactions),
        profileReactions: Number(n.profileReactions),
      }
    },
    async isEmpty() {
      // Three index probes, not counts: a large network holds tens of millions of rows.
      const r = await one<{ empty: boolean }>(
        `SELECT NOT EXISTS (SELECT 1 FROM profiles) AND NOT EXISTS (SELECT 1 FROM companies)
                AND NOT EXISTS (SELECT 1 FROM posts) AS empty`,
        [],
      )
      return r?.empty === true
    },
    // The pool belongs to the container, which ends it after every adapter has stopped.
    async close() {
      closed = true
      if (poller !== undefined) clearInterval(poller)
      poller = undefined
    },
  }
}
