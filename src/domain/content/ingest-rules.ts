/**
 * The rules a stored row must keep, as pure functions of the row and of what the store already holds
 * of its links. Each content store reads those links its own way (SQLite a few lookups, PostgreSQL one
 * statement that also writes when the rules allow) and asks these functions, so both stores refuse
 * the same rows with the same reasons.
 */
import type { AuthorRef, CommentRow } from '../../ports/content-store.ts'
import { INT64_MAX, isStorableId } from './ids.ts'

/** Why `id` cannot be stored as `what` (ids are signed 64-bit integers), or null. */
export const idProblem = (what: string, id: string): string | null =>
  isStorableId(id) ? null : `${what} "${id}" must be a decimal without leading zeros, at most ${INT64_MAX}`

/** Why an author reference cannot be linked, given whether it exists (null: its kind is unknown). */
export function authorProblem(ref: AuthorRef, exists: boolean | null): string | null {
  if (exists === null) return `unknown author kind "${String((ref as { kind: unknown }).kind)}"`
  if (!exists) return ref.kind === 'person' ? `profile ${ref.id} does not exist` : `company ${ref.id} does not exist`
  return null
}

/** What the store holds of a comment's links when it is written. */
export interface CommentLinks {
  postExists: boolean
  /** null when the author's kind is neither person nor company. */
  authorExists: boolean | null
  /** The post the comment already belongs to, when it is stored; null when it is new. */
  existingPost: string | null
  /** Whether the stored comment has replies. */
  hasReplies: boolean
  /** The parent comment's post and whether it is top level; null without a stored parent. */
  parent: { postId: string; topLevel: boolean } | null
}

/**
 * The first rule the comment breaks, or null when it may be written: a comment stays on its post,
 * replies are one level deep and on their parent's post, and a comment with replies stays top level.
 */
export function commentProblem(r: Pick<CommentRow, 'commentId' | 'postId' | 'parentId' | 'author' | 'createdAt'>, links: CommentLinks): string | null {
  return (
    idProblem('comment id', r.commentId) ??
    idProblem('post id', r.postId) ??
    (links.postExists ? null : `post ${r.postId} does not exist`) ??
    authorProblem(r.author, links.authorExists) ??
    (Number.isNaN(Date.parse(r.createdAt)) ? `createdAt "${r.createdAt}" is not a date` : null) ??
    (links.existingPost !== null && links.existingPost !== r.postId ? `comment ${r.commentId} already belongs to post ${links.existingPost}` : null) ??
    (r.parentId === null ? null : replyProblem(r as typeof r & { parentId: string }, links))
  )
}

function replyProblem(r: Pick<CommentRow, 'commentId' | 'postId'> & { parentId: string }, links: CommentLinks): string | null {
  const parent = links.parent
  return (
    idProblem('parent comment id', r.parentId) ??
    (r.parentId === r.commentId ? `comment ${r.commentId} cannot reply to itself` : null) ??
    (parent === null ? `parent comment ${r.parentId} does not exist` : null) ??
    (parent !== null && parent.postId !== r.postId ? `parent comment ${r.parentId} belongs to post ${parent.postId}, not ${r.postId}` : null) ??
    (parent !== null && !parent.topLevel ? `parent comment ${r.parentId} is itself a reply (replies are one level deep)` : null) ??
    (links.existingPost !== null && links.hasReplies ? `comment ${r.commentId} has replies, so it cannot become a reply` : null)
  )
}
