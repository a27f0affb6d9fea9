/**
 * The profile sections beyond career and education: hiring, industry, locale, publications, projects,
 * honors, courses, organizations, patents, volunteering and the recommendations the member wrote.
 * They are drawn from their own random stream, so adding or changing a section never shifts anything
 * else the generator produces for the same seed.
 */
import type { Profile } from '../contract/resources.schemas.ts'
import type { CompanyInfo } from './company-factory.ts'
import type { JobSpan, ProfileCore } from './profile-factory.ts'
import { weighted, type Rng } from './prng.ts'
import { DAY_MS } from './synth-context.ts'
import { fromMonthIndex, groupDigits, longDate, monthIndex, slugify, type YearMonth } from './text.ts'
import {
  COURSES,
  ESSAY_TITLES,
  ORGANIZATION_POSITIONS,
  ORGANIZATIONS,
  PAPER_TITLES,
  PATENT_FORMS,
  PATENT_IDEAS,
  PROJECTS,
  PUBLISHERS,
  SCHOOL_HONORS,
  STUDY_UNITS,
  VOLUNTEERING,
  WORK_HONORS,
} from './vocabulary/accomplishments.vocabulary.ts'
import { RECOMMENDATION_RELATIONS, RECOMMENDATION_TEXTS } from './vocabulary/careers.vocabulary.ts'
import { PROFILE_LANGUAGE_CODES, type Region } from './vocabulary/places.vocabulary.ts'
import { TOPICS, capital } from './vocabulary/topics.vocabulary.ts'

export type ProfileExtras = Pick<
  Profile,
  | 'hiring'
  | 'industry'
  | 'industryUrn'
  | 'primaryLocale'
  | 'publications'
  | 'projects'
  | 'honors'
  | 'courses'
  | 'organizations'
  | 'patents'
  | 'volunteerExperiences'
  | 'recommendationsGiven'
>

type TimePeriod = NonNullable<Profile['projects'][number]['timePeriod']>

/** A stretch of months (months since year 0, both ends included). */
export interface Span {
  readonly from: number
  readonly to: number
}

export interface ExtrasInput {
  readonly core: ProfileCore
  /** The member's career as the profile shows it: its first dated month up to the last full month before "now". */
  readonly career: Span
  readonly anchorMs: number
  readonly educations: Profile['educations']
  readonly volunteerCauses: readonly string[]
  /** Every member of the network: recommendations name other members. */
  readonly cores: readonly ProfileCore[]
}

export type ExtrasBuilder = (rng: Rng, input: ExtrasInput) => ProfileExtras

/** Sections in the schema's order. */
export function profileExtras(rng: Rng, input: ExtrasInput): ProfileExtras {
  const { core, career } = input
  return {
    hiring: isHiring(rng, core),
    ...industryOf(rng, core.primaryCompany),
    primaryLocale: primaryLocaleOf(rng, core.region),
    publications: publicationsFor(rng, core, career),
    projects: projectsFor(rng, core, career),
    honors: honorsFor(rng, core, career, input.educations),
    courses: coursesFor(rng, core, input.educations),
    organizations: organizationsFor(rng, core, career),
    patents: patentsFor(rng, core, career),
    volunteerExperiences: volunteerExperiencesFor(rng, core, career, input.volunteerCauses),
    recommendationsGiven: recommendationsGivenFor(rng, core, career, input),
  }
}

/** The first month any experience or education shows a start for (a year alone counts from January). */
export function firstShownMonth(entries: readonly { timePeriod?: TimePeriod }[]): number | undefined {
  let first: number | undefined
  for (const e of entries) {
    const start = e.timePeriod !== undefined && 'startDate' in e.timePeriod ? e.timePeriod.startDate : undefined
    if (start === undefined) continue
    const m = monthIndex(start.year, start.month ?? 1)
    if (first === undefined || m < first) first = m
  }
  return first
}

// ---------- dates ----------

const monthIn = (rng: Rng, span: Span): number => span.from + rng.int(span.to - span.from + 1)

