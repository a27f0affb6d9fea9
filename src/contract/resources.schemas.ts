/**
 * The API contract: one TypeBox schema per resource of the API, under the real service's field names.
 * These schemas are the single source of truth. Ingest and seeding validate records with them,
 * tests validate every response with them, and /openapi.json is generated from them.
 *
 * Conventions: `Nullable(x)` = present, possibly null. `Type.Optional(x)` = may be omitted.
 * Objects are closed (additionalProperties: false) so a stray field is caught by the tests.
 * Long because it is the whole contract of the resources, read top to bottom like the API's reference.
 */
import Type, { type TSchema } from 'typebox'

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
const closed = { additionalProperties: false } as const
const Str = Type.String()
const Int = Type.Integer()
const NonNegInt = Type.Integer({ minimum: 0 })
/**
 * What PostgreSQL's integer holds, and far past any real count or size: an ingested count is kept
 * alike by both stores and read back as an exact JSON integer (1e21 would be served as `1e+21`, a
 * value past 2^53 would lose digits, and a sum of counts could not be checked).
 */
export const INT32_MAX = 2_147_483_647
const Count = Type.Integer({ minimum: 0, maximum: INT32_MAX })
/** A calendar year: a negative or five-digit year is no date (a negative one would break the duration labels). */
const Year = Type.Integer({ minimum: 1, maximum: 9999 })
const Bool = Type.Boolean()

// ---------- Post ----------

export const POST_TYPES = ['text', 'image', 'document', 'article', 'linkedinVideo'] as const
export const PostTypeSchema = Type.Enum(POST_TYPES, {
  type: 'string',
  title: 'PostType',
  description: 'text, image, document, article, or linkedinVideo for a video',
})

/** The six reaction types of a profile reaction; a post's reaction counts are keyed by them in lower case. */
export const REACTION_TYPES = ['LIKE', 'EMPATHY', 'ENTERTAINMENT', 'INTEREST', 'PRAISE', 'APPRECIATION'] as const
export type ReactionType = (typeof REACTION_TYPES)[number]
/** One of REACTION_TYPES as a whole string, upper or lower case: the key patterns of the count objects. */
const reactionKey = (upper: boolean) => `^(${REACTION_TYPES.map((t) => (upper ? t : t.toLowerCase())).join('|')})$`

// Keyed by lower-case reaction type; only received types are present, so each count is at least 1.
export const ReactionsByTypeSchema = Type.Record(
  Type.String({ pattern: reactionKey(false) }),
  Type.Integer({ minimum: 1, maximum: INT32_MAX }),
  {
    // Without it, a key outside the pattern (`LIKE`, `wow`) would be let through unchecked.
    additionalProperties: false,
    title: 'ReactionCounts',
    description: 'integer counts keyed by lower-case reaction type; only received types (each at least 1); sums to reactionCount',
  },
)

export const ImageSchema = Type.Object({ url: Str, width: Count, height: Count }, { ...closed, title: 'Image' })

export const VideoStreamSchema = Type.Object(
  { url: Str, width: Count, height: Count, bitRate: Count },
  { ...closed, title: 'VideoStream', description: 'one available rendition' },
)

export const VideoSchema = Type.Object(
  {
    url: Str,
    duration: Type.Integer({ minimum: 0, maximum: INT32_MAX, description: 'milliseconds' }),
    thumbnail: Str,
    progressiveStreams: Type.Array(VideoStreamSchema),
  },
  { ...closed, title: 'Video' },
)

export const PostAuthorSchema = Type.Object(
  { urn: Str, name: Str, headline: Str, url: Str, imageUrl: Nullable(Str) },
  { ...closed, title: 'PostAuthor', description: "the author's card, as the author's record stands now" },
)

export const PermissionsSchema = Type.Object(
  {
    canReact: Bool,
    canPostComments: Bool,
    canShare: Bool,
    commentingDisabled: Bool,
    allowedCommentersScope: Str,
    shareAudience: Str,
    isActivity: Bool,
    rootShare: Type.Boolean({ description: 'false when the post quotes another one' }),
  },
  { ...closed, title: 'PostPermissions' },
)

