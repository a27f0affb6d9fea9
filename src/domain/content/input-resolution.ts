/**
 * Parsing of the identifier inputs the data endpoints take (profiles, companies, posts): a URN, a
 * platform URL or a bare value becomes a typed reference the data service can look up.
 * Pure and store-free, so every refusal happens before any lookup and stays a free 400. Every
 * refusal is an ApiError naming the parameter; nothing else is thrown for any string.
 *
 * Choices made here (each is repeated at the code it governs):
 * - Validity first, then policy: a malformed input is INVALID_URN on every endpoint; only a
 *   well-formed input of the wrong family (a member given to a company endpoint, a company page given
 *   to a members-only endpoint) is INVALID_PARAMETER.
 * - Inputs longer than MAX_INPUT_LENGTH are INVALID_PARAMETER, like an over-long slug.
 * - Path keywords (`in`, `company`, `feed`, ...) match case-insensitively, like the host; URN kinds and
 *   ids stay case-sensitive, and so does a profile id inside `/in/`.
 */
import { invalidParameter, invalidUrn, missingParameter } from '../errors.ts'
import { PROFILE_ID_RE, URN_PREFIX } from './ids.ts'

export type CompanyInput =
  | { type: 'companyId'; companyId: string }
  | { type: 'slug'; slug: string; numeric: boolean }
export type ProfileInput =
  | { type: 'profileId'; profileId: string }
  /** `bare`: given as a bare slug, not in a /in/ URL (it may then name a company page too, on /posts). */
  | { type: 'slug'; slug: string; bare?: true }
  | { type: 'memberId'; memberId: string }
  | { type: 'company'; company: CompanyInput }
export type PostInput = { type: 'activity' | 'ugcPost' | 'share'; id: string }
/** `host` is the platform host of the configuration (PRONET_PLATFORM_HOST), e.g. `www.linkedin.com`. */
export interface ResolveOptions {
  param: string
  host: string
  /** The company forms the caller accepts, for the refusal of member input (default: URL, slug or URN). */
  companyForms?: string
}

/** Longest slug accepted; longer is INVALID_PARAMETER (a bad value), not INVALID_URN (a bad form). */
export const MAX_SLUG_LENGTH = 200
/** Decision: a browser-sized URL bound, so no input makes the parser do unbounded work. */
export const MAX_INPUT_LENGTH = 2048

// Numeric ids of the platform are 64-bit (post ids have 19 digits), so more digits cannot name anything.
const NUMERIC_ID_RE = /^\d{1,19}$/
const BARE_POST_ID_RE = /^\d{19}$/
// Letters of any script need their combining marks (Devanagari, Thai, ...) to be spelled.
const SLUG_RE = /^[\p{L}\p{M}\p{Nd}._-]+$/u
// Decision: '.', '..' or '-' alone are path artefacts, not names; a slug holds a letter or digit.
const SLUG_NAME_RE = /[\p{L}\p{Nd}]/u
const ASCII_DIGITS_RE = /^[0-9]+$/
const PLAIN_SLUG_RE = new RegExp(`^[a-z0-9][a-z0-9_-]{0,${MAX_SLUG_LENGTH - 1}}$`)
const SCHEME_RE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//
const HOST_TOKEN_RE = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?::\d+)?\//

