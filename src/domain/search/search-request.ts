/**
 * The body of a post search, validated strictly: every refusal is a free 400 naming
 * the field and saying what is wrong. `null` reads as omitted. The result is the canonical request the
 * search runs and its cursors are bound to.
 */
import type { AuthorRef, ContentKind } from '../../ports/content-store.ts'
import { CONTENT_KIND } from '../../ports/content-store.ts'
import { ApiError, invalidParameter } from '../errors.ts'
import { parseCompanyInput, parseProfileInput } from '../content/input-resolution.ts'
import { parseDay } from '../billing/calendar.ts'
import { codePointLength } from '../code-points.ts'
import { parseSearchQuery, type ParsedQuery } from './query-grammar.ts'
import { hasSearchableToken, tokenize } from './query-tokens.ts'

export const MAX_RESULTS = 50
export const MAX_LIST = 10
export const MAX_CONTENT_TYPES = 5
export const MAX_JOB_TITLE = 100
export const MAX_CURSOR = 1024
export const POSTED_AFTER_MAX_DAYS = 365
const DAY_MS = 86_400_000

export const POSTED_WITHIN_MS = { '24h': DAY_MS, week: 7 * DAY_MS, month: 30 * DAY_MS } as const
export type PostedWithin = keyof typeof POSTED_WITHIN_MS
export type SortBy = 'relevance' | 'date'

export interface SearchRequest {
  query: ParsedQuery | null
  sortBy: SortBy | null
  postedWithin: PostedWithin | null
  /** Unix ms. */
  postedAfter: number | null
  /** Bit mask of CONTENT_KIND; 0 when not filtered. */
  contentKinds: number
  /** authorProfiles then authorCompanies, as author references. */
  authors: AuthorRef[]
  mentions: string[]
  /** Tokens of authorJobTitle, matched as a phrase. */
  jobTitle: string[] | null
  maxResults: number
  cursor: string | null
}

const FIELDS = [
  'query',
  'sortBy',
  'postedWithin',
  'postedAfter',
  'contentType',
  'authorProfiles',
  'authorCompanies',
  'mentionsCompanies',
  'authorJobTitle',
  'maxResults',
  'cursor',
] as const

// Filters the platform offers that this service refuses by name rather than as unknown:
// a group, and everything that depends on the viewer's own network.
const GROUP_FILTERS = new Set(['group', 'groups', 'groupId', 'groupIds'])
const NETWORK_FILTERS = new Set([
  'network',
  'networkDepth',
  'connectionOf',
  'connections',
  'firstDegree',
  'secondDegree',
  'followerOf',
  'followedBy',
  'fromFollowing',
  'postedByFollowing',
  'mentionsMember',
  'mentionsMembers',
  'fromMember',
])

const ISO_RE = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i

function list(body: Record<string, unknown>, field: string): string[] | null {
  const value = body[field]
  if (value === undefined || value === null) return null
  if (!Array.isArray(value)) throw invalidParameter(field, 'must be an array of strings.')
  const max = field === 'contentType' ? MAX_CONTENT_TYPES : MAX_LIST
  if (value.length === 0) throw invalidParameter(field, `must hold 1 to ${max} entries; omit it to not filter.`)
  if (value.length > max) throw invalidParameter(field, `accepts at most ${max} entries (received ${value.length}).`)
  return value.map((v, i) => {
    if (typeof v !== 'string' || v.trim() === '') throw invalidParameter(`${field}[${i}]`, 'must be a non-empty string.')
    return v.trim()
  })
}

const COMPANY_FORMS = 'its numeric page id, page URN or a page URL ending in the id'

