/**
 * Requests and responses of every endpoint. Query parameter rules that the schema can state (types,
 * ranges) live here; rules that need context (clamping, `start` must be 0, identifier parsing) live
 * in the content service, so each refusal carries the documented error code.
 */
import Type from 'typebox'
import {
  ArticleSchema,
  BatchResultSchema,
  CommentSchema,
  CompanySchema,
  Nullable,
  PostOlderSchema,
  PostReactionSchema,
  PostSchema,
  ProfileSchema,
  ReactionEntrySchema,
  SearchResponseSchema,
} from './resources.schemas.ts'
import { Defaulted } from './validated.ts'

const closed = { additionalProperties: false } as const
const Id = (description: string) => Type.String({ description })
const IntParam = (description: string, extra: { minimum?: number; maximum?: number } = {}) => Type.Integer({ description, ...extra })
/**
 * A page size from 1 to `max`, `fallback` when omitted. `clamped`: a larger one is served at `max`
 * rather than refused, which JSON Schema cannot state: the service clamps with the number in CLAMPED.
 */
const Count = (o: { max: number; fallback: number; clamped?: boolean; of?: string }) =>
  Defaulted(
    Type.Integer({
      minimum: 1,
      ...(o.clamped ? {} : { maximum: o.max }),
      description: `${o.of ?? ''}1 to ${o.max}, default ${o.fallback}${o.clamped ? '; higher is clamped' : ''}`,
    }),
    o.fallback,
  )
/** An offset, 0 when omitted. */
const Offset = (description = 'offset, default 0') => Defaulted(Type.Integer({ minimum: 0, description }), 0)

/**
 * Values above these are served at them rather than refused: the feeds' own rules, which a JSON Schema
 * cannot state, so the descriptions above and the content service both read them here.
 */
export const CLAMPED = { articlesCount: 100, articlesStart: 100_000, companyPostsCount: 100 } as const

/**
 * Limits of inputs the service reads itself, so that each refusal carries its own wording: the
 * profiles of a posts/updates list (one comma-separated string) and the companies of a batch.
 */
export const LISTS = { updatesProfiles: 60, batchCompanies: 50 } as const

const PROFILE_INPUT = 'profile URN (recommended), bare slug, or profile URL <host>/in/<slug>'
const COMPANY_INPUT = 'company page URL (<host>/company/<slug>, also /school/ and /showcase/), bare slug, or company URN'
const POST_INPUT = 'post URL, or an activity, ugcPost or share URN'

// ---------- Queries ----------

export const ProfileQuery = Type.Object({
  profileUrlOrUrn: Type.Optional(Id(PROFILE_INPUT)),
  fullProfile: Type.Optional(
    Type.Boolean({ description: 'accepted for compatibility: every section is always sent, at the same price' }),
  ),
})

export const ProfileReactionsQuery = Type.Object({
  profileUrlOrUrn: Type.Optional(Id(PROFILE_INPUT)),
  count: Type.Optional(Count({ max: 50, fallback: 10 })),
  start: Type.Optional(IntParam('must be 0 or omitted (cursor pagination)')),
  paginationToken: Type.Optional(Id('cursor from the previous response')),
})

export const ProfileArticlesQuery = Type.Object({
  profileUrlOrUrn: Type.Optional(Id(`${PROFILE_INPUT}; member profiles only`)),
  count: Type.Optional(Count({ max: CLAMPED.articlesCount, fallback: 10, clamped: true })),
  start: Type.Optional(Offset(`offset from the newest, 0 to ${CLAMPED.articlesStart.toLocaleString('en-US')}; higher is capped`)),
})

export const PostsQuery = Type.Object({
  profileUrlOrUrn: Type.Optional(Id(`${PROFILE_INPUT}; also a member URN or a company page`)),
  count: Type.Optional(Count({ max: 50, fallback: 10 })),
  start: Type.Optional(IntParam('must be 0 or omitted (cursor pagination)')),
  paginationToken: Type.Optional(Id('cursor from the previous response')),
})

export const PostsUpdatesQuery = Type.Object({
  profileUrlsOrUrns: Type.Optional(Id(`comma-separated profile URLs or URNs, at most ${LISTS.updatesProfiles}, formats may be mixed`)),
  count: Type.Optional(Count({ max: 100, fallback: 15, of: 'posts per profile, ' })),
})