const shown = (m: number, withMonth: boolean): YearMonth => {
  const ym = fromMonthIndex(m)
  return withMonth ? ym : { year: ym.year }
}

/** The months of `span` that fall within [from, to] (to null: open-ended), if any. */
function overlap(span: Span, from: number, to: number | null): Span | undefined {
  const lo = Math.max(span.from, from)
  const hi = Math.min(span.to, to ?? span.to)
  return lo <= hi ? { from: lo, to: hi } : undefined
}

/** The part of the career a job covers (the whole career when they do not meet). */
function jobWithin(career: Span, job: JobSpan): Span {
  return overlap(career, job.start, job.end) ?? career
}

/**
 * A period inside `span`: mostly start and end (end null while ongoing), sometimes only an end or no
 * dates at all, sometimes years without months, as people fill these sections in loosely.
 */
function periodIn(rng: Rng, span: Span, o: { ongoing: number; longest: number }): TimePeriod | undefined {
  const x = rng.next()
  if (x < 0.08) return undefined
  const withMonth = !rng.chance(0.2)
  const start = monthIn(rng, span)
  const end = Math.min(span.to, start + rng.range(1, o.longest))
  if (x < 0.14) return { endDate: shown(end, withMonth) }
  return { startDate: shown(start, withMonth), endDate: rng.chance(o.ongoing) ? null : shown(end, withMonth) }
}

/** A month for an issued or published item: usually with its month, sometimes the year alone, rarely none. */
function issuedIn(rng: Rng, span: Span): { at: number; on: YearMonth | undefined } {
  const at = monthIn(rng, span)
  const on = rng.chance(0.92) ? shown(at, rng.chance(0.8)) : undefined
  return { at, on }
}

/** Where a period sits in time, for ordering (undated entries last). */
const periodAt = (tp: TimePeriod | undefined): number => {
  if (tp === undefined) return -1
  const ym = 'startDate' in tp ? tp.startDate : tp.endDate
  return monthIndex(ym.year, ym.month ?? 1)
}

const newestFirst = <T>(items: readonly { at: number; item: T }[]): T[] =>
  [...items].sort((a, b) => b.at - a.at).map((x) => x.item)

const lowerFirst = (s: string): string => (s.length === 0 ? s : (s[0] as string).toLowerCase() + s.slice(1))

/** A handle for the member's accounts elsewhere ("janedoe"). */
const handleOf = (core: ProfileCore): string => core.slug.replace(/-[0-9a-f]{5,8}$/, '').replace(/-/g, '')

const topicOf = (rng: Rng, core: ProfileCore) => TOPICS[rng.pick(core.topics)]

// ---------- flags ----------

const HIRING_BY_SENIORITY = [0.005, 0.015, 0.035, 0.08, 0.11, 0.11] as const
const MANAGES = /\b(Manager|Head|Director|Lead|Founder|Co-founder|VP|Chief|Partner|CEO|CTO)\b/

/** Members with a current job sometimes show they are hiring, managers most of all. */
export function isHiring(rng: Rng, core: ProfileCore): boolean {
  if (!core.hasOngoing || core.memorial) return false
  const base = HIRING_BY_SENIORITY[core.seniority] ?? 0.05
  return rng.chance(MANAGES.test(core.primaryTitle) ? base * 1.5 : base)
}

/** The member's industry is their main employer's; a few leave it empty. */
export function industryOf(rng: Rng, company: CompanyInfo): Pick<Profile, 'industry' | 'industryUrn'> {
  if (rng.chance(0.02)) return { industry: '', industryUrn: '' }
  return { industry: company.industry.label, industryUrn: `urn:li:fsd_industry:${company.industry.id}` }
}

export function primaryLocaleOf(rng: Rng, region: Region): Profile['primaryLocale'] {
  const native = PROFILE_LANGUAGE_CODES[region.languages[0] ?? ''] ?? 'en'
  // Many members outside English-speaking countries keep their profile in English.
  const language = native !== 'en' && rng.chance(0.25) ? 'en' : native
  return { country: region.code, language }
}

