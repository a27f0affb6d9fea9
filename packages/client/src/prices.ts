/**
 * The documented credit price of a call, for a paging walk's budget before it has seen a price of
 * its own; after the first page the walk goes by what the service charged (X-Credits-Charged), so an
 * operator's own price table is followed from then on.
 */
import type { Input, OperationId } from './operations.ts'

const perBlockOf50 = (count: unknown, fallback: number, max: number): number => {
  const n = typeof count === 'number' && Number.isFinite(count) ? Math.min(Math.max(count, 1), max) : fallback
  return Math.ceil(n / 50)
}

export function documentedPrice<K extends OperationId>(operation: K, input: Input<K>): number {
  const q = input as Record<string, unknown>
  switch (operation) {
    case 'getUsage':
    case 'getSubscription':
      return 0
    case 'getPosts':
    case 'getProfileReactions':
      return perBlockOf50(q.count, 10, 50)
    case 'getCompanyPosts':
    case 'getProfileArticles':
      return perBlockOf50(q.count, 10, 100)
    case 'getPostsUpdates': {
      const profiles = String(q.profileUrlsOrUrns ?? '').split(',').filter((s) => s.trim() !== '').length
      return Math.max(1, Math.ceil(profiles / 15))
    }
    case 'getPostEngagement':
      return 2
    case 'getCompanyBatch': {
      // At most one credit per distinct entry (entries not found are free).
      const companies = Array.isArray(q.companies) ? (q.companies as unknown[]) : []
      return new Set(companies.map((c) => String(c).trim().toLowerCase())).size
    }
    default:
      return 1
  }
}