export const CompanyQuery = Type.Object({ companyUrlOrUrn: Type.Optional(Id(COMPANY_INPUT)) })

export const CompanyPostsQuery = Type.Object({
  companyUrlOrUrn: Type.Optional(Id('company URL, slug, or organization URN (fsd_organizationalPage)')),
  profileUrlOrUrn: Type.Optional(Id('alias of companyUrlOrUrn; companyUrlOrUrn wins when both are given')),
  count: Type.Optional(Count({ max: CLAMPED.companyPostsCount, fallback: 10, clamped: true })),
  start: Type.Optional(IntParam('must be 0 or omitted (cursor pagination)')),
  paginationToken: Type.Optional(Id('cursor from the previous response')),
})

export const CompanyBatchBody = Type.Object(
  {
    companies: Type.Array(Type.String({ minLength: 1 }), {
      minItems: 1,
      maxItems: LISTS.batchCompanies,
      description: 'each a URL, slug or URN accepted by /api/v1/company; duplicates (case-insensitive) are fetched and billed once',
    }),
  },
  { description: 'validated by the service itself, so each refusal names the field or entry at fault' },
)

export const EngagementQuery = Type.Object({
  postUrlOrUrn: Type.Optional(Id(POST_INPUT)),
  commentCount: Type.Optional(Count({ max: 100, fallback: 100 })),
  commentStart: Type.Optional(Offset()),
  commentPaginationToken: Type.Optional(Id('token for the next page of comments')),
  reactionCount: Type.Optional(Count({ max: 100, fallback: 100 })),
  reactionStart: Type.Optional(Offset()),
})

export const CommentsQuery = Type.Object({
  postUrlOrUrn: Type.Optional(Id(POST_INPUT)),
  count: Type.Optional(Count({ max: 100, fallback: 100 })),
  start: Type.Optional(Offset()),
  paginationToken: Type.Optional(Id('token for the next page')),
})

export const PostReactionsQuery = Type.Object({
  postUrlOrUrn: Type.Optional(Id(POST_INPUT)),
  count: Type.Optional(Count({ max: 100, fallback: 100 })),
  start: Type.Optional(Offset()),
})

// ---------- Responses ----------

/**
 * A company page given to /api/v1/profile: the organisation name in firstName, its tagline
 * in title, empty experiences and educations. Its ids are the company's, so the profile-id patterns
 * do not apply.
 */
export const OrganizationProfileSchema = Type.Object(
  {
    ...ProfileSchema.properties,
    profileId: Type.String({ description: 'the numeric company id' }),
    memberId: Type.String({ description: 'the numeric company id' }),
    experiences: Type.Array(Type.Never(), { maxItems: 0 }),
    educations: Type.Array(Type.Never(), { maxItems: 0 }),
  },
  {
    ...closed,
    title: 'CompanyPageProfile',
    description: 'A company page in profile form: its name in firstName, its tagline in title, no experiences or educations.',
  },
)

export const ProfileResponse = Type.Union([ProfileSchema, OrganizationProfileSchema])

export const ProfileReactionsResponse = Type.Object(
  { reactions: Type.Array(ReactionEntrySchema), paginationToken: Type.String(), hasMore: Type.Boolean() },
  { ...closed, title: 'ProfileReactionsPage' },
)

export const ProfileArticlesResponse = Type.Object(
  {
    articles: Type.Array(ArticleSchema),
    hasMore: Type.Boolean(),
    nextStart: Type.Optional(Type.Integer({ description: 'present only when hasMore: previous start plus requested count' })),
  },
  { ...closed, title: 'ArticlesPage' },
)

export const PostsResponse = Type.Object(
  {
    posts: Type.Array(PostSchema),
    paginationToken: Type.String(),
    hasMore: Type.Boolean(),
    pageSize: Type.Integer({ description: 'the count the page was requested with' }),
  },
  { ...closed, title: 'PostsPage' },
)

export const PostsUpdatesResponse = Type.Object({ posts: Type.Array(PostOlderSchema) }, { ...closed, title: 'PostUpdates' })