// ---------- publications ----------

/** Researchers and clinicians publish; elsewhere it is rare. */
const PUBLICATION_RATE: Readonly<Record<string, number>> = { research: 0.6, health: 0.2, data: 0.1, engineering: 0.04 }

export function publicationsFor(rng: Rng, core: ProfileCore, career: Span): Profile['publications'] {
  if (!rng.chance(PUBLICATION_RATE[core.fn.key] ?? 0.02)) return []
  const n = core.fn.key === 'research' ? Math.min(6, 1 + rng.int(2 + core.seniority)) : rng.chance(0.75) ? 1 : 2
  const publishers = PUBLISHERS[core.fn.key] ?? PUBLISHERS.default
  const names = new Set<string>()
  const out: { at: number; item: Profile['publications'][number] }[] = []
  for (let k = 0; k < n; k++) {
    const publisher = rng.pick(publishers)
    const topic = topicOf(rng, core)
    const subject = rng.pick(topic.subjects)
    const insight = rng.pick(topic.insights)
    const paper = publisher.kind !== 'web'
    const name = paper ? rng.pick(PAPER_TITLES)(subject, rng.range(3, 40)) : rng.pick(ESSAY_TITLES)(subject)
    if (names.has(name)) continue
    names.add(name)
    const { at, on } = issuedIn(rng, career)
    const year = fromMonthIndex(at).year
    const description = rng.chance(0.3)
      ? ''
      : paper
        ? `We examine ${subject} across ${rng.range(3, 40)} ${rng.pick(STUDY_UNITS[core.fn.key] ?? STUDY_UNITS.default)} and find that ${insight}.`
        : `${capital(insight)}. Notes from my work at ${core.primaryCompany.name as string}.`
    let url = ''
    if (publisher.kind === 'journal' && rng.chance(0.6)) {
      url = `https://doi.org/10.${rng.range(1000, 9999)}/${rng.chars('abcdefghijklmnopqrstuvwxyz', 3)}.${year}.${rng.range(10_000, 99_999)}`
    } else if (publisher.kind === 'preprint' && year >= 2007) {
      // arXiv ids are yymm.number, with five digits since 2015.
      const ym = fromMonthIndex(at)
      const digits = String(rng.range(1, year >= 2015 ? 99_999 : 9_999)).padStart(year >= 2015 ? 5 : 4, '0')
      url = `https://arxiv.org/abs/${String(year % 100).padStart(2, '0')}${String(ym.month).padStart(2, '0')}.${digits}`
    } else if (publisher.kind === 'web' && publisher.host !== undefined && rng.chance(0.8)) {
      url = publisher.host === 'medium.com'
        ? `https://medium.com/@${handleOf(core)}/${slugify(name)}-${rng.chars('0123456789abcdef', 12)}`
        : `https://${publisher.host}/${year}/${slugify(name)}`
    }
    out.push({ at, item: { name, publisher: publisher.name, description, url, ...(on !== undefined ? { publishedOn: on } : {}) } })
  }
  return newestFirst(out)
}

// ---------- projects ----------

const CODE_FUNCTIONS = new Set(['engineering', 'data'])

