import { Compile } from 'typebox/compile'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ArticleRecord } from '../../src/contract/ingest.schemas.ts'
import { ProfileSchema, type Profile } from '../../src/contract/resources.schemas.ts'
import { planCompanies } from '../../src/synth/company-factory.ts'
import { generateNetwork } from '../../src/synth/index.ts'
import { createMediaUrls } from '../../src/synth/media.ts'
import { buildNamePools } from '../../src/synth/name-pools.ts'
import { planNetwork } from '../../src/synth/network-plan.ts'
import { createRng, deriveSeed } from '../../src/synth/prng.ts'
import type { ExtrasBuilder, ProfileExtras } from '../../src/synth/profile-extras.ts'
import { buildProfile, createWorkforce, planProfiles, type ProfileCore } from '../../src/synth/profile-factory.ts'
import type { SynthContext } from '../../src/synth/synth-context.ts'
import { createTimeIdAllocator } from '../../src/synth/time-ids.ts'

const HOST = 'www.linkedin.com'
const ANCHOR = Date.UTC(2026, 10, 1)
const SIZE = 3_000
const EXTRA_KEYS = [
  'hiring', 'industry', 'industryUrn', 'primaryLocale', 'publications', 'projects', 'honors', 'courses',
  'organizations', 'patents', 'volunteerExperiences', 'recommendationsGiven',
] as const satisfies readonly (keyof ProfileExtras)[]
const LISTS = ['publications', 'projects', 'honors', 'courses', 'organizations', 'patents', 'volunteerExperiences', 'recommendationsGiven'] as const

interface Member {
  core: ProfileCore
  profile: Profile
  articles: ArticleRecord[]
}

/** The members of a network, built as generateNetwork builds them, with their planned cores alongside. */
function buildMembers(seed: number, size: number, extras?: ExtrasBuilder): Member[] {
  const ctx: SynthContext = { seed, anchorMs: ANCHOR, platformHost: HOST, media: createMediaUrls(HOST, ANCHOR), pools: buildNamePools(seed) }
  const plan = planNetwork(size)
  const workforce = createWorkforce(planCompanies(ctx, plan.companies))
  const cores = planProfiles(ctx, plan.profiles, workforce)
  const ids = createTimeIdAllocator()
  return cores.map((core) => ({ core, ...buildProfile(ctx, core, { workforce, cores, ids, ...(extras !== undefined ? { extras } : {}) }) }))
}

const extrasOf = (p: Profile): Record<string, unknown> => Object.fromEntries(EXTRA_KEYS.map((k) => [k, p[k]]))
const withoutExtras = (p: Profile): Record<string, unknown> =>
  Object.fromEntries(Object.entries(p).filter(([k]) => !(EXTRA_KEYS as readonly string[]).includes(k)))
const share = (members: readonly Member[], test: (m: Member) => boolean): number =>
  members.length === 0 ? 0 : members.filter(test).length / members.length

// Months since year 0, computed here independently of the generator's helpers.
const month = (year: number, m: number): number => year * 12 + m - 1
const ANCHOR_MONTH = month(new Date(ANCHOR).getUTCFullYear(), new Date(ANCHOR).getUTCMonth() + 1)
const LAST_FULL_MONTH = ANCHOR_MONTH - 1
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']

type YM = { year: number; month?: number }
type Period = { startDate: YM; endDate: YM | null } | { endDate: YM }

/** The first month the profile dates: the earliest start of an experience or education. */
function careerStart(p: Profile): number {
  const starts = [...p.experiences, ...p.educations].flatMap((e) =>
    e.timePeriod !== undefined && 'startDate' in e.timePeriod ? [month(e.timePeriod.startDate.year, e.timePeriod.startDate.month ?? 1)] : [],
  )
  return Math.min(...starts)
}

/** Whether a date lies within [from, to]: by month when it has one, by year when it is a year alone. */
function within(d: YM, from: number, to: number): boolean {
  if (d.month !== undefined) return month(d.year, d.month) >= from && month(d.year, d.month) <= to
  return d.year >= Math.floor(from / 12) && d.year <= Math.floor(to / 12)
}

/** Why a section's period is wrong, or undefined. */
function periodProblem(tp: Period | undefined, from: number, to: number): string | undefined {
  if (tp === undefined) return undefined
  if (!('startDate' in tp)) {
    if (Object.keys(tp).join() !== 'endDate' || tp.endDate === null) return 'an end-only period must hold exactly a non-null endDate'
    return within(tp.endDate, from, to) ? undefined : 'end outside the career'
  }
  if (tp.startDate === null) return 'startDate is null'
  if (!within(tp.startDate, from, to)) return 'start outside the career'
  if (tp.endDate === null) return undefined
  if (!within(tp.endDate, from, to)) return 'end outside the career'
  if ((tp.startDate.month === undefined) !== (tp.endDate.month === undefined)) return 'start and end differ in precision'
  const startKey = month(tp.startDate.year, tp.startDate.month ?? 1)
  const endKey = month(tp.endDate.year, tp.endDate.month ?? 1)
  return endKey < startKey ? 'end before start' : undefined
}