export const CompanyResponse = CompanySchema

export const CompanyBatchResponse = Type.Object(
  {
    results: Type.Array(BatchResultSchema),
    found: Type.Integer(),
    notFound: Type.Integer({ description: 'entries whose error is a 404' }),
    failed: Type.Integer({ description: 'entries refused or failed otherwise' }),
  },
  { ...closed, title: 'CompanyBatch' },
)

export const CompanyPostsResponse = Type.Object(
  {
    posts: Type.Array(PostSchema),
    paginationToken: Type.Optional(Type.String({ description: 'present only when more posts are available' })),
    hasMore: Type.Boolean(),
    pageSize: Type.Integer({ description: 'rows the feed returned before reposts were removed' }),
  },
  { ...closed, title: 'CompanyPostsPage' },
)

export const EngagementResponse = Type.Object(
  {
    post: Type.String({ description: 'resolved identifier (activity URN)' }),
    comments: Type.Array(CommentSchema),
    commentsPaginationToken: Type.Optional(Type.String()),
    commentsHasMore: Type.Boolean(),
    reactions: Type.Array(PostReactionSchema),
    reactionsHasMore: Type.Boolean(),
  },
  { ...closed, title: 'PostEngagement' },
)

export const CommentsResponse = Type.Object(
  { comments: Type.Array(CommentSchema), paginationToken: Type.Optional(Type.String()), hasMore: Type.Boolean() },
  { ...closed, title: 'CommentsPage' },
)

export const PostReactionsResponse = Type.Object(
  { reactions: Type.Array(PostReactionSchema), hasMore: Type.Boolean() },
  { ...closed, title: 'ReactionsPage' },
)

export { Nullable }

// ---------- Account endpoints: usage and subscription ----------

export const UsageQuery = Type.Object({
  from: Type.Optional(Type.String({ description: 'first UTC day (YYYY-MM-DD), included; default: first day of the current month' })),
  to: Type.Optional(Type.String({ description: 'last UTC day (YYYY-MM-DD), included; default: today' })),
})
export { UsageReportSchema as UsageResponse, SubscriptionSchema as SubscriptionResponse } from './resources.schemas.ts'

// ---------- POST /api/v1/search/posts ----------

const Listed = (description: string) =>
  Type.Union([Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: 10 }), Type.Null()], { description })

/** Documents the body; the service validates it itself so each refusal names its field. */
export const SearchPostsBody = Type.Object(
  {
    query: Type.Optional(
      Nullable(Type.String({ maxLength: 500, description: 'words, "phrases", #hashtags, AND/OR/NOT, parentheses; at most 5 operators, 20 phrases, 5 levels' })),
    ),
    sortBy: Type.Optional(Nullable(Type.Enum(['relevance', 'date'] as const, { type: 'string', description: 'no default; date with a hashtag term is refused' }))),
    postedWithin: Type.Optional(Nullable(Type.Enum(['24h', 'week', 'month'] as const, { type: 'string' }))),
    postedAfter: Type.Optional(
      Type.Union([Type.String(), Type.Integer(), Type.Null()], {
        description: 'ISO 8601 or epoch ms; not in the future, at most 365 days ago; applied after the search',
      }),
    ),
    contentType: Type.Optional(
      Type.Union([
        Type.Array(Type.Enum(['image', 'video', 'liveVideo', 'jobPost', 'document'] as const, { type: 'string' }), { minItems: 1, maxItems: 5 }),
        Type.Null(),
      ]),
    ),
    authorProfiles: Type.Optional(Listed('profile ids (ACoAA…) or profile URLs holding one; bare slugs are refused')),
    authorCompanies: Type.Optional(Listed('numeric page ids, page URNs or page URLs ending in the id')),
    mentionsCompanies: Type.Optional(Listed('numeric page ids, page URNs or page URLs ending in the id')),
    authorJobTitle: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100, description: "a phrase matched against the author's current title" }))),
    maxResults: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 50, default: 50 }))),
    cursor: Type.Optional(Nullable(Type.String({ maxLength: 1024 }))),
  },
  { additionalProperties: false, description: 'send query, or authorProfiles / authorCompanies; null reads as omitted' },
)

export const SearchPostsResponse = SearchResponseSchema
