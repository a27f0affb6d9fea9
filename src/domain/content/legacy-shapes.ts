/**
 * Records and stored documents in the shapes of earlier releases, brought to today's. Ingest runs a
 * record through here before validating it, so an export made for an earlier release still loads;
 * the store migration runs each stored document through the same functions, so one rule serves both.
 *
 * Earlier releases used neutral words where the real service names the platform, sent an undated
 * entry as `timePeriod: {startDate: null, …}`, closed the top company size class with an `end`, and
 * had none of the newer profile sections. Every function here takes plain JSON values, leaves
 * anything it does not recognise alone (validation reports it), and returns a new value.
 */

import type { Profile } from '../../contract/resources.schemas.ts'
import { profileTemplate } from './profile-doc.ts'

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The first of the size classes that has no upper bound. */
export const TOP_SIZE_CLASS_START = 10_001

/** Values the newer profile sections take on a record that predates them. */
export const PROFILE_SECTION_DEFAULTS = {
  hiring: false,
  industry: '',
  industryUrn: '',
  primaryLocale: { country: 'US', language: 'en' },
  publications: [],
  projects: [],
  honors: [],
  courses: [],
  organizations: [],
  patents: [],
  volunteerExperiences: [],
  recommendationsGiven: [],
} as const

const LEGACY_ARTICLE_URN = /^urn:li:platformArticle:(\d+)$/

/** An article URN in either kind's spelling, as today's `urn:li:linkedinArticle:<id>`. */
export function currentArticleUrn(urn: string): string {
  const m = LEGACY_ARTICLE_URN.exec(urn)
  return m ? `urn:li:linkedinArticle:${m[1]}` : urn
}

/**
 * A timePeriod without a null start: `{startDate: null, endDate: null}` is no date at all (undefined:
 * the field is dropped), `{startDate: null, endDate}` keeps its end alone.
 */
function currentTimePeriod(tp: unknown): unknown {
  if (!isObject(tp) || !('startDate' in tp) || tp.startDate !== null) return tp
  const { startDate: _none, ...rest } = tp
  return rest.endDate === null || rest.endDate === undefined ? undefined : rest
}

function withCurrentTimePeriods(entries: unknown): unknown {
  if (!Array.isArray(entries)) return entries
  return entries.map((entry) => {
    if (!isObject(entry) || !('timePeriod' in entry)) return entry
    const timePeriod = currentTimePeriod(entry.timePeriod)
    if (timePeriod === entry.timePeriod) return entry
    const { timePeriod: _old, ...rest } = entry
    return timePeriod === undefined ? rest : { ...rest, timePeriod }
  })
}

/** Renames `from` to `to` in place of it (the field keeps its position), unless `to` is already there. */
function renamed(o: Json, from: string, to: string): Json {
  if (!(from in o) || to in o) return o
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k === from ? to : k, v]))
}

/** A profile (a record's data or a stored document) in today's shape. */
export function upgradeProfile(data: unknown): unknown {
  if (!isObject(data)) return data
  const p: Json = { ...renamed(data, 'companyPlatformUrl', 'companyLinkedinUrl') }
  p.experiences = withCurrentTimePeriods(p.experiences)
  p.educations = withCurrentTimePeriods(p.educations)
  for (const [field, value] of Object.entries(PROFILE_SECTION_DEFAULTS)) {
    if (!(field in p)) p[field] = structuredClone(value)
  }
  return p
}

/** A company page (a record's data or a stored document) in today's shape. */
export function upgradeCompany(data: unknown): unknown {
  if (!isObject(data)) return data
  const range = data.employeeCountRange
  if (!isObject(range) || range.start !== TOP_SIZE_CLASS_START || !('end' in range)) return data
  const { end: _open, ...rest } = range
  return { ...data, employeeCountRange: rest }
}

/** A post (a record's data or a stored document) in today's shape. */
export function upgradePost(data: unknown): unknown {
  if (!isObject(data) || data.postType !== 'platformVideo') return data
  return { ...data, postType: 'linkedinVideo' }
}

/** An article (a record's data or a stored document) in today's shape. */
export function upgradeArticle(data: unknown): unknown {
  if (!isObject(data) || typeof data.articleUrn !== 'string') return data
  const articleUrn = currentArticleUrn(data.articleUrn)
  return articleUrn === data.articleUrn ? data : { ...data, articleUrn }
}

const UPGRADES: Record<string, (data: unknown) => unknown> = {
  profile: upgradeProfile,
  company: upgradeCompany,
  post: upgradePost,
  article: upgradeArticle,
}

/** An ingest record's data in today's shape, for its kind; other kinds pass unchanged. */
export function upgradeRecordData(kind: string, data: unknown): unknown {
  const upgrade = Object.hasOwn(UPGRADES, kind) ? UPGRADES[kind] : undefined
  return upgrade === undefined ? data : upgrade(data)
}

/** The stored documents an upgrade rewrites, by the table that holds them. */
export type StoredDocumentKind = 'profile' | 'company' | 'post' | 'article'

/**
 * A stored document (ready-to-send JSON text) in today's shape, or undefined when it already is.
 * A profile document is a template whose duration labels sit between raw U+0001 marks (profile-doc.ts):
 * they are derived from the dates alone, so they are dropped and the template is made again.
 */
export function upgradeStoredDocument(kind: StoredDocumentKind, text: string): string | undefined {
  if (kind === 'profile') {
    const profile = JSON.parse(text.replace(/\u0001[^\u0001]*\u0001/g, 'null')) as unknown
    const upgraded = upgradeProfile(profile)
    // A document without the lists a profile has is rewritten as it is rather than refused.
    const lists = (upgraded as { experiences?: unknown }).experiences
    return Array.isArray(lists) ? profileTemplate(upgraded as Profile) : JSON.stringify(upgraded)
  }
  const doc = JSON.parse(text) as unknown
  const upgraded = upgradeRecordData(kind, doc)
  return upgraded === doc ? undefined : JSON.stringify(upgraded)
}
