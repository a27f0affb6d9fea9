/**
 * Company, school and showcase pages. Planning (names, ids, slugs, sizes) happens once for every page
 * because profiles and posts point at them; the full record is assembled only when it is emitted,
 * from its own random stream, so no page record is held in memory.
 */
import type { CompanyRecord } from '../contract/ingest.schemas.ts'
import type { COMPANY_TYPE_CODES } from '../contract/resources.schemas.ts'
import { createRng, deriveSeed, weighted, type Rng } from './prng.ts'
import type { SynthContext } from './synth-context.ts'
import { DAY_MS } from './synth-context.ts'
import { groupDigits, slugify } from './text.ts'
import type { TopicKey } from './vocabulary/careers.vocabulary.ts'
import {
  COMPANY_TYPE_LABELS,
  HQ_DESCRIPTIONS,
  INDUSTRIES,
  NAME_PARTS,
  OFFERINGS,
  SCHOOL_INDUSTRY,
  SHOWCASE_SUFFIXES,
  SIZE_BUCKETS,
  SPECIALITIES,
  type Cluster,
  type Industry,
} from './vocabulary/industries.vocabulary.ts'
import { REGIONS, STREETS, type City, type Region } from './vocabulary/places.vocabulary.ts'
import { TOPICS } from './vocabulary/topics.vocabulary.ts'

type CompanyTypeCode = (typeof COMPANY_TYPE_CODES)[number]
export type PageType = 'company' | 'school' | 'showcase'

/** What the rest of the network needs to know about a page (everything else is built on emission). */
export interface CompanyInfo {
  readonly index: number
  readonly companyId: string
  /** The school id of a school page (a separate range, never equal to any companyId). */
  readonly schoolId: string | null
  readonly pageType: PageType
  readonly name: string | undefined
  readonly slug: string | undefined
  readonly url: string
  readonly urn: string
  readonly logoUrl: string | undefined
  readonly coverImageUrl: string | undefined
  readonly industry: Industry
  readonly region: Region
  readonly city: City
  readonly bucket: { start: number; end: number }
  readonly employeeCount: number
  readonly followerCount: number
  readonly typeCode: CompanyTypeCode
  readonly websiteUrl: string | undefined
  readonly domain: string | undefined
  readonly description: string | undefined
  readonly hasHeadquarter: boolean
  readonly foundedYear: number
  readonly topics: readonly TopicKey[]
  readonly specialities: readonly string[]
  /** The card shown for the page as an author or actor (same rule as the stored company row). */
  readonly cardHeadline: string
}

export const CLUSTER_TOPICS: Readonly<Record<Cluster, readonly TopicKey[]>> = {
  tech: ['ai', 'cloud', 'engineering', 'security', 'data', 'product'],
  finance: ['finance', 'ai', 'leadership'],
  health: ['health', 'ai'],
  marketing: ['marketing', 'design'],
  consulting: ['leadership', 'ai', 'startups'],
  people: ['people', 'leadership'],
  logistics: ['supplychain', 'sustainability'],
  energy: ['sustainability'],
  retail: ['sustainability', 'marketing', 'supplychain'],
  legal: ['legal', 'ai'],
  realestate: ['sustainability', 'finance'],
  government: ['leadership', 'data'],
  nonprofit: ['education', 'sustainability'],
  education: ['education', 'ai'],
  manufacturing: ['supplychain', 'ai', 'sustainability'],
  media: ['marketing', 'design'],
}

const industryPicker = weighted(INDUSTRIES.map((i) => [i, i.weight] as const))
const regionPicker = weighted(REGIONS.map((r) => [r, r.weight] as const))
const bucketPicker = weighted(SIZE_BUCKETS.map((b, i) => [i, b.weight] as const))

