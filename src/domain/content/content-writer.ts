/**
 * The one write path of the content model: seeding and `pronet ingest` both hand records here.
 * A record is validated against its contract schema, checked for the rules the schema cannot say
 * (ids that agree with each other, counts that sum), and turned into stored rows with ready JSON.
 */
import { Compile } from 'typebox/compile'
import { INGEST_KINDS, type IngestKind, type IngestRecord, type PostRecord } from '../../contract/ingest.schemas.ts'
import {
  PostOlderSchema,
  PostSchema,
  PostTrimmedSchema,
  type Post,
} from '../../contract/resources.schemas.ts'
import type { Clock } from '../../ports/clock.ts'
import { CONTENT_KIND, type AuthorRef, type ContentRow, type ContentStore, type WriteOutcome } from '../../ports/content-store.ts'
import { articlePublishedAt, isoFromId, POST_ID_RE, timeFromId } from './ids.ts'
import { codePointLength, firstCodePoints, wellFormed } from '../code-points.ts'
import { isUsableSlug } from './input-resolution.ts'
import { profileTemplate } from './profile-doc.ts'
import { upgradeRecordData } from './legacy-shapes.ts'

const validators = Object.fromEntries(
  Object.entries(INGEST_KINDS).map(([kind, schema]) => [kind, Compile(schema)]),
) as { [K in IngestKind]: ReturnType<typeof Compile> }

export class RecordError extends Error {}

const fail = (message: string): never => {
  throw new RecordError(message)
}

/**
 * Whether `url` is https://<platform host>/<section>/<name> with or without the trailing slash, for
 * one of `names` (in any case): /in/<publicIdentifier> for a profile, /company|school|showcase/<slug
 * or id> for a page.
 */
function isCanonicalUrl(url: string, platformHost: string, section: string, names: readonly string[]): boolean {
  const base = `https://${platformHost}/${section}/`
  if (!url.startsWith(base)) return false
  const rest = url.slice(base.length)
  const name = rest.endsWith('/') ? rest.slice(0, -1) : rest
  // A slug may be written percent-encoded, as slugs are URL-decoded: /in/jos%C3%A9-b names josé-b.
  let decoded = name
  try {
    decoded = decodeURIComponent(name)
  } catch {
    return false
  }
  return names.some((n) => decoded.toLowerCase() === n.toLowerCase())
}

interface YearMonth {
  year: number
  month?: number | undefined
}
type TimePeriod = { startDate: YearMonth; endDate: YearMonth | null } | { endDate: YearMonth }

/** The end of an entry's dates, or null when it has none (ongoing, or undated). */
const endOf = (tp: TimePeriod | undefined): YearMonth | null => tp?.endDate ?? null
const startOf = (tp: TimePeriod | undefined): YearMonth | null => (tp !== undefined && 'startDate' in tp ? tp.startDate : null)

/** An end before the start has no duration: its label read "1 mo" whatever the dates. */
function checkOrder(tp: TimePeriod | undefined, field: string): void {
  const start = startOf(tp)
  const end = endOf(tp)
  if (start && end && (end.year < start.year || (end.year === start.year && (end.month ?? 12) < (start.month ?? 1)))) {
    fail(`${field}.timePeriod.endDate is before its startDate`)
  }
}

/**
 * The experience list: `ongoing` is true exactly for a position without an end date (an undated one
 * included); `current` marks the primary ongoing position, at most one; a displayed currentPosition is
 * that primary position, with its title and company.
 */
