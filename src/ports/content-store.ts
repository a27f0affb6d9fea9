/**
 * Storage of the content model. Rows arrive prepared by the content writer (domain), documents are
 * stored as ready-to-send JSON text so a response is assembled by concatenation, never re-serialised.
 * Reads hand documents back as their UTF-8 bytes (`Buffer`): a response is concatenated from them and
 * written to the socket without decoding them into JavaScript strings and encoding them again.
 * Ids that are 19-digit decimals (posts, comments, articles) travel as strings; adapters store them as
 * 64-bit integers so newest-first order is an index scan.
 */
export type AuthorKind = 'person' | 'company'

export interface AuthorRef {
  readonly kind: AuthorKind
  /** profileId for a person, numeric companyId for a company. */
  readonly id: string
}

export interface ProfileRow {
  profileId: string
  memberId: string
  /** publicIdentifier, lower-cased (slugs are matched case-insensitively). */
  slug: string
  name: string
  headline: string
  pictureUrl: string | null
  url: string
  /** Profile JSON; may hold duration placeholders rendered at read time (see profile-doc.ts). */
  doc: string
  /** Current job title (`jobTitle`), matched by search's authorJobTitle; null when none. */
  jobTitle: string | null
}

export interface CompanyRow {
  companyId: string
  /** publicIdentifier, lower-cased; null when the page has none. */
  slug: string | null
  pageType: 'company' | 'school' | 'showcase'
  name: string
  headline: string
  logoUrl: string | null
  url: string
  doc: string
}

/** What a post's author card (its `profile`) shows besides the author's urn. */
export interface PostCard {
  name: string
  headline: string
  url: string
  imageUrl: string | null
}

export interface PostRow {
  /** activity id (19 digits). */
  id: string
  shareKind: 'share' | 'ugcPost'
  shareId: string
  author: AuthorRef
  /** A repost without commentary: stored so feeds can count it, never returned. */
  isRepost: boolean
  /** Full Post, as /api/v1/posts lists it. */
  doc: string
  /** Trimmed post inside a profile reaction. */
  docTrimmed: string
  /** Older, shorter shape of posts/updates. */
  docOlder: string
  /** Author's own text, for the search index. */
  text: string
  /** JSON of facts used by filters and search (isEdited, mentions, content kinds, media sizes). */
  meta: string
  /** Search result item: the Post plus isEdited, reactionTypeCounts and video width/height. */
  docSearch: string
  /**
   * The author card the four documents hold (their `profile` less its urn). The store makes them hold
   * the author's current card instead when the two differ (domain/content/post-card.ts).
   */
  card: PostCard
  /** Content kinds as a bit mask of CONTENT_KIND (search's contentType filter). */
  contentKinds: number
  /** Company ids the post mentions (search's mentionsCompanies filter). */
  mentions: readonly string[]
}

/** Bits of PostRow.contentKinds, named as search's contentType values. */
export const CONTENT_KIND = { image: 1, video: 2, liveVideo: 4, jobPost: 8, document: 16 } as const
export type ContentKind = keyof typeof CONTENT_KIND

export interface ArticleRow {
  articleId: string
  authorProfileId: string
  doc: string
}

export interface CommentRow {
  commentId: string
  postId: string
  parentId: string | null
  author: AuthorRef
  text: string
  createdAt: string
  reactionCount: number
  pinned: boolean
  permalink: string
}

export interface PostReactionRow {
  postId: string
  actor: AuthorRef
  reactionType: string
}

export interface ProfileReactionRow {
  profileId: string
  postId: string
  reactionType: string
  /** Unix ms; orders the feed newest first. */
  reactedAt: number
}

export type ContentRow =
  | { kind: 'profile'; row: ProfileRow }
  | { kind: 'company'; row: CompanyRow }
  | { kind: 'post'; row: PostRow }
  | { kind: 'article'; row: ArticleRow }
  | { kind: 'comment'; row: CommentRow }
  | { kind: 'postReaction'; row: PostReactionRow }
  | { kind: 'profileReaction'; row: ProfileReactionRow }

export type WriteOutcome = { ok: true } | { ok: false; reason: string }

/** The card of a person or company page, as joined into comments and reactions. */
export interface ActorCard {
  kind: AuthorKind
  id: string
  name: string
  headline: string
  pictureUrl: string | null
  url: string
  /** lower-cased slug, null for a page without one */
  slug: string | null
}

export interface CommentView {
  commentId: string
  postId: string
  text: string
  createdAt: string
  reactionCount: number
  pinned: boolean
  permalink: string
  author: ActorCard
  replies: CommentView[]
}

