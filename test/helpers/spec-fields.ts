/**
 * The spec's field tables of its resources, with the comment, reaction and profile-detail shapes the
 * spec leaves open and we settled, transcribed once for the tests: for each resource, every field and
 * whether it is always present (R), present but possibly null (N) or may be omitted (O).
 */
import type { TSchema } from 'typebox'
import {
  ArticleSchema,
  CommentAuthorSchema,
  CommentSchema,
  CompanySchema,
  EducationSchema,
  ExperienceSchema,
  PostOlderSchema,
  PostReactionSchema,
  PostSchema,
  PostTrimmedSchema,
  ProfileSchema,
  ReactionEntrySchema,
} from '../../src/contract/resources.schemas.ts'

/** R: always present, non-null. N: always present, may be null. O: may be omitted. */
export type Presence = 'R' | 'N' | 'O'

export const SPEC_FIELDS: Record<string, { schema: TSchema; fields: Record<string, Presence> }> = {
  'Post': {
    schema: PostSchema,
    fields: {
      id: 'R', shareUrn: 'R', content: 'R', date: 'R', reactionCount: 'R', commentCount: 'R', sharesCount: 'R',
      reactionsByType: 'R', postType: 'R', shareUrl: 'R', imageUrl: 'N', videoUrl: 'N', carouselPdfUrl: 'N',
      images: 'R', video: 'N', resharedPostUrn: 'O', authorType: 'R', authorProfileId: 'O', profile: 'R', permissions: 'R',
    },
  },
  'Post, older shape': {
    schema: PostOlderSchema,
    fields: {
      id: 'R', content: 'R', date: 'R', reactionCount: 'R', commentCount: 'R', imageUrl: 'N', videoUrl: 'N',
      carouselPdfUrl: 'N', profile: 'R',
    },
  },
  'Post inside a profile reaction': {
    schema: PostTrimmedSchema,
    fields: {
      id: 'R', shareUrn: 'R', content: 'R', date: 'R', reactionCount: 'R', commentCount: 'R', sharesCount: 'R',
      imageUrl: 'N', videoUrl: 'N', carouselPdfUrl: 'N', profile: 'R', reactionsByType: 'R', shareUrl: 'R',
    },
  },
  'Reaction entry': { schema: ReactionEntrySchema, fields: { reactionType: 'R', post: 'R' } },
  'Profile': {
    schema: ProfileSchema,
    fields: {
      id: 'R', profileId: 'R', memberId: 'R', publicIdentifier: 'R', url: 'R', firstName: 'R', lastName: 'R', title: 'R',
      description: 'R', location: 'R', geoLocationName: 'R', geoCountryName: 'R', countryCode: 'R', geoUrn: 'R',
      profilePictureUrl: 'R', coverImageUrl: 'R', connectionType: 'R', creatorInfo: 'R', jobTitle: 'R', companyName: 'R',
      companyPublicId: 'R', companyLinkedinUrl: 'R', currentPosition: 'N', currentSchool: 'N', followerCount: 'R',
      connectionsCount: 'R', creator: 'R', influencer: 'R', premium: 'R', isVerified: 'R', openToWork: 'O',
      inRemembrance: 'R', openProfile: 'O', joinDate: 'R', pronoun: 'O', experiences: 'R', educations: 'R', skills: 'R',
      languages: 'R', certifications: 'R', recommendations: 'O', testScores: 'R', volunteerCauses: 'R',
      // The real service's additional sections: always sent, empty when the member has none.
      hiring: 'R', industry: 'R', industryUrn: 'R', primaryLocale: 'R', publications: 'R', projects: 'R', honors: 'R',
      courses: 'R', organizations: 'R', patents: 'R', volunteerExperiences: 'R', recommendationsGiven: 'R',
    },
  },
  'Experience item': {
    schema: ExperienceSchema,
    fields: {
      name: 'R', jobTitle: 'R', description: 'R', dateRange: 'R', current: 'R', ongoing: 'R', totalDuration: 'O',
      // An undated entry has no timePeriod (and its startDate is never null).
      positionUrn: 'R', timePeriod: 'O', company: 'R',
    },
  },
  'Education item': {
    schema: EducationSchema,
    fields: {
      name: 'R', description: 'R', dateRange: 'R', current: 'R', educationUrn: 'R', grade: 'R', details: 'R',
      // Not stated by the spec; a school page may have no logo.
      schoolLogo: 'N',
      schoolUrl: 'R', timePeriod: 'O',
    },
  },
  'Company': {
    schema: CompanySchema,
    fields: {
      id: 'R', companyId: 'R', name: 'O', publicIdentifier: 'O', url: 'R', websiteUrl: 'O', domain: 'O', industry: 'R',
      industryV1: 'R', employeeCount: 'R', employeeCountRange: 'R',
      // "Many company fields are optional: guard for missing keys": these are the ones pages lack.
      headquarter: 'O', locations: 'R', followerCount: 'R', logoUrl: 'O', coverImageUrl: 'O', description: 'O',
      specialities: 'R', companyType: 'R', companyTypeCode: 'R', hashtags: 'R',
    },
  },
  'Article': {
    schema: ArticleSchema,
    fields: {
      articleUrn: 'R', articleId: 'R', title: 'R', url: 'R', description: 'R', publishedAt: 'N', coverImageUrl: 'N',
      readTimeMinutes: 'N', subtitle: 'R',
    },
  },
  'Comment': {
    schema: CommentSchema,
    fields: {
      urn: 'R', text: 'R', createdAt: 'R', reactionCount: 'R', author: 'R', replies: 'R', permalink: 'R', pinned: 'R',
    },
  },
  'Post reaction': { schema: PostReactionSchema, fields: { reactionType: 'R', actor: 'R' } },
  // A missing picture is an empty string wherever profilePictureUrl appears.
  'Comment author': {
    schema: CommentAuthorSchema,
    fields: { id: 'R', name: 'R', headline: 'R', profilePictureUrl: 'R', profileUrl: 'R', publicId: 'N', profileId: 'N' },
  },
  'Post reaction actor': {
    schema: PostReactionSchema.properties.actor,
    fields: { urn: 'R', name: 'R', headline: 'R', profileUrl: 'R', profilePictureUrl: 'R', publicId: 'N', profileId: 'N' },
  },
}

