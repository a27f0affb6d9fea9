/**
 * What the live source needs to know of each data operation: how long its answers stay fresh, where
 * its page token travels in and out (ours wrap the upstream's), how many of the upstream's rate
 * units a call takes, and which records of its answer go into the store.
 */
import type { DataOperation } from '../domain/billing/prices.ts'
import type { FreshnessResource } from './live-source-config.ts'

export interface LiveOperation {
  resource: Exclude<FreshnessResource, 'notFound'>
  /** The request's page-token parameter (a query parameter, or the search body's field). */
  tokenIn?: string
  /** The answer's page-token field. */
  tokenOut?: string
  /** The upstream's rate units for one call. */
  units: number
}

export const LIVE_OPERATIONS: Readonly<Record<DataOperation, LiveOperation>> = {
  profile: { resource: 'profile', units: 1 },
  'profile.reactions': { resource: 'reactions', tokenIn: 'paginationToken', tokenOut: 'paginationToken', units: 1 },
  'profile.articles': { resource: 'articles', units: 1 },
  posts: { resource: 'posts', tokenIn: 'paginationToken', tokenOut: 'paginationToken', units: 1 },
  'posts.updates': { resource: 'posts', units: 1 },
  company: { resource: 'company', units: 1 },
  // Fetched entry by entry as single companies (each one's answer kept and shared with GET /company).
  'company.batch': { resource: 'company', units: 1 },
  'company.posts': { resource: 'posts', tokenIn: 'paginationToken', tokenOut: 'paginationToken', units: 1 },
  'post.engagement': { resource: 'comments', tokenIn: 'commentPaginationToken', tokenOut: 'commentsPaginationToken', units: 2 },
  'post.comments': { resource: 'comments', tokenIn: 'paginationToken', tokenOut: 'paginationToken', units: 1 },
  'post.reactions': { resource: 'reactions', units: 1 },
  'search.posts': { resource: 'search', tokenIn: 'cursor', tokenOut: 'cursor', units: 1 },
}

const PROFILE_ID = /^ACoAA[A-Za-z0-9_-]{34}$/

/**
 * The records of an upstream answer in the ingest format, for the store: profiles, company pages,
 * posts and articles (when the request names the author by id). Each still passes ingest's own
 * validation, and one it refuses is simply not kept.
 */
export function recordsOf(operation: DataOperation, body: unknown, input: Record<string, unknown>): unknown[] {
  const b = body as Record<string, unknown>
  const each = (kind: string, items: unknown, extra: Record<string, unknown> = {}) =>
    Array.isArray(items) ? items.map((data: unknown) => ({ kind, data: { ...(data as object), ...extra } })) : []
  switch (operation) {
    case 'profile':
      return [{ kind: 'profile', data: b }]
    case 'company':
      return [{ kind: 'company', data: b }]
    case 'posts':
    case 'company.posts':
      return each('post', b.posts)
    case 'profile.articles': {
      const author = input.profileUrlOrUrn
      return typeof author === 'string' && PROFILE_ID.test(author) ? each('article', b.articles, { authorProfileId: author }) : []
    }
    default:
      return []
  }
}
