/**
 * Walks of every paged list as async iterators: by token (posts, company posts, profile reactions,
 * comments), by offset (articles, post reactions), both at once (the engagement view: comments by
 * token, reactions by offset) and by search cursor. Each follows the service's own end signal
 * (`hasMore`, or a null cursor) rather than a page's length, so it neither repeats nor skips, and can
 * stop at a credit budget before a call that could pass it.
 */
import type { CallOptions, Caller } from './client.ts'
import type { Result } from './meta.ts'
import type { Input, OperationId, Output } from './operations.ts'
import { documentedPrice } from './prices.ts'

export interface WalkOptions extends Omit<CallOptions, 'idempotencyKey'> {
  /**
   * Credits the walk may spend. It stops, without calling, when the next call's price would take it
   * past this; the price is the previous page's X-Credits-Charged, or the documented one before any.
   */
  maxCredits?: number
}

export type StopReason = 'end' | 'budget'

/** A paging step: the items of a page, and the input of the next page (undefined at the end). */
export interface Stepper<K extends OperationId, Item> {
  readonly operation: K
  readonly first: Input<K>
  take(page: Output<K>, sent: Input<K>): { items: Item[]; next: Input<K> | undefined }
  /** Items already yielded under the same key are left out (search results can recur across pages). */
  key?: (item: Item) => string
}

/** A list that pages: iterate it for its items, or `pages()` for each answer with its meta. */
export class Paginator<K extends OperationId, Item> implements AsyncIterable<Item> {
  /** Credits the latest walk spent. */
  creditsSpent = 0
  /** Calls the latest walk made. */
  calls = 0
  /** Why the latest walk stopped; undefined while it runs or when the caller left it early. */
  stopped: StopReason | undefined

  readonly #caller: Caller
  readonly #stepper: () => Stepper<K, Item>
  readonly #options: WalkOptions

  constructor(caller: Caller, stepper: () => Stepper<K, Item>, options: WalkOptions = {}) {
    this.#caller = caller
    this.#stepper = stepper
    this.#options = options
  }

  async *#walk(): AsyncGenerator<{ page: Result<Output<K>>; items: Item[] }> {
    const stepper = this.#stepper()
    const { maxCredits, ...callOptions } = this.#options
    this.creditsSpent = 0
    this.calls = 0
    this.stopped = undefined
    const seen = stepper.key ? new Set<string>() : undefined
    let input: Input<K> | undefined = stepper.first
    let price = documentedPrice(stepper.operation, stepper.first)
    while (input !== undefined) {
      if (maxCredits !== undefined && this.creditsSpent + price > maxCredits) {
        this.stopped = 'budget'
        return
      }
      const page: Result<Output<K>> = await this.#caller.call(stepper.operation, input, callOptions)
      this.calls++
      this.creditsSpent += page.meta.creditsCharged
      const step: { items: Item[]; next: Input<K> | undefined } = stepper.take(page.data, input)
      let items = step.items
      if (seen && stepper.key) {
        const key = stepper.key
        items = items.filter((item) => {
          const k = key(item)
          if (seen.has(k)) return false
          seen.add(k)
          return true
        })
      }
      input = step.next
      if (input !== undefined) price = page.meta.creditsCharged > 0 ? page.meta.creditsCharged : documentedPrice(stepper.operation, input)
      yield { page, items }
    }
    this.stopped = 'end'
  }

  /** Every answer of the walk, as received (search pages are not de-duplicated here). */
  async *pages(): AsyncGenerator<Result<Output<K>>> {
    for await (const { page } of this.#walk()) yield page
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item> {
    for await (const { items } of this.#walk()) yield* items
  }

  /** Every item of the walk. */
  async toArray(): Promise<Item[]> {
    const out: Item[] = []
    for await (const item of this) out.push(item)
    return out
  }
}

/** A paged answer that says more remain but gives no way to ask for them. */
export class PronetPagingError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'PronetPagingError'
  }
}

type TokenFeed = 'getPosts' | 'getCompanyPosts' | 'getProfileReactions' | 'getPostComments'
type TokenPage = { hasMore: boolean; paginationToken?: string }