/** Whether a record's publicIdentifier is a slug that inputs can name (ingest refuses any other). */
export function isUsableSlug(slug: string): boolean {
  return [...slug].length <= MAX_SLUG_LENGTH && SLUG_RE.test(slug) && SLUG_NAME_RE.test(slug)
}
const AUTHORITY_RE = /^([a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::(\d+))?$/
const URN_START_RE = /^urn:/i
const COMPANY_URN_KINDS = new Set(['fsd_company', 'company', 'fsd_organizationalPage', 'organization'])
const COMPANY_PATHS = new Set(['company', 'school', 'showcase'])

/** What an entity input names, before the endpoint's policy decides whether it may name that. */
type EntityRef =
  | { kind: 'profileId'; profileId: string }
  | { kind: 'memberId'; memberId: string }
  | { kind: 'profileSlug'; slug: string }
  | { kind: 'bareSlug'; slug: string }
  | { kind: 'company'; company: CompanyInput }

/** The free 400 of a company page given to an endpoint that serves member profiles only. */
export const companyPageRefused = (param: string) => invalidParameter(param, 'a company page was given; this endpoint serves member profiles only.')

/** A profile input: profile endpoints, `/api/v1/posts` (allowMember, companies: 'accept'), posts/updates. */
export function parseProfileInput(
  raw: string | undefined,
  opts: ResolveOptions & { allowMember: boolean; companies: 'accept' | 'refuse' },
): ProfileInput {
  const ref = identifyEntity(required(raw, opts.param), opts)
  switch (ref.kind) {
    case 'profileId':
      return { type: 'profileId', profileId: ref.profileId }
    case 'profileSlug':
      return { type: 'slug', slug: ref.slug }
    case 'bareSlug':
      return { type: 'slug', slug: ref.slug, bare: true }
    case 'memberId':
      // The member kind is a URN kind this endpoint does not know, hence INVALID_URN, not 400
      // INVALID_PARAMETER as for a company page.
      if (!opts.allowMember) throw invalidUrn(opts.param, 'member URNs are not accepted here; use the fsd_profile URN.')
      return { type: 'memberId', memberId: ref.memberId }
    case 'company':
      if (opts.companies === 'refuse') throw companyPageRefused(opts.param)
      return { type: 'company', company: ref.company }
  }
}

/** A company input: `/api/v1/company`, each entry of `/company/batch`, `/company/posts`. */
export function parseCompanyInput(raw: string | undefined, opts: ResolveOptions): CompanyInput {
  const ref = identifyEntity(required(raw, opts.param), opts)
  switch (ref.kind) {
    case 'company':
      return ref.company
    case 'bareSlug':
      return companySlug(ref.slug)
    case 'profileId':
    case 'profileSlug':
    case 'memberId':
      throw invalidParameter(opts.param, `member input where a company is expected; pass ${opts.companyForms ?? 'a company URL, slug or URN'}.`)
  }
}

/**
 * A post input: `/post/engagement`, `/post/comments`, `/post/reactions`. Any post URL, an activity,
 * ugcPost or share URN, or a bare activity id.
 */
export function parsePostInput(raw: string | undefined, opts: ResolveOptions): PostInput {
  const value = required(raw, opts.param)
  if (URN_START_RE.test(value)) return postFromUrn(value, opts)
  const rest = urlRest(value, opts.param, opts.host)
  if (rest !== undefined) return postFromUrl(urlSegments(rest, opts), opts)
  // Only the full 19-digit form of a post id is taken bare: a shorter number is more likely a typo or another id.
  if (BARE_POST_ID_RE.test(value)) return { type: 'activity', id: value }
  throw invalidUrn(opts.param, EXPECTED_POST)
}

function required(raw: string | undefined, param: string): string {
  // Guards against a repeated query key (an array) reaching here despite the type.
  const untyped: unknown = raw
  if (untyped === undefined || untyped === null) throw missingParameter(param)
  if (typeof untyped !== 'string') throw invalidParameter(param, 'must be a single string.')
  const value = untyped.trim()
  if (value === '') throw missingParameter(param)
  if (value.length > MAX_INPUT_LENGTH) {
    throw invalidParameter(param, `must be at most ${MAX_INPUT_LENGTH} characters (received ${value.length}).`)
  }
  return value
}

function identifyEntity(value: string, opts: ResolveOptions): EntityRef {
  // Fast path for the commonest input, a plain lower-case slug: no URN, URL, escape or case to handle,
  // so the full checks below would return it unchanged.
  if (PLAIN_SLUG_RE.test(value)) return { kind: 'bareSlug', slug: value }
  if (URN_START_RE.test(value)) return entityFromUrn(value, opts.param)
  const rest = urlRest(value, opts.param, opts.host)
  if (rest !== undefined) return entityFromPath(urlSegments(rest, opts), opts.param)
  // Tested before decoding: a profile id is plain ASCII, and a bare one is the stable, recommended form.
  if (PROFILE_ID_RE.test(value)) return { kind: 'profileId', profileId: value }
  return { kind: 'bareSlug', slug: checkSlug(decode(value, opts.param), opts.param) }
}

function entityFromUrn(value: string, param: string): EntityRef {
  const { kind, id } = splitUrn(value, param)
  if (kind === 'fsd_profile') {
    if (!PROFILE_ID_RE.test(id)) throw invalidUrn(param, "a profile id is 'ACoAA' followed by 34 characters of [A-Za-z0-9_-].")
    return { kind: 'profileId', profileId: id }
  }
  if (kind === 'member') {
    if (!NUMERIC_ID_RE.test(id)) throw invalidUrn(param, 'a member id is a decimal number.')
    return { kind: 'memberId', memberId: id }
  }
  if (COMPANY_URN_KINDS.has(kind)) {
    // Kept as written (no stripping of leading zeros): ids are opaque decimal strings.
    if (!NUMERIC_ID_RE.test(id)) throw invalidUrn(param, 'a company id is a decimal number.')
    return { kind: 'company', company: { type: 'companyId', companyId: id } }
  }
  // Decision: school URNs (`fsd_school`, `school`) are not among the company kinds, so they are
  // refused here; school pages are reached by their /school/<slug> URL.
  throw invalidUrn(param, `URN kind '${kind}' is not a profile or company URN.`)
}

function entityFromPath(segments: string[], param: string): EntityRef {
  const [first, second] = segments
  const route = first?.toLowerCase()
  if (route === 'in') {
    // Later segments (/in/jane/details/experience/) are views of the same profile: ignored.
    if (second === undefined) throw invalidUrn(param, "'/in/' needs a profile slug after it.")
    if (PROFILE_ID_RE.test(second)) return { kind: 'profileId', profileId: second }
    return { kind: 'profileSlug', slug: checkSlug(second, param) }
  }
  if (route !== undefined && COMPANY_PATHS.has(route)) {
    if (second === undefined) throw invalidUrn(param, `'/${route}/' needs a page slug after it.`)
    return { kind: 'company', company: companySlug(checkSlug(second, param)) }
  }
  throw invalidUrn(param, 'expected a /in/<slug>, /company/<slug>, /school/<slug> or /showcase/<slug> URL.')
}

/** A company input naming a page by slug. */
export function companySlug(slug: string): CompanyInput {
  // An all-digit slug may be a page id (/company/1035/); the caller tries it as a slug, then as an id.
  return { type: 'slug', slug, numeric: ASCII_DIGITS_RE.test(slug) }
}

function postFromUrn(value: string, opts: ResolveOptions): PostInput {
  const { kind, id } = splitUrn(value, opts.param)
  if (kind !== 'activity' && kind !== 'ugcPost' && kind !== 'share') throw invalidUrn(opts.param, EXPECTED_POST)
  if (!NUMERIC_ID_RE.test(id)) throw invalidUrn(opts.param, 'a post id is a decimal number of at most 19 digits.')
  return { type: kind, id }
}

function postFromUrl(segments: string[], opts: ResolveOptions): PostInput {
  const lower = segments.map((s) => s.toLowerCase())
  const at = lower[0] === 'embed' ? 1 : 0
  if (lower[at] === 'feed' && lower[at + 1] === 'update') {
    // The segment is already decoded, so /feed/update/urn%3Ali%3Aactivity%3A<id>/ works too; any
    // later segment is a view of the same post and is ignored, as on profile URLs.
    const urn = segments[at + 2]
    if (urn === undefined) throw invalidUrn(opts.param, "'/feed/update/' needs a post URN after it.")
    return postFromUrn(urn, opts)
  }
  if (lower[0] === 'posts' && segments[1] !== undefined) {
    const found = postFromPostsSlug(segments[1])
    if (found) return found
  }
  throw invalidUrn(opts.param, EXPECTED_POST)
}

/**
 * `/posts/<author>_<title>-activity-<id>-<tag>`: the title is free text and may itself hold
 * `-activity-2024-`, so the last well-formed marker wins. A post without title words has none:
 * `/posts/<author>_activity-<id>-<tag>` (the marker right after the author's `_`), or the marker
 * first. Decision: the trailing `-<tag>` is optional, since copies of these URLs sometimes lose it.
 */
function postFromPostsSlug(slug: string): PostInput | undefined {
  let found: PostInput | undefined
  for (const m of slug.matchAll(/(?:^|[-_])(activity|ugcPost|share)-(\d+)(?=-|$)/g)) {
    const type = m[1] as PostInput['type']
    const id = m[2] as string
    if (NUMERIC_ID_RE.test(id)) found = { type, id }
  }
  return found
}

const EXPECTED_POST = 'expected a post URL, an activity, ugcPost or share URN, or a 19-digit activity id.'

function splitUrn(value: string, param: string): { kind: string; id: string } {
  // The namespace token is exactly `li`; `URN:li:` and `urn:LI:` are refused, not repaired.
  if (!value.startsWith(URN_PREFIX)) throw invalidUrn(param, "URNs start with 'urn:li:'.")
  const rest = value.slice(URN_PREFIX.length)
  const colon = rest.indexOf(':')
  if (colon <= 0) throw invalidUrn(param, "a URN has the form 'urn:li:<kind>:<id>'.")
  return { kind: rest.slice(0, colon), id: rest.slice(colon + 1) }
}

/**
 * The part after the scheme when `value` is a URL, else undefined. A URL has a scheme, or (decision)
 * starts with `//`, or starts with a dotted host token followed by '/', or (decision) its first token
 * is a platform host even without a path, so `www.linkedin.com` alone is a pathless URL (INVALID_URN)
 * and not the slug 'www.linkedin.com'.
 */
function urlRest(value: string, param: string, host: string): string | undefined {
  const scheme = SCHEME_RE.exec(value)
  if (scheme) {
    if (!/^https?$/i.test(scheme[1] as string)) throw invalidUrn(param, 'only http and https URLs are accepted.')
    return value.slice(scheme[0].length)
  }
  if (value.startsWith('//')) return value.slice(2)
  if (HOST_TOKEN_RE.test(value)) return value
  const token = value.split(/[/?#]/, 1)[0] as string
  return isPlatformAuthority(token, host) ? value : undefined
}

/** The decoded, non-empty path segments of a platform URL; query and fragment are ignored. */
function urlSegments(rest: string, opts: ResolveOptions): string[] {
  const end = rest.search(/[?#]/)
  const beforeQuery = end === -1 ? rest : rest.slice(0, end)
  const slash = beforeQuery.indexOf('/')
  const authority = slash === -1 ? beforeQuery : beforeQuery.slice(0, slash)
  if (!isPlatformAuthority(authority, opts.host)) throw invalidUrn(opts.param, `not a URL of ${opts.host}.`)
  const path = slash === -1 ? '' : beforeQuery.slice(slash)
  // Empty segments (a trailing slash, or '//') carry nothing, so they are dropped.
  return path
    .split('/')
    .filter((s) => s !== '')
    .map((s) => decode(s, opts.param))
}

/**
 * The configured host, its base domain (without `www.`) or any subdomain of the base (`uk.`, `m.`),
 * case-insensitive. Decisions: user-info (`user@host`) is refused, as it hides the real host to a reader; a
 * port must equal the configured one (none by default), which keeps dev hosts like `localhost:8080`
 * usable without accepting `:443` spellings nobody sends.
 */
function isPlatformAuthority(authority: string, host: string): boolean {
  const given = AUTHORITY_RE.exec(authority.toLowerCase())
  const configured = AUTHORITY_RE.exec(host.toLowerCase())
  if (!given || !configured) return false
  if ((given[2] ?? '') !== (configured[2] ?? '')) return false
  const name = given[1] as string
  const hostName = configured[1] as string
  const base = hostName.replace(/^www\./, '')
  return name === hostName || name === base || name.endsWith(`.${base}`)
}

function decode(text: string, param: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    throw invalidUrn(param, 'malformed %-escape.')
  }
}

/** A decoded slug, checked and lower-cased; length counts characters before lower-casing. */
function checkSlug(decoded: string, param: string): string {
  const length = [...decoded].length
  if (length > MAX_SLUG_LENGTH) {
    throw invalidParameter(param, `a slug has at most ${MAX_SLUG_LENGTH} characters (received ${length}).`)
  }
  if (!SLUG_RE.test(decoded) || !SLUG_NAME_RE.test(decoded)) {
    throw invalidUrn(param, "a slug holds letters, digits, '-', '_' and '.' only.")
  }
  return decoded.toLowerCase()
}