export const PostSchema = Type.Object(
  {
    id: Type.String({ description: 'activity URN' }),
    shareUrn: Type.String({ description: 'share or ugcPost URN' }),
    content: Str,
    date: Type.String({ format: 'date-time', description: 'original publication time, also for edited posts' }),
    reactionCount: Count,
    commentCount: Count,
    sharesCount: Count,
    reactionsByType: ReactionsByTypeSchema,
    postType: PostTypeSchema,
    shareUrl: Str,
    imageUrl: Nullable(Str),
    videoUrl: Nullable(Str),
    carouselPdfUrl: Nullable(Str),
    images: Type.Array(ImageSchema),
    video: Nullable(VideoSchema),
    resharedPostUrn: Type.Optional(Type.String({ description: 'present only on a reshare with commentary' })),
    authorType: Type.Union([Type.Literal('Person'), Type.Literal('Company')]),
    authorProfileId: Type.Optional(Type.String({ description: 'shown on member posts' })),
    profile: PostAuthorSchema,
    permissions: PermissionsSchema,
  },
  { ...closed, title: 'Post', description: 'A post, as member and company feeds list it. A repost without commentary is never listed.' },
)

/** The older, shorter post shape that /api/v1/posts/updates returns. */
export const PostOlderSchema = Type.Object(
  {
    id: Str,
    content: Str,
    date: Type.String({ format: 'date-time' }),
    reactionCount: Count,
    commentCount: Count,
    imageUrl: Nullable(Str),
    videoUrl: Nullable(Str),
    carouselPdfUrl: Nullable(Str),
    profile: PostAuthorSchema,
  },
  { ...closed, title: 'PostUpdate', description: 'The older, shorter post shape of /api/v1/posts/updates.' },
)

/** The trimmed post inside a profile reaction, as the real service sends it. */
export const PostTrimmedSchema = Type.Object(
  {
    id: Str,
    shareUrn: Str,
    content: Str,
    date: Type.String({ format: 'date-time' }),
    reactionCount: Count,
    commentCount: Count,
    sharesCount: Count,
    imageUrl: Nullable(Str),
    videoUrl: Nullable(Str),
    carouselPdfUrl: Nullable(Str),
    profile: PostAuthorSchema,
    reactionsByType: ReactionsByTypeSchema,
    shareUrl: Str,
  },
  { ...closed, title: 'ReactedPost', description: 'The trimmed post inside a profile reaction.' },
)

// ---------- Reaction entry (profile reactions) ----------

export const ReactionTypeSchema = Type.Enum(REACTION_TYPES, { type: 'string', title: 'ReactionType' })

export const ReactionEntrySchema = Type.Object(
  { reactionType: ReactionTypeSchema, post: PostTrimmedSchema },
  { ...closed, title: 'ProfileReaction', description: 'A reaction of the member, with the post it was given to.' },
)

// ---------- Profile ----------

export const YearMonthSchema = Type.Object(
  { year: Year, month: Type.Optional(Type.Integer({ minimum: 1, maximum: 12 })) },
  { ...closed, title: 'YearMonth' },
)

/**
 * An entry's dates: a start with an end (null while ongoing), or only an end. An undated entry has no
 * timePeriod at all, so startDate is never null.
 */
export const TimePeriodSchema = Type.Union(
  [
    Type.Object({ startDate: YearMonthSchema, endDate: Nullable(YearMonthSchema) }, closed),
    Type.Object({ endDate: YearMonthSchema }, closed),
  ],
  { title: 'TimePeriod', description: 'startDate with endDate (null while ongoing), or endDate alone; omitted on an undated entry' },
)

export const ExperienceSchema = Type.Object(
  {
    name: Str,
    jobTitle: Str,
    description: Str,
    dateRange: Str,
    current: Type.Boolean({ description: 'true only for the primary ongoing position' }),
    ongoing: Type.Boolean({ description: 'true for every ongoing position' }),
    totalDuration: Type.Optional(
      Type.String({ description: 'e.g. "2 yrs 3 mos", both ends counted, ongoing runs to today; omitted without a start date' }),
    ),
    positionUrn: Str,
    timePeriod: Type.Optional(TimePeriodSchema),
    company: Type.Object({ url: Str, name: Str, logo: Nullable(Str), companyId: Str, urn: Str }, closed),
  },
  { ...closed, title: 'Experience' },
)

