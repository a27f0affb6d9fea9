/**
 * ContentStore on SQLite (migrations/sqlite/001_content.sql). Every list is one index range scan and
 * documents go out exactly as stored. Activity, comment and article ids are 64-bit integers in the
 * tables but never JS numbers here (they exceed 2^53): they are bound as decimal strings, which the
 * columns' integer affinity converts exactly, and read back with CAST(... AS TEXT).
 *
 * Long because it is one port's whole adapter: its prepared statements and the writes and reads that
 * share them; the rules rows keep are in domain/content/ingest-rules.ts.
 */
import type {
  ArticleRow,
  AuthorRef,
  CommentRow,
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
import type { SqliteDb } from './database.ts'
import { commentKeyOf, toCard, toComment, type CardCols, type CommentCols } from '../content-rows.ts'
import { INT64_MAX, isStorableId } from '../../domain/content/ids.ts'
import { authorProblem, commentProblem, idProblem } from '../../domain/content/ingest-rules.ts'
import { docsWithCard, sameCard, type PostDocs } from '../../domain/content/post-card.ts'

/** A failing row: the reason goes back to the caller, the row's savepoint is rolled back. */
class RowRefused extends Error {}

const refuse = (reason: string): never => {
  throw new RowRefused(reason)
}

const requireId = (what: string, id: string): void => {
  const problem = idProblem(what, id)
  if (problem !== null) refuse(problem)
}

/** Card columns of a person or company joined on (kind, id); `a` is the alias of the linking table. */
const cardColumns = (a: string, kindCol: string, idCol: string): string => `
  ${a}.${kindCol} AS cardKind, ${a}.${idCol} AS cardId,
  COALESCE(p.name, co.name, '') AS cardName,
  COALESCE(p.headline, co.headline, '') AS cardHeadline,
  CASE ${a}.${kindCol} WHEN 'person' THEN p.picture_url ELSE co.logo_url END AS cardPictureUrl,
  COALESCE(p.url, co.url, '') AS cardUrl,
  CASE ${a}.${kindCol} WHEN 'person' THEN p.slug ELSE co.slug END AS cardSlug`

const cardJoins = (a: string, kindCol: string, idCol: string): string => `
  LEFT JOIN profiles p ON ${a}.${kindCol} = 'person' AND p.profile_id = ${a}.${idCol}
  LEFT JOIN companies co ON ${a}.${kindCol} = 'company' AND co.company_id = ${a}.${idCol}`


/** SQLite reports every constraint failure (unique, check, foreign key) with a code starting so. */
const isConstraintError = (e: unknown): e is Error => {
  const code: unknown = e instanceof Error ? (e as Error & { code?: unknown }).code : undefined
  return typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT')
}

/** Posts whose card one read takes when an author's record changes it. */
const RESTAMP_SLICE = 500

/** How stale another process's commit may look to version() (and so to response caches). */
export const VERSION_CHECK_MS = 50

export function createSqliteContentStore(db: SqliteDb): ContentStore {
  // Every statement is prepared once: preparing costs more than running one of these inserts.
  const savepoint = db.prepare('SAVEPOINT content_row')
  const release = db.prepare('RELEASE content_row')
  const rollbackTo = db.prepare('ROLLBACK TO content_row')

  const profileExists = db.prepare('SELECT 1 FROM profiles WHERE profile_id = ?').pluck()
  const companyExists = db.prepare('SELECT 1 FROM companies WHERE company_id = ?').pluck()
  // The card an author's posts show (post-card.ts), from the columns comments' cards are joined from.
  const profileCard = db.prepare('SELECT name, headline, url, picture_url AS imageUrl FROM profiles WHERE profile_id = ?')
  const companyCard = db.prepare('SELECT name, headline, url, logo_url AS imageUrl FROM companies WHERE company_id = ?')
  // An author's posts' documents, a slice at a time (newest first, from an id down), to put a new card in.
  const authorPostDocs = db.prepare(
    `SELECT CAST(d.id AS TEXT) AS id, d.doc, d.doc_trimmed AS docTrimmed, d.doc_older AS docOlder, d.doc_search AS docSearch
     FROM posts p JOIN post_docs d ON d.id = p.id
     WHERE p.author_kind = ? AND p.author_id = ? AND p.id <= CAST(? AS INTEGER) ORDER BY p.id DESC LIMIT ?`,
  )
  const updatePostDocs = db.prepare(
    'UPDATE post_docs SET doc = ?, doc_trimmed = ?, doc_older = ?, doc_search = ? WHERE id = CAST(? AS INTEGER)',
  )
  const postExists = db.prepare('SELECT 1 FROM posts WHERE id = ?').pluck()
  const profileBySlug = db.prepare('SELECT profile_id FROM profiles WHERE slug = ?').pluck()
  const profileByMember = db.prepare('SELECT profile_id FROM profiles WHERE member_id = ?').pluck()
  const companyBySlug = db.prepare('SELECT company_id FROM companies WHERE slug = ?').pluck()
  const postByShare = db.prepare('SELECT CAST(id AS TEXT) FROM posts WHERE share_kind = ? AND share_id = ?').pluck()
  const commentLinks = db.prepare(
    `SELECT CAST(post_id AS TEXT) AS postId, parent_id IS NULL AS topLevel,
            EXISTS (SELECT 1 FROM comments r WHERE r.parent_id = c.comment_id) AS hasReplies
     FROM comments c WHERE comment_id = ?`,
  )

  const upsertProfile = db.prepare(
    `INSERT INTO profiles (profile_id, member_id, slug, name, headline, picture_url, url, doc, job_title)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (profile_id) DO UPDATE SET member_id = excluded.member_id, slug = excluded.slug,
       name = excluded.name, headline = excluded.headline, picture_url = excluded.picture_url,
       url = excluded.url, doc = excluded.doc, job_title = excluded.job_title`,
  )
  const upsertCompany = db.prepare(
    `INSERT INTO companies (company_id, slug, page_type, name, headline, logo_url, url, doc)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (company_id) DO UPDATE SET slug = excluded.slug, page_type = excluded.page_type,
       name = excluded.name, headline = excluded.headline, logo_url = excluded.logo_url,
       url = excluded.url, doc = excluded.doc`,
  )
  const upsertPost = db.prepare(
    `INSERT INTO posts (id, share_kind, share_id, author_kind, author_id, is_repost, meta, content_kinds, mentions)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET share_kind = excluded.share_kind, share_id = excluded.share_id,
       author_kind = excluded.author_kind, author_id = excluded.author_id, is_repost = excluded.is_repost,
       meta = excluded.meta, content_kinds = excluded.content_kinds, mentions = excluded.mentions`,
  )
  const upsertPostDocs = db.prepare(
    `INSERT INTO post_docs (id, doc, doc_trimmed, doc_older, text, doc_search) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, doc_trimmed = excluded.doc_trimmed,
       doc_older = excluded.doc_older, text = excluded.text, doc_search = excluded.doc_search`,
  )
  // The search index follows every post write in the same savepoint (migration 006).
  const indexPost = db.prepare('INSERT INTO post_search (rowid, text) VALUES (CAST(? AS INTEGER), ?)')
  // The index keeps no text (contentless): an entry is taken out with FTS5's 'delete' command and the
  // text it was made from (post_docs keeps it), which also takes its tokens out of the totals bm25()
  // normalises by. A contentless_delete table's DELETE leaves them in, so every re-ingested post would
  // count once more in the document count and lengths, and rankings would drift from PostgreSQL's.
  const indexedText = db
    .prepare('SELECT d.text FROM posts p JOIN post_docs d ON d.id = p.id WHERE p.id = CAST(? AS INTEGER) AND p.is_repost = 0')
    .pluck()
  const unindexPost = db.prepare("INSERT INTO post_search (post_search, rowid, text) VALUES ('delete', CAST(? AS INTEGER), ?)")
  // The mentionsCompanies filter's index (migration 008) follows every post write too: a searchable
  // post's mentions, none for a repost without commentary.
  const unmentionPost = db.prepare('DELETE FROM post_mentions WHERE post_id = CAST(? AS INTEGER)')
  const mentionPost = db.prepare('INSERT OR IGNORE INTO post_mentions (company_id, post_id) VALUES (?, CAST(? AS INTEGER))')
  const upsertArticle = db.prepare(
    `INSERT INTO articles (article_id, author_profile_id, doc) VALUES (?, ?, ?)
     ON CONFLICT (article_id) DO UPDATE SET author_profile_id = excluded.author_profile_id, doc = excluded.doc`,
  )
  const upsertComment = db.prepare(
    `INSERT INTO comments (comment_id, post_id, parent_id, author_kind, author_id, text, created_at, created_ms,
       reaction_count, pinned, permalink)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (comment_id) DO UPDATE SET parent_id = excluded.parent_id, author_kind = excluded.author_kind,
       author_id = excluded.author_id, text = excluded.text, created_at = excluded.created_at,
       created_ms = excluded.created_ms, reaction_count = excluded.reaction_count, pinned = excluded.pinned,
       permalink = excluded.permalink`,
  )
  // A new reaction takes the next seq of its post (one seek to the end of the post's range); an
  // update leaves seq alone, so a changed reaction keeps its place in the order.
  const upsertPostReaction = db.prepare(
    `INSERT INTO post_reactions (post_id, seq, actor_kind, actor_id, reaction_type)
     VALUES (@postId, (SELECT coalesce(max(seq), 0) + 1 FROM post_reactions WHERE post_id = @postId), @kind, @id, @type)
     ON CONFLICT (post_id, actor_kind, actor_id) DO UPDATE SET reaction_type = excluded.reaction_type`,
  )
  const upsertProfileReaction = db.prepare(
    `INSERT INTO profile_reactions (profile_id, post_id, reaction_type, reacted_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (profile_id, post_id) DO UPDATE SET reaction_type = excluded.reaction_type,
       reacted_at = excluded.reacted_at`,
  )

  // Three index probes, not counts: a large network holds tens of millions of rows.
  const isEmpty = db
    .prepare(
      `SELECT NOT EXISTS (SELECT 1 FROM profiles) AND NOT EXISTS (SELECT 1 FROM companies)
              AND NOT EXISTS (SELECT 1 FROM posts)`,
    )
    .pluck()
  const getProfileDoc = db.prepare('SELECT CAST(doc AS BLOB) FROM profiles WHERE profile_id = ?').pluck()
  const getProfileBySlug = db.prepare('SELECT profile_id AS profileId, CAST(doc AS BLOB) AS doc FROM profiles WHERE slug = ?')
  // Every content write bumps content_epoch in its transaction; our own writes are also counted in
  // `localWrites`. The epoch is read at most every VERSION_CHECK_MS (a read transaction costs about as
  // much as a whole cached response): another process's write is seen within that bound, ours at once.
  const readEpoch = db.prepare('SELECT n FROM content_epoch WHERE id = 1').pluck()
  const bumpEpoch = db.prepare('UPDATE content_epoch SET n = n + 1 WHERE id = 1')
  let localWrites = 0
  let lastEpoch = 0
  let lastCheck = Number.NEGATIVE_INFINITY
  const getCompany = db.prepare('SELECT CAST(doc AS BLOB) AS doc, page_type AS pageType FROM companies WHERE company_id = ?')
  const getPostById = db.prepare('SELECT CAST(id AS TEXT) AS id, CAST(doc AS BLOB) AS doc FROM post_docs WHERE id = ?')
  const getPostByShareId = db.prepare(
    `SELECT CAST(d.id AS TEXT) AS id, CAST(d.doc AS BLOB) AS doc FROM posts p JOIN post_docs d ON d.id = p.id
     WHERE p.share_kind IN ('share', 'ugcPost') AND p.share_id = ? ORDER BY p.share_kind LIMIT 1`,
  )

  // Each page asks for one row more than it returns: that row answers hasMore without a count.
  const postsNewest = db.prepare(
    `SELECT CAST(p.id AS TEXT) AS id, p.is_repost AS isRepost, CAST(d.doc AS BLOB) AS doc FROM posts p JOIN post_docs d ON d.id = p.id
     WHERE p.author_kind = ? AND p.author_id = ? ORDER BY p.id DESC LIMIT ?`,
  )
  const postsBefore = db.prepare(
    `SELECT CAST(p.id AS TEXT) AS id, p.is_repost AS isRepost, CAST(d.doc AS BLOB) AS doc FROM posts p JOIN post_docs d ON d.id = p.id
     WHERE p.author_kind = ? AND p.author_id = ? AND p.id < ? ORDER BY p.id DESC LIMIT ?`,
  )
  const postsOlder = db.prepare(
    `SELECT CAST(p.id AS TEXT) AS id, CAST(d.doc_older AS BLOB) AS docOlder FROM posts p JOIN post_docs d ON d.id = p.id
     WHERE p.author_kind = ? AND p.author_id = ? AND p.is_repost = 0 ORDER BY p.id DESC LIMIT ?`,
  )
  // A reaction to a repost without commentary is not listed (such reposts never are); it is
  // left out in the query, so a page stays full.
  const reactionsNewest = db.prepare(
    `SELECT r.reaction_type AS reactionType, r.reacted_at AS reactedAt, CAST(r.post_id AS TEXT) AS postId,
            CAST(d.doc_trimmed AS BLOB) AS postDoc
     FROM profile_reactions r JOIN post_docs d ON d.id = r.post_id
     WHERE r.profile_id = ? AND NOT EXISTS (SELECT 1 FROM posts p WHERE p.id = r.post_id AND p.is_repost = 1) ORDER BY r.reacted_at DESC, r.post_id DESC LIMIT ?`,
  )
  const reactionsAfter = db.prepare(
    `SELECT r.reaction_type AS reactionType, r.reacted_at AS reactedAt, CAST(r.post_id AS TEXT) AS postId,
            CAST(d.doc_trimmed AS BLOB) AS postDoc
     FROM profile_reactions r JOIN post_docs d ON d.id = r.post_id
     WHERE r.profile_id = ? AND NOT EXISTS (SELECT 1 FROM posts p WHERE p.id = r.post_id AND p.is_repost = 1) AND (r.reacted_at, r.post_id) < (?, ?)
     ORDER BY r.reacted_at DESC, r.post_id DESC LIMIT ?`,
  )
  const articlesPage = db
    .prepare('SELECT CAST(doc AS BLOB) FROM articles WHERE author_profile_id = ? ORDER BY article_id DESC LIMIT ? OFFSET ?')
    .pluck()

  const commentColumns = `CAST(c.comment_id AS TEXT) AS commentId, CAST(c.post_id AS TEXT) AS postId, c.text,
    c.created_at AS createdAt, c.reaction_count AS reactionCount, c.pinned, c.permalink,
    ${cardColumns('c', 'author_kind', 'author_id')}`
  const topComments = db.prepare(
    `SELECT ${commentColumns}, c.created_ms AS createdMs FROM comments c ${cardJoins('c', 'author_kind', 'author_id')}
     WHERE c.post_id = ? AND c.parent_id IS NULL
     ORDER BY c.pinned DESC, c.reaction_count DESC, c.created_ms DESC, c.comment_id DESC LIMIT ? OFFSET ?`,
  )
  // After a place in that order: the rows below it in the index, read from there (row values compare as the order does).
  const topCommentsAfter = db.prepare(
    `SELECT ${commentColumns}, c.created_ms AS createdMs FROM comments c ${cardJoins('c', 'author_kind', 'author_id')}
     WHERE c.post_id = ? AND c.parent_id IS NULL
       AND (c.pinned, c.reaction_count, c.created_ms, c.comment_id) < (?, ?, ?, CAST(? AS INTEGER))
     ORDER BY c.pinned DESC, c.reaction_count DESC, c.created_ms DESC, c.comment_id DESC LIMIT ?`,
  )
  const replies = db.prepare(
    `SELECT ${commentColumns} FROM comments c ${cardJoins('c', 'author_kind', 'author_id')}
     WHERE c.parent_id = ? ORDER BY c.created_ms, c.comment_id`,
  )
  const postReactions = db.prepare(
    `SELECT r.reaction_type AS reactionType, ${cardColumns('r', 'actor_kind', 'actor_id')}
     FROM post_reactions r ${cardJoins('r', 'actor_kind', 'actor_id')}
     WHERE r.post_id = ? ORDER BY r.seq LIMIT ? OFFSET ?`,
  )
  const counts = db.prepare(
    `SELECT (SELECT count(*) FROM profiles) AS profiles, (SELECT count(*) FROM companies) AS companies,
            (SELECT count(*) FROM posts) AS posts, (SELECT count(*) FROM articles) AS articles,
            (SELECT count(*) FROM comments) AS comments, (SELECT count(*) FROM post_reactions) AS postReactions,
            (SELECT count(*) FROM profile_reactions) AS profileReactions`,
  )

  /** Whether the referenced person or company is stored; null for an unknown kind. */
  const authorExists = (ref: AuthorRef): boolean | null =>
    ref.kind === 'person' ? profileExists.get(ref.id) !== undefined : ref.kind === 'company' ? companyExists.get(ref.id) !== undefined : null

  const requireAuthor = (ref: AuthorRef): void => {
    const problem = authorProblem(ref, authorExists(ref))
    if (problem !== null) refuse(problem)
  }

  /** The card of an existing author; refuses an unknown one (a post's author is a checked link). */
  const requireAuthorCard = (ref: AuthorRef): PostCard => {
    const card = (ref.kind === 'person' ? profileCard : companyCard).get(ref.id) as PostCard | undefined
    if (card === undefined) requireAuthor(ref)
    return card as PostCard
  }

  /** Puts `card` into every post of `author` (its record changed what the card shows). */
  const restampPosts = (author: AuthorRef, card: PostCard): void => {
    let upTo = INT64_MAX
    for (;;) {
      const rows = authorPostDocs.all(author.kind, author.id, upTo, RESTAMP_SLICE) as (PostDocs & { id: string })[]
      for (const r of rows) {
        const d = docsWithCard(r, card)
        updatePostDocs.run(d.doc, d.docTrimmed, d.docOlder, d.docSearch, r.id)
      }
      if (rows.length < RESTAMP_SLICE) return
      upTo = (BigInt((rows.at(-1) as { id: string }).id) - 1n).toString()
    }
  }

  const requirePost = (postId: string): void => {
    requireId('post id', postId)
    if (postExists.get(postId) === undefined) refuse(`post ${postId} does not exist`)
  }

  const writeProfile = (r: ProfileRow): void => {
    const slug = r.slug.toLowerCase()
    const slugOwner = profileBySlug.get(slug) as string | undefined
    if (slugOwner !== undefined && slugOwner !== r.profileId) {
      refuse(`publicIdentifier '${slug}' is already used by profile ${slugOwner}`)
    }
    const memberOwner = profileByMember.get(r.memberId) as string | undefined
    if (memberOwner !== undefined && memberOwner !== r.profileId) {
      refuse(`memberId '${r.memberId}' is already used by profile ${memberOwner}`)
    }
    const before = profileCard.get(r.profileId) as PostCard | undefined
    upsertProfile.run(r.profileId, r.memberId, slug, r.name, r.headline, r.pictureUrl, r.url, r.doc, r.jobTitle)
    const card = { name: r.name, headline: r.headline, url: r.url, imageUrl: r.pictureUrl }
    if (before !== undefined && !sameCard(before, card)) restampPosts({ kind: 'person', id: r.profileId }, card)
  }

  const writeCompany = (r: CompanyRow): void => {
    const slug = r.slug === null ? null : r.slug.toLowerCase()
    if (slug !== null) {
      const owner = companyBySlug.get(slug) as string | undefined
      if (owner !== undefined && owner !== r.companyId) refuse(`publicIdentifier '${slug}' is already used by company ${owner}`)
    }
    const before = companyCard.get(r.companyId) as PostCard | undefined
    upsertCompany.run(r.companyId, slug, r.pageType, r.name, r.headline, r.logoUrl, r.url, r.doc)
    const card = { name: r.name, headline: r.headline, url: r.url, imageUrl: r.logoUrl }
    if (before !== undefined && !sameCard(before, card)) restampPosts({ kind: 'company', id: r.companyId }, card)
  }

  const writePost = (r: PostRow): void => {
    requireId('post id', r.id)
    // The author is a link like a comment's: its page or member is written first (README: ingest order).
    // Its card is the one the post shows (post-card.ts).
    const card = requireAuthorCard(r.author)
    const docs: PostDocs = sameCard(card, r.card) ? r : docsWithCard(r, card)
    const owner = postByShare.get(r.shareKind, r.shareId) as string | undefined
    if (owner !== undefined && owner !== r.id) refuse(`${r.shareKind} ${r.shareId} is already used by post ${owner}`)
    // Only a post written before, and not as a repost, has an index entry to replace.
    const indexed = indexedText.get(r.id) as string | null | undefined
    if (indexed !== undefined) unindexPost.run(r.id, indexed)
    const mentions = r.mentions.length > 0 ? `,${r.mentions.join(',')},` : null
    upsertPost.run(r.id, r.shareKind, r.shareId, r.author.kind, r.author.id, r.isRepost ? 1 : 0, r.meta, r.contentKinds, mentions)
    upsertPostDocs.run(r.id, docs.doc, docs.docTrimmed, docs.docOlder, r.text, docs.docSearch)
    if (!r.isRepost) indexPost.run(r.id, r.text)
    // Only a post written before, and not as a repost, has mention rows to replace.
    if (indexed !== undefined) unmentionPost.run(r.id)
    if (!r.isRepost) for (const company of r.mentions) mentionPost.run(company, r.id)
  }

  const writeArticle = (r: ArticleRow): void => {
    requireId('article id', r.articleId)
    if (profileExists.get(r.authorProfileId) === undefined) refuse(`profile ${r.authorProfileId} does not exist`)
    upsertArticle.run(r.articleId, r.authorProfileId, r.doc)
  }

  const writeComment = (r: CommentRow): void => {
    const stored = (id: string | null) =>
      id !== null && isStorableId(id) ? (commentLinks.get(id) as { postId: string; topLevel: number; hasReplies: number } | undefined) : undefined
    const existing = stored(r.commentId)
    const parent = stored(r.parentId)
    const problem = commentProblem(r, {
      postExists: isStorableId(r.postId) && postExists.get(r.postId) !== undefined,
      authorExists: authorExists(r.author),
      existingPost: existing?.postId ?? null,
      hasReplies: existing?.hasReplies === 1,
      parent: parent ? { postId: parent.postId, topLevel: parent.topLevel === 1 } : null,
    })
    if (problem !== null) refuse(problem)
    const createdMs = Date.parse(r.createdAt)
    upsertComment.run(
      r.commentId,
      r.postId,
      r.parentId,
      r.author.kind,
      r.author.id,
      r.text,
      r.createdAt,
      createdMs,
      r.reactionCount,
      r.pinned ? 1 : 0,
      r.permalink,
    )
  }

  const writePostReaction = (r: PostReactionRow): void => {
    requirePost(r.postId)
    requireAuthor(r.actor)
    upsertPostReaction.run({ postId: r.postId, kind: r.actor.kind, id: r.actor.id, type: r.reactionType })
  }

  const writeProfileReaction = (r: ProfileReactionRow): void => {
    requirePost(r.postId)
    if (profileExists.get(r.profileId) === undefined) refuse(`profile ${r.profileId} does not exist`)
    if (!Number.isSafeInteger(r.reactedAt)) refuse(`reactedAt must be a whole number of Unix ms (got ${r.reactedAt})`)
    upsertProfileReaction.run(r.profileId, r.postId, r.reactionType, r.reactedAt)
  }

  const writeRow = (row: ContentRow): void => {
    switch (row.kind) {
      case 'profile':
        return writeProfile(row.row)
      case 'company':
        return writeCompany(row.row)
      case 'post':
        return writePost(row.row)
      case 'article':
        return writeArticle(row.row)
      case 'comment':
        return writeComment(row.row)
      case 'postReaction':
        return writePostReaction(row.row)
      case 'profileReaction':
        return writeProfileReaction(row.row)
      default:
        refuse(`unknown row kind "${String((row as { kind: unknown }).kind)}"`)
    }
  }

  // One transaction per batch (the cost of a write is per commit); a savepoint per row lets a row fail
  // alone. Errors other than a refusal or a constraint (disk full, I/O) abort the whole batch.
  // better-sqlite3 turns this into a savepoint when the handle is already inside a transaction.
  const writeBatch = db.transaction((rows: readonly ContentRow[]): WriteOutcome[] => {
    const outcomes: WriteOutcome[] = new Array(rows.length)
    for (let i = 0; i < rows.length; i++) {
      savepoint.run()
      try {
        writeRow(rows[i] as ContentRow)
        release.run()
        outcomes[i] = { ok: true }
      } catch (e) {
        if (!(e instanceof RowRefused) && !isConstraintError(e)) throw e
        rollbackTo.run()
        release.run()
        outcomes[i] = { ok: false, reason: e.message }
      }
    }
    bumpEpoch.run()
    return outcomes
  })

  const cardRows = <T extends CardCols>(rows: unknown[]): T[] => rows as T[]

  return {
    async write(rows) {
      if (rows.length === 0) return []
      try {
        // The write lock first, waiting its turn (see ledger-writes: a deferred one fails beside a server).
        return writeBatch.immediate(rows)
      } finally {
        localWrites++
      }
    },

    version() {
      const t = performance.now()
      if (t - lastCheck >= VERSION_CHECK_MS) {
        lastEpoch = readEpoch.get() as number
        lastCheck = t
      }
      return `${lastEpoch}.${localWrites}`
    },
    async getProfileBySlug(slug) {
      return getProfileBySlug.get(slug.toLowerCase()) as { profileId: string; doc: Buffer } | undefined
    },
    async hasProfile(profileId) {
      return profileExists.get(profileId) !== undefined
    },
    async hasCompany(companyId) {
      return companyExists.get(companyId) !== undefined
    },
    async getProfileDoc(profileId) {
      return getProfileDoc.get(profileId) as Buffer | undefined
    },
    async findProfileIdBySlug(slug) {
      return profileBySlug.get(slug.toLowerCase()) as string | undefined
    },
    async findProfileIdByMemberId(memberId) {
      return profileByMember.get(memberId) as string | undefined
    },

    async getCompany(companyId) {
      return getCompany.get(companyId) as { doc: Buffer; pageType: CompanyRow['pageType'] } | undefined
    },
    async findCompanyIdBySlug(slug) {
      return companyBySlug.get(slug.toLowerCase()) as string | undefined
    },

    async listPosts(author, beforeId, limit) {
      if (beforeId !== null && !isStorableId(beforeId)) throw new RangeError(`beforeId "${beforeId}" is not a post id`)
      const take = Math.max(0, limit)
      const found = (
        beforeId === null
          ? postsNewest.all(author.kind, author.id, take + 1)
          : postsBefore.all(author.kind, author.id, beforeId, take + 1)
      ) as { id: string; isRepost: number; doc: Buffer }[]
      return {
        rows: found.slice(0, take).map((r) => ({ id: r.id, isRepost: r.isRepost === 1, doc: r.doc })),
        hasMore: found.length > take,
      }
    },
    async listRecentPostsOlder(author, limit) {
      return postsOlder.all(author.kind, author.id, Math.max(0, limit)) as { id: string; docOlder: Buffer }[]
    },
    async getPost(activityId) {
      if (!isStorableId(activityId)) return undefined
      // A share or ugcPost id names the same post in another namespace.
      return (getPostById.get(activityId) ?? getPostByShareId.get(activityId)) as { id: string; doc: Buffer } | undefined
    },
    async findPostIdByShare(shareKind, shareId) {
      return postByShare.get(shareKind, shareId) as string | undefined
    },

    async listProfileReactions(profileId, after, limit) {
      if (after !== null && !isStorableId(after.postId)) throw new RangeError(`after.postId "${after.postId}" is not a post id`)
      const take = Math.max(0, limit)
      const found = (
        after === null
          ? reactionsNewest.all(profileId, take + 1)
          : reactionsAfter.all(profileId, after.reactedAt, after.postId, take + 1)
      ) as { reactionType: string; reactedAt: number; postId: string; postDoc: Buffer }[]
      return { rows: found.slice(0, take), hasMore: found.length > take }
    },

    async listArticles(profileId, offset, limit) {
      return articlesPage.all(profileId, Math.max(0, limit), Math.max(0, offset)) as Buffer[]
    },

    async listComments(postId, from, limit) {
      if (!isStorableId(postId)) return { comments: [], hasMore: false }
      const take = Math.max(0, limit)
      const top = cardRows<CommentCols>(
        typeof from === 'number'
          ? topComments.all(postId, take + 1, Math.max(0, from))
          : topCommentsAfter.all(postId, from.after.pinned ? 1 : 0, from.after.reactionCount, from.after.createdMs, from.after.commentId, take + 1),
      )
      const page = top.slice(0, take)
      // At most `limit` reply lookups, each an index range scan of one thread.
      const comments = page.map((c) => toComment(c, cardRows<CommentCols>(replies.all(c.commentId)).map((r) => toComment(r, []))))
      const end = page.at(-1)
      return { comments, hasMore: top.length > take, ...(end ? { last: commentKeyOf(end) } : {}) }
    },
    async listPostReactions(postId, offset, limit) {
      if (!isStorableId(postId)) return { reactions: [], hasMore: false }
      const take = Math.max(0, limit)
      const found = cardRows<CardCols & { reactionType: string }>(postReactions.all(postId, take + 1, Math.max(0, offset)))
      return {
        reactions: found.slice(0, take).map((r) => ({ reactionType: r.reactionType, actor: toCard(r) })),
        hasMore: found.length > take,
      }
    },

    async counts() {
      return counts.get() as ContentCounts
    },
    async analyze() {
      // Analyses only what has changed enough since the last time (cheap when little has).
      db.pragma('optimize')
    },
    async isEmpty() {
      return isEmpty.get() === 1
    },
    // The container owns the handle and closes it after every adapter has stopped.
    async close() {},
  }
}