function companyTypeFor(rng: Rng, industry: Industry, bucketIndex: number): CompanyTypeCode {
  if (industry.cluster === 'government') return 'GOVERNMENT_AGENCY'
  if (industry.cluster === 'nonprofit') return 'NON_PROFIT'
  if (industry.cluster === 'education' && rng.chance(0.25)) return 'EDUCATIONAL'
  if ((industry.cluster === 'legal' || industry.cluster === 'consulting' || industry.label === 'Accounting') && rng.chance(0.5)) {
    return 'PARTNERSHIP'
  }
  if (bucketIndex === 0) {
    const x = rng.next()
    if (x < 0.12) return 'SELF_EMPLOYED'
    if (x < 0.24) return 'SELF_OWNED'
  }
  if (bucketIndex >= 6 && rng.chance(0.65)) return 'PUBLIC_COMPANY'
  if (bucketIndex === 5 && rng.chance(0.25)) return 'PUBLIC_COMPANY'
  if (rng.chance(0.02)) return 'PUBLIC_COMPANY'
  return 'PRIVATELY_HELD'
}

function postalCode(rng: Rng, pattern: string): string {
  let out = ''
  for (const ch of pattern) {
    if (ch === '#') out += String(rng.int(10))
    else if (ch === 'A') out += String.fromCharCode(65 + rng.int(26))
    else out += ch
  }
  return out
}

/** Regional school names read like the real thing ("Technische Universität München", "University of Leeds"). */
function schoolName(rng: Rng, region: Region, city: City, surnames: readonly string[]): string {
  const n = city.local ?? city.name
  switch (region.code) {
    case 'DE':
      return rng.pick([`Technische Universität ${n}`, `Universität ${n}`, `Hochschule ${n}`])
    case 'FR':
      return rng.pick([`Université de ${n}`, `École Supérieure de Commerce de ${n}`, `Institut Polytechnique de ${n}`])
    case 'ES':
    case 'MX':
      return rng.pick([`Universidad de ${n}`, `Universidad Politécnica de ${n}`, `Instituto Tecnológico de ${n}`])
    case 'IT':
      return rng.pick([`Politecnico di ${n}`, `Università degli Studi di ${n}`])
    case 'BR':
      return rng.pick([`Universidade de ${n}`, `Universidade Federal de ${n}`])
    case 'NL':
      return rng.pick([`University of ${n}`, `${n} University of Applied Sciences`])
    case 'IN':
      return rng.pick([`Indian Institute of Technology ${n}`, `${n} Institute of Management`, `University of ${n}`])
    case 'US':
      return rng.pick([`University of ${n}`, `${n} State University`, `${rng.pick(surnames)} College`, `${n} Institute of Technology`])
    default:
      return rng.pick([`University of ${n}`, `${n} Business School`, `${n} Institute of Technology`, `${rng.pick(surnames)} University`])
  }
}

function regularName(rng: Rng, cluster: Cluster, city: City, surnames: readonly string[]): string {
  const parts = NAME_PARTS[cluster]
  switch (cluster) {
    case 'legal':
      return rng.pick([
        `${rng.pick(surnames)} & ${rng.pick(surnames)} LLP`,
        `${rng.pick(surnames)} ${rng.pick(surnames)} ${rng.pick(parts.suffixes)}`,
        `${rng.pick(surnames)} Legal`,
      ])
    case 'government':
      return `${city.name} ${rng.pick(parts.suffixes)}`
    case 'consulting':
      if (rng.chance(0.3)) return `${rng.pick(surnames)} & Partners`
      break
    case 'health':
      if (rng.chance(0.25)) return `${city.name} ${rng.pick(['General Hospital', 'Medical Center', "Children's Hospital", 'University Hospital'])}`
      break
    default:
      break
  }
  return `${rng.pick(parts.prefixes)} ${rng.pick(parts.suffixes)}`
}

function websiteTld(rng: Rng, cluster: Cluster, region: Region): string {
  if (cluster === 'nonprofit') return 'org'
  if (cluster === 'tech' && rng.chance(0.5)) return rng.pick(['io', 'ai', 'com', 'dev'])
  return rng.chance(0.5) ? region.tld : 'com'
}