function companyIds(body: Record<string, unknown>, field: string, host: string): string[] {
  return (list(body, field) ?? []).map((entry, i) => {
    const param = `${field}[${i}]`
    // Digits name a page id here, never a slug: more than an id can hold is refused as such.
    if (/^\d{20,}$/.test(entry)) throw invalidParameter(param, `a page id has at most 19 digits (received ${entry.length}).`)
    const c = parseCompanyInput(entry, { param, host, companyForms: COMPANY_FORMS })
    if (c.type === 'companyId') return c.companyId
    if (c.numeric) return c.slug
    throw invalidParameter(param, `'${entry}' names a company by slug; give ${COMPANY_FORMS}.`)
  })
}

function profileIds(body: Record<string, unknown>, host: string): string[] {
  return (list(body, 'authorProfiles') ?? []).map((entry, i) => {
    const param = `authorProfiles[${i}]`
    const p = parseProfileInput(entry, { param, host, allowMember: false, companies: 'refuse' })
    if (p.type === 'profileId') return p.profileId
    throw invalidParameter(param, `'${entry}' is not a profile id (ACoAA…) or a profile URL holding one; a bare slug is not accepted.`)
  })
}

/**
 * The instant of an ISO 8601 timestamp whose fields are all in range. Date.parse alone rolls an
 * impossible day over (2026-02-30 becomes 2 March), so the calendar date is checked on its own.
 */
function isoInstant(text: string): number | undefined {
  const m = ISO_RE.exec(text)
  if (!m) return undefined
  const [, day, hh = '00', mm = '00', ss = '00'] = m
  if (parseDay(day as string) === undefined || Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59) return undefined
  const ms = Date.parse(text)
  return Number.isFinite(ms) ? ms : undefined
}

function postedAfter(value: unknown, now: number): number | null {
  if (value === undefined || value === null) return null
  let ms: number
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw invalidParameter('postedAfter', 'epoch milliseconds must be a non-negative integer.')
    ms = value
  } else if (typeof value === 'string' && /^\d+$/.test(value.trim())) {
    ms = Number(value.trim())
  } else {
    const iso = typeof value === 'string' ? isoInstant(value.trim()) : undefined
    if (iso === undefined) throw invalidParameter('postedAfter', 'must be an ISO 8601 timestamp or epoch milliseconds.')
    ms = iso
  }
  if (ms > now) throw invalidParameter('postedAfter', 'must not be in the future.')
  if (ms < now - POSTED_AFTER_MAX_DAYS * DAY_MS) {
    throw invalidParameter('postedAfter', `must be at most ${POSTED_AFTER_MAX_DAYS} days ago.`)
  }
  return ms
}

function oneOf<T extends string>(body: Record<string, unknown>, field: string, allowed: readonly T[]): T | null {
  const value = body[field]
  if (value === undefined || value === null) return null
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw invalidParameter(field, `must be one of ${allowed.map((a) => `'${a}'`).join(', ')}.`)
  }
  return value as T
}