export const EducationSchema = Type.Object(
  {
    name: Str,
    description: Type.String({ description: 'synthesized degree plus field' }),
    dateRange: Str,
    current: Bool,
    educationUrn: Str,
    grade: Str,
    details: Str,
    schoolLogo: Nullable(Str),
    schoolUrl: Str,
    timePeriod: Type.Optional(TimePeriodSchema),
  },
  { ...closed, title: 'Education' },
)

export const SkillSchema = Type.Object({ name: Str, endorsementCount: Count }, { ...closed, title: 'Skill' })
export const LanguageSchema = Type.Object({ name: Str, proficiency: Str }, { ...closed, title: 'Language' })
export const CertificationSchema = Type.Object(
  {
    name: Str,
    issuer: Str,
    issuedAt: Type.String({ pattern: '^\\d{4}-\\d{2}$', description: 'YYYY-MM' }),
    url: Nullable(Str),
    credentialId: Nullable(Str),
    authority: Type.String({ description: 'older duplicate of issuer' }),
    timePeriod: Type.Object({ startDate: YearMonthSchema }, { ...closed, description: 'older duplicate of issuedAt' }),
  },
  { ...closed, title: 'Certification' },
)
export const RecommendationSchema = Type.Object(
  { caption: Str, description: Str, authorFullname: Str, authorUrl: Str },
  { ...closed, title: 'Recommendation' },
)
export const TestScoreSchema = Type.Object({ name: Str, score: Str, date: Str }, { ...closed, title: 'TestScore' })

/** A recommendation the member wrote for someone else: the recipient is named, not the author. */
export const RecommendationGivenSchema = Type.Object(
  { caption: Str, description: Str, recipientFullname: Str, recipientUrl: Str },
  { ...closed, title: 'RecommendationGiven' },
)
export const PublicationSchema = Type.Object(
  {
    name: Str,
    publisher: Str,
    description: Str,
    url: Type.String({ description: 'empty when none' }),
    publishedOn: Type.Optional(YearMonthSchema),
  },
  { ...closed, title: 'Publication' },
)
export const ProjectSchema = Type.Object(
  { title: Str, description: Str, url: Type.String({ description: 'empty when none' }), timePeriod: Type.Optional(TimePeriodSchema) },
  { ...closed, title: 'Project' },
)
export const HonorSchema = Type.Object(
  { title: Str, issuer: Str, description: Str, issuedOn: Type.Optional(YearMonthSchema) },
  { ...closed, title: 'Honor' },
)
export const CourseSchema = Type.Object({ name: Str, number: Type.String({ description: 'course code; empty when none' }) }, { ...closed, title: 'Course' })
export const OrganizationSchema = Type.Object(
  { name: Str, position: Str, description: Str, timePeriod: Type.Optional(TimePeriodSchema) },
  { ...closed, title: 'ProfileOrganization', description: 'an organization the member belongs to' },
)
export const PatentSchema = Type.Object(
  {
    title: Str,
    number: Type.String({ description: 'patent or application number' }),
    issuer: Type.String({ description: 'the patent office, e.g. "US"' }),
    description: Str,
    url: Type.String({ description: 'empty when none' }),
    issuedOn: Type.Optional(YearMonthSchema),
  },
  { ...closed, title: 'Patent' },
)
export const VolunteerExperienceSchema = Type.Object(
  {
    role: Str,
    organization: Str,
    cause: Type.String({ pattern: '^[A-Z_]*$', description: 'upper-case cause, as in volunteerCauses; empty when none' }),
    description: Str,
    timePeriod: Type.Optional(TimePeriodSchema),
  },
  { ...closed, title: 'VolunteerExperience' },
)
export const PrimaryLocaleSchema = Type.Object(
  {
    country: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2, upper case' }),
    language: Type.String({ pattern: '^[a-z]{2}$', description: 'ISO 639-1, lower case' }),
  },
  { ...closed, title: 'PrimaryLocale' },
)

export const CurrentPositionSchema = Type.Object(
  { positionUrn: Str, title: Str, name: Str, companyId: Str, companyUrn: Str, publicIdentifier: Str, url: Str },
  { ...closed, title: 'CurrentPosition', description: 'the current experience' },
)
export const CurrentSchoolSchema = Type.Object(
  { educationUrn: Str, schoolId: Str, name: Str, url: Str, logo: Nullable(Str) },
  { ...closed, title: 'CurrentSchool' },
)