function describe(
  rng: Rng,
  p: {
    name: string
    pageType: PageType
    industry: Industry
    city: City
    region: Region
    foundedYear: number
    employeeCount: number
    specialities: readonly string[]
    parent?: string
  },
): string {
  if (p.pageType === 'showcase') {
    return `The official page of ${p.name}: product news, events and stories from the ${p.parent ?? p.name} team. Follow along for launches, customer stories and open roles.`
  }
  if (p.pageType === 'school') {
    const students = groupDigits(Math.round(p.employeeCount * rng.range(4, 9) / 100) * 100)
    const strengths = rng.sample(['engineering', 'medicine', 'business', 'computer science', 'the humanities', 'law', 'design', 'life sciences', 'economics'], 3)
    return `${p.name} is a ${rng.pick(['public', 'private'])} research university in ${p.city.name}, ${p.region.country}, founded in ${p.foundedYear}. Around ${students} students study across ${rng.range(5, 16)} faculties, with particular strengths in ${strengths[0]}, ${strengths[1]} and ${strengths[2]}.`
  }
  const [offering, customers] = rng.pick(OFFERINGS[p.industry.cluster])
  const specs = p.specialities
  const team = p.employeeCount > 10_000 ? `more than ${groupDigits(Math.floor(p.employeeCount / 1000) * 1000)}` : groupDigits(p.employeeCount)
  const lines = [
    `${p.name} ${rng.pick(['builds', 'provides', 'delivers', 'designs'])} ${offering} for ${customers}.`,
    `Founded in ${p.foundedYear} and headquartered in ${p.city.name}, our team of ${team} people ${rng.pick(['works across', 'serves customers in', 'operates in'])} ${rng.range(2, 40)} countries.`,
  ]
  if (specs.length >= 3) lines.push(`We specialise in ${specs[0]}, ${specs[1]} and ${specs[2]}.`)
  if (rng.chance(0.4)) lines.push('We are always looking for curious people. See our open roles on the careers page.')
  return lines.join(' ')
}

/** "University of Austin" → "uaustin", "Technische Universität Berlin" → "tuberlin": initials plus the city. */
function schoolStem(name: string, city: City): string {
  const cityStem = slugify(city.local ?? city.name).replace(/-/g, '')
  const local = city.local ?? city.name
  const rest = name.replace(local, ' ')
  const initials = slugify(rest)
    .split('-')
    .filter((w) => w !== '' && !['of', 'de', 'di', 'degli', 'studi', 'the', 'and'].includes(w))
    .map((w) => w[0])
    .join('')
  return name.startsWith(local) ? `${cityStem}${initials}` : `${initials}${cityStem}`
}

/** Page ids: companies below 10^8, schools from 10^9 up, so a school id never equals a company id. */
function uniqueId(rng: Rng, used: Set<number>, lo: number, hi: number): number {
  for (;;) {
    const id = lo + rng.int(hi - lo)
    if (!used.has(id)) {
      used.add(id)
      return id
    }
  }
}