/** Validates a search body at `now`; throws the free 400 of the first problem found. */
export function parseSearchRequest(raw: unknown, now: number, host: string): SearchRequest {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw invalidParameter('body', 'must be a JSON object.')
  }
  const body = raw as Record<string, unknown>
  for (const key of Object.keys(body)) {
    if ((FIELDS as readonly string[]).includes(key)) continue
    if (GROUP_FILTERS.has(key)) throw invalidParameter(key, 'group filters are not supported.')
    if (NETWORK_FILTERS.has(key)) {
      throw invalidParameter(key, "filters that depend on the viewer's own network are not supported (the service reads as an outsider).")
    }
    throw invalidParameter(key, `unknown field; accepted fields are ${FIELDS.join(', ')}.`)
  }

  let query: ParsedQuery | null = null
  if (body.query !== undefined && body.query !== null) {
    if (typeof body.query !== 'string') throw invalidParameter('query', 'must be a string.')
    query = parseSearchQuery(body.query)
  }
  const sortBy = oneOf<SortBy>(body, 'sortBy', ['relevance', 'date'])
  if (sortBy === 'date' && query?.hasHashtag) {
    throw invalidParameter('sortBy', "'date' cannot be combined with a hashtag term in query; use 'relevance' or leave it out.")
  }
  const postedWithin = oneOf<PostedWithin>(body, 'postedWithin', Object.keys(POSTED_WITHIN_MS) as PostedWithin[])

  let contentKinds = 0
  const types = list(body, 'contentType')
  types?.forEach((t, i) => {
    if (!(t in CONTENT_KIND)) {
      throw invalidParameter(`contentType[${i}]`, `must be one of ${Object.keys(CONTENT_KIND).map((k) => `'${k}'`).join(', ')}.`)
    }
    contentKinds |= CONTENT_KIND[t as ContentKind]
  })

  const authors: AuthorRef[] = [
    ...profileIds(body, host).map((id): AuthorRef => ({ kind: 'person', id })),
    ...companyIds(body, 'authorCompanies', host).map((id): AuthorRef => ({ kind: 'company', id })),
  ]
  const mentions = companyIds(body, 'mentionsCompanies', host)

  let jobTitle: string[] | null = null
  if (body.authorJobTitle !== undefined && body.authorJobTitle !== null) {
    const t = body.authorJobTitle
    if (typeof t !== 'string' || t.trim() === '' || codePointLength(t) > MAX_JOB_TITLE) {
      throw invalidParameter('authorJobTitle', `must be a string of 1 to ${MAX_JOB_TITLE} characters.`)
    }
    jobTitle = tokenize(t)
    if (!hasSearchableToken(jobTitle)) throw invalidParameter('authorJobTitle', 'holds no letters or digits to match.')
  }

  let maxResults = MAX_RESULTS
  if (body.maxResults !== undefined && body.maxResults !== null) {
    const m = body.maxResults
    if (typeof m !== 'number' || !Number.isInteger(m) || m < 1 || m > MAX_RESULTS) {
      throw invalidParameter('maxResults', `must be an integer from 1 to ${MAX_RESULTS}.`)
    }
    maxResults = m
  }

  let cursor: string | null = null
  if (body.cursor !== undefined && body.cursor !== null) {
    if (typeof body.cursor !== 'string' || body.cursor === '' || body.cursor.length > MAX_CURSOR) {
      throw invalidParameter('cursor', `must be a cursor returned by a previous page (a string of at most ${MAX_CURSOR} characters).`)
    }
    cursor = body.cursor
  }

  const after = postedAfter(body.postedAfter, now)
  if (query === null && authors.length === 0) {
    throw new ApiError('MISSING_PARAMETER', "Send 'query', or at least one of 'authorProfiles' / 'authorCompanies'.", {
      parameter: 'query',
    })
  }

  return {
    query,
    sortBy,
    postedWithin,
    postedAfter: after,
    contentKinds,
    authors,
    mentions,
    jobTitle,
    maxResults,
    cursor,
  }
}

/**
 * What a cursor is bound to (a signed cursor carries a hash of it): the interpreted query, every
 * filter and the order of the walk, not maxResults (which may change between pages) nor the cursor
 * itself. The order is the one followed, not how it was asked for: a query without sortBy is ranked
 * by relevance, and a search without a query is newest first whatever sortBy says, so those spellings
 * share their cursors (a client may add `relevance` on page 2). Written as `null` for relevance and
 * for author-only walks, so cursors issued for requests without sortBy stay valid.
 */
export function searchScope(r: SearchRequest): string {
  const sorted = (xs: readonly string[]) => [...new Set(xs)].sort()
  return `search:${JSON.stringify([
    r.query?.query ?? null,
    r.query !== null && r.sortBy === 'date' ? 'date' : null,
    r.postedWithin,
    r.postedAfter,
    r.contentKinds,
    sorted(r.authors.map((a) => `${a.kind}:${a.id}`)),
    sorted(r.mentions),
    r.jobTitle,
  ])}`
}