export const ProfileSchema = Type.Object(
  {
    id: Type.String({ description: 'profile URN' }),
    profileId: Type.String({ pattern: '^ACoAA[A-Za-z0-9_-]{34}$' }),
    // At most 19 digits, as every lookup reads numeric ids (64-bit): a longer one could be stored but never named.
    memberId: Type.String({ pattern: '^\\d{1,19}$' }),
    publicIdentifier: Str,
    url: Str,
    firstName: Str,
    lastName: Str,
    title: Str,
    description: Str,
    location: Str,
    geoLocationName: Str,
    geoCountryName: Str,
    countryCode: Type.String({ pattern: '^(?:[A-Z]{2})?$', description: 'ISO 3166-1 alpha-2 country code, upper case; empty when unknown' }),
    geoUrn: Str,
    profilePictureUrl: Str,
    coverImageUrl: Str,
    connectionType: Type.Literal('OUT_OF_NETWORK'),
    creatorInfo: Type.Object({ hashTags: Type.Array(Str), website: Str }, closed),
    jobTitle: Str,
    companyName: Str,
    companyPublicId: Str,
    companyLinkedinUrl: Type.String({ description: 'current company page URL; empty when none' }),
    currentPosition: Nullable(CurrentPositionSchema),
    currentSchool: Nullable(CurrentSchoolSchema),
    followerCount: Count,
    connectionsCount: Count,
    creator: Bool,
    influencer: Bool,
    premium: Bool,
    isVerified: Bool,
    openToWork: Type.Optional(Bool),
    inRemembrance: Bool,
    openProfile: Type.Optional(Bool),
    joinDate: Type.Object({ month: Type.Integer({ minimum: 1, maximum: 12 }), year: Year }, closed),
    pronoun: Type.Optional(Str),
    experiences: Type.Array(ExperienceSchema),
    educations: Type.Array(EducationSchema),
    skills: Type.Array(SkillSchema),
    languages: Type.Array(LanguageSchema),
    certifications: Type.Array(CertificationSchema),
    recommendations: Type.Optional(Type.Array(RecommendationSchema)),
    testScores: Type.Array(TestScoreSchema),
    volunteerCauses: Type.Array(Type.String({ pattern: '^[A-Z_]+$' })),
    hiring: Type.Boolean({ description: 'the member shows they are hiring' }),
    industry: Type.String({ description: "the member's industry label; empty when none" }),
    industryUrn: Type.String({ description: 'urn:li:fsd_industry:<id>; empty when none' }),
    primaryLocale: PrimaryLocaleSchema,
    publications: Type.Array(PublicationSchema),
    projects: Type.Array(ProjectSchema),
    honors: Type.Array(HonorSchema),
    courses: Type.Array(CourseSchema),
    organizations: Type.Array(OrganizationSchema),
    patents: Type.Array(PatentSchema),
    volunteerExperiences: Type.Array(VolunteerExperienceSchema),
    recommendationsGiven: Type.Array(RecommendationGivenSchema),
  },
  {
    ...closed,
    title: 'Profile',
    description: "A member's profile with every section. connectionType is always OUT_OF_NETWORK: the service reads as an outsider.",
  },
)

// ---------- Company ----------

export const COMPANY_TYPE_CODES = [
  'PUBLIC_COMPANY',
  'PRIVATELY_HELD',
  'SELF_EMPLOYED',
  'SELF_OWNED',
  'PARTNERSHIP',
  'GOVERNMENT_AGENCY',
  'NON_PROFIT',
  'EDUCATIONAL',
] as const

export const CompanySchema = Type.Object(
  {
    id: Type.String({ description: 'company URN' }),
    // At most 19 digits, as the page lookups read numeric ids (64-bit).
    companyId: Type.String({ pattern: '^\\d{1,19}$' }),
    name: Type.Optional(Str),
    publicIdentifier: Type.Optional(Str),
    url: Str,
    websiteUrl: Type.Optional(Str),
    domain: Type.Optional(Str),
    industry: Str,
    industryV1: Str,
    employeeCount: Count,
    employeeCountRange: Type.Object(
      { start: Count, end: Type.Optional(Count) },
      { ...closed, description: 'the size class; the top one (10,001 and more) has no end' },
    ),
    headquarter: Type.Optional(
      Type.Object(
        { line1: Str, city: Str, geographicArea: Str, postalCode: Str, country: Str, description: Str, headquarter: Bool },
        closed,
      ),
    ),
    locations: Type.Array(
      Type.Object({ city: Str, geographicArea: Str, country: Str, headquarter: Bool }, closed),
    ),
    followerCount: Count,
    logoUrl: Type.Optional(Str),
    coverImageUrl: Type.Optional(Str),
    description: Type.Optional(Str),
    specialities: Type.Array(Str),
    companyType: Str,
    companyTypeCode: Type.Enum(COMPANY_TYPE_CODES, { type: 'string', title: 'CompanyTypeCode' }),
    hashtags: Type.Array(Str),
  },
  { ...closed, title: 'Company', description: 'A company page (also a school or showcase page).' },
)

