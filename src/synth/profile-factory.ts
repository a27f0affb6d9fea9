/**
 * Member profiles. Planning builds the small "core" of every member first (ids, name, slug, current
 * job, headline, flags), because posts, reactions and recommendations need other members' cards; the
 * full profile (career, education, skills…) and the member's articles are built when the profile is
 * emitted, from the member's own random stream.
 * Long because every section of a profile is drawn here, in the one order that keeps a seed's
 * network byte-identical from release to release.
 */
import type { ArticleRecord } from '../contract/ingest.schemas.ts'
import type { Profile } from '../contract/resources.schemas.ts'
import { articlePublishedAt } from '../domain/content/ids.ts'
import { durationLabel } from '../domain/content/profile-doc.ts'
import type { CompanyInfo } from './company-factory.ts'
import { createAliasTable, createRng, deriveSeed, weighted, type AliasTable, type Rng } from './prng.ts'
import { firstShownMonth, profileExtras, type ExtrasBuilder } from './profile-extras.ts'
import type { SynthContext } from './synth-context.ts'
import { DAY_MS } from './synth-context.ts'
import { clip, dateRangeText, formatYm, fromMonthIndex, longDate, monthIndex, slugify, type YearMonth } from './text.ts'
import type { TimeIdAllocator } from './time-ids.ts'
import {
  ACTIVITIES,
  GENERAL_SKILLS,
  GRADES,
  JOB_FUNCTIONS,
  PRONOUNS,
  RECOMMENDATION_RELATIONS,
  RECOMMENDATION_TEXTS,
  SIDE_ROLES,
  TEST_SCORES,
  VOLUNTEER_CAUSES,
  degreeFor,
  type JobFunction,
  type TopicKey,
} from './vocabulary/careers.vocabulary.ts'
import type { Cluster } from './vocabulary/industries.vocabulary.ts'
import {
  EXTRA_LANGUAGES,
  LANGUAGE_PROFICIENCIES,
  REGIONS,
  type City,
  type NameCulture,
  type Region,
} from './vocabulary/places.vocabulary.ts'
import { ARTICLE_TITLES, TOPICS, capital } from './vocabulary/topics.vocabulary.ts'

/** Edge cases pinned to particular members so that even a tiny network shows every one of them. */
export type ProfileRole =
  | 'memorial'
  | 'influencer'
  | 'hidden-current'
  | 'no-current'
  | 'no-open-to-work'
  | 'no-open-profile'
  | 'no-recommendations'
  | 'reposter'
  | 'undecodable-article'
  | 'recommended'
  | 'odd-dates'

const ROLES: readonly ProfileRole[] = [
  'memorial',
  'influencer',
  'hidden-current',
  'no-current',
  'no-open-to-work',
  'no-open-profile',
  'no-recommendations',
  'reposter',
  'undecodable-article',
  'recommended',
  'odd-dates',
]

/** A job of the member's career, in months since year 0 (end null while ongoing). */
export interface JobSpan {
  readonly company: CompanyInfo
  readonly title: string
  readonly start: number
  readonly end: number | null
  readonly side: boolean
}

export interface ArticleRef {
  readonly ms: number
  readonly title: string
  readonly url: string
}

export interface ProfileCore {
  readonly index: number
  readonly profileId: string
  readonly memberId: string
  readonly slug: string
  readonly url: string
  readonly urn: string
  readonly firstName: string
  readonly lastName: string
  readonly name: string
  readonly gender: 'female' | 'male'
  readonly culture: NameCulture
  readonly region: Region
  readonly city: City
  readonly fn: JobFunction
  readonly seniority: number
  /** The current job when there is an ongoing one, else the most recent one. */
  readonly primaryCompany: CompanyInfo
  readonly primaryTitle: string
  readonly hasOngoing: boolean
  readonly displaysCurrent: boolean
  readonly headline: string
  /** '' when the member has no photo. */
  readonly pictureUrl: string
  readonly creator: boolean
  readonly influencer: boolean
  readonly premium: boolean
  readonly verified: boolean
  readonly memorial: boolean
  readonly followerCount: number
  readonly connectionsCount: number
  readonly topics: readonly TopicKey[]
  /** Relative posting activity (0 = never posts). */
  readonly postWeight: number
  /** Multiplies the engagement the member's posts get. */
  readonly popularity: number
  readonly role: ProfileRole | undefined
  /** Filled when the profile is emitted; posts of type article link to these. */
  readonly articles: ArticleRef[]
  /** Filled when the profile is emitted: posts speak from the job the member held at the time. */
  readonly jobs: JobSpan[]
}

