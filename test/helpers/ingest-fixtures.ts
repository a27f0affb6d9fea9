/**
 * Hand-written ingest records of every kind, valid against the contract schemas and the content
 * writer's rules, in dependency order: pages and members before what links to them.
 * Typed with the contract's record types so a schema change breaks these at compile time.
 */
import type {
  ArticleRecord,
  CommentRecord,
  CompanyRecord,
  IngestRecord,
  PostRecord,
  PostReactionRecord,
  ProfileReactionRecord,
  ProfileRecord,
} from '../../src/contract/ingest.schemas.ts'
import { idFromTime, isoFromId } from '../../src/domain/content/ids.ts'

/** The clock of the tests: after every id below, so article dates decode (a date decodes only up to now). */
export const FIXTURE_NOW = Date.UTC(2025, 5, 1, 12, 0, 0)
const HOST = 'www.linkedin.com'

/** A valid profileId, `ACoAA` and 34 characters, distinct per `n`. */
export const profileIdFor = (n: number): string => `ACoAA${'Fx'.repeat(15)}${String(n).padStart(4, '0')}`
export const profileUrn = (profileId: string): string => `urn:li:fsd_profile:${profileId}`
export const companyUrn = (companyId: string): string => `urn:li:fsd_company:${companyId}`
export const activityUrn = (id: string): string => `urn:li:activity:${id}`

export const COMPANY_ID = '1035'
export const AUTHOR_ID = profileIdFor(1)
export const READER_ID = profileIdFor(2)

export function companyRecord(companyId: string = COMPANY_ID): CompanyRecord {
  return {
    id: companyUrn(companyId),
    companyId,
    name: 'Northwind Analytics',
    publicIdentifier: `northwind-${companyId}`,
    url: `https://${HOST}/company/northwind-${companyId}/`,
    websiteUrl: 'https://www.northwind.example',
    domain: 'northwind.example',
    industry: 'Software Development',
    industryV1: 'Computer Software',
    employeeCount: 420,
    employeeCountRange: { start: 201, end: 500 },
    headquarter: {
      line1: '1 Harbour Street',
      city: 'Leeds',
      geographicArea: 'England',
      postalCode: 'LS1 4AB',
      country: 'GB',
      description: 'Head office',
      headquarter: true,
    },
    locations: [{ city: 'Leeds', geographicArea: 'England', country: 'GB', headquarter: true }],
    followerCount: 12_345,
    logoUrl: 'https://media.example/northwind-logo.png',
    coverImageUrl: 'https://media.example/northwind-cover.png',
    description: 'Analytics for shipping companies.',
    specialities: ['analytics', 'logistics'],
    companyType: 'Privately Held',
    companyTypeCode: 'PRIVATELY_HELD',
    hashtags: ['#logistics'],
    pageType: 'company',
  }
}

export function profileRecord(n: number, opts: { slug?: string; companyId?: string } = {}): ProfileRecord {
  const profileId = profileIdFor(n)
  const slug = opts.slug ?? `member-${n}`
  const companyId = opts.companyId ?? COMPANY_ID
  const company = companyRecord(companyId)
  const positionUrn = `urn:li:fsd_profilePosition:(${profileId},${2000 + n})`
  return {
    id: profileUrn(profileId),
    profileId,
    memberId: String(90_000 + n),
    publicIdentifier: slug,
    url: `https://${HOST}/in/${slug}/`,
    firstName: `Ada${n}`,
    lastName: 'Okafor',
    title: 'Data engineer at Northwind',
    description: 'Builds pipelines.',
    location: 'Leeds, England, United Kingdom',
    geoLocationName: 'Leeds, England',
    geoCountryName: 'United Kingdom',
    countryCode: 'GB',
    geoUrn: 'urn:li:fsd_geo:102299470',
    profilePictureUrl: `https://media.example/p${n}.jpg`,
    coverImageUrl: `https://media.example/c${n}.jpg`,
    connectionType: 'OUT_OF_NETWORK',
    creatorInfo: { hashTags: ['#data'], website: '' },
    jobTitle: 'Data engineer',
    companyName: company.name as string,
    companyPublicId: company.publicIdentifier as string,
    companyLinkedinUrl: company.url,
    currentPosition: {
      positionUrn,
      title: 'Data engineer',
      name: company.name as string,
      companyId,
      companyUrn: companyUrn(companyId),
      publicIdentifier: company.publicIdentifier as string,
      url: company.url,
    },
    currentSchool: null,
    followerCount: 310,
    connectionsCount: 280,
    creator: false,
    influencer: false,
    premium: false,
    isVerified: true,
    openToWork: false,
    inRemembrance: false,
    joinDate: { month: 3, year: 2014 },
    experiences: [
      {
        name: company.name as string,
        jobTitle: 'Data engineer',
        description: 'Shipping analytics.',
        dateRange: 'Jan 2021 - Present',
        current: true,
        ongoing: true,
        positionUrn,
        timePeriod: { startDate: { year: 2021, month: 1 }, endDate: null },
        company: {
          url: company.url,
          name: company.name as string,
          logo: company.logoUrl ?? null,
          companyId,
          urn: companyUrn(companyId),
        },
      },
    ],
    educations: [],
    skills: [{ name: 'SQL', endorsementCount: 12 }],
    languages: [{ name: 'English', proficiency: 'NATIVE_OR_BILINGUAL' }],
    certifications: [],
    recommendations: [],
    testScores: [],
    volunteerCauses: [],
    hiring: false,
    industry: 'Software Development',
    industryUrn: 'urn:li:fsd_industry:4',
    primaryLocale: { country: 'GB', language: 'en' },
    publications: [],
    projects: [],
    honors: [],
    courses: [],
    organizations: [],
    patents: [],
    volunteerExperiences: [],
    recommendationsGiven: [],
  }
}