let members: Member[]
beforeAll(() => {
  members = buildMembers(7, SIZE)
})

describe('the test harness', () => {
  it('builds exactly the profiles generateNetwork streams', () => {
    const streamed: Profile[] = []
    for (const r of generateNetwork({ seed: 7, size: 200, anchorMs: ANCHOR, platformHost: HOST })) {
      if (r.kind === 'profile') streamed.push(r.data)
      else if (r.kind !== 'company' && r.kind !== 'article') break
    }
    expect(streamed).toHaveLength(200)
    expect(buildMembers(7, 200).map((m) => m.profile)).toEqual(streamed)
  })
})

describe('profile extras: contract', () => {
  it('every profile passes the profile schema', () => {
    const check = Compile(ProfileSchema)
    const failures = members.filter((m) => !check.Check(m.profile)).map((m) => `${m.profile.profileId}: ${JSON.stringify([...check.Errors(m.profile)].slice(0, 2))}`)
    expect(failures.slice(0, 3)).toEqual([])
  })

  it('places the new fields right after volunteerCauses, in the schema order', () => {
    const keys = Object.keys(ProfileSchema.properties)
    const expected = keys.slice(keys.indexOf('volunteerCauses'), keys.indexOf('volunteerCauses') + 1 + EXTRA_KEYS.length)
    expect(expected.slice(1)).toEqual([...EXTRA_KEYS])
    for (const m of members.slice(0, 50)) {
      const own = Object.keys(m.profile)
      expect(own.slice(own.indexOf('volunteerCauses'), own.indexOf('volunteerCauses') + 1 + EXTRA_KEYS.length)).toEqual(expected)
    }
  })

  it('URLs are empty or https links off the platform, and no text is left unfilled', () => {
    const urls = members.flatMap((m) => [
      ...m.profile.publications.map((x) => x.url),
      ...m.profile.projects.map((x) => x.url),
      ...m.profile.patents.map((x) => x.url),
    ])
    expect(urls.some((u) => u !== '')).toBe(true)
    expect(urls.some((u) => u === '')).toBe(true)
    for (const u of urls) {
      if (u === '') continue
      expect(u).toMatch(/^https:\/\/[a-z0-9.-]+\.[a-z]{2,}\/\S+$/)
      expect(new URL(u).hostname.endsWith('linkedin.com')).toBe(false)
    }
    const text = JSON.stringify(members.map((m) => LISTS.map((k) => m.profile[k])))
    expect(text).not.toMatch(/undefined|NaN|\{city\}|\[object/)
  })
})

describe('profile extras: realistic shares', () => {
  const has = (k: (typeof LISTS)[number], atLeast = 1) => (m: Member) => (m.profile[k] as readonly unknown[]).length >= atLeast

  it('most members have no publications, patents or volunteering; a few have several', () => {
    for (const [k, lo, hi] of [['publications', 0.03, 0.1], ['patents', 0.005, 0.03], ['volunteerExperiences', 0.06, 0.2]] as const) {
      const s = share(members, has(k))
      expect(s, k).toBeGreaterThan(lo)
      expect(s, k).toBeLessThan(hi)
      expect(members.filter(has(k, 2)).length, `${k} several`).toBeGreaterThan(0)
    }
    expect(members.filter(has('publications', 3)).length).toBeGreaterThan(0)
  })

  it('projects, honors, courses, organizations and given recommendations are minority sections', () => {
    for (const [k, lo, hi] of [
      ['projects', 0.1, 0.2], ['honors', 0.08, 0.17], ['courses', 0.06, 0.15], ['organizations', 0.05, 0.12], ['recommendationsGiven', 0.1, 0.2],
    ] as const) {
      const s = share(members, has(k))
      expect(s, k).toBeGreaterThan(lo)
      expect(s, k).toBeLessThan(hi)
      expect(members.filter(has(k, 2)).length, `${k} several`).toBeGreaterThan(0)
    }
  })

  it('patents concentrate in engineering functions, publications in research and medicine', () => {
    const technical = new Set(['engineering', 'data', 'research'])
    const holders = members.filter(has('patents'))
    expect(share(holders, (m) => technical.has(m.core.fn.key))).toBeGreaterThan(0.6)
    const rate = (k: (typeof LISTS)[number], keys: (fn: string) => boolean) => share(members.filter((m) => keys(m.core.fn.key)), has(k))
    expect(rate('patents', (f) => f === 'engineering')).toBeGreaterThan(4 * rate('patents', (f) => !technical.has(f)))
    const academic = (f: string) => f === 'research' || f === 'health'
    expect(rate('publications', academic)).toBeGreaterThan(4 * rate('publications', (f) => !academic(f)))
    // Several publications are a researcher's thing.
    expect(share(members.filter(has('publications', 3)), (m) => m.core.fn.key === 'research')).toBeGreaterThan(0.6)
  })

  it('students list courses far more often than others', () => {
    const students = members.filter((m) => m.profile.educations.some((e) => e.current))
    const others = members.filter((m) => !m.profile.educations.some((e) => e.current))
    expect(students.length).toBeGreaterThan(30)
    expect(share(students, has('courses'))).toBeGreaterThan(3 * share(others, has('courses')))
    for (const m of members) if (m.profile.educations.length === 0) expect(m.profile.courses).toEqual([])
    for (const c of members.flatMap((m) => m.profile.courses)) expect(c.number).toMatch(/^(?:[A-Z]{2,4} \d{3})?$/)
  })

  it('about 6% are hiring, managers more than juniors, and only with a current job', () => {
    const s = share(members, (m) => m.profile.hiring)
    expect(s).toBeGreaterThan(0.03)
    expect(s).toBeLessThan(0.09)
    const senior = members.filter((m) => m.core.seniority >= 3)
    const junior = members.filter((m) => m.core.seniority <= 1)
    expect(share(senior, (m) => m.profile.hiring)).toBeGreaterThan(2.5 * share(junior, (m) => m.profile.hiring))
    for (const m of members) {
      if (!m.core.hasOngoing || m.profile.inRemembrance) expect(m.profile.hiring).toBe(false)
    }
  })
})

describe('profile extras: consistency', () => {
  it('the industry is the main employer’s, with one stable URN per label', () => {
    const urnOf = new Map<string, string>()
    const labelOf = new Map<string, string>()
    let empty = 0
    for (const { core, profile: p } of members) {
      if (p.industry === '') {
        expect(p.industryUrn).toBe('')
        empty++
        continue
      }
      expect(p.industry).toBe(core.primaryCompany.industry.label)
      expect(p.industryUrn).toMatch(/^urn:li:fsd_industry:\d+$/)
      expect(urnOf.get(p.industry) ?? p.industryUrn).toBe(p.industryUrn)
      expect(labelOf.get(p.industryUrn) ?? p.industry).toBe(p.industry)
      urnOf.set(p.industry, p.industryUrn)
      labelOf.set(p.industryUrn, p.industry)
    }
    expect(urnOf.size).toBeGreaterThan(10)
    expect(empty).toBeGreaterThan(0)
    expect(empty / members.length).toBeLessThan(0.05)
  })

  it('the primary locale follows the member’s country and its language', () => {
    const byCountry = new Map<string, Map<string, number>>()
    for (const { profile: p } of members) {
      expect(p.primaryLocale.country).toBe(p.countryCode)
      const langs = byCountry.get(p.countryCode) ?? new Map<string, number>()
      langs.set(p.primaryLocale.language, (langs.get(p.primaryLocale.language) ?? 0) + 1)
      byCountry.set(p.countryCode, langs)
    }
    for (const c of ['US', 'GB', 'AU', 'IN', 'NG']) expect([...(byCountry.get(c)?.keys() ?? [])], c).toEqual(['en'])
    for (const [c, lang] of [['DE', 'de'], ['FR', 'fr'], ['BR', 'pt']] as const) {
      const langs = byCountry.get(c) as Map<string, number>
      expect([...langs.keys()].sort(), c).toEqual([lang, 'en'].sort())
      expect(langs.get(lang) as number, c).toBeGreaterThan(langs.get('en') as number)
    }
  })

  it('volunteering names the member’s own causes', () => {
    const entries = members.flatMap((m) => m.profile.volunteerExperiences.map((v) => ({ m, v })))
    for (const { m, v } of entries) if (v.cause !== '') expect(m.profile.volunteerCauses).toContain(v.cause)
    expect(entries.some(({ v }) => v.cause !== '')).toBe(true)
    expect(entries.some(({ v }) => v.cause === '')).toBe(true)
    const volunteers = members.filter((m) => m.profile.volunteerExperiences.length > 0)
    expect(share(volunteers, (m) => m.profile.volunteerCauses.length > 0)).toBeGreaterThan(0.7)
  })

  it('recommendations given name other members of the network', () => {
    const byUrl = new Map(members.map((m) => [m.profile.url, m.profile]))
    const given = members.flatMap((m) => m.profile.recommendationsGiven.map((r) => ({ m, r })))
    expect(given.length).toBeGreaterThan(0)
    for (const { m, r } of given) {
      const recipient = byUrl.get(r.recipientUrl)
      expect(recipient, r.recipientUrl).toBeDefined()
      expect(r.recipientFullname).toBe(`${recipient?.firstName} ${recipient?.lastName}`)
      expect(r.recipientUrl).not.toBe(m.profile.url)
      expect(r.description).toContain(recipient?.firstName as string)
      expect(r.caption).toContain(m.profile.firstName)
    }
  })
})

describe('profile extras: dates', () => {
  it('every date lies within the member’s career and before the anchor', () => {
    const problems: string[] = []
    let dated = 0
    for (const { profile: p } of members) {
      const from = careerStart(p)
      expect(Number.isFinite(from)).toBe(true)
      const issued = [...p.publications.map((x) => x.publishedOn), ...p.honors.map((x) => x.issuedOn), ...p.patents.map((x) => x.issuedOn)]
      for (const d of issued) {
        if (d === undefined) continue
        dated++
        if (!within(d, from, LAST_FULL_MONTH)) problems.push(`${p.profileId}: ${JSON.stringify(d)} outside ${from}..${LAST_FULL_MONTH}`)
      }
      for (const tp of [...p.projects, ...p.organizations, ...p.volunteerExperiences].map((x) => x.timePeriod)) {
        if (tp !== undefined) dated++
        const problem = periodProblem(tp, from, LAST_FULL_MONTH)
        if (problem !== undefined) problems.push(`${p.profileId}: ${problem} ${JSON.stringify(tp)}`)
      }
      for (const r of p.recommendationsGiven) {
        const m = /^([A-Z][a-z]+) (\d{1,2}), (\d{4}), /.exec(r.caption)
        if (m === null) {
          problems.push(`${p.profileId}: caption without a date: ${r.caption}`)
          continue
        }
        dated++
        const ms = Date.UTC(Number(m[3]), MONTH_NAMES.indexOf(m[1] as string), Number(m[2]))
        if (ms < Date.UTC(Math.floor(from / 12), from % 12, 1) || ms >= ANCHOR) problems.push(`${p.profileId}: recommendation dated ${m[0]}`)
      }
    }
    expect(dated).toBeGreaterThan(1_000)
    expect(problems.slice(0, 5)).toEqual([])
  })

  it('periods take every shape: start and end, ongoing, end only, undated, years alone', () => {
    const periods = members.flatMap((m) => [...m.profile.projects, ...m.profile.organizations, ...m.profile.volunteerExperiences])
    const tps = periods.flatMap((x) => (x.timePeriod === undefined ? [] : [x.timePeriod]))
    expect(periods.length - tps.length).toBeGreaterThan(0)
    expect(tps.some((t) => !('startDate' in t))).toBe(true)
    expect(tps.some((t) => 'startDate' in t && t.endDate === null)).toBe(true)
    expect(tps.some((t) => 'startDate' in t && t.endDate !== null && t.startDate.month !== undefined)).toBe(true)
    expect(tps.some((t) => 'startDate' in t && t.startDate.month === undefined)).toBe(true)
    // A project tied to a past job is over: it cannot be ongoing in a career that has no ongoing job.
    for (const m of members) if (!m.core.hasOngoing) for (const x of m.profile.projects) expect(x.timePeriod?.endDate).not.toBeNull()
  })
})

describe('profile extras: determinism and their own stream', () => {
  it('the same seed gives identical extras; another seed gives others', () => {
    const again = buildMembers(7, SIZE)
    expect(again.map((m) => extrasOf(m.profile))).toEqual(members.map((m) => extrasOf(m.profile)))
    const other = buildMembers(8, 500)
    expect(other.map((m) => extrasOf(m.profile))).not.toEqual(members.slice(0, 500).map((m) => extrasOf(m.profile)))
  })

  it('replacing the extras changes nothing else in the profiles or their articles', () => {
    const empty: ExtrasBuilder = () => ({
      hiring: false, industry: '', industryUrn: '', primaryLocale: { country: 'US', language: 'en' },
      publications: [], projects: [], honors: [], courses: [], organizations: [], patents: [], volunteerExperiences: [], recommendationsGiven: [],
    })
    const stubbed = buildMembers(7, SIZE, empty)
    expect(stubbed.map((m) => extrasOf(m.profile))).not.toEqual(members.map((m) => extrasOf(m.profile)))
    expect(stubbed.map((m) => withoutExtras(m.profile))).toEqual(members.map((m) => withoutExtras(m.profile)))
    expect(stubbed.map((m) => m.articles)).toEqual(members.map((m) => m.articles))
  })

  it('the extras builder draws from the member’s own named stream', () => {
    const firstDraws: number[] = []
    buildMembers(7, 100, (rng) => {
      firstDraws.push(rng.next())
      return extrasOf(members[0]?.profile as Profile) as unknown as ProfileExtras
    })
    expect(firstDraws).toEqual(Array.from({ length: 100 }, (_, i) => createRng(deriveSeed(7, 'profile-extras', i)).next()))
  })
})
