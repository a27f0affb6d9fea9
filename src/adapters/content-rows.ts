/**
 * Rows both content stores read for cards and comments, and the views they become. The column
 * aliases (cardKind, cardId, …) are the same in either dialect's SQL.
 */
import type { ActorCard, AuthorKind, CommentKey, CommentView } from '../ports/content-store.ts'

export interface CardCols {
  cardKind: AuthorKind
  cardId: string
  cardName: string
  cardHeadline: string
  cardPictureUrl: string | null
  cardUrl: string
  cardSlug: string | null
}

export interface CommentCols extends CardCols {
  commentId: string
  postId: string
  text: string
  createdAt: string
  reactionCount: number
  /** A boolean in PostgreSQL, 0 or 1 in SQLite. */
  pinned: boolean | number
  permalink: string
  /** The order's creation instant (top-level reads only); a string from PostgreSQL's bigint. */
  createdMs?: number | string
}

/** Where a top-level comment row stands in its post's order (CommentKey). */
export const commentKeyOf = (r: CommentCols): CommentKey => ({
  pinned: r.pinned === true || r.pinned === 1,
  reactionCount: r.reactionCount,
  createdMs: Number(r.createdMs),
  commentId: r.commentId,
})

export const toCard = (r: CardCols): ActorCard => ({
  kind: r.cardKind,
  id: r.cardId,
  name: r.cardName,
  headline: r.cardHeadline,
  pictureUrl: r.cardPictureUrl,
  url: r.cardUrl,
  slug: r.cardSlug,
})

export const toComment = (r: CommentCols, replies: CommentView[]): CommentView => ({
  commentId: r.commentId,
  postId: r.postId,
  text: r.text,
  createdAt: r.createdAt,
  reactionCount: r.reactionCount,
  pinned: r.pinned === true || r.pinned === 1,
  permalink: r.permalink,
  author: toCard(r),
  replies,
})