export interface Workforce {
  /** An employer for a member of the function (a named company page with a slug). */
  employer(rng: Rng, fn: JobFunction, exclude?: CompanyInfo): CompanyInfo
  /** A school page, preferably in the member's country. */
  school(rng: Rng, region: Region): CompanyInfo
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-'
const SLUG_SUFFIX = '0123456789abcdef'
const regionPicker = weighted(REGIONS.map((r) => [r, r.weight] as const))
const functionPicker = weighted(JOB_FUNCTIONS.map((f) => [f, f.weight] as const))
const culturePickers = new Map(REGIONS.map((r) => [r, weighted(r.cultures)] as const))
const seniorityPicker = weighted([[0, 12], [1, 30], [2, 28], [3, 17], [4, 9], [5, 4]] as const)
const CAREER_YEARS: readonly (readonly [number, number])[] = [[0, 2], [2, 7], [5, 13], [8, 20], [12, 26], [15, 35]]

const NATIVE_LANGUAGE: Record<NameCulture, readonly string[]> = {
  en: ['English'], de: ['German'], fr: ['French'], es: ['Spanish'], pt: ['Portuguese'],
  in: ['Hindi', 'Tamil', 'Telugu', 'Marathi', 'Kannada', 'Bengali'], nl: ['Dutch'], sv: ['Swedish'], ja: ['Japanese'],
  ng: ['Yoruba', 'Igbo', 'Hausa'], pl: ['Polish'], it: ['Italian'], ar: ['Arabic'], zh: ['Mandarin', 'Cantonese'], ke: ['Swahili'],
}

/** Employers and schools of the network, with the draw weights a career uses. */
export function createWorkforce(pages: readonly CompanyInfo[]): Workforce {
  const employers = pages.filter((p) => p.pageType === 'company' && p.name !== undefined && p.slug !== undefined)
  const schools = pages.filter((p) => p.pageType === 'school' && p.name !== undefined && p.slug !== undefined)
  if (employers.length === 0 || schools.length === 0) throw new Error('a network needs at least one employer and one school')
  // Bigger companies employ more members, but sub-linearly, so small ones still show up in careers.
  const weightOf = (p: CompanyInfo) => Math.pow(p.employeeCount, 0.55)
  const all = createAliasTable(employers.map(weightOf))
  const byCluster = new Map<Cluster, { list: CompanyInfo[]; table: AliasTable }>()
  for (const p of employers) {
    const entry = byCluster.get(p.industry.cluster)
    if (entry) entry.list.push(p)
    else byCluster.set(p.industry.cluster, { list: [p], table: all })
  }
  for (const entry of byCluster.values()) entry.table = createAliasTable(entry.list.map(weightOf))
  const schoolTable = createAliasTable(schools.map((s) => Math.sqrt(s.followerCount)))
  const schoolsByRegion = new Map<string, CompanyInfo[]>()
  for (const s of schools) schoolsByRegion.set(s.region.code, [...(schoolsByRegion.get(s.region.code) ?? []), s])

  const pickOnce = (rng: Rng, fn: JobFunction): CompanyInfo => {
    if (fn.key === 'research' && rng.chance(0.6)) return schools[schoolTable.sample(rng)] as CompanyInfo
    if (fn.clusters.length > 0 && rng.chance(0.65)) {
      const entry = byCluster.get(rng.pick(fn.clusters))
      if (entry) return entry.list[entry.table.sample(rng)] as CompanyInfo
    }
    return employers[all.sample(rng)] as CompanyInfo
  }
  return {
    employer(rng, fn, exclude) {
      for (let attempt = 0; attempt < 8; attempt++) {
        const p = pickOnce(rng, fn)
        if (p !== exclude) return p
      }
      return employers[all.sample(rng)] as CompanyInfo
    },
    school(rng, region) {
      const local = schoolsByRegion.get(region.code)
      if (local && rng.chance(0.6)) return rng.pick(local)
      return schools[schoolTable.sample(rng)] as CompanyInfo
    },
  }
}

function headlineFor(rng: Rng, p: { title: string; company: string; hasCurrent: boolean; fn: JobFunction; topics: readonly TopicKey[]; creator: boolean }): string {
  const focus = rng.sample(p.fn.skills, 2)
  const subject = capital(rng.pick(TOPICS[rng.pick(p.topics)].subjects))
  if (!p.hasCurrent) {
    return rng.pick([
      `${p.title} | Open to new opportunities`,
      `Former ${p.title} at ${p.company}`,
      `${p.title} | ${focus[0]} · ${focus[1]} | Looking for my next challenge`,
    ])
  }
  if (p.creator) {
    const labels = p.topics.slice(0, 2).map((t) => TOPICS[t].label)
    return rng.pick([
      `${p.title} at ${p.company} | Writing about ${labels.join(' & ')} | Speaker`,
      `${p.title} @ ${p.company} · I write about ${labels.join(' and ').toLowerCase()} every week`,
      `${labels.join(' & ')} | ${p.title} at ${p.company} | Keynote speaker`,
      `${p.title} at ${p.company} | ${labels[0]} creator | Newsletter: ${subject}`,
    ])
  }
  return rng.pick([
    `${p.title} at ${p.company}`,
    `${p.title} at ${p.company}`,
    `${p.title} @ ${p.company} | ${focus[0]} & ${focus[1]}`,
    `${p.title} | ${subject} | ${focus[0]}`,
    `${p.title} at ${p.company} · ${subject}`,
  ])
}

/** Plans every member of the network. */
export function planProfiles(ctx: SynthContext, count: number, workforce: Workforce): ProfileCore[] {
  const host = ctx.platformHost
  const order = createRng(deriveSeed(ctx.seed, 'profile-roles')).sample(Array.from({ length: count }, (_, i) => i), ROLES.length)
  const roleOf = new Map<number, ProfileRole>(order.map((index, k) => [index, ROLES[k] as ProfileRole]))
  const usedIds = new Set<string>()
  const usedMembers = new Set<number>()
  const usedSlugs = new Set<string>()
  const cores: ProfileCore[] = []
  for (let i = 0; i < count; i++) {
    const rng = createRng(deriveSeed(ctx.seed, 'profile', i))
    const role = roleOf.get(i)
    const region = regionPicker.pick(rng)
    const city = rng.pick(region.cities)
    const culture = (culturePickers.get(region) ?? weighted(region.cultures)).pick(rng)
    const gender = rng.chance(0.5) ? 'female' : 'male'
    const pool = ctx.pools.byCulture[culture]
    const firstName = rng.pick(gender === 'female' ? pool.female : pool.male)
    const surname = rng.pick(pool.last)
    // Polish surnames agree with gender (Kowalski, Kowalska).
    const lastName = culture === 'pl' && gender === 'female' ? surname.replace(/([sc]|dz)ki$/, '$1ka') : surname
    const fn = functionPicker.pick(rng)
    let seniority: number = seniorityPicker.pick(rng)
    if (role === 'influencer') seniority = Math.max(seniority, 4)
    const hasOngoing = role === 'no-current' ? false : role === 'hidden-current' ? true : !rng.chance(0.08)
    const displaysCurrent = hasOngoing && role !== 'hidden-current' && !rng.chance(0.05)
    const primaryCompany = workforce.employer(rng, fn)
    let primaryTitle = rng.pick(fn.titles[seniority] as readonly string[])
    if (seniority >= 4 && primaryCompany.employeeCount <= 50 && rng.chance(0.5)) primaryTitle = rng.pick(['Founder & CEO', 'Co-founder', 'Founder'])

    let profileId: string
    do profileId = `ACoAA${rng.chars(ID_ALPHABET, 34)}`
    while (usedIds.has(profileId))
    usedIds.add(profileId)
    let member: number
    do member = rng.range(10_000_000, 1_999_999_999)
    while (usedMembers.has(member))
    usedMembers.add(member)
    const base = slugify(`${firstName} ${lastName}`) || 'member'
    let slug = rng.chance(0.06) ? (rng.chance(0.5) ? base : base.replace(/-/g, '')) : `${base}-${rng.chars(SLUG_SUFFIX, rng.range(5, 8))}`
    while (usedSlugs.has(slug)) slug = `${base}-${rng.chars(SLUG_SUFFIX, 8)}`
    usedSlugs.add(slug)

    const memorial = role === 'memorial' || (role === undefined && rng.chance(0.003))
    const influencer = role === 'influencer' || (role === undefined && rng.chance(0.004))
    const creator = influencer || rng.chance(0.02 + 0.02 * seniority)
    const premium = influencer || rng.chance(0.15)
    const verified = influencer || rng.chance(0.35)
    const followerCount = Math.round(rng.logNormal(Math.log(350), 1.1) * (creator ? 12 : 1) * (influencer ? 40 : 1))
    const connectionsCount = Math.min(30_000, Math.round(rng.logNormal(Math.log(420), 0.9)))
    const topics = [...new Set([...rng.sample(fn.topics, rng.range(2, 3)), ...(rng.chance(0.3) ? [rng.pick(primaryCompany.topics)] : [])])]
    const headline = headlineFor(rng, { title: primaryTitle, company: primaryCompany.name as string, hasCurrent: hasOngoing, fn, topics, creator })
    const pictureUrl = influencer || rng.chance(0.88)
      ? ctx.media.image(rng, 'profile-displayphoto-shrink_800_800', ctx.anchorMs - rng.range(20, 2_500) * DAY_MS)
      : ''
    const lurker = role !== 'reposter' && !creator && rng.chance(0.35)
    const postWeight = lurker ? 0 : rng.logNormal(0, 0.9) * (creator ? 8 : 1) * (influencer ? 4 : 1)
    cores.push({
      index: i,
      profileId,
      memberId: String(member),
      slug,
      url: `https://${host}/in/${slug}`,
      urn: `urn:li:fsd_profile:${profileId}`,
      firstName,
      lastName,
      name: `${firstName} ${lastName}`,
      gender,
      culture,
      region,
      city,
      fn,
      seniority,
      primaryCompany,
      primaryTitle,
      hasOngoing,
      displaysCurrent,
      headline,
      pictureUrl,
      creator,
      influencer,
      premium,
      verified,
      memorial,
      followerCount,
      connectionsCount,
      topics,
      postWeight,
      popularity: Math.max(0.4, Math.min(5, (Math.log10(followerCount + 10) - 1) / 1.5)),
      role,
      articles: [],
      jobs: [],
    })
  }
  return cores
}

interface Stint {
  company: CompanyInfo
  title: string
  start: number
  end: number | null
  primary: boolean
  side: boolean
  kind: 'month' | 'year' | 'nostart' | 'undated'
}

function geoId(region: Region, city: City): string {
  const r = REGIONS.indexOf(region) + 1
  const c = region.cities.indexOf(city) + 1
  return String(100_000_000 + ((r * 1_000_003 + c * 7_919) % 900_000_000))
}

/** The member's full profile and articles. `articles` are yielded after the profile (they link to it). */
export function buildProfile(
  ctx: SynthContext,
  core: ProfileCore,
  deps: {
    workforce: Workforce
    cores: readonly ProfileCore[]
    ids: TimeIdAllocator
    /** Builds the sections drawn from their own stream (replaceable, to show they leave the rest alone). */
    extras?: ExtrasBuilder
  },
): { profile: Profile; articles: ArticleRecord[] } {
  const d = createRng(deriveSeed(ctx.seed, 'profile-detail', core.index))
  // Which entries a member leaves undated, from a stream of its own so every other value stays as it was.
  const undated = createRng(deriveSeed(ctx.seed, 'undated-entries', core.index))
  const anchor = new Date(ctx.anchorMs)
  const anchorYear = anchor.getUTCFullYear()
  const anchorIdx = monthIndex(anchorYear, anchor.getUTCMonth() + 1)
  const [minYears, maxYears] = CAREER_YEARS[core.seniority] as readonly [number, number]
  const careerMonths = Math.max(3, Math.round((minYears + d.next() * (maxYears - minYears)) * 12))
  const careerStart = anchorIdx - careerMonths
  const oddDates = core.role === 'odd-dates'

  // Career, built backwards from today.
  const stints: Stint[] = []
  let company = core.primaryCompany
  let title = core.primaryTitle
  let level = core.seniority
  let end: number | null = core.hasOngoing ? null : anchorIdx - d.range(1, 10)
  const maxCount = oddDates ? 3 : Math.min(8, Math.max(1, 1 + Math.floor(careerMonths / d.range(20, 44))))
  for (let k = 0; k < maxCount; k++) {
    const refEnd = end ?? anchorIdx
    const tenure = k === 0 ? d.range(3, Math.max(4, Math.min(72, careerMonths))) : d.range(8, 48)
    const start = refEnd - tenure
    if (k > 0 && start < careerStart - 12 && !oddDates) break
    const kind: Stint['kind'] = oddDates
      ? (['month', 'year', 'nostart'] as const)[k] ?? 'month'
      : k === 0 ? (d.chance(0.9) ? 'month' : 'year') : d.chance(0.82) ? 'month' : d.chance(0.78) ? 'year' : 'nostart'
    stints.push({ company, title, start, end, primary: k === 0, side: false, kind })
    end = start - d.range(0, 3)
    if (d.chance(0.2)) {
      // An earlier role at the same company (a promotion shows as two entries).
      level = Math.max(0, level - 1)
    } else {
      company = deps.workforce.employer(d, core.fn, company)
      if (d.chance(0.6)) level = Math.max(0, level - 1)
    }
    title = d.pick(core.fn.titles[level] as readonly string[])
  }
  // A side role (advisor, board member…) runs next to the main job; a career still lists at most 8 entries.
  if (core.hasOngoing && stints.length < 8 && d.chance(0.1)) {
    const [sideTitle] = d.pick(SIDE_ROLES)
    stints.push({
      company: deps.workforce.employer(d, core.fn, core.primaryCompany),
      title: sideTitle,
      start: anchorIdx - d.range(1, 40),
      end: null,
      primary: false,
      side: true,
      // A side role is often listed without dates.
      kind: undated.chance(0.3) ? 'undated' : 'month',
    })
  }
  stints.sort((a, b) => (b.end ?? Infinity) - (a.end ?? Infinity) || b.start - a.start)
  for (const s of stints) core.jobs.push({ company: s.company, title: s.title, start: s.start, end: s.end, side: s.side })

  const usedUrnIds = new Set<number>()
  const urnNumber = (): number => {
    let n: number
    do n = d.range(1_000_000_000, 2_999_999_999)
    while (usedUrnIds.has(n))
    usedUrnIds.add(n)
    return n
  }
  const anchorYm: YearMonth = { year: anchorYear, month: anchor.getUTCMonth() + 1 }
  let currentPositionUrn: string | null = null
  const experiences: Profile['experiences'] = stints.map((s) => {
    const startYm = fromMonthIndex(s.start)
    const endYm = s.end === null ? null : fromMonthIndex(s.end)
    const startDate: YearMonth | null = s.kind === 'nostart' || s.kind === 'undated' ? null : s.kind === 'year' ? { year: startYm.year } : startYm
    const endDate: YearMonth | null = endYm === null || s.kind === 'undated' ? null : s.kind === 'year' ? { year: endYm.year } : endYm
    const positionUrn = `urn:li:fsd_profilePosition:(${core.profileId},${urnNumber()})`
    const current = s.primary && s.end === null && core.displaysCurrent
    if (current) currentPositionUrn = positionUrn
    const description = s.side
      ? `${d.pick(['Advising the leadership team on', 'Supporting the founders with', 'Helping the team think through'])} ${d.pick(TOPICS[d.pick(core.topics)].subjects)}.`
      : d.chance(0.35) ? '' : d.sample(core.fn.duties, d.range(1, 2)).map((x) => `${x}.`).join(' ')
    const c = s.company
    return {
      name: c.name as string,
      jobTitle: s.title,
      description,
      dateRange: s.kind === 'undated' ? '' : dateRangeText(startDate, endDate),
      current,
      ongoing: s.end === null,
      ...(startDate !== null ? { totalDuration: durationLabel(startDate, endDate ?? anchorYm) } : {}),
      positionUrn,
      // An entry dated only by its end carries the end alone; one with no dates would carry no period.
      ...(startDate !== null ? { timePeriod: { startDate, endDate } } : endDate !== null ? { timePeriod: { endDate } } : {}),
      company: { url: c.url, name: c.name as string, logo: c.logoUrl ?? null, companyId: c.companyId, urn: c.urn },
    }
  })

  // Education: a first degree finishing as the career starts, sometimes a master's or a doctorate.
  const careerStartYear = fromMonthIndex(careerStart).year
  const student = core.seniority === 0 && d.chance(0.35)
  const eduCount = oddDates ? 2 : student ? 2 : d.chance(0.08) ? 0 : d.chance(0.6) ? 1 : d.chance(0.8) ? 2 : 3
  const degrees: { degree: string; field: string; start: number; end: number; current: boolean }[] = []
  let year = student ? Math.min(careerStartYear, anchorYear - 1) : careerStartYear
  const country = core.region.code
  const pick = <T>(items: readonly T[]): T => d.pick(items)
  const firstField = d.pick(core.fn.fields)
  if (eduCount > 0) {
    const len = d.range(3, 4)
    degrees.push({ degree: degreeFor(pick, 'bachelor', firstField, country), field: firstField, start: year - len, end: year, current: false })
  }
  if (eduCount > 1) {
    const field = d.chance(0.6) ? firstField : d.pick(core.fn.fields)
    if (student) {
      degrees.push({ degree: degreeFor(pick, 'master', field, country), field, start: anchorYear - 1, end: anchorYear + 1, current: true })
    } else {
      const startM = Math.max(year, Math.min(anchorYear - 2, year + d.range(0, 5)))
      const mba = d.chance(0.25)
      const endM = Math.min(anchorYear, startM + d.range(1, 2))
      const mbaField = d.pick(['Business Administration and Management', 'Finance', 'Strategy', 'Entrepreneurship'])
      degrees.push({
        degree: mba ? 'Master of Business Administration - MBA' : degreeFor(pick, 'master', field, country),
        field: mba ? mbaField : field,
        start: startM,
        end: endM,
        current: false,
      })
      year = endM
    }
  }
  if (eduCount > 2 && !student) {
    const startP = Math.max(year, Math.min(anchorYear - 4, year + d.range(0, 2)))
    const field = d.pick(core.fn.fields)
    degrees.push({ degree: degreeFor(pick, 'doctor', field, country), field, start: startP, end: Math.min(anchorYear, startP + d.range(4, 5)), current: false })
  }
  degrees.reverse()
  const educationSchools = degrees.map(() => deps.workforce.school(d, core.region))
  const educations: Profile['educations'] = degrees.map((g, k) => {
    const school = educationSchools[k] as CompanyInfo
    const months = d.chance(0.25)
    const startDate: YearMonth = months ? { year: g.start, month: 9 } : { year: g.start }
    const endDate: YearMonth = months ? { year: g.end, month: 6 } : { year: g.end }
    // Some members leave a finished degree's years off (the pinned odd-dates member always does).
    const dated = g.current || !((oddDates && k === 0) || undated.chance(0.06))
    return {
      name: school.name as string,
      description: `${g.degree}, ${g.field}`,
      dateRange: dated ? dateRangeText(startDate, endDate) : '',
      current: g.current,
      educationUrn: `urn:li:fsd_profileEducation:(${core.profileId},${urnNumber()})`,
      grade: d.pick(GRADES),
      details: d.chance(0.3) ? `Activities and societies: ${d.pick(ACTIVITIES)}` : '',
      schoolLogo: school.logoUrl ?? null,
      schoolUrl: school.url,
      ...(dated ? { timePeriod: { startDate, endDate } } : {}),
    }
  })
  const firstEducation = educations[0]
  const firstSchool = educationSchools[0]
  const currentSchool =
    firstEducation !== undefined && firstSchool !== undefined && (student || d.chance(0.65))
      ? {
          educationUrn: firstEducation.educationUrn,
          schoolId: firstSchool.schoolId as string,
          name: firstSchool.name as string,
          url: firstSchool.url,
          logo: firstSchool.logoUrl ?? null,
        }
      : null

  const skillPool = [...core.fn.skills, ...GENERAL_SKILLS]
  const skills = d.chance(0.08)
    ? []
    : d
        .sample(skillPool, d.range(5, Math.min(25, skillPool.length)))
        .map((name) => ({ name, endorsementCount: Math.floor(d.logNormal(Math.log(2 + core.seniority * 3), 1.1)) }))
        .sort((a, b) => b.endorsementCount - a.endorsementCount)

  const languages: Profile['languages'] = []
  if (!d.chance(0.1)) {
    const native = d.pick(NATIVE_LANGUAGE[core.culture])
    languages.push({ name: native, proficiency: LANGUAGE_PROFICIENCIES[0] })
    if (native !== 'English') languages.push({ name: 'English', proficiency: d.pick(LANGUAGE_PROFICIENCIES.slice(0, 3)) })
    const local = core.region.languages[0] as string
    if (!languages.some((l) => l.name === local)) languages.push({ name: local, proficiency: d.pick(LANGUAGE_PROFICIENCIES.slice(1)) })
    if (d.chance(0.3)) {
      const extra = d.pick(EXTRA_LANGUAGES)
      if (!languages.some((l) => l.name === extra)) languages.push({ name: extra, proficiency: d.pick(LANGUAGE_PROFICIENCIES.slice(2)) })
    }
  }

  const certifications: Profile['certifications'] = d.chance(0.55)
    ? []
    : d.sample(core.fn.certifications, d.range(1, 3)).map(([name, issuer]) => {
        const ym = fromMonthIndex(careerStart + d.int(Math.max(1, anchorIdx - careerStart)))
        return {
          name,
          issuer,
          issuedAt: `${ym.year}-${String(ym.month).padStart(2, '0')}`,
          url: d.chance(0.45) ? `https://www.credly.com/badges/${d.chars('0123456789abcdef', 8)}-${d.chars('0123456789abcdef', 4)}-${d.chars('0123456789abcdef', 4)}-${d.chars('0123456789abcdef', 12)}` : null,
          credentialId: d.chance(0.6) ? d.chars('ABCDEFGHJKLMNPQRSTUVWXYZ0123456789', d.range(8, 12)) : null,
          authority: issuer,
          timePeriod: { startDate: { year: ym.year, month: ym.month } },
        }
      })

  let recommendations: Profile['recommendations']
  if (core.role === 'no-recommendations' || (core.role === undefined && d.chance(0.05))) recommendations = undefined
  else if (core.role !== 'recommended' && d.chance(0.6)) recommendations = []
  else {
    recommendations = []
    const n = d.range(1, 4)
    for (let k = 0; k < n && deps.cores.length > 1; k++) {
      let other = deps.cores[d.int(deps.cores.length)] as ProfileCore
      if (other.index === core.index) other = deps.cores[(core.index + 1) % deps.cores.length] as ProfileCore
      const whenMs = ctx.anchorMs - d.range(30, 3_000) * DAY_MS
      recommendations.push({
        caption: `${longDate(whenMs)}, ${d.pick(RECOMMENDATION_RELATIONS)(other.name, core.firstName)}`,
        description: d.pick(RECOMMENDATION_TEXTS)(core.firstName),
        authorFullname: other.name,
        authorUrl: other.url,
      })
    }
  }

  const testScores: Profile['testScores'] = d.chance(0.05)
    ? [
        (() => {
          const [name, lo, hi] = d.pick(TEST_SCORES)
          const score = name.startsWith('IELTS') ? (d.range(lo * 2, hi * 2) / 2).toFixed(1) : String(d.range(lo, hi))
          const ym = fromMonthIndex(careerStart - d.range(0, 36))
          return { name, score, date: formatYm(ym) }
        })(),
      ]
    : []
  const volunteerCauses = d.chance(0.25) ? d.sample(VOLUNTEER_CAUSES, d.range(1, 3)) : []
  const tags = [...new Set(core.topics.flatMap((t) => TOPICS[t].tags.slice(0, 2)))]
  const creatorInfo = core.creator
    ? { hashTags: d.sample(tags, d.range(3, Math.min(5, tags.length))), website: d.chance(0.5) ? `https://${core.slug.replace(/-[0-9a-f]+$/, '')}.substack.com` : '' }
    : { hashTags: [], website: '' }
  const joinYear = Math.min(anchorYear, Math.max(2003, careerStartYear + d.range(-1, 5)))
  const joinMonth = joinYear === anchorYear ? d.range(1, anchor.getUTCMonth() + 1) : d.range(1, 12)
  const pronoun = d.chance(0.3) ? (d.chance(0.08) ? PRONOUNS.neutral : PRONOUNS[core.gender]) : undefined
  const openToWork = core.role === 'no-open-to-work' || (core.role === undefined && d.chance(0.1)) ? undefined : d.chance(core.hasOngoing ? 0.04 : 0.55)
  const openProfile = core.role === 'no-open-profile' || (core.role === undefined && d.chance(0.1)) ? undefined : d.chance(core.premium ? 0.6 : 0.03)

  const years = Math.max(1, Math.floor(careerMonths / 12))
  const subject = d.pick(TOPICS[d.pick(core.topics)].subjects)
  const labels = core.topics
    .slice(0, 2)
    .map((t) => (TOPICS[t].label === TOPICS[t].label.toUpperCase() ? TOPICS[t].label : TOPICS[t].label.toLowerCase()))
    .join(' and ')
  const about = d.chance(0.15)
    ? ''
    : [
        d.pick([
          `${core.primaryTitle} with ${years}+ years of experience in ${core.fn.team.toLowerCase()}, lately focused on ${subject}.`,
          `Passionate about ${labels}. ${core.hasOngoing ? `Currently ${core.primaryTitle} at ${core.primaryCompany.name}.` : `Most recently ${core.primaryTitle} at ${core.primaryCompany.name}.`}`,
          `${years} years in ${core.fn.team.toLowerCase()}, across ${Math.max(1, stints.length)} ${stints.length === 1 ? 'company' : 'companies'} and more late-night launches than I can count.`,
        ]),
        d.pick([
          `A recent highlight: ${d.pick(core.fn.duties)}.`,
          `Lately I have been thinking a lot about ${d.pick(TOPICS[d.pick(core.topics)].subjects)}. I care about clear writing, good questions and teams that trust each other.`,
          `Skills I use every day: ${d.sample(core.fn.skills, 3).join(', ')}.`,
        ]),
        d.chance(0.5) ? `Outside work: ${d.pick(ctx.pools.hobbies)}.` : '',
        d.chance(0.3) ? 'Always happy to chat, just send me a message.' : '',
      ]
        .filter((s) => s !== '')
        .join(' ')

  const lastFullMonth = anchorIdx - 1
  const extras = (deps.extras ?? profileExtras)(createRng(deriveSeed(ctx.seed, 'profile-extras', core.index)), {
    core,
    career: { from: Math.min(firstShownMonth([...experiences, ...educations]) ?? careerStart, lastFullMonth), to: lastFullMonth },
    anchorMs: ctx.anchorMs,
    educations,
    volunteerCauses,
    cores: deps.cores,
  })

  const current = experiences.find((e) => e.current)
  const currentCompany = current ? core.primaryCompany : undefined
  const profile: Profile = {
    id: core.urn,
    profileId: core.profileId,
    memberId: core.memberId,
    publicIdentifier: core.slug,
    url: core.url,
    firstName: core.firstName,
    lastName: core.lastName,
    title: core.headline,
    description: about,
    location: `${core.city.name}, ${core.city.area === core.city.name ? '' : `${core.city.area}, `}${core.region.country}`,
    geoLocationName: core.city.area === core.city.name ? core.city.name : `${core.city.name}, ${core.city.area}`,
    geoCountryName: core.region.country,
    countryCode: core.region.code,
    geoUrn: `urn:li:fsd_geo:${geoId(core.region, core.city)}`,
    profilePictureUrl: core.pictureUrl,
    coverImageUrl: d.chance(0.55) ? ctx.media.image(d, 'profile-displaybackgroundimage-shrink_350_1400', ctx.anchorMs - d.range(20, 2_000) * DAY_MS) : '',
    connectionType: 'OUT_OF_NETWORK',
    creatorInfo,
    jobTitle: current ? current.jobTitle : '',
    companyName: currentCompany?.name ?? '',
    companyPublicId: currentCompany?.slug ?? '',
    companyLinkedinUrl: currentCompany?.url ?? '',
    currentPosition:
      current && currentCompany && currentPositionUrn !== null
        ? {
            positionUrn: currentPositionUrn,
            title: current.jobTitle,
            name: currentCompany.name as string,
            companyId: currentCompany.companyId,
            companyUrn: currentCompany.urn,
            publicIdentifier: currentCompany.slug as string,
            url: currentCompany.url,
          }
        : null,
    currentSchool,
    followerCount: core.followerCount,
    connectionsCount: core.connectionsCount,
    creator: core.creator,
    influencer: core.influencer,
    premium: core.premium,
    isVerified: core.verified,
    ...(openToWork !== undefined ? { openToWork } : {}),
    inRemembrance: core.memorial,
    ...(openProfile !== undefined ? { openProfile } : {}),
    joinDate: { month: joinMonth, year: joinYear },
    ...(pronoun !== undefined ? { pronoun } : {}),
    experiences,
    educations,
    skills,
    languages,
    certifications,
    ...(recommendations !== undefined ? { recommendations } : {}),
    testScores,
    volunteerCauses,
    hiring: extras.hiring,
    industry: extras.industry,
    industryUrn: extras.industryUrn,
    primaryLocale: extras.primaryLocale,
    publications: extras.publications,
    projects: extras.projects,
    honors: extras.honors,
    courses: extras.courses,
    organizations: extras.organizations,
    patents: extras.patents,
    volunteerExperiences: extras.volunteerExperiences,
    recommendationsGiven: extras.recommendationsGiven,
  }

  // Articles: creators write often, a few others now and then.
  const articles: ArticleRecord[] = []
  const writes = core.role === 'undecodable-article' || (core.creator ? d.chance(0.6) : d.chance(0.04 + 0.01 * core.seniority))
  if (writes) {
    const n = core.role === 'undecodable-article' ? 2 : Math.min(12, 1 + Math.floor(d.exponential(core.creator ? 3 : 1.2)))
    const earliest = Math.max(ctx.anchorMs - 6 * 365 * DAY_MS, Date.UTC(joinYear, joinMonth - 1, 1))
    const times: number[] = []
    for (let k = 0; k < n; k++) times.push(earliest + Math.floor(d.next() * Math.max(1, ctx.anchorMs - 3_600_000 - earliest)))
    times.sort((a, b) => a - b)
    times.forEach((ms, k) => {
      const undecodable = (core.role === 'undecodable-article' && k === 0) || d.chance(0.015)
      const articleId = undecodable ? deps.ids.undecodableArticleId() : deps.ids.next('article', ms)
      const topic = TOPICS[d.pick(core.topics)]
      const subj = d.pick(topic.subjects)
      const titleText = d.pick(ARTICLE_TITLES)(subj, d.range(3, Math.max(3, Math.min(12, years))), core.primaryCompany.name as string)
      const url = `https://${ctx.platformHost}/pulse/${slugify(titleText)}-${articleId}/`
      const opening = `${capital(d.pick(topic.insights))}. ${capital(d.pick(topic.insights))}. In this piece I look at ${subj} from the inside: what worked for us, what did not, and what I would do differently next time.`
      // The pinned member's second article lacks the optional parts, so every null shows up somewhere.
      const bare = core.role === 'undecodable-article' && k === 1
      const readTime = !bare && d.chance(0.9) ? d.range(2, 14) : null
      articles.push({
        articleUrn: `urn:li:linkedinArticle:${articleId}`,
        articleId,
        title: titleText,
        url,
        description: clip(opening, 150),
        publishedAt: articlePublishedAt(articleId, ctx.anchorMs),
        coverImageUrl: !bare && d.chance(0.75) ? ctx.media.image(d, 'article-cover_image-shrink_720_1280', ms) : null,
        readTimeMinutes: readTime,
        subtitle: readTime === null ? core.name : `${core.name} · ${readTime} min read`,
        authorProfileId: core.profileId,
      })
      if (!undecodable) core.articles.push({ ms, title: titleText, url })
    })
  }
  return { profile, articles }
}