export function projectsFor(rng: Rng, core: ProfileCore, career: Span): Profile['projects'] {
  if (!rng.chance(0.15)) return []
  const titles = rng.sample(PROJECTS[core.fn.key] ?? PROJECTS.default, rng.chance(0.7) ? 1 : rng.range(2, 3))
  const out: { at: number; item: Profile['projects'][number] }[] = []
  for (const title of titles) {
    const job = rng.pick(core.jobs)
    const span = jobWithin(career, job)
    const timePeriod = periodIn(rng, span, { ongoing: job.end === null ? 0.3 : 0, longest: 18 })
    const topic = topicOf(rng, core)
    const description = rng.pick([
      '',
      `With a team of ${rng.range(3, 12)} at ${job.company.name as string}: ${lowerFirst(rng.pick(core.fn.duties))}.`,
      `Focused on ${rng.pick(topic.subjects)}; the main lesson: ${rng.pick(topic.insights)}.`,
      `${rng.pick(core.fn.duties)}.`,
    ])
    let url = ''
    if (CODE_FUNCTIONS.has(core.fn.key) && rng.chance(0.35)) url = `https://github.com/${handleOf(core)}/${slugify(title)}`
    else if (core.fn.key === 'design' && rng.chance(0.35)) url = `https://www.behance.net/gallery/${rng.range(100_000_000, 199_999_999)}/${slugify(title)}`
    else if (job.company.domain !== undefined && rng.chance(0.1)) url = `https://www.${job.company.domain}/case-studies/${slugify(title)}`
    out.push({ at: periodAt(timePeriod), item: { title, description, url, ...(timePeriod !== undefined ? { timePeriod } : {}) } })
  }
  return newestFirst(out)
}

// ---------- honors ----------

/** The months an education covers, within the career. */
function educationSpan(career: Span, e: Profile['educations'][number]): Span | undefined {
  if (e.timePeriod === undefined || !('startDate' in e.timePeriod)) return undefined
  const { startDate, endDate } = e.timePeriod
  return overlap(career, monthIndex(startDate.year, startDate.month ?? 1), endDate === null ? null : monthIndex(endDate.year, endDate.month ?? 12))
}

export function honorsFor(rng: Rng, core: ProfileCore, career: Span, educations: Profile['educations']): Profile['honors'] {
  if (!rng.chance(0.12)) return []
  const n = rng.chance(0.8) ? 1 : 2
  const schools = educations.flatMap((e) => {
    const span = educationSpan(career, e)
    return span === undefined ? [] : [{ name: e.name, span }]
  })
  const titles = new Set<string>()
  const out: { at: number; item: Profile['honors'][number] }[] = []
  for (let k = 0; k < n; k++) {
    const school = schools.length > 0 && rng.chance(0.35) ? rng.pick(schools) : undefined
    let title: string
    let issuer: string
    let span: Span
    let description: string
    if (school !== undefined) {
      title = rng.pick(SCHOOL_HONORS)
      issuer = school.name
      span = school.span
      description = rng.chance(0.5) ? '' : `Awarded to the top ${rng.pick([1, 2, 5, 10])}% of the class.`
    } else {
      const job = rng.pick(core.jobs)
      const own = WORK_HONORS[core.fn.key]
      title = rng.pick(own !== undefined && rng.chance(0.6) ? own : WORK_HONORS.default)
      issuer = job.company.name as string
      span = jobWithin(career, job)
      description = rng.pick([
        '',
        '',
        `Awarded for my work on ${rng.pick(topicOf(rng, core).subjects)}.`,
        `One of ${rng.range(3, 20)} people recognised across ${issuer} that year.`,
      ])
    }
    if (titles.has(title)) continue
    titles.add(title)
    const { at, on } = issuedIn(rng, span)
    out.push({ at, item: { title, issuer, description, ...(on !== undefined ? { issuedOn: on } : {}) } })
  }
  return newestFirst(out)
}

// ---------- courses ----------

/** Courses belong to a degree: students list them most, graduates of long ago rarely. */
export function coursesFor(rng: Rng, core: ProfileCore, educations: Profile['educations']): Profile['courses'] {
  if (educations.length === 0) return []
  const rate = educations.some((e) => e.current) ? 0.6 : core.seniority === 0 ? 0.2 : 0.075
  if (!rng.chance(rate)) return []
  return rng.sample(COURSES[core.fn.key] ?? COURSES.default, rng.range(2, 5)).map(([name, department]) => ({
    name,
    number: rng.chance(0.7) ? `${department} ${rng.range(100, 499)}` : '',
  }))
}

// ---------- organizations ----------

const positionPicker = weighted(ORGANIZATION_POSITIONS)