const PERMISSIONS: PostRecord['permissions'] = {
  canReact: true,
  canPostComments: true,
  canShare: true,
  commentingDisabled: false,
  allowedCommentersScope: 'ALL',
  shareAudience: 'PUBLIC',
  isActivity: true,
  rootShare: true,
}

/** A member's text post; `at` and `low` make the activity id (its top bits are the time), the share id follows it. */
export function personPostRecord(
  profileId: string,
  at: number,
  low: number,
  extra: Partial<PostRecord> = {},
): PostRecord {
  const id = idFromTime(at, low)
  const reactionsByType = extra.reactionsByType ?? { like: 2, praise: 1 }
  return {
    id: activityUrn(id),
    shareUrn: `urn:li:share:${id}`,
    content: `Post ${low} about shipping data`,
    date: isoFromId(id),
    reactionCount: Object.values(reactionsByType).reduce((a, b) => a + b, 0),
    commentCount: 2,
    sharesCount: 0,
    reactionsByType,
    postType: 'text',
    shareUrl: `https://${HOST}/feed/update/${activityUrn(id)}/`,
    imageUrl: null,
    videoUrl: null,
    carouselPdfUrl: null,
    images: [],
    video: null,
    authorType: 'Person',
    authorProfileId: profileId,
    profile: {
      urn: profileUrn(profileId),
      name: 'Ada Okafor',
      headline: 'Data engineer at Northwind',
      url: `https://${HOST}/in/member/`,
      imageUrl: null,
    },
    // 2.2: a post that reshares another is no root share.
    permissions: extra.resharedPostUrn === undefined ? PERMISSIONS : { ...PERMISSIONS, rootShare: false },
    ...extra,
  }
}

export function companyPostRecord(companyId: string, at: number, low: number): PostRecord {
  const id = idFromTime(at, low)
  const image = { url: 'https://media.example/chart.png', width: 1200, height: 627 }
  return {
    id: activityUrn(id),
    shareUrn: `urn:li:ugcPost:${id}`,
    content: 'Our quarterly shipping index is out.',
    date: isoFromId(id),
    reactionCount: 5,
    commentCount: 0,
    sharesCount: 1,
    reactionsByType: { like: 4, interest: 1 },
    postType: 'image',
    shareUrl: `https://${HOST}/feed/update/${activityUrn(id)}/`,
    imageUrl: image.url,
    videoUrl: null,
    carouselPdfUrl: null,
    images: [image],
    video: null,
    authorType: 'Company',
    profile: {
      urn: companyUrn(companyId),
      name: 'Northwind Analytics',
      headline: 'Analytics for shipping companies.',
      url: `https://${HOST}/company/northwind-${companyId}/`,
      imageUrl: 'https://media.example/northwind-logo.png',
    },
    permissions: PERMISSIONS,
    mentionsCompanies: [],
  }
}

