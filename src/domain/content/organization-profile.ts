/**
 * /api/v1/profile given a company page: the organisation in profile form, built from the
 * stored company document.
 */
import type { Company } from '../../contract/resources.schemas.ts'
import { PROFILE_SECTION_DEFAULTS } from './legacy-shapes.ts'

/** Abbreviations whose full stop ends no sentence: "Maple Co. builds…" has one sentence, not "Maple Co.". */
const ABBREVIATIONS = new Set(['co', 'inc', 'ltd', 'llc', 'corp', 'plc', 'bros', 'st', 'dr', 'mr', 'mrs', 'ms', 'jr', 'sr', 'vs', 'etc', 'e.g', 'i.e', 'no'])

/** The first sentence of a description (a page's tagline). */
export function firstSentence(text: string): string {
  for (const m of text.matchAll(/[.!?](?=\s)/g)) {
    const word = /([\p{L}.]+)$/u.exec(text.slice(0, m.index))?.[1]?.toLowerCase() ?? ''
    if (m[0] === '.' && ABBREVIATIONS.has(word)) continue
    return text.slice(0, m.index + 1)
  }
  return text
}

const REGION_NAMES = new Intl.DisplayNames(['en'], { type: 'region' })

/**
 * A company location's `country` as a profile carries it (geoCountryName a name, countryCode an
 * ISO code): locations hold the two-letter code (the synthetic network, most ingested data), which
 * is named in English; anything else is taken for a name, with no code.
 */
export function countryOf(country: string | undefined): { name: string; code: string } {
  if (!country) return { name: '', code: '' }
  if (/^[A-Z]{2}$/.test(country)) {
    // Well-formed, so of() does not throw; an unassigned code comes back as itself or as "Unknown Region": no name then.
    const name = REGION_NAMES.of(country)
    return { name: name && name !== country && name !== 'Unknown Region' ? name : '', code: country }
  }
  return { name: country, code: '' }
}

/** The profile-shaped JSON text of a stored company document. */
export function organizationAsProfile(companyDoc: Buffer): string {
  const c = JSON.parse(companyDoc.toString()) as Company
  const hq = c.headquarter
  const country = countryOf(hq?.country)
  const tagline = c.description ? firstSentence(c.description).slice(0, 160) : c.industry
  return JSON.stringify({
    id: c.id,
    profileId: c.companyId,
    memberId: c.companyId,
    publicIdentifier: c.publicIdentifier ?? c.companyId,
    url: c.url,
    firstName: c.name ?? '',
    lastName: '',
    title: tagline,
    description: c.description ?? '',
    location: hq ? [hq.city, hq.geographicArea === hq.city ? '' : hq.geographicArea, country.name || hq.country].filter(Boolean).join(', ') : '',
    geoLocationName: hq?.city ?? '',
    geoCountryName: country.name,
    countryCode: country.code,
    geoUrn: '',
    profilePictureUrl: c.logoUrl ?? '',
    coverImageUrl: c.coverImageUrl ?? '',
    connectionType: 'OUT_OF_NETWORK',
    creatorInfo: { hashTags: c.hashtags, website: c.websiteUrl ?? '' },
    jobTitle: '',
    companyName: '',
    companyPublicId: '',
    companyLinkedinUrl: '',
    currentPosition: null,
    currentSchool: null,
    followerCount: c.followerCount,
    connectionsCount: 0,
    creator: false,
    influencer: false,
    premium: false,
    isVerified: false,
    inRemembrance: false,
    joinDate: { month: 1, year: 2003 },
    experiences: [],
    educations: [],
    skills: [],
    languages: [],
    certifications: [],
    testScores: [],
    volunteerCauses: [],
    ...PROFILE_SECTION_DEFAULTS,
    industry: c.industry,
  })
}