/** A top-level comment's place in its post's order (pinned, reactions, creation, id; each descending). */
export interface CommentKey {
  pinned: boolean
  reactionCount: number
  createdMs: number
  commentId: string
}

export interface PostReactionView {
  reactionType: string
  actor: ActorCard
}

export interface ContentCounts {
  profiles: number
  companies: number
  posts: number
  articles: number
  comments: number
  postReactions: number
  profileReactions: number
}

export interface ContentStore {
  /** Upserts rows in order; each row is atomic, and a failing row (unknown link) is reported and leaves nothing. */
  write(rows: readonly ContentRow[]): Promise<WriteOutcome[]>

  /** Profile document template by profileId. */
  getProfileDoc(profileId: string): Promise<Buffer | undefined>
  /** Whether a profile exists (an index probe; no document is read). */
  hasProfile(profileId: string): Promise<boolean>
  /** profileId for a slug (case-insensitive). */
  findProfileIdBySlug(slug: string): Promise<string | undefined>
  /** Profile id and document template for a slug in one read (the hot path of GET profile). */
  getProfileBySlug(slug: string): Promise<{ profileId: string; doc: Buffer } | undefined>
  /** profileId for a numeric member id (`urn:li:member:<id>`). */
  findProfileIdByMemberId(memberId: string): Promise<string | undefined>

  /** Company document and page kind by companyId. */
  getCompany(companyId: string): Promise<{ doc: Buffer; pageType: CompanyRow['pageType'] } | undefined>
  /** Whether a company page exists (an index probe; no document is read). */
  hasCompany(companyId: string): Promise<boolean>
  /** companyId for a slug (case-insensitive). */
  findCompanyIdBySlug(slug: string): Promise<string | undefined>

  /** One page of an author's feed, newest first, reposts included (flagged); `beforeId` is exclusive. */
  listPosts(
    author: AuthorRef,
    beforeId: string | null,
    limit: number,
  ): Promise<{ rows: { id: string; isRepost: boolean; doc: Buffer }[]; hasMore: boolean }>
  /** An author's newest posts in the older shape, reposts without commentary excluded. */
  listRecentPostsOlder(author: AuthorRef, limit: number): Promise<{ id: string; docOlder: Buffer }[]>
  /** A post by activity id, or by its share/ugcPost id. */
  getPost(activityId: string): Promise<{ id: string; doc: Buffer } | undefined>
  findPostIdByShare(shareKind: 'share' | 'ugcPost', shareId: string): Promise<string | undefined>

  /** A member's reactions, newest first; `after` is the last entry of the previous page (exclusive). */
  listProfileReactions(
    profileId: string,
    after: { reactedAt: number; postId: string } | null,
    limit: number,
  ): Promise<{ rows: { reactionType: string; reactedAt: number; postId: string; postDoc: Buffer }[]; hasMore: boolean }>

  /** A member's articles newest first (by id, which encodes time), by offset. */
  listArticles(profileId: string, offset: number, limit: number): Promise<Buffer[]>

  /**
   * Top-level comments of a post (pinned first, then by reactions, then newest), each with its replies:
   * from an offset, or after a comment's place in that order (`after`, a page's `last`). The order moves
   * whenever a comment's reactions or pin change: going on after the last comment shown never skips
   * one that stayed put, where an offset did.
   */
  listComments(
    postId: string,
    from: number | { after: CommentKey },
    limit: number,
  ): Promise<{ comments: CommentView[]; hasMore: boolean; last?: CommentKey }>
  /** Reactions to a post in the order they were recorded. */
  listPostReactions(postId: string, offset: number, limit: number): Promise<{ reactions: PostReactionView[]; hasMore: boolean }>

  /**
   * A value that changes whenever stored content may have changed: at once after this store's own
   * writes, and within a small adapter-defined bound after another process's (a `pronet ingest`
   * running beside the server). Response caches compare it on every read.
   */
  version(): string
  /** Row counts of every table (a full count: for reports, not for every start). */
  counts(): Promise<ContentCounts>
  /**
   * Refreshes the statistics the database plans with after a bulk load (seeding, an ingest): on
   * PostgreSQL they also give the search its common terms' document frequencies (BM25), which a
   * database never analysed (autovacuum off) would otherwise lack.
   */
  analyze(): Promise<void>
  /** Whether the store holds no profile, company or post; an empty store is seeded on first start. */
  isEmpty(): Promise<boolean>
  close(): Promise<void>
}