/** Plans every page of the network (no records yet). */
export function planCompanies(ctx: SynthContext, count: number): CompanyInfo[] {
  const rng = createRng(deriveSeed(ctx.seed, 'companies'))
  const host = ctx.platformHost
  const surnames = ctx.pools.firmSurnames
  const nSchools = Math.max(2, Math.round(count * 0.1))
  const nShowcase = Math.max(1, Math.round(count * 0.02))
  const nRegular = count - nSchools - nShowcase
  const usedIds = new Set<number>()
  const usedSchoolIds = new Set<number>()
  const usedNames = new Set<string>()
  const usedSlugs = new Set<string>()
  const usedDomains = new Set<string>()
  const anchorYear = new Date(ctx.anchorMs).getUTCFullYear()

  // A few pages lack each optional field; the first ones are forced so even a tiny network has them.
  const regularOrder = rng.sample(Array.from({ length: nRegular }, (_, i) => i), nRegular)
  const forced = new Map<number, string>([
    [regularOrder[0] as number, 'name'],
    [regularOrder[1] as number, 'slug'],
    [regularOrder[2] as number, 'website+hq'],
    [regularOrder[3] as number, 'images'],
    [regularOrder[4] as number, 'description'],
  ])

  const uniqueName = (make: () => string, city: City): string => {
    for (let attempt = 0; attempt < 30; attempt++) {
      const name = make()
      if (!usedNames.has(name.toLowerCase())) {
        usedNames.add(name.toLowerCase())
        return name
      }
    }
    let n = 2
    const base = `${make()} ${city.name}`
    let name = base
    while (usedNames.has(name.toLowerCase())) name = `${base} ${n++}`
    usedNames.add(name.toLowerCase())
    return name
  }
  const uniqueSlug = (name: string, squash: boolean): string => {
    const base = squash ? slugify(name).replace(/-/g, '') : slugify(name)
    let slug = base
    let n = 2
    while (usedSlugs.has(slug)) slug = `${base}-${n++}`
    usedSlugs.add(slug)
    return slug
  }
  const uniqueDomain = (stem: string, tld: string): string => {
    let domain = `${stem}.${tld}`
    for (const prefix of ['get', 'try', 'join', 'hello']) {
      if (!usedDomains.has(domain)) break
      domain = `${prefix}${stem}.${tld}`
    }
    let n = 2
    while (usedDomains.has(domain)) domain = `${stem}${n++}.${tld}`
    usedDomains.add(domain)
    return domain
  }

  const pages: CompanyInfo[] = []
  const build = (
    index: number,
    pageType: PageType,
    industry: Industry,
    region: Region,
    city: City,
    bucketIndex: number,
    name: string,
    typeCode: CompanyTypeCode,
    quirk: string | undefined,
    extra: { parent?: CompanyInfo; domain?: string },
  ): CompanyInfo => {
    const bucket = SIZE_BUCKETS[bucketIndex] as { start: number; end: number }
    const top = bucket.start === 10001 ? 300_000 : bucket.end
    const employeeCount = Math.round(Math.exp(Math.log(bucket.start) + rng.next() * (Math.log(top) - Math.log(bucket.start))))
    const age = Math.min(120, Math.round(rng.logNormal(Math.log(4 + bucketIndex * 4), 0.6)))
    const foundedYear = Math.max(1850, anchorYear - age)
    const followerCount = Math.round(employeeCount * rng.logNormal(Math.log(pageType === 'school' ? 25 : 8), 0.9) + rng.range(20, 400))
    const noName = quirk === 'name' || (pageType === 'company' && quirk === undefined && rng.chance(0.02))
    const noSlug = quirk === 'slug' || (pageType === 'company' && quirk === undefined && rng.chance(0.02))
    const noWebsite = quirk === 'website+hq' || rng.chance(0.04)
    const noHq = quirk === 'website+hq' || rng.chance(0.03)
    const noLogo = quirk === 'images' || rng.chance(0.04)
    const noCover = quirk === 'images' || rng.chance(0.08)
    const noDescription = quirk === 'description' || (pageType !== 'showcase' && rng.chance(0.03))
    const slug = noSlug ? undefined : uniqueSlug(name, pageType === 'company' && rng.chance(0.25))
    const companyId = String(uniqueId(rng, usedIds, 1_000, 99_999_999))
    const schoolId = pageType === 'school' ? String(uniqueId(rng, usedSchoolIds, 1_000_000_000, 1_999_999_999)) : null
    let domain = extra.domain
    if (domain === undefined && !noWebsite) {
      const stem = slugify(name.replace(/\b(LLP|Inc|Ltd)\b/g, '')).replace(/-/g, '').slice(0, 24) || `page${companyId}`
      if (pageType === 'school') {
        const tld = region.code === 'US' ? 'edu' : region.code === 'GB' ? 'ac.uk' : region.tld
        domain = uniqueDomain(schoolStem(name, city), tld)
      } else if (industry.cluster === 'government') {
        domain = uniqueDomain(stem.slice(0, 18), region.code === 'US' ? 'gov' : `gov.${region.tld}`)
      } else {
        domain = uniqueDomain(stem, websiteTld(rng, industry.cluster, region))
      }
    }
    const websiteUrl = noWebsite || domain === undefined
      ? undefined
      : extra.parent !== undefined
        ? `https://www.${domain}/${slugify(name.slice((extra.parent.name ?? '').length))}`
        : rng.chance(0.7) ? `https://www.${domain}` : `https://${domain}`
    const createdMs = ctx.anchorMs - rng.range(30, 2_000) * DAY_MS
    const logoUrl = noLogo ? undefined : ctx.media.image(rng, 'company-logo_200_200', createdMs)
    const coverImageUrl = noCover ? undefined : ctx.media.image(rng, 'company-background_10000', createdMs)
    const specialities = pageType === 'school'
      ? rng.sample(['Research', 'Undergraduate Education', 'Graduate Programs', 'Executive Education', 'Continuing Education', 'Innovation', 'Entrepreneurship'], rng.range(2, 5))
      : rng.chance(0.1) ? [] : rng.sample(SPECIALITIES[industry.cluster], rng.range(3, 8))
    const description = noDescription
      ? undefined
      : describe(rng, {
          name, pageType, industry, city, region, foundedYear, employeeCount, specialities,
          ...(extra.parent?.name ? { parent: extra.parent.name } : {}),
        })
    const topics = pageType === 'showcase' && extra.parent ? extra.parent.topics : CLUSTER_TOPICS[industry.cluster]
    const info: CompanyInfo = {
      index,
      companyId,
      schoolId,
      pageType,
      name: noName ? undefined : name,
      slug,
      url: `https://${host}/${pageType}/${slug ?? companyId}/`,
      urn: `urn:li:fsd_company:${companyId}`,
      logoUrl,
      coverImageUrl,
      industry,
      region,
      city,
      bucket: { start: bucket.start, end: bucket.end },
      employeeCount,
      followerCount,
      typeCode,
      websiteUrl,
      domain: websiteUrl === undefined ? undefined : domain,
      description,
      hasHeadquarter: !noHq,
      foundedYear,
      topics,
      specialities,
      cardHeadline: description?.slice(0, 120) ?? industry.label,
    }
    return info
  }

  for (let i = 0; i < nRegular; i++) {
    const industry = industryPicker.pick(rng)
    const region = regionPicker.pick(rng)
    const city = rng.pick(region.cities)
    const bucketIndex = industry.cluster === 'government' ? rng.range(4, 6) : bucketPicker.pick(rng)
    const name = uniqueName(() => regularName(rng, industry.cluster, city, surnames), city)
    const typeCode = companyTypeFor(rng, industry, bucketIndex)
    pages.push(build(i, 'company', industry, region, city, bucketIndex, name, typeCode, forced.get(i), {}))
  }
  for (let i = 0; i < nSchools; i++) {
    const region = regionPicker.pick(rng)
    const city = rng.pick(region.cities)
    const name = uniqueName(() => schoolName(rng, region, city, surnames), city)
    // One school without images, so an education with `schoolLogo: null` occurs in every network.
    const quirk = i === nSchools - 1 ? 'images' : undefined
    pages.push(build(nRegular + i, 'school', SCHOOL_INDUSTRY, region, city, rng.range(5, 7), name, 'EDUCATIONAL', quirk, {}))
  }
  const parents = pages.filter((p) => p.pageType === 'company' && p.name !== undefined && p.domain !== undefined && p.employeeCount > 200)
  const fallbackParents = pages.filter((p) => p.pageType === 'company' && p.name !== undefined)
  for (let i = 0; i < nShowcase; i++) {
    const parent = rng.pick(parents.length > 0 ? parents : fallbackParents)
    const name = uniqueName(() => `${parent.name as string} ${rng.pick(SHOWCASE_SUFFIXES)}`, parent.city)
    const bucketIndex = Math.max(0, SIZE_BUCKETS.findIndex((b) => b.start === parent.bucket.start) - 2)
    const info = build(nRegular + nSchools + i, 'showcase', parent.industry, parent.region, parent.city, bucketIndex, name, parent.typeCode, undefined, {
      parent,
      ...(parent.domain !== undefined ? { domain: parent.domain } : {}),
    })
    pages.push(info)
  }
  return pages
}