export function organizationsFor(rng: Rng, core: ProfileCore, career: Span): Profile['organizations'] {
  if (!rng.chance(0.08)) return []
  const names = rng.sample(ORGANIZATIONS[core.fn.key] ?? ORGANIZATIONS.default, rng.chance(0.75) ? 1 : 2)
  return names.map((name) => {
    const subject = rng.pick(topicOf(rng, core).subjects)
    const description = rng.chance(0.6)
      ? ''
      : rng.pick([`Member of the ${core.city.name} chapter.`, `Organising meetups on ${subject}.`, 'Mentoring early-career members.', `Spoke at the annual conference on ${subject}.`])
    const timePeriod = periodIn(rng, career, { ongoing: 0.55, longest: 120 })
    return { name, position: positionPicker.pick(rng), description, ...(timePeriod !== undefined ? { timePeriod } : {}) }
  })
}

// ---------- patents ----------

/** Patents come mostly from engineers, and from people a few years into their career. */
const PATENT_RATE: Readonly<Record<string, number>> = { engineering: 0.05, data: 0.04, research: 0.04, health: 0.02, operations: 0.01, design: 0.01, product: 0.005 }
const EUROPEAN = new Set(['DE', 'FR', 'NL', 'ES', 'IT', 'SE', 'PL', 'IE', 'CH', 'GB'])

/** The patent office a member's employer files with. */
function patentOffice(rng: Rng, region: Region): string {
  if (EUROPEAN.has(region.code) && rng.chance(0.5)) return 'EP'
  if ((region.code === 'JP' || region.code === 'IN') && rng.chance(0.4)) return region.code
  return 'US'
}

/** A granted number that grows with the grant date, as the offices' counters do. */
function grantNumber(rng: Rng, office: string, at: number): { shown: string; compact: string } {
  if (office === 'US') {
    // About 27,500 US grants a month; number 10,000,000 was granted in June 2018.
    const n = Math.max(4_000_000, 10_000_000 + (at - monthIndex(2018, 6)) * 27_500 + rng.int(27_500))
    return { shown: `US ${groupDigits(n)} B2`, compact: `US${n}B2` }
  }
  const digits = String(rng.range(office === 'EP' ? 2_000_000 : 5_000_000, office === 'EP' ? 4_399_999 : 7_999_999))
  return office === 'EP'
    ? { shown: `EP ${digits[0]} ${digits.slice(1, 4)} ${digits.slice(4)} B1`, compact: `EP${digits}B1` }
    : { shown: `${office} ${digits} B2`, compact: `${office}${digits}B2` }
}

export function patentsFor(rng: Rng, core: ProfileCore, career: Span): Profile['patents'] {
  const rate = (PATENT_RATE[core.fn.key] ?? 0) * (core.seniority >= 2 ? 1.3 : 0.5)
  if (!rng.chance(rate)) return []
  const ideas = rng.sample(PATENT_IDEAS[core.fn.key] ?? PATENT_IDEAS.default, rng.chance(0.65) ? 1 : rng.range(2, 4))
  const mainJobs = core.jobs.filter((j) => !j.side)
  const out: { at: number; item: Profile['patents'][number] }[] = []
  for (const [subject, effect] of ideas) {
    const job = rng.pick(mainJobs.length > 0 ? mainJobs : core.jobs)
    const form = rng.pick(PATENT_FORMS)
    const office = patentOffice(rng, core.region)
    const at = monthIn(rng, jobWithin(career, job))
    const ym = fromMonthIndex(at)
    let number: string
    let compact: string
    if (office === 'US' && rng.chance(0.25)) {
      // A published application, not yet granted.
      const serial = String(rng.range(100_000, 399_999)).padStart(7, '0')
      number = `US ${ym.year}/${serial} A1`
      compact = `US${ym.year}${serial}A1`
    } else {
      ;({ shown: number, compact } = grantNumber(rng, office, at))
    }
    const company = job.company.name as string
    const kind = form.startsWith('Method') ? 'method' : form.startsWith('System') ? 'system' : 'technique'
    out.push({
      at,
      item: {
        title: `${form} ${subject}`,
        number,
        issuer: office,
        description: rng.chance(0.3) ? '' : `A ${kind} that ${effect}. Filed with ${company}.`,
        url: rng.chance(0.65) ? `https://patents.google.com/patent/${compact}/en` : '',
        ...(rng.chance(0.95) ? { issuedOn: shown(at, rng.chance(0.85)) } : {}),
      },
    })
  }
  return newestFirst(out)
}

