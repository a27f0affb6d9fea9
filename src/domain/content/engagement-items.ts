/**
 * Items of the engagement endpoints: comments with their replies and post reactions as JSON text,
 * and a comment's place in the order as a comments token holds it.
 */
import type { ActorCard, CommentKey, CommentView, PostReactionView } from '../../ports/content-store.ts'
import { arr } from './json-parts.ts'

function commentAuthor(card: ActorCard) {
  const person = card.kind === 'person'
  return {
    id: person ? `urn:li:fsd_profile:${card.id}` : `urn:li:fsd_company:${card.id}`,
    name: card.name,
    headline: card.headline,
    profilePictureUrl: card.pictureUrl ?? '',
    profileUrl: card.url,
    publicId: card.slug,
    profileId: person ? card.id : null,
  }
}

/** A comment with its replies (one level: replies carry none). */
export function commentJson(c: CommentView, depth: number): string {
  const replies = depth === 0 ? c.replies.map((r) => commentJson(r, 1)) : []
  return JSON.stringify({
    urn: `urn:li:comment:(activity:${c.postId},${c.commentId})`,
    text: c.text,
    createdAt: c.createdAt,
    reactionCount: c.reactionCount,
    author: commentAuthor(c.author),
    permalink: c.permalink,
    pinned: c.pinned,
  }).replace(/}$/, `,"replies":${arr(replies)}}`)
}

export function reactionJson(r: PostReactionView): string {
  const a = commentAuthor(r.actor)
  return JSON.stringify({
    reactionType: r.reactionType,
    actor: {
      urn: a.id,
      name: a.name,
      headline: a.headline,
      profileUrl: a.profileUrl,
      profilePictureUrl: a.profilePictureUrl,
      publicId: a.publicId,
      profileId: a.profileId,
    },
  })
}

/** A comment's place in the order as a comments token holds it: [pinned 0/1, reactions, created ms, id]. */
export const commentPosition = (k: CommentKey): [number, number, number, string] => [k.pinned ? 1 : 0, k.reactionCount, k.createdMs, k.commentId]

/** commentPosition undone, or undefined when the token holds none (an offset, or anything else). */
export function commentKeyFrom(p: unknown): CommentKey | undefined {
  if (!Array.isArray(p) || p.length !== 4) return undefined
  const [pinned, reactionCount, createdMs, commentId] = p as unknown[]
  if ((pinned !== 0 && pinned !== 1) || !Number.isSafeInteger(reactionCount) || (reactionCount as number) < 0) return undefined
  if (!Number.isSafeInteger(createdMs) || (createdMs as number) < 0 || typeof commentId !== 'string' || !/^\d{1,19}$/.test(commentId)) return undefined
  return { pinned: pinned === 1, reactionCount: reactionCount as number, createdMs: createdMs as number, commentId }
}