// ---------- Article ----------

export const ArticleSchema = Type.Object(
  {
    articleUrn: Type.String({ pattern: '^urn:li:linkedinArticle:\\d+$' }),
    articleId: Type.String({ pattern: '^\\d+$' }),
    title: Str,
    url: Str,
    description: Str,
    publishedAt: Nullable(Type.String({ format: 'date-time', description: 'null when the id does not decode' })),
    coverImageUrl: Nullable(Str),
    readTimeMinutes: Nullable(Count),
    subtitle: Str,
  },
  { ...closed, title: 'Article', description: 'An article the member published.' },
)

// ---------- Comments and post reactions ----------

export const CommentAuthorSchema = Type.Object(
  {
    id: Type.String({ description: 'profile URN, or a company URN for a page' }),
    name: Str,
    headline: Str,
    profilePictureUrl: Type.String({ description: 'empty when the author shows no picture' }),
    profileUrl: Str,
    publicId: Nullable(Str),
    profileId: Nullable(Str),
  },
  { ...closed, title: 'CommentAuthor', description: "the author's card; a page's profileId and publicId are null" },
)

const commentFields = {
  urn: Type.String({ description: 'urn:li:comment:(activity:<postId>,<commentId>)' }),
  text: Str,
  createdAt: Type.String({ format: 'date-time' }),
  reactionCount: Count,
  author: CommentAuthorSchema,
  permalink: Str,
  pinned: Bool,
}

export const ReplySchema = Type.Object(
  { ...commentFields, replies: Type.Array(Type.Never(), { maxItems: 0, description: 'always empty one level down' }) },
  { ...closed, title: 'Reply', description: 'A reply to a comment: a comment whose own replies are always empty.' },
)

export const CommentSchema = Type.Object(
  { ...commentFields, replies: Type.Array(ReplySchema) },
  { ...closed, title: 'Comment', description: 'A comment on a post, with its replies.' },
)

export const PostReactionSchema = Type.Object(
  {
    reactionType: ReactionTypeSchema,
    actor: Type.Object(
      {
        urn: Str,
        name: Str,
        headline: Str,
        profileUrl: Str,
        profilePictureUrl: Type.String({ description: 'empty when the actor shows no picture' }),
        publicId: Nullable(Str),
        profileId: Nullable(Str),
      },
      closed,
    ),
  },
  { ...closed, title: 'Reaction', description: 'A reaction to a post and who gave it. Reactions carry no date.' },
)

// ---------- Search result ----------

/** A search result item: a Post plus isEdited, reactionTypeCounts and the video's dimensions. */
export const SearchResultSchema = Type.Object(
  {
    ...PostSchema.properties,
    video: Nullable(
      Type.Object(
        {
          ...VideoSchema.properties,
          width: Nullable(Count),
          height: Nullable(Count),
        },
        { ...closed, description: 'width/height of the first rendition; null when it has none' },
      ),
    ),
    isEdited: Type.Boolean({ description: "true is the only signal that an edited post's date differs from its edit time" }),
    reactionTypeCounts: Type.Record(Type.String({ pattern: reactionKey(true) }), Type.Integer({ minimum: 1, maximum: INT32_MAX }), {
      additionalProperties: false,
      description: 'the counts of reactionsByType keyed by upper-case reaction type',
    }),
  },
  { ...closed, title: 'SearchResult', description: 'A post found by a search, with isEdited, reactionTypeCounts and the video dimensions.' },
)

