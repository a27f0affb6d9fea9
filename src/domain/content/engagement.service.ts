/**
 * The engagement endpoints: comments (by token or offset) and reactions (by offset) of one
 * post. `engagementRequests` parses their queries (no store); `createEngagementService` answers a
 * parsed request once its price is held.
 */
import type { CommentsQuery, EngagementQuery, PostReactionsQuery } from '../../contract/endpoints.schemas.ts'
import type { Validated } from '../../contract/validated.ts'
import type { CommentKey, ContentStore } from '../../ports/content-store.ts'
import { invalidParameter } from '../errors.ts'
import type { TokenSigner } from '../tokens.ts'
import type { ContentLookups } from './content-lookups.ts'
import { commentJson, commentKeyFrom, commentPosition, reactionJson } from './engagement-items.ts'
import { parsePostInput, type PostInput } from './input-resolution.ts'
import { arr } from './json-parts.ts'
import { present, sentToken, type ParseDeps } from './request-params.ts'

// Plain data, type aliases: see profiles.service.ts.
export type EngagementRequest = {
  input: PostInput
  commentCount: number
  commentStart: number
  commentToken: string | null
  reactionCount: number
  reactionStart: number
}
export type CommentsRequest = { input: PostInput; count: number; start: number; token: string | null }
export type PostReactionsRequest = { input: PostInput; count: number; start: number }

export function engagementRequests(deps: ParseDeps) {
  const post = (raw: string | undefined) => parsePostInput(present(raw), { param: 'postUrlOrUrn', host: deps.host })
  return {
    /** GET /api/v1/post/engagement. */
    engagement(q: Validated<typeof EngagementQuery>): EngagementRequest {
      const input = post(q.postUrlOrUrn)
      return {
        input,
        commentCount: q.commentCount,
        commentStart: q.commentStart,
        commentToken: sentToken(deps, q.commentPaginationToken, 'commentPaginationToken'),
        reactionCount: q.reactionCount,
        reactionStart: q.reactionStart,
      }
    },

    /** GET /api/v1/post/comments. */
    comments(q: Validated<typeof CommentsQuery>): CommentsRequest {
      const input = post(q.postUrlOrUrn)
      return { input, count: q.count, start: q.start, token: sentToken(deps, q.paginationToken, 'paginationToken') }
    },

    /** GET /api/v1/post/reactions. */
    postReactions(q: Validated<typeof PostReactionsQuery>): PostReactionsRequest {
      return { input: post(q.postUrlOrUrn), count: q.count, start: q.start }
    },
  }
}

export function createEngagementService(deps: { store: ContentStore; tokens: TokenSigner; lookups: ContentLookups }) {
  const { store, tokens, lookups } = deps

  /**
   * Comments page by token or by explicit offset; the token wins. A token holds the last comment's
   * place in the order ([pinned 0/1, reactions, created ms, id]): the next page goes on after it, so a
   * comment whose reactions or pin changed meanwhile cannot make it skip one that did not (an offset
   * did: a shown comment that fell to the bottom moved every later one up). Tokens issued before hold
   * an offset, and still open.
   */
  async function commentsPage(postId: string, page: { count: number; start: number; token: string | null; tokenParam: string }) {
    const scope = `comments:${postId}`
    let from: number | { after: CommentKey } = page.start
    if (page.token !== null) {
      const p = tokens.open(page.token, scope, page.tokenParam)
      const key = commentKeyFrom(p)
      if (key === undefined && (typeof p !== 'number' || !Number.isInteger(p) || p < 0)) throw invalidParameter(page.tokenParam, 'malformed token.')
      from = key !== undefined ? { after: key } : (p as number)
    }
    const found = await store.listComments(postId, from, page.count)
    const last = found.last
    return {
      items: arr(found.comments.map((c) => commentJson(c, 0))),
      hasMore: found.hasMore,
      token: found.hasMore && last ? tokens.issue(scope, commentPosition(last)) : undefined,
    }
  }

  return {
    /** Comments and reactions of one post in one call, all or nothing. */
    async engagement(r: EngagementRequest): Promise<Buffer> {
      const postId = await lookups.resolvePostId(r.input)
      const comments = await commentsPage(postId, {
        count: r.commentCount,
        start: r.commentStart,
        token: r.commentToken,
        tokenParam: 'commentPaginationToken',
      })
      const reactions = await store.listPostReactions(postId, r.reactionStart, r.reactionCount)
      const token = comments.token ? `"commentsPaginationToken":${JSON.stringify(comments.token)},` : ''
      return Buffer.from(
        `{"post":"urn:li:activity:${postId}","comments":${comments.items},${token}"commentsHasMore":${comments.hasMore},` +
          `"reactions":${arr(reactions.reactions.map(reactionJson))},"reactionsHasMore":${reactions.hasMore}}`,
      )
    },

    /** Comments of one post with their replies, pinned first. */
    async comments(r: CommentsRequest): Promise<Buffer> {
      const postId = await lookups.resolvePostId(r.input)
      const page = await commentsPage(postId, { count: r.count, start: r.start, token: r.token, tokenParam: 'paginationToken' })
      const token = page.token ? `"paginationToken":${JSON.stringify(page.token)},` : ''
      return Buffer.from(`{"comments":${page.items},${token}"hasMore":${page.hasMore}}`)
    },

    /** Reactions to one post, by offset. */
    async postReactions(r: PostReactionsRequest): Promise<Buffer> {
      const postId = await lookups.resolvePostId(r.input)
      const page = await store.listPostReactions(postId, r.start, r.count)
      return Buffer.from(`{"reactions":${arr(page.reactions.map(reactionJson))},"hasMore":${page.hasMore}}`)
    },
  }
}
