/** PronetClient: a method per endpoint, the paging walks and the batch helper, over `call`. */
import { companyBatchRetrying, type BatchOutcome, type BatchRetryOptions } from './batch.ts'
import { CallCore, type CallOptions, type ClientOptions } from './client.ts'
import type { Result } from './meta.ts'
import type { Input, OperationId, Output } from './operations.ts'
import {
  articlesFeed,
  engagementFeed,
  Paginator,
  postReactionsFeed,
  searchFeed,
  tokenFeed,
  type EngagementItem,
  type SearchResultItem,
  type WalkOptions,
} from './paging.ts'

/** A walk's input: the operation's, less the parameters the walk sets page by page. */
type Walk<K extends OperationId, Paged extends string> = Omit<Input<K>, Paged>

export type Post = Output<'getPosts'>['posts'][number]
export type CompanyPost = Output<'getCompanyPosts'>['posts'][number]
export type ProfileReaction = Output<'getProfileReactions'>['reactions'][number]
export type Article = Output<'getProfileArticles'>['articles'][number]
export type Comment = Output<'getPostComments'>['comments'][number]
export type PostReaction = Output<'getPostReactions'>['reactions'][number]
export type Profile = Output<'getProfile'>
export type Company = Output<'getCompany'>

export class PronetClient extends CallCore {
  constructor(options: ClientOptions) {
    super(options)
  }

  getProfile(input: Input<'getProfile'>, options?: CallOptions): Promise<Result<Output<'getProfile'>>> {
    return this.call('getProfile', input, options)
  }
  getProfileReactions(input: Input<'getProfileReactions'>, options?: CallOptions): Promise<Result<Output<'getProfileReactions'>>> {
    return this.call('getProfileReactions', input, options)
  }
  getProfileArticles(input: Input<'getProfileArticles'>, options?: CallOptions): Promise<Result<Output<'getProfileArticles'>>> {
    return this.call('getProfileArticles', input, options)
  }
  getPosts(input: Input<'getPosts'>, options?: CallOptions): Promise<Result<Output<'getPosts'>>> {
    return this.call('getPosts', input, options)
  }
  getPostsUpdates(input: Input<'getPostsUpdates'>, options?: CallOptions): Promise<Result<Output<'getPostsUpdates'>>> {
    return this.call('getPostsUpdates', input, options)
  }
  getCompany(input: Input<'getCompany'>, options?: CallOptions): Promise<Result<Output<'getCompany'>>> {
    return this.call('getCompany', input, options)
  }
  /** POST /api/v1/company/batch: per-entry errors come inside the 200 (see companyBatchRetrying). */
  getCompanyBatch(input: Input<'getCompanyBatch'>, options?: CallOptions): Promise<Result<Output<'getCompanyBatch'>>> {
    return this.call('getCompanyBatch', input, options)
  }
  getCompanyPosts(input: Input<'getCompanyPosts'>, options?: CallOptions): Promise<Result<Output<'getCompanyPosts'>>> {
    return this.call('getCompanyPosts', input, options)
  }
  getPostEngagement(input: Input<'getPostEngagement'>, options?: CallOptions): Promise<Result<Output<'getPostEngagement'>>> {
    return this.call('getPostEngagement', input, options)
  }
  getPostComments(input: Input<'getPostComments'>, options?: CallOptions): Promise<Result<Output<'getPostComments'>>> {
    return this.call('getPostComments', input, options)
  }
  getPostReactions(input: Input<'getPostReactions'>, options?: CallOptions): Promise<Result<Output<'getPostReactions'>>> {
    return this.call('getPostReactions', input, options)
  }
  /** POST /api/v1/search/posts: one page; iterateSearch walks the cursor. */
  searchPosts(input: Input<'searchPosts'>, options?: CallOptions): Promise<Result<Output<'searchPosts'>>> {
    return this.call('searchPosts', input, options)
  }
  getUsage(input: Input<'getUsage'> = {}, options?: CallOptions): Promise<Result<Output<'getUsage'>>> {
    return this.call('getUsage', input, options)
  }
  /** Takes no parameters; its `input` is there so that every method is `(input, options)`. */
  getSubscription(input: Input<'getSubscription'> = {}, options?: CallOptions): Promise<Result<Output<'getSubscription'>>> {
    return this.call('getSubscription', input, options)
  }

  /** Every post of a member (or page) by token. */
  iteratePosts(input: Walk<'getPosts', 'paginationToken' | 'start'>, options?: WalkOptions): Paginator<'getPosts', Post> {
    return new Paginator(this, tokenFeed('getPosts', input, (p) => p.posts), options)
  }
  /** Every post of a company page by token. */
  iterateCompanyPosts(input: Walk<'getCompanyPosts', 'paginationToken' | 'start'>, options?: WalkOptions): Paginator<'getCompanyPosts', CompanyPost> {
    return new Paginator(this, tokenFeed('getCompanyPosts', input, (p) => p.posts), options)
  }
  /** Every reaction of a member by token. */
  iterateProfileReactions(
    input: Walk<'getProfileReactions', 'paginationToken' | 'start'>,
    options?: WalkOptions,
  ): Paginator<'getProfileReactions', ProfileReaction> {
    return new Paginator(this, tokenFeed('getProfileReactions', input, (p) => p.reactions), options)
  }
  /** Every comment of a post by token. */
  iteratePostComments(input: Walk<'getPostComments', 'paginationToken' | 'start'>, options?: WalkOptions): Paginator<'getPostComments', Comment> {
    return new Paginator(this, tokenFeed('getPostComments', input, (p) => p.comments), options)
  }
  /** Every article of a member by offset (`start` may set where to begin). */
  iterateProfileArticles(input: Input<'getProfileArticles'>, options?: WalkOptions): Paginator<'getProfileArticles', Article> {
    return new Paginator(this, articlesFeed(input), options)
  }
  /** Every reaction to a post by offset (`start` may set where to begin). */
  iteratePostReactions(input: Input<'getPostReactions'>, options?: WalkOptions): Paginator<'getPostReactions', PostReaction> {
    return new Paginator(this, postReactionsFeed(input), options)
  }
  /** Every comment and every reaction of a post through the engagement view. */
  iterateEngagement(input: Walk<'getPostEngagement', 'commentPaginationToken'>, options?: WalkOptions): Paginator<'getPostEngagement', EngagementItem> {
    return new Paginator(this, engagementFeed(input), options)
  }
  /** Every result of a search to its depth, each post once. */
  iterateSearch(input: Walk<'searchPosts', 'cursor'>, options?: WalkOptions): Paginator<'searchPosts', SearchResultItem> {
    return new Paginator(this, searchFeed(input), options)
  }

  /** The company batch with the entries refused for the rate sent again in further calls. */
  companyBatchRetrying(companies: readonly string[], options?: BatchRetryOptions): Promise<BatchOutcome> {
    return companyBatchRetrying(this, companies, options)
  }
}

export function createClient(options: ClientOptions): PronetClient {
  return new PronetClient(options)
}