export const SearchResponseSchema = Type.Object(
  {
    query: Nullable(Type.String({ description: 'the query as interpreted after normalisation; null on an author-only search' })),
    sort: Nullable(Type.Enum(['relevance', 'date'] as const, { description: 'sortBy as sent; null when omitted' })),
    results: Type.Array(SearchResultSchema, { description: 'de-duplicated by id within the page; may be short or empty' }),
    cursor: Nullable(Type.String({ description: 'opaque; null when the result set is exhausted' })),
    partial: Type.Optional(
      Type.Object(
        { droppedResults: Type.Integer({ minimum: 1 }), reasons: Type.Record(Type.String(), NonNegInt) },
        { ...closed, description: 'present only when cards could not be read and were dropped' },
      ),
    ),
  },
  { ...closed, title: 'SearchResults' },
)

// ---------- Usage report and subscription ----------

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'UTC day, YYYY-MM-DD' })
const usageFigures = { requests: NonNegInt, billableRequests: NonNegInt, creditsUsed: NonNegInt }

export const UsageReportSchema = Type.Object(
  {
    from: Day,
    to: Day,
    creditsRemaining: NonNegInt,
    subscriptionCreditsRemaining: NonNegInt,
    paygCreditsRemaining: NonNegInt,
    ...usageFigures,
    endpoints: Type.Array(
      Type.Object(
        {
          endpoint: Type.String({ description: 'the route, or `unknown` for a path that does not exist' }),
          ...usageFigures,
          statusCodes: Type.Record(Type.String({ pattern: '^\\d{3}$' }), NonNegInt, {
            additionalProperties: false,
            description: 'HTTP status -> count; sums to requests',
          }),
        },
        closed,
      ),
      { description: 'busiest first' },
    ),
    days: Type.Array(Type.Object({ date: Day, ...usageFigures }, closed), {
      description: 'every started UTC day of the range, oldest first, idle days with 0',
    }),
  },
  { ...closed, title: 'Usage', description: 'The balance now, and the calls and credits of a range of UTC days, per endpoint and per day.' },
)

export const SUBSCRIPTION_STATUSES = ['active', 'free', 'trialing', 'past_due', 'incomplete', 'unpaid', 'canceled'] as const

export const SubscriptionSchema = Type.Object(
  {
    plan: Type.Enum(['free', 'custom'] as const, { type: 'string' }),
    active: Bool,
    status: Type.Enum(SUBSCRIPTION_STATUSES, { type: 'string' }),
    creditsRemaining: NonNegInt,
    subscriptionCreditsRemaining: NonNegInt,
    paygCreditsRemaining: NonNegInt,
    paygExpiresAt: Nullable(Type.String({ format: 'date-time' })),
    creditsLimit: NonNegInt,
    creditsUsed: NonNegInt,
    renewalDate: Nullable(Type.String({ format: 'date-time', description: 'null without a plan' })),
    rpsLimit: Type.Integer({ minimum: 1 }),
    cancelAtPeriodEnd: Bool,
  },
  { ...closed, title: 'Subscription', description: "The account's plan, balance, rate limit and billing status." },
)

// ---------- Batch result and error ----------

export const BatchResultSchema = Type.Union(
  [
    Type.Object({ input: Str, company: CompanySchema }, closed),
    Type.Object(
      { input: Str, error: Type.Object({ code: Str, message: Str, status: Int }, closed) },
      closed,
    ),
  ],
  { title: 'CompanyBatchEntry', description: 'one entry of a batch: its company, or why it has none' },
)

export const ErrorSchema = Type.Object(
  {
    error: Type.String({ description: 'what went wrong, in a sentence' }),
    code: Type.String({ description: 'the error code; the status follows from it' }),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'more to say: `parameter` names the input at fault' })),
  },
  { additionalProperties: false, title: 'Error', description: 'Every error answer: a sentence, a code, and details when there is more to say.' },
)

export type Post = Type.Static<typeof PostSchema>
export type PostOlder = Type.Static<typeof PostOlderSchema>
export type PostTrimmed = Type.Static<typeof PostTrimmedSchema>
export type Profile = Type.Static<typeof ProfileSchema>
export type Experience = Type.Static<typeof ExperienceSchema>
export type Company = Type.Static<typeof CompanySchema>
export type Article = Type.Static<typeof ArticleSchema>
export type Comment = Type.Static<typeof CommentSchema>
export type PostReaction = Type.Static<typeof PostReactionSchema>