// ---------- volunteering ----------

/** Members who list causes volunteer far more often, and for one of those causes. */
export function volunteerExperiencesFor(rng: Rng, core: ProfileCore, career: Span, causes: readonly string[]): Profile['volunteerExperiences'] {
  if (!rng.chance(causes.length > 0 ? 0.38 : 0.03)) return []
  const n = rng.chance(0.7) ? 1 : rng.range(2, 3)
  const seen = new Set<string>()
  const out: { at: number; item: Profile['volunteerExperiences'][number] }[] = []
  for (let k = 0; k < n; k++) {
    const cause = causes.length > 0 && rng.chance(0.9) ? rng.pick(causes) : ''
    const entry = VOLUNTEERING[cause as keyof typeof VOLUNTEERING] ?? VOLUNTEERING['']
    const organization = rng.pick(entry.organizations).replace('{city}', core.city.name)
    if (seen.has(organization)) continue
    seen.add(organization)
    const timePeriod = periodIn(rng, career, { ongoing: 0.4, longest: 60 })
    const description = rng.chance(0.4) ? '' : `${capital(rng.pick(entry.activities))}.`
    out.push({ at: periodAt(timePeriod), item: { role: rng.pick(entry.roles), organization, cause, description, ...(timePeriod !== undefined ? { timePeriod } : {}) } })
  }
  return newestFirst(out)
}

// ---------- recommendations given ----------

/** Someone the member worked with: a colleague at the same company when one turns up, else anyone. */
function recipientFor(rng: Rng, core: ProfileCore, cores: readonly ProfileCore[], taken: ReadonlySet<number>): ProfileCore | undefined {
  let fallback: ProfileCore | undefined
  for (let attempt = 0; attempt < 8; attempt++) {
    const other = cores[rng.int(cores.length)] as ProfileCore
    if (other.index === core.index || taken.has(other.index)) continue
    if (other.primaryCompany === core.primaryCompany) return other
    if (fallback === undefined || (fallback.fn !== core.fn && other.fn === core.fn)) fallback = other
  }
  return fallback
}

export function recommendationsGivenFor(
  rng: Rng,
  core: ProfileCore,
  career: Span,
  input: Pick<ExtrasInput, 'cores' | 'anchorMs'>,
): Profile['recommendationsGiven'] {
  if (input.cores.length < 2 || !rng.chance(0.15)) return []
  const n = rng.chance(0.7) ? 1 : rng.range(2, 3)
  // Written within the career, mostly in the last eight years, and never later than the end of last month.
  const careerStartMs = Date.UTC(fromMonthIndex(career.from).year, fromMonthIndex(career.from).month - 1, 1)
  const lastMonth = fromMonthIndex(career.to + 1)
  const hi = Date.UTC(lastMonth.year, lastMonth.month - 1, 1) - DAY_MS
  const lo = Math.min(hi, Math.max(careerStartMs, input.anchorMs - 3_000 * DAY_MS))
  const taken = new Set<number>()
  const out: { at: number; item: Profile['recommendationsGiven'][number] }[] = []
  for (let k = 0; k < n; k++) {
    const other = recipientFor(rng, core, input.cores, taken)
    if (other === undefined) break
    taken.add(other.index)
    const ms = lo + Math.floor(rng.next() * (hi - lo))
    out.push({
      at: ms,
      item: {
        caption: `${longDate(ms)}, ${rng.pick(RECOMMENDATION_RELATIONS)(core.name, other.firstName)}`,
        description: rng.pick(RECOMMENDATION_TEXTS)(other.firstName),
        recipientFullname: other.name,
        recipientUrl: other.url,
      },
    })
  }
  return newestFirst(out)
}
