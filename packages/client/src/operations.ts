/**
 * The API's operations as the client sends them: method, path and whether the call takes an
 * Idempotency-Key, checked at compile time against the types generated from /openapi.json, so an
 * operation added, renamed or moved there fails the build here until this table follows.
 */
import type { operations, paths } from './openapi.gen.ts'

export type OperationId = keyof operations

type Operation<K extends OperationId> = operations[K]
// An absent part is declared `never` in the generated types: matched as such before anything is inferred from it.
type Part<T> = [NonNullable<T>] extends [never] ? never : NonNullable<T>
type QueryOf<O> = O extends { parameters: { query?: unknown } } ? Part<O['parameters']['query']> : never
type JsonOf<R> = [R] extends [never] ? never : R extends { content: { 'application/json': infer B } } ? B : never
type BodyOf<O> = O extends { requestBody?: unknown } ? JsonOf<Part<O['requestBody']>> : never
type HeadersOf<O> = O extends { parameters: { header?: unknown } } ? Part<O['parameters']['header']> : never

/** What an operation takes: its JSON body for a POST, its query parameters for a GET. */
export type Input<K extends OperationId> = [BodyOf<Operation<K>>] extends [never]
  ? [QueryOf<Operation<K>>] extends [never]
    ? Record<string, never>
    : QueryOf<Operation<K>>
  : BodyOf<Operation<K>>

/** The body of an operation's 200 answer. */
export type Output<K extends OperationId> = Operation<K>['responses'][200]['content']['application/json']

/** The error codes /openapi.json lists for an operation, over all its statuses. */
export type ErrorCodeOf<K extends OperationId> = {
  [S in keyof Operation<K>['responses']]: Operation<K>['responses'][S] extends { content: { 'application/json': { code: infer C } } } ? C : never
}[keyof Operation<K>['responses']]

/** Every error code any operation lists. */
export type DocumentedErrorCode = { [K in OperationId]: ErrorCodeOf<K> }[OperationId]

export interface Route {
  readonly method: 'GET' | 'POST'
  readonly path: keyof paths
  /** Billed calls take an Idempotency-Key: a retry of one is never billed twice. */
  readonly keyed: boolean
}

export const OPERATIONS = {
  getUsage: { method: 'GET', path: '/api/v1/usage', keyed: false },
  getSubscription: { method: 'GET', path: '/api/v1/subscription', keyed: false },
  getProfile: { method: 'GET', path: '/api/v1/profile', keyed: true },
  getProfileReactions: { method: 'GET', path: '/api/v1/profile/reactions', keyed: true },
  getProfileArticles: { method: 'GET', path: '/api/v1/profile/articles', keyed: true },
  getPosts: { method: 'GET', path: '/api/v1/posts', keyed: true },
  getPostsUpdates: { method: 'GET', path: '/api/v1/posts/updates', keyed: true },
  getCompany: { method: 'GET', path: '/api/v1/company', keyed: true },
  getCompanyBatch: { method: 'POST', path: '/api/v1/company/batch', keyed: true },
  getCompanyPosts: { method: 'GET', path: '/api/v1/company/posts', keyed: true },
  getPostEngagement: { method: 'GET', path: '/api/v1/post/engagement', keyed: true },
  getPostComments: { method: 'GET', path: '/api/v1/post/comments', keyed: true },
  getPostReactions: { method: 'GET', path: '/api/v1/post/reactions', keyed: true },
  searchPosts: { method: 'POST', path: '/api/v1/search/posts', keyed: true },
} as const satisfies { readonly [K in OperationId]: Route }

type Table = typeof OPERATIONS
type Served<K extends OperationId> = paths[Table[K]['path']][Lowercase<Table[K]['method']>]
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
type TakesKey<K extends OperationId> = 'Idempotency-Key' extends keyof HeadersOf<Operation<K>> ? true : false
/** true for every operation whose path, method and key header in the table are those of /openapi.json. */
type TableMatches = { [K in OperationId]: Same<Served<K>, Operation<K>> extends true ? Same<TakesKey<K>, Table[K]['keyed']> : false }[OperationId]
const tableMatches: TableMatches = true
void tableMatches