export function articleRecord(profileId: string, at: number, low: number): ArticleRecord {
  const articleId = idFromTime(at, low)
  return {
    articleUrn: `urn:li:linkedinArticle:${articleId}`,
    articleId,
    title: 'What a shipping index tells you',
    url: `https://${HOST}/pulse/what-a-shipping-index-tells-you-${articleId}/`,
    description: 'An index is only as good as the data behind it.',
    publishedAt: isoFromId(articleId),
    coverImageUrl: null,
    readTimeMinutes: 4,
    subtitle: 'Data engineer at Northwind · 4 min read',
    authorProfileId: profileId,
  }
}

export function commentRecord(
  postId: string,
  commentId: string,
  authorUrn: string,
  extra: Partial<CommentRecord> = {},
): CommentRecord {
  return {
    urn: `urn:li:comment:(activity:${postId},${commentId})`,
    text: 'Useful, thanks.',
    createdAt: isoFromId(commentId),
    reactionCount: 1,
    author: { id: authorUrn },
    ...extra,
  }
}

// Times of the fixture network, all before FIXTURE_NOW.
const T_PERSON_POST = Date.UTC(2025, 0, 10, 9, 0, 0)
const T_COMPANY_POST = Date.UTC(2025, 0, 12, 9, 0, 0)
const T_REPOST = Date.UTC(2025, 0, 13, 9, 0, 0)
const T_ARTICLE = Date.UTC(2024, 10, 2, 8, 0, 0)
const T_COMMENT = Date.UTC(2025, 0, 10, 10, 0, 0)
const T_REPLY = Date.UTC(2025, 0, 10, 11, 0, 0)

export const PERSON_POST_ID = idFromTime(T_PERSON_POST, 1)
export const COMPANY_POST_ID = idFromTime(T_COMPANY_POST, 2)
export const REPOST_ID = idFromTime(T_REPOST, 3)
export const ARTICLE_ID = idFromTime(T_ARTICLE, 4)
export const COMMENT_ID = idFromTime(T_COMMENT, 5)
export const REPLY_ID = idFromTime(T_REPLY, 6)

/** One valid record of every kind, in an order the store's link checks accept. */
export function fixtureRecords(): IngestRecord[] {
  const personPost = personPostRecord(AUTHOR_ID, T_PERSON_POST, 1)
  const repost = personPostRecord(AUTHOR_ID, T_REPOST, 3, {
    content: '',
    reactionsByType: {},
    commentCount: 0,
    repostOf: activityUrn(PERSON_POST_ID),
  })
  const postReaction: PostReactionRecord = {
    postId: activityUrn(PERSON_POST_ID),
    reactionType: 'PRAISE',
    actor: { urn: profileUrn(READER_ID) },
  }
  const companyReaction: PostReactionRecord = {
    postId: PERSON_POST_ID,
    reactionType: 'LIKE',
    actor: { urn: companyUrn(COMPANY_ID) },
  }
  const profileReaction: ProfileReactionRecord = {
    profileId: READER_ID,
    postId: activityUrn(COMPANY_POST_ID),
    reactionType: 'INTEREST',
    reactedAt: '2025-01-12T10:30:00.000Z',
  }
  return [
    { kind: 'company', data: companyRecord() },
    { kind: 'profile', data: profileRecord(1) },
    { kind: 'profile', data: profileRecord(2) },
    { kind: 'post', data: personPost },
    { kind: 'post', data: companyPostRecord(COMPANY_ID, T_COMPANY_POST, 2) },
    { kind: 'post', data: repost },
    { kind: 'article', data: articleRecord(AUTHOR_ID, T_ARTICLE, 4) },
    { kind: 'comment', data: commentRecord(PERSON_POST_ID, COMMENT_ID, profileUrn(READER_ID), { pinned: true }) },
    {
      kind: 'comment',
      data: commentRecord(PERSON_POST_ID, REPLY_ID, profileUrn(AUTHOR_ID), { parentCommentId: COMMENT_ID, text: 'Glad it helps.' }),
    },
    { kind: 'postReaction', data: postReaction },
    { kind: 'postReaction', data: companyReaction },
    { kind: 'profileReaction', data: profileReaction },
  ]
}

/** The n-th of many generated member posts: one per minute, distinct ids and share ids. */
export function generatedPostRecord(profileId: string, n: number): PostRecord {
  const likes = n % 7
  return personPostRecord(profileId, Date.UTC(2024, 0, 1) + n * 60_000, n % 4096, {
    content: `Generated post ${n}`,
    reactionsByType: likes === 0 ? {} : { like: likes },
  })
}

/** NDJSON text of the given values, one a line. */
export const toNdjson = (values: readonly unknown[]): string => `${values.map((v) => JSON.stringify(v)).join('\n')}\n`
