/**
 * Ingest records, one NDJSON line each: `{kind, data}` where data is the record in the API's own shape
 * plus the links the shape implies. The synthetic network produces exactly these records, so seeding
 * and `pronet ingest` share one validation and one write path.
 */
import Type from 'typebox'
import {
  ArticleSchema,
  CommentSchema,
  CompanySchema,
  PostSchema,
  ProfileSchema,
  ReactionTypeSchema,
} from './resources.schemas.ts'

const closed = { additionalProperties: false } as const

/** Company page plus the kind of page its public URL uses (`/company/`, `/school/`, `/showcase/`). */
export const CompanyRecordSchema = Type.Object(
  {
    ...CompanySchema.properties,
    pageType: Type.Optional(Type.Union([Type.Literal('company'), Type.Literal('school'), Type.Literal('showcase')])),
  },
  closed,
)

/** A Post plus the facts a post list never shows but filtering and search need. */
export const PostRecordSchema = Type.Object(
  {
    ...PostSchema.properties,
    repostOf: Type.Optional(
      Type.String({ description: 'activity URN of the reposted post; marks a repost without commentary (never listed)' }),
    ),
    isEdited: Type.Optional(Type.Boolean()),
    mentionsCompanies: Type.Optional(Type.Array(Type.String({ pattern: '^\\d{1,19}$' }), { maxItems: 50 })),
    liveVideo: Type.Optional(Type.Boolean()),
    jobPost: Type.Optional(Type.Boolean()),
  },
  closed,
)

export const ArticleRecordSchema = Type.Object(
  { ...ArticleSchema.properties, authorProfileId: Type.String({ pattern: '^ACoAA[A-Za-z0-9_-]{34}$' }) },
  closed,
)

/**
 * A comment or a reply. Its post and id come from `urn`; its author is linked by `author.id` and the
 * card (name, headline, picture) is read from that profile or company, so it stays current.
 */
export const CommentRecordSchema = Type.Object(
  {
    urn: Type.String({ pattern: '^urn:li:comment:\\((activity|ugcPost):\\d+,\\d+\\)$' }),
    text: CommentSchema.properties.text,
    createdAt: CommentSchema.properties.createdAt,
    reactionCount: CommentSchema.properties.reactionCount,
    pinned: Type.Optional(Type.Boolean()),
    author: Type.Object({ id: Type.String() }),
    parentCommentId: Type.Optional(Type.String({ pattern: '^\\d+$', description: 'set on a reply' })),
  },
  closed,
)

/** One reaction to a post; the actor card is read from the linked profile or company. */
export const PostReactionRecordSchema = Type.Object(
  {
    postId: Type.String({ description: 'activity URN or id' }),
    reactionType: ReactionTypeSchema,
    actor: Type.Object({ urn: Type.String() }),
  },
  closed,
)

/** A member's reaction to a post (the feed of /api/v1/profile/reactions). */
export const ProfileReactionRecordSchema = Type.Object(
  {
    profileId: Type.String({ pattern: '^ACoAA[A-Za-z0-9_-]{34}$' }),
    postId: Type.String({ description: 'activity URN or id' }),
    reactionType: ReactionTypeSchema,
    reactedAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  closed,
)

export const INGEST_KINDS = {
  profile: ProfileSchema,
  company: CompanyRecordSchema,
  post: PostRecordSchema,
  article: ArticleRecordSchema,
  comment: CommentRecordSchema,
  postReaction: PostReactionRecordSchema,
  profileReaction: ProfileReactionRecordSchema,
} as const

export type IngestKind = keyof typeof INGEST_KINDS

export type ProfileRecord = Type.Static<typeof ProfileSchema>
export type CompanyRecord = Type.Static<typeof CompanyRecordSchema>
export type PostRecord = Type.Static<typeof PostRecordSchema>
export type ArticleRecord = Type.Static<typeof ArticleRecordSchema>
export type CommentRecord = Type.Static<typeof CommentRecordSchema>
export type PostReactionRecord = Type.Static<typeof PostReactionRecordSchema>
export type ProfileReactionRecord = Type.Static<typeof ProfileReactionRecordSchema>

export type IngestRecord =
  | { kind: 'profile'; data: ProfileRecord }
  | { kind: 'company'; data: CompanyRecord }
  | { kind: 'post'; data: PostRecord }
  | { kind: 'article'; data: ArticleRecord }
  | { kind: 'comment'; data: CommentRecord }
  | { kind: 'postReaction'; data: PostReactionRecord }
  | { kind: 'profileReaction'; data: ProfileReactionRecord }