const OPEN_SIZE_CLASS = (SIZE_BUCKETS[SIZE_BUCKETS.length - 1] as { start: number }).start

/** The size class as the record shows it: the top class ("10,001+") has no end. */
function sizeRange(bucket: { start: number; end: number }): CompanyRecord['employeeCountRange'] {
  return bucket.start === OPEN_SIZE_CLASS ? { start: bucket.start } : { start: bucket.start, end: bucket.end }
}

/** The full company record of a planned page (its own random stream: independent of emission order). */
export function companyRecord(ctx: SynthContext, info: CompanyInfo): CompanyRecord {
  const rng = createRng(deriveSeed(ctx.seed, 'company-detail', info.index))
  const streetFor = (region: Region): string => {
    const local = STREETS[region.code]
    const number = rng.range(1, 240)
    if (local === undefined) return `${number} ${rng.pick(ctx.pools.streets)}`
    const street = rng.pick(local.names)
    return local.numberFirst ? `${number} ${street}` : `${street} ${number}`
  }
  const offices = info.pageType === 'school' ? rng.range(0, 2) : Math.min(8, Math.floor(Math.log10(info.employeeCount) * rng.next() * 2.2))
  const locations: CompanyRecord['locations'] = []
  const seen = new Set<string>()
  if (info.hasHeadquarter) {
    locations.push({ city: info.city.name, geographicArea: info.city.area, country: info.region.code, headquarter: true })
    seen.add(info.city.name)
  }
  for (let k = 0; k < offices; k++) {
    // Most offices sit in the home country; larger companies spread abroad.
    const region = rng.chance(info.employeeCount > 1000 ? 0.6 : 0.2) ? rng.pick(REGIONS) : info.region
    const city = rng.pick(region.cities)
    if (seen.has(city.name)) continue
    seen.add(city.name)
    locations.push({ city: city.name, geographicArea: city.area, country: region.code, headquarter: false })
  }
  const tagPool = [...new Set(info.topics.flatMap((t) => TOPICS[t].tags.slice(0, 3)))]
  const hashtags = rng.chance(0.25) ? [] : rng.sample(tagPool, rng.range(1, 3))
  const record: CompanyRecord = {
    id: info.urn,
    companyId: info.companyId,
    ...(info.name !== undefined ? { name: info.name } : {}),
    ...(info.slug !== undefined ? { publicIdentifier: info.slug } : {}),
    url: info.url,
    ...(info.websiteUrl !== undefined ? { websiteUrl: info.websiteUrl } : {}),
    ...(info.domain !== undefined ? { domain: info.domain } : {}),
    industry: info.industry.label,
    industryV1: info.industry.legacy,
    employeeCount: info.employeeCount,
    employeeCountRange: sizeRange(info.bucket),
    ...(info.hasHeadquarter
      ? {
          headquarter: {
            line1: streetFor(info.region),
            city: info.city.name,
            geographicArea: info.city.area,
            postalCode: postalCode(rng, info.region.postal),
            country: info.region.code,
            description: rng.pick(HQ_DESCRIPTIONS),
            headquarter: true,
          },
        }
      : {}),
    locations,
    followerCount: info.followerCount,
    ...(info.logoUrl !== undefined ? { logoUrl: info.logoUrl } : {}),
    ...(info.coverImageUrl !== undefined ? { coverImageUrl: info.coverImageUrl } : {}),
    ...(info.description !== undefined ? { description: info.description } : {}),
    specialities: [...info.specialities],
    companyType: COMPANY_TYPE_LABELS[info.typeCode],
    companyTypeCode: info.typeCode,
    hashtags,
    pageType: info.pageType,
  }
  return record
}