function checkPositions(p: Extract<IngestRecord, { kind: 'profile' }>['data']): void {
  p.experiences.forEach((e, i) => {
    const ended = endOf(e.timePeriod) !== null
    if (e.ongoing === ended) {
      fail(`data.experiences[${i}].ongoing must be ${!ended}: a position is ongoing exactly when it has no timePeriod.endDate`)
    }
    if (e.current && ended) fail(`data.experiences[${i}].current: a position that has ended (timePeriod.endDate set) cannot be current`)
    checkOrder(e.timePeriod, `data.experiences[${i}]`)
  })
  if (p.experiences.filter((e) => e.current).length > 1) fail('data.experiences: at most one entry is current (the primary ongoing position)')
  const position = p.currentPosition
  if (position) {
    const e =
      p.experiences.find((x) => x.positionUrn === position.positionUrn) ??
      fail('data.currentPosition.positionUrn must be the positionUrn of one of data.experiences')
    if (!e.current) fail('data.currentPosition must name the current experience (the one with current: true)')
    const expected = { title: e.jobTitle, name: e.company.name, companyId: e.company.companyId, companyUrn: e.company.urn, url: e.company.url }
    for (const [field, value] of Object.entries(expected)) {
      if (position[field as keyof typeof expected] !== value) {
        fail(`data.currentPosition.${field} must be that of the experience it names (${JSON.stringify(value)})`)
      }
    }
  }
}

const POST_FIELDS = Object.keys(PostSchema.properties) as (keyof Post)[]
const TRIMMED_FIELDS = Object.keys(PostTrimmedSchema.properties) as (keyof Post)[]
const OLDER_FIELDS = Object.keys(PostOlderSchema.properties) as (keyof Post)[]

function pick(post: PostRecord, fields: readonly (keyof Post)[]): string {
  const out: Record<string, unknown> = {}
  for (const f of fields) if (post[f] !== undefined) out[f] = post[f]
  return JSON.stringify(out)
}

/**
 * The search result item: the Post's fields in their order, then isEdited and
 * reactionTypeCounts (the same counts keyed by upper-case reaction type), and width/height on the
 * video from its first rendition (null when it has none); images carry theirs already.
 */
function searchItem(post: PostRecord, meta: { isEdited: boolean; videoSize: { width: number; height: number } | null }): string {
  const out: Record<string, unknown> = {}
  for (const f of POST_FIELDS) if (post[f] !== undefined) out[f] = post[f]
  if (post.video) out.video = { ...post.video, width: meta.videoSize?.width ?? null, height: meta.videoSize?.height ?? null }
  out.isEdited = meta.isEdited
  out.reactionTypeCounts = Object.fromEntries(Object.entries(post.reactionsByType).map(([k, v]) => [k.toUpperCase(), v]))
  return JSON.stringify(out)
}

