/**
 * Small builders of valid content rows (ports/content-store.ts) and ingest records, numbered so a test
 * reads as "profile 1 reacts to post p2". Documents are short JSON strings naming their row, so a test
 * can tell exactly which stored document came back.
 */
import type { IngestRecord, PostRecord } from '../../src/contract/ingest.schemas.ts'
import { prepareRecord } from '../../src/domain/content/content-writer.ts'
import { idFromTime, isoFromId } from '../../src/domain/content/ids.ts'
import type {
  ArticleRow,
  AuthorRef,
  CommentRow,
  CompanyRow,
  ContentRow,
  PostRow,
  ProfileRow,
} from '../../src/ports/content-store.ts'

export const HOST = 'www.linkedin.com'

/** counts() of an empty store. */
export const EMPTY_COUNTS = {
  profiles: 0,
  companies: 0,
  posts: 0,
  articles: 0,
  comments: 0,
  postReactions: 0,
  profileReactions: 0,
} as const
/** A fixed "now" for prepareRecord (2026-01-01T00:00:00Z). */
export const NOW_MS = Date.UTC(2026, 0, 1)

/** A well-formed profile id: ACoAA + 34 characters. */
export function profileIdOf(n: number): string {
  return `ACoAA${String(n).padStart(34, 'x')}`
}

export function companyIdOf(n: number): string {
  return String(10_000 + n)
}

export const personRef = (n: number): AuthorRef => ({ kind: 'person', id: profileIdOf(n) })
export const companyRef = (n: number): AuthorRef => ({ kind: 'company', id: companyIdOf(n) })

/** A 19-digit activity/comment id for an instant in 2025; `low` orders ids of the same millisecond. */
export function postIdAt(minute: number, low = 0): string {
  return idFromTime(Date.UTC(2025, 0, 1) + minute * 60_000, low)
}

export function profileRow(n: number, over: Partial<ProfileRow> = {}): ContentRow & { kind: 'profile' } {
  const profileId = over.profileId ?? profileIdOf(n)
  return {
    kind: 'profile',
    row: {
      profileId,
      memberId: String(500_000 + n),
      slug: `member-${n}`,
      name: `Member ${n}`,
      headline: `Headline ${n}`,
      pictureUrl: `https://media.example/p${n}.jpg`,
      url: `https://${HOST}/in/member-${n}`,
      doc: JSON.stringify({ profile: n }),
      jobTitle: `Title ${n}`,
      ...over,
    },
  }
}

export function companyRow(n: number, over: Partial<CompanyRow> = {}): ContentRow & { kind: 'company' } {
  return {
    kind: 'company',
    row: {
      companyId: companyIdOf(n),
      slug: `company-${n}`,
      pageType: 'company',
      name: `Company ${n}`,
      headline: `Tagline ${n}`,
      logoUrl: `https://media.example/c${n}.png`,
      url: `https://${HOST}/company/company-${n}`,
      doc: JSON.stringify({ company: n }),
      ...over,
    },
  }
}

export function postRow(id: string, author: AuthorRef, over: Partial<PostRow> = {}): ContentRow & { kind: 'post' } {
  return {
    kind: 'post',
    row: {
      id,
      shareKind: 'share',
      shareId: id,
      author,
      isRepost: false,
      doc: JSON.stringify({ post: id }),
      docTrimmed: JSON.stringify({ trimmed: id }),
      docOlder: JSON.stringify({ older: id }),
      text: `text of ${id}`,
      meta: '{}',
      docSearch: JSON.stringify({ search: id }),
      // These documents hold no card, so the store has nothing to bring up to date in them.
      card: { name: '', headline: '', url: '', imageUrl: null },
      contentKinds: 0,
      mentions: [],
      ...over,
    },
  }
}

export function articleRow(articleId: string, authorProfileId: string, over: Partial<ArticleRow> = {}): ContentRow {
  return { kind: 'article', row: { articleId, authorProfileId, doc: JSON.stringify({ article: articleId }), ...over } }
}

export function commentRow(
  commentId: string,
  postId: string,
  author: AuthorRef,
  over: Partial<CommentRow> = {},
): ContentRow & { kind: 'comment' } {
  return {
    kind: 'comment',
    row: {
      commentId,
      postId,
      parentId: null,
      author,
      text: `comment ${commentId}`,
      createdAt: '2025-02-01T10:00:00.000Z',
      reactionCount: 0,
      pinned: false,
      permalink: `https://${HOST}/feed/update/urn:li:activity:${postId}?commentUrn=${commentId}`,
      ...over,
    },
  }
}

export function postReactionRow(postId: string, actor: AuthorRef, reactionType = 'LIKE'): ContentRow {
  return { kind: 'postReaction', row: { postId, actor, reactionType } }
}

export function profileReactionRow(profileId: string, postId: string, reactedAt: number, reactionType = 'LIKE'): ContentRow {
  return { kind: 'profileReaction', row: { profileId, postId, reactionType, reactedAt } }
}

/** A complete, valid Post record by member `authorN`, as ingest and seeding produce it. */
export function postRecord(id: string, authorN: number, over: Partial<PostRecord> = {}): PostRecord {
  const profileId = profileIdOf(authorN)
  return {
    id: `urn:li:activity:${id}`,
    shareUrn: `urn:li:share:${id}`,
    content: `Post ${id} #hiring — “quoted” 🚀`,
    date: isoFromId(id),
    reactionCount: 3,
    commentCount: 1,
    sharesCount: 0,
    reactionsByType: { like: 2, praise: 1 },
    postType: 'text',
    shareUrl: `https://${HOST}/feed/update/urn:li:activity:${id}`,
    imageUrl: null,
    videoUrl: null,
    carouselPdfUrl: null,
    images: [],
    video: null,
    authorType: 'Person',
    authorProfileId: profileId,
    profile: {
      urn: `urn:li:fsd_profile:${profileId}`,
      name: `Member ${authorN}`,
      headline: `Headline ${authorN}`,
      url: `https://${HOST}/in/member-${authorN}`,
      imageUrl: null,
    },
    permissions: {
      canReact: true,
      canPostComments: true,
      canShare: true,
      commentingDisabled: false,
      allowedCommentersScope: 'ALL',
      shareAudience: 'PUBLIC',
      isActivity: true,
      rootShare: true,
    },
    ...over,
  }
}

/** The row the content writer makes of a record. */
export function prepared(record: IngestRecord): ContentRow {
  return prepareRecord(record, NOW_MS, HOST)
}