/** Feeds paged by `paginationToken`, ending when `hasMore` is false. */
export function tokenFeed<K extends TokenFeed, Item>(operation: K, first: Input<K>, items: (page: Output<K>) => Item[]): () => Stepper<K, Item> {
  return () => ({
    operation,
    first,
    take(page, sent) {
      const p = page as TokenPage
      if (!p.hasMore) return { items: items(page), next: undefined }
      if (!p.paginationToken) throw new PronetPagingError(`${operation} answered hasMore without a paginationToken`)
      // Every token feed takes its next page's token as `paginationToken` (checked by TokenFeed's members).
      const next = { ...(sent as Record<string, unknown>), paginationToken: p.paginationToken } as Input<K>
      return { items: items(page), next }
    },
  })
}

/** Profile articles, by `start`: the next page at `nextStart`, until a page says `hasMore: false`. */
export function articlesFeed(first: Input<'getProfileArticles'>): () => Stepper<'getProfileArticles', Output<'getProfileArticles'>['articles'][number]> {
  return () => ({
    operation: 'getProfileArticles',
    first,
    take(page, sent) {
      if (!page.hasMore) return { items: page.articles, next: undefined }
      // nextStart is the previous start plus the count asked for, whatever the page held.
      const next = page.nextStart ?? (sent.start ?? 0) + (sent.count ?? 10)
      return { items: page.articles, next: { ...sent, start: next } }
    },
  })
}

/** Reactions of a post, by offset: `start` advances by the count asked for while `hasMore`. */
export function postReactionsFeed(first: Input<'getPostReactions'>): () => Stepper<'getPostReactions', Output<'getPostReactions'>['reactions'][number]> {
  return () => ({
    operation: 'getPostReactions',
    first,
    take(page, sent) {
      if (!page.hasMore) return { items: page.reactions, next: undefined }
      return { items: page.reactions, next: { ...sent, start: (sent.start ?? 0) + (sent.count ?? 100) } }
    },
  })
}

export type EngagementComment = Output<'getPostEngagement'>['comments'][number]
export type EngagementReaction = Output<'getPostEngagement'>['reactions'][number]
export type EngagementItem = { type: 'comment'; comment: EngagementComment } | { type: 'reaction'; reaction: EngagementReaction }

/**
 * The engagement view: each call brings a page of comments (by token) and one of reactions (by
 * offset). A half that has ended is asked for one item, left out, until the other half ends too.
 */
export function engagementFeed(first: Input<'getPostEngagement'>): () => Stepper<'getPostEngagement', EngagementItem> {
  return () => {
    let commentsDone = false
    let reactionsDone = false
    return {
      operation: 'getPostEngagement',
      first,
      take(page, sent) {
        const items: EngagementItem[] = [
          ...(commentsDone ? [] : page.comments.map((comment): EngagementItem => ({ type: 'comment', comment }))),
          ...(reactionsDone ? [] : page.reactions.map((reaction): EngagementItem => ({ type: 'reaction', reaction }))),
        ]
        const next: Input<'getPostEngagement'> = { ...sent }
        if (!commentsDone) {
          if (page.commentsHasMore) {
            if (!page.commentsPaginationToken) throw new PronetPagingError('getPostEngagement answered commentsHasMore without a commentsPaginationToken')
            next.commentPaginationToken = page.commentsPaginationToken
          } else {
            commentsDone = true
          }
        }
        if (commentsDone) {
          delete next.commentPaginationToken
          next.commentCount = 1
        }
        if (!reactionsDone) {
          next.reactionStart = (sent.reactionStart ?? 0) + (sent.reactionCount ?? 100)
          if (!page.reactionsHasMore) reactionsDone = true
        }
        if (reactionsDone) next.reactionCount = 1
        return { items, next: commentsDone && reactionsDone ? undefined : next }
      },
    }
  }
}

export type SearchResultItem = Output<'searchPosts'>['results'][number]

/**
 * A search, cursor by cursor until the cursor is null (the query's depth). The result set is live,
 * so a post can come back on a later page: each is yielded once.
 */
export function searchFeed(first: Input<'searchPosts'>): () => Stepper<'searchPosts', SearchResultItem> {
  return () => ({
    operation: 'searchPosts',
    first,
    key: (item) => item.id,
    take(page, sent) {
      return { items: page.results, next: page.cursor === null ? undefined : { ...sent, cursor: page.cursor } }
    },
  })
}