/** The host of a website URL (scheme optional), lower-cased, without a leading `www.`. */
function websiteDomain(url: string): string {
  const host = url.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split(/[/?#]/)[0] ?? ''
  return host.replace(/:\d+$/, '').toLowerCase().replace(/^www\./, '')
}

/** A profile or company URN as an author reference. */
export function authorFromUrn(urn: string): AuthorRef | undefined {
  const person = /^urn:li:fsd_profile:(ACoAA[A-Za-z0-9_-]{34})$/.exec(urn)
  if (person) return { kind: 'person', id: person[1] as string }
  const company = /^urn:li:(?:fsd_company|company|fsd_organizationalPage|organization):(\d+)$/.exec(urn)
  if (company) return { kind: 'company', id: company[1] as string }
  return undefined
}

/** An activity URN or bare activity id, as the 19-digit id. */
export function postIdFrom(value: string): string | undefined {
  const m = /^(?:urn:li:activity:)?(\d{19})$/.exec(value.trim())
  return m ? (m[1] as string) : undefined
}

/**
 * Fields of the API's own shapes that a record leaves out, and why: a record copied from a response
 * is refused with the reason rather than the bare name.
 */
const DERIVED_FIELDS: Partial<Record<IngestKind, Record<string, string>>> = {
  comment: {
    permalink: 'permalink is derived from urn',
    replies: 'each reply is a comment record of its own, with parentCommentId',
  },
}

function schemaErrors(kind: IngestKind, data: unknown): string | undefined {
  const validator = validators[kind]
  if (validator.Check(data)) return undefined
  // Each field an object does not take is reported twice: once as a `false` schema at its own path
  // ("schema is false", the validator's wording) and once in its object's additionalProperties
  // error, which names them all. Only the latter is kept.
  const errors = validator
    .Errors(data)
    .filter((e) => !(e.keyword === 'boolean' && e.schemaPath.endsWith('/additionalProperties')))
    .slice(0, 3)
  return errors
    .map((e) => {
      const path = `data${e.instancePath.replaceAll('/', '.')}`
      if (e.keyword === 'additionalProperties') {
        const names = (e.params as { additionalProperties?: string[] }).additionalProperties ?? []
        const why = e.instancePath === '' ? names.map((n) => DERIVED_FIELDS[kind]?.[n]).filter(Boolean) : []
        return `${path} has unknown field(s) ${names.join(', ')}${why.length > 0 ? ` (${why.join('; ')})` : ''}`
      }
      return `${path} ${e.message}`
    })
    .join('; ')
}

/**
 * The instant a record's date-time names. The schema takes a leap second (23:59:60, as RFC 3339 does),
 * which JavaScript cannot read: such a date would skip the check against its id, and a reaction's time
 * would fail with internal wording. It is refused, naming the field.
 */
function instantOf(text: string, field: string): number {
  const ms = Date.parse(text)
  if (Number.isNaN(ms)) fail(`${field} is a leap second (:60), which this service cannot store; give the second before or after it`)
  return ms
}

/**
 * Post, comment and article ids carry their creation time. `given` (the record's date) must be that
 * time within a second, and it must not be after now; returns it in UTC, as the record is stored and
 * served.
 */
function timeOfId(id: string, given: string, fields: { date: string; id: string; idName: string }, nowMs: number): string {
  if (Math.abs(instantOf(given, fields.date) - timeFromId(id)) > 1000) fail(`${fields.date} must be the time encoded in the ${fields.idName} (${isoFromId(id)})`)
  if (timeFromId(id) > nowMs) fail(`${fields.id} encodes a time in the future (${isoFromId(id)}); ids carry their creation time`)
  return isoFromId(id)
}

/** A publicIdentifier must be a slug that lookups can name, or the record could not be found by it. */
function requireUsableSlug(slug: string): void {
  if (!isUsableSlug(slug)) fail(`data.publicIdentifier must be a slug that lookups can name: letters, digits, '-', '_' and '.' (got "${slug}")`)
}

/**
 * Characters a post's text may hold. The platform's posts hold 3,000; this leaves room for text from
 * elsewhere while keeping every post within what both search indexes store alike: PostgreSQL refuses a
 * tsvector over 1 MB (a post SQLite would store) and stops counting positions at 16,383, which a text
 * of this length never reaches.
 */
export const MAX_POST_CONTENT = 30_000

function preparePost(given: PostRecord, nowMs: number): ContentRow {
  if (given.content.length > MAX_POST_CONTENT && codePointLength(given.content) > MAX_POST_CONTENT) {
    fail(`data.content holds ${codePointLength(given.content).toLocaleString('en-US')} characters; a post holds at most ${MAX_POST_CONTENT.toLocaleString('en-US')}`)
  }
  const idm = /^urn:li:activity:(\d{19})$/.exec(given.id) ?? fail(`data.id must be urn:li:activity:<19 digits> (got "${given.id}")`)
  const id = idm[1] as string
  const share = /^urn:li:(share|ugcPost):(\d+)$/.exec(given.shareUrn) ?? fail('data.shareUrn must be a share or ugcPost URN')
  // A date sent with an offset, or a few hundred milliseconds off, names the same post and is served
  // as the platform would: decoded from the id.
  const p: PostRecord = { ...given, date: timeOfId(id, given.date, { date: 'data.date', id: 'data.id', idName: 'activity id' }, nowMs) }
  const sum = Object.values(p.reactionsByType).reduce((a, b) => a + b, 0)
  if (sum !== p.reactionCount) fail(`data.reactionsByType sums to ${sum} but reactionCount is ${p.reactionCount}`)
  if (p.imageUrl !== (p.images[0]?.url ?? null)) fail('data.imageUrl must be the first entry of images (or null)')
  if (p.videoUrl !== (p.video?.url ?? null)) fail('data.videoUrl must equal video.url (or null)')
  const author = authorFromUrn(p.profile.urn) ?? fail('data.profile.urn must be a profile or company URN')
  if (p.authorType === 'Person') {
    if (author.kind !== 'person') fail('data.profile.urn must be a profile URN on a Person post')
    if (p.authorProfileId !== author.id) fail('data.authorProfileId must be the id of data.profile.urn')
  } else {
    if (author.kind !== 'company') fail('data.profile.urn must be a company URN on a Company post')
    if (p.authorProfileId !== undefined) fail('data.authorProfileId is shown on member posts only')
  }
  if (p.resharedPostUrn !== undefined && postIdFrom(p.resharedPostUrn) === undefined) {
    fail('data.resharedPostUrn must be an activity URN')
  }
  if (p.repostOf !== undefined && postIdFrom(p.repostOf) === undefined) fail('data.repostOf must be an activity URN')
  if (p.resharedPostUrn !== undefined && p.permissions.rootShare) fail('data.permissions.rootShare must be false on a post that reshares another')
  const video = p.video?.progressiveStreams[0]
  const meta = {
    isEdited: p.isEdited === true,
    mentionsCompanies: p.mentionsCompanies ?? [],
    liveVideo: p.liveVideo === true,
    jobPost: p.jobPost === true,
    videoSize: video ? { width: video.width, height: video.height } : null,
  }
  return {
    kind: 'post',
    row: {
      id,
      shareKind: share[1] as 'share' | 'ugcPost',
      shareId: share[2] as string,
      author,
      isRepost: p.repostOf !== undefined,
      doc: pick(p, POST_FIELDS),
      docTrimmed: pick(p, TRIMMED_FIELDS),
      docOlder: pick(p, OLDER_FIELDS),
      text: p.content,
      meta: JSON.stringify(meta),
      docSearch: searchItem(p, meta),
      card: { name: p.profile.name, headline: p.profile.headline, url: p.profile.url, imageUrl: p.profile.imageUrl },
      contentKinds:
        (p.postType === 'image' ? CONTENT_KIND.image : 0) |
        (p.postType === 'linkedinVideo' ? CONTENT_KIND.video : 0) |
        (p.postType === 'document' ? CONTENT_KIND.document : 0) |
        (meta.liveVideo ? CONTENT_KIND.liveVideo : 0) |
        (meta.jobPost ? CONTENT_KIND.jobPost : 0),
      mentions: meta.mentionsCompanies,
    },
  }
}

/** Turns one validated-by-schema record into its row; throws RecordError on a rule violation. */
export function prepareRecord(record: IngestRecord, nowMs: number, platformHost: string): ContentRow {
  switch (record.kind) {
    case 'profile': {
      const p = record.data
      if (p.id !== `urn:li:fsd_profile:${p.profileId}`) fail('data.id must be urn:li:fsd_profile:<profileId>')
      if (p.memberId === p.profileId) fail('data.memberId must differ from profileId')
      if (p.publicIdentifier.trim() === '') fail('data.publicIdentifier must not be empty')
      requireUsableSlug(p.publicIdentifier)
      // url is the canonical public profile URL, which the API shows as it is stored.
      if (!isCanonicalUrl(p.url, platformHost, 'in', [p.publicIdentifier])) {
        fail(`data.url must be the canonical profile URL https://${platformHost}/in/${p.publicIdentifier}/ (got "${p.url}")`)
      }
      // positionUrn and educationUrn name entries of the lists.
      checkPositions(p)
      const school = p.currentSchool
      if (school && !p.educations.some((e) => e.educationUrn === school.educationUrn)) {
        fail('data.currentSchool.educationUrn must be the educationUrn of one of data.educations')
      }
      return {
        kind: 'profile',
        row: {
          profileId: p.profileId,
          memberId: p.memberId,
          slug: p.publicIdentifier.toLowerCase(),
          name: `${p.firstName} ${p.lastName}`.trim(),
          headline: p.title,
          pictureUrl: p.profilePictureUrl === '' ? null : p.profilePictureUrl,
          url: p.url,
          doc: profileTemplate(p),
          jobTitle: p.jobTitle === '' ? null : p.jobTitle,
        },
      }
    }
    case 'company': {
      const { pageType, ...c } = record.data
      if (c.id !== `urn:li:fsd_company:${c.companyId}`) fail('data.id must be urn:li:fsd_company:<companyId>')
      if (c.publicIdentifier !== undefined) requireUsableSlug(c.publicIdentifier)
      // url is the canonical page URL, under the page's own section, by slug or id.
      const section = pageType ?? 'company'
      if (!isCanonicalUrl(c.url, platformHost, section, c.publicIdentifier !== undefined ? [c.publicIdentifier, c.companyId] : [c.companyId])) {
        fail(`data.url must be the canonical page URL https://${platformHost}/${section}/${c.publicIdentifier ?? c.companyId}/ (got "${c.url}")`)
      }
      // domain is websiteUrl without a leading www.
      if (c.domain !== undefined && c.websiteUrl !== undefined && c.domain !== websiteDomain(c.websiteUrl)) {
        fail(`data.domain must be the host of data.websiteUrl without a leading www. (${websiteDomain(c.websiteUrl)})`)
      }
      return {
        kind: 'company',
        row: {
          companyId: c.companyId,
          slug: c.publicIdentifier ? c.publicIdentifier.toLowerCase() : null,
          pageType: pageType ?? 'company',
          name: c.name ?? '',
          headline: c.description !== undefined ? firstCodePoints(c.description, 120) : c.industry,
          logoUrl: c.logoUrl ?? null,
          url: c.url,
          doc: JSON.stringify(c),
        },
      }
    }
    case 'post':
      return preparePost(record.data, nowMs)
    case 'article': {
      const { authorProfileId, ...a } = record.data
      if (a.articleUrn !== `urn:li:linkedinArticle:${a.articleId}`) {
        fail('data.articleUrn must be urn:li:linkedinArticle:<articleId> (urn:li:platformArticle:<articleId> is read as the same)')
      }
      const decoded = articlePublishedAt(a.articleId, nowMs)
      if (a.publishedAt !== decoded) {
        fail(`data.publishedAt must be the instant decoded from articleId (${decoded ?? 'null: the id does not decode'})`)
      }
      return { kind: 'article', row: { articleId: a.articleId, authorProfileId, doc: JSON.stringify(a) } }
    }
    case 'comment': {
      const c = record.data
      const m = /^urn:li:comment:\((activity|ugcPost):(\d+),(\d+)\)$/.exec(c.urn) as RegExpExecArray
      // A ugcPost id is not the post's activity id (they are different numbers), so it cannot be read
      // as one; the API shows every comment under its post's activity id.
      if (m[1] === 'ugcPost') fail('data.urn must name the post by its activity id, as the API shows a comment: urn:li:comment:(activity:<postId>,<commentId>)')
      const postId = m[2] as string
      const commentId = m[3] as string
      if (!POST_ID_RE.test(postId)) fail('data.urn must name a 19-digit activity id')
      if (!POST_ID_RE.test(commentId)) fail('data.urn must name a 19-digit comment id')
      const createdAt = timeOfId(commentId, c.createdAt, { date: 'data.createdAt', id: 'data.urn', idName: 'comment id' }, nowMs)
      const author = authorFromUrn(c.author.id) ?? fail('data.author.id must be a profile or company URN')
      return {
        kind: 'comment',
        row: {
          commentId,
          postId,
          parentId: c.parentCommentId ?? null,
          author,
          text: c.text,
          createdAt,
          reactionCount: c.reactionCount,
          pinned: c.pinned === true,
          permalink: `https://${platformHost}/feed/update/urn:li:activity:${postId}?commentUrn=${encodeURIComponent(c.urn)}`,
        },
      }
    }
    case 'postReaction': {
      const r = record.data
      const postId = postIdFrom(r.postId) ?? fail('data.postId must be an activity URN or id')
      const actor = authorFromUrn(r.actor.urn) ?? fail('data.actor.urn must be a profile or company URN')
      return { kind: 'postReaction', row: { postId, actor, reactionType: r.reactionType } }
    }
    case 'profileReaction': {
      const r = record.data
      const postId = postIdFrom(r.postId) ?? fail('data.postId must be an activity URN or id')
      const posted = timeFromId(postId)
      const reactedAt = r.reactedAt !== undefined ? instantOf(r.reactedAt, 'data.reactedAt') : posted
      // A reaction comes after its post and before now: a future one would sort first in the member's
      // reactions feed for ever after, and one older than its post would place the post before it existed.
      if (reactedAt > nowMs) fail(`data.reactedAt is in the future (${new Date(reactedAt).toISOString()})`)
      if (reactedAt < posted) fail(`data.reactedAt is before the post was published (${new Date(posted).toISOString()}, from its id)`)
      return { kind: 'profileReaction', row: { profileId: r.profileId, postId, reactionType: r.reactionType, reactedAt } }
    }
  }
}

export type RecordOutcome = { ok: true } | { ok: false; reason: string }

/** Validates an untrusted `{kind, data}` value; returns the typed record or the reason it is refused. */
export function validateRecord(value: unknown): { record: IngestRecord } | { reason: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { reason: 'a record must be a JSON object' }
  const { kind, data, ...rest } = value as Record<string, unknown>
  const extra = Object.keys(rest)
  if (extra.length > 0) return { reason: `unknown key(s) ${extra.join(', ')}; a record is {kind, data}` }
  // hasOwn, not `in`: inherited names such as toString must not pass for a kind.
  if (typeof kind !== 'string' || !Object.hasOwn(INGEST_KINDS, kind)) {
    return { reason: `kind must be one of ${Object.keys(INGEST_KINDS).join(', ')}` }
  }
  // A record in an earlier release's shape is read as today's: exports made for it still load.
  const current = upgradeRecordData(kind, data)
  const errors = schemaErrors(kind as IngestKind, current)
  if (errors !== undefined) return { reason: errors }
  const nul = pathOfNul(current, 'data')
  if (nul !== undefined) return { reason: `${nul} holds a NUL character (U+0000), which no text may hold` }
  return { record: { kind, data: wellFormed(current) } as IngestRecord }
}

/**
 * Where the first string holding a NUL is, or undefined. PostgreSQL text cannot hold one and SQLite
 * can; corrupt input either way, it is refused on both, before anything is written, in our words
 * rather than the driver's.
 */
function pathOfNul(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined
  if (typeof value !== 'object' || value === null) return undefined
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = pathOfNul(value[i], `${path}[${i}]`)
      if (found !== undefined) return found
    }
    return undefined
  }
  for (const [k, v] of Object.entries(value)) {
    const found = pathOfNul(v, `${path}.${k}`)
    if (found !== undefined) return found
  }
  return undefined
}

export interface ContentWriter {
  /** Validates, prepares and stores records in order; one outcome per record, failures leave nothing. */
  write(records: readonly unknown[]): Promise<RecordOutcome[]>
}

export function createContentWriter(deps: { store: ContentStore; clock: Clock; platformHost: string }): ContentWriter {
  return {
    async write(records) {
      const outcomes: RecordOutcome[] = new Array(records.length)
      const rows: ContentRow[] = []
      const rowIndex: number[] = []
      const now = deps.clock.now()
      records.forEach((value, i) => {
        const v = validateRecord(value)
        if ('reason' in v) {
          outcomes[i] = { ok: false, reason: v.reason }
          return
        }
        try {
          rows.push(prepareRecord(v.record, now, deps.platformHost))
          rowIndex.push(i)
        } catch (e) {
          if (!(e instanceof RecordError)) throw e
          outcomes[i] = { ok: false, reason: e.message }
        }
      })
      const written: WriteOutcome[] = rows.length > 0 ? await deps.store.write(rows) : []
      written.forEach((w, j) => {
        outcomes[rowIndex[j] as number] = w
      })
      return outcomes
    },
  }
}
