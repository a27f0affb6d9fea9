/**
 * The data endpoints' domain: resolves inputs against the store, applies every parameter rule of
 * spec section 4 and D6, and assembles responses from stored, ready-to-send JSON by concatenation.
 * Expected refusals are thrown as ApiError; the HTTP layer renders them.
 */
import type { Company } from '../../contract/resources.schemas.ts'
import type { Clock } from '../../ports/clock.ts'
import type { ActorCard, AuthorRef, CommentKey, CommentView, ContentStore, PostReactionView } from '../../ports/content-store.ts'
import { ApiError, invalidParameter, isApiError, missingParameter } from '../errors.ts'
import type { TokenSigner } from '../tokens.ts'
import {
  companyPageRefused,
  companySlug,
  parseCompanyInput,
  parsePostInput,
  parseProfileInput,
  type CompanyInput,
  type PostInput,
  type ProfileInput,
} from './input-resolution.ts'
import { createProfileRenderer } from './profile-doc.ts'
import { PROFILE_SECTION_DEFAULTS } from './legacy-shapes.ts'
import type { ResponseCache } from './response-cache.ts'

export interface ContentServiceDeps {
  store: ContentStore
  clock: Clock
  tokens: TokenSigner
  platformHost: string
  /** Hot response bodies; keyed by normalised input and every parameter that shapes the output. */
  cache: ResponseCache
}

/** A delivered response: the JSON text, plus what metering needs to price it. */
/**
 * Called by each read once its input is valid and before anything is read: the gateway holds the
 * call's full price there (402 when it cannot). `units` is what a per-unit price counts (profiles
 * requested by posts/updates).
 */
export type Admit = (units?: number) => Promise<void>
const noAdmit: Admit = async () => {}

export interface Delivered {
  /** The JSON bytes, whole or as parts to send in order (search pages: see http/gathered-body.ts). */
  body: Buffer | readonly Buffer[]
  /** posts/updates: distinct profiles requested; company/batch: companies returned. */
  units?: number
}

/** A delivered body as one buffer (for callers that read it rather than send it). */
export const bodyBytes = (d: Delivered): Buffer => (Buffer.isBuffer(d.body) ? d.body : Buffer.concat(d.body))

/** Abbreviations whose full stop ends no sentence: "Maple Co. builds…" has one sentence, not "Maple Co.". */
const ABBREVIATIONS = new Set(['co', 'inc', 'ltd', 'llc', 'corp', 'plc', 'bros', 'st', 'dr', 'mr', 'mrs', 'ms', 'jr', 'sr', 'vs', 'etc', 'e.g', 'i.e', 'no'])

/** The first sentence of a description (a page's tagline, spec 2.4). */
export function firstSentence(text: string): string {
  for (const m of text.matchAll(/[.!?](?=\s)/g)) {
    const word = /([\p{L}.]+)$/u.exec(text.slice(0, m.index))?.[1]?.toLowerCase() ?? ''
    if (m[0] === '.' && ABBREVIATIONS.has(word)) continue
    return text.slice(0, m.index + 1)
  }
  return text
}

const profileNotFound = () => new ApiError('PROFILE_NOT_FOUND', 'No profile exists for this input.')
const companyNotFound = () => new ApiError('COMPANY_NOT_FOUND', 'No company page exists for this input.')
const pageNotFoundAsProfile = () => new ApiError('PROFILE_NOT_FOUND', 'No profile or company page exists for this input.')
const memberNotFoundAsCompany = () => new ApiError('COMPANY_NOT_FOUND', 'No profile or company page exists for this input.')
const postNotFound = () => new ApiError('POST_NOT_FOUND', 'No post exists for this input.')

const arr = (items: readonly string[]) => `[${items.join(',')}]`

type Part = string | Buffer | readonly Part[]
const OPEN = Buffer.from('[')
const CLOSE = Buffer.from(']')
const COMMA = Buffer.from(',')

/** One response body from literal JSON text and stored documents (UTF-8 bytes), by concatenation. */
function json(...parts: readonly Part[]): Buffer {
  const out: Buffer[] = []
  const add = (p: Part): void => {
    if (typeof p === 'string') out.push(Buffer.from(p))
    else if (Buffer.isBuffer(p)) out.push(p)
    else (p as readonly Part[]).forEach(add)
  }
  parts.forEach(add)
  return Buffer.concat(out)
}

/** A JSON array of ready items. */
function list(items: readonly (string | Buffer)[]): Part[] {
  const out: Part[] = [OPEN]
  items.forEach((item, i) => {
    if (i > 0) out.push(COMMA)
    out.push(item)
  })
  out.push(CLOSE)
  return out
}

/** Feeds paged by cursor refuse offsets (spec 4.0). */
function requireZeroStart(start: number | undefined): void {
  if (start !== undefined && start !== 0) {
    throw invalidParameter('start', 'offsets are not supported on this feed; use paginationToken.')
  }
}

/** The single non-empty value of a parameter (empty or blank counts as missing). */
function present(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value
}

export type ContentService = ReturnType<typeof createContentService>

/** Whether a pagination token was sent: an empty one is none (a client's `paginationToken=` on its first call), as the cache keys have it. */
const given = (token: string | undefined): token is string => token !== undefined && token !== ''

export function createContentService(deps: ContentServiceDeps) {
  const { store, clock, tokens, cache } = deps
  /** Serves `key` from the cache, or computes the JSON text and caches its bytes. */
  const cached = async (admit: Admit, key: string, compute: () => Promise<string | Buffer>): Promise<Delivered> => {
    // Admission (rate budget already taken, credits held) comes after validation, before any read.
    await admit()
    return cache.through(key, async () => {
      const out = await compute()
      return { body: typeof out === 'string' ? Buffer.from(out) : out }
    })
  }
  const host = deps.platformHost
  const renderer = createProfileRenderer()
  /**
   * A token sent that this service never issued is bad input, refused free like the rest of it: checked
   * before admission and before the subject is looked up (a made-up token with a missing subject was a
   * 404 billed 1). Whether it belongs to this feed needs the subject, and is checked where it is opened.
   */
  const checkToken = (token: string | undefined, param: string): void => {
    if (given(token)) tokens.verify(token, param)
  }

  async function companyIdFor(input: CompanyInput): Promise<string | undefined> {
    if (input.type === 'companyId') return (await store.hasCompany(input.companyId)) ? input.companyId : undefined
    const bySlug = await store.findCompanyIdBySlug(input.slug)
    if (bySlug !== undefined) return bySlug
    // A numeric path segment is how pages without a vanity name are addressed (/company/1035/).
    if (input.numeric && (await store.hasCompany(input.slug))) return input.slug
    return undefined
  }

  /** The company page an input names, read once; `notFound` (COMPANY_NOT_FOUND) when there is none. */
  async function findCompany(input: CompanyInput, notFound: () => ApiError = companyNotFound): Promise<{ doc: Buffer }> {
    const id = input.type === 'companyId' ? input.companyId : await store.findCompanyIdBySlug(input.slug)
    const company =
      (id === undefined ? undefined : await store.getCompany(id)) ??
      (input.type === 'slug' && input.numeric ? await store.getCompany(input.slug) : undefined)
    if (company === undefined) throw notFound()
    return company
  }

  async function profileIdFor(input: Exclude<ProfileInput, { type: 'company' }>): Promise<string | undefined> {
    switch (input.type) {
      case 'profileId':
        return (await store.hasProfile(input.profileId)) ? input.profileId : undefined
      case 'slug':
        return store.findProfileIdBySlug(input.slug)
      case 'memberId':
        return store.findProfileIdByMemberId(input.memberId)
    }
  }

  /**
   * Resolves a profile-endpoint input to an author; 404 codes follow the kind of input unless
   * `memberNotFound` says otherwise. With `pages`, a bare slug no member has may name a company page.
   */
  /**
   * The member (or a company page) an input names. A bare slug no member has is looked up as a page's
   * slug, as /api/v1/profile does: with `pages` 'author' the page is the author; on a member-only feed
   * ('refuse') it is the free 400 a page's URL or URN gets there (4.4, 4.5), where it was a 404 billed
   * 1 (a conformance probe: the same page cost 1 or 0 by how it was written).
   */
  async function resolveAuthor(input: ProfileInput, memberNotFound: () => ApiError, pages: 'author' | 'refuse'): Promise<AuthorRef> {
    if (input.type === 'company') {
      const companyId = await companyIdFor(input.company)
      if (companyId === undefined) throw companyNotFound()
      return { kind: 'company', id: companyId }
    }
    const profileId = await profileIdFor(input)
    if (profileId !== undefined) return { kind: 'person', id: profileId }
    const companyId = input.type === 'slug' && input.bare ? await companyIdFor(companySlug(input.slug)) : undefined
    if (companyId === undefined) throw memberNotFound()
    if (pages === 'refuse') throw companyPageRefused('profileUrlOrUrn')
    return { kind: 'company', id: companyId }
  }

  async function resolvePostId(input: PostInput): Promise<string> {
    const id =
      input.type === 'activity'
        ? (await store.getPost(input.id))?.id
        : await store.findPostIdByShare(input.type, input.id)
    if (id === undefined) throw postNotFound()
    return id
  }

  // ----- item builders for comments and reactions (D6) -----

  function commentAuthor(card: ActorCard) {
    const person = card.kind === 'person'
    return {
      id: person ? `urn:li:fsd_profile:${card.id}` : `urn:li:fsd_company:${card.id}`,
      name: card.name,
      headline: card.headline,
      profilePictureUrl: card.pictureUrl ?? '',
      profileUrl: card.url,
      publicId: card.slug,
      profileId: person ? card.id : null,
    }
  }

  function commentJson(c: CommentView, depth: number): string {
    const replies = depth === 0 ? c.replies.map((r) => commentJson(r, 1)) : []
    return JSON.stringify({
      urn: `urn:li:comment:(activity:${c.postId},${c.commentId})`,
      text: c.text,
      createdAt: c.createdAt,
      reactionCount: c.reactionCount,
      author: commentAuthor(c.author),
      permalink: c.permalink,
      pinned: c.pinned,
    }).replace(/}$/, `,"replies":${arr(replies)}}`)
  }

  function reactionJson(r: PostReactionView): string {
    const a = commentAuthor(r.actor)
    return JSON.stringify({
      reactionType: r.reactionType,
      actor: {
        urn: a.id,
        name: a.name,
        headline: a.headline,
        profileUrl: a.profileUrl,
        profilePictureUrl: a.profilePictureUrl,
        publicId: a.publicId,
        profileId: a.profileId,
      },
    })
  }

  /**
   * Comments page by token or by explicit offset; the token wins. A token holds the last comment's
   * place in the order ([pinned 0/1, reactions, created ms, id]): the next page goes on after it, so a
   * comment whose reactions or pin changed meanwhile cannot make it skip one that did not (an offset
   * did: a shown comment that fell to the bottom moved every later one up). Tokens issued before hold
   * an offset, and still open.
   */
  async function commentsPage(postId: string, count: number, start: number, token: string | undefined, tokenParam: string) {
    const scope = `comments:${postId}`
    let from: number | { after: CommentKey } = start
    if (given(token)) {
      const p = tokens.open(token, scope, tokenParam)
      const key = commentKeyFrom(p)
      if (key === undefined && (typeof p !== 'number' || !Number.isInteger(p) || p < 0)) throw invalidParameter(tokenParam, 'malformed token.')
      from = key !== undefined ? { after: key } : (p as number)
    }
    const page = await store.listComments(postId, from, count)
    const last = page.last
    return {
      items: arr(page.comments.map((c) => commentJson(c, 0))),
      hasMore: page.hasMore,
      token: page.hasMore && last ? tokens.issue(scope, commentPosition(last)) : undefined,
    }
  }

  /** /api/v1/profile given a company page: the organisation in profile form (spec 2.4). */
  function organizationAsProfile(companyDoc: Buffer): string {
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

  return {
    /** GET /api/v1/profile (4.3). */
    async profile(q: { profileUrlOrUrn?: string }, admit: Admit = noAdmit): Promise<Delivered> {
      const input = parseProfileInput(present(q.profileUrlOrUrn), {
        param: 'profileUrlOrUrn',
        host,
        allowMember: false,
        companies: 'accept',
      })
      const now = clock.now()
      // Durations run to today, so a profile body is good for the current month only.
      const today = new Date(now)
      const month = today.getUTCFullYear() * 12 + today.getUTCMonth()
      return cached(admit, `profile|${month}|${JSON.stringify(input)}`, async () => {
        // 4.3 answers a missing record with PROFILE_NOT_FOUND only: a client of this endpoint branches
        // on that code, a company page given to it included.
        if (input.type === 'company') return organizationAsProfile((await findCompany(input.company, pageNotFoundAsProfile)).doc)
        // One read for the document; only a member id needs a lookup first.
        let doc: Buffer | undefined
        if (input.type === 'slug') {
          doc = (await store.getProfileBySlug(input.slug))?.doc
          // The endpoint takes company pages (2.4), and /posts looks a bare slug that no member has up
          // as a page's slug: so does this one, or the same input named a page there and nothing here.
          if (doc === undefined && input.bare) return organizationAsProfile((await findCompany(companySlug(input.slug), pageNotFoundAsProfile)).doc)
        } else if (input.type === 'profileId') {
          doc = await store.getProfileDoc(input.profileId)
        } else {
          const profileId = await store.findProfileIdByMemberId(input.memberId)
          doc = profileId === undefined ? undefined : await store.getProfileDoc(profileId)
        }
        if (doc === undefined) throw profileNotFound()
        return renderer.render(doc, now)
      })
    },

    /** GET /api/v1/profile/reactions (4.4). Company pages are refused: only members' reactions are recorded. */
    async profileReactions(q: { profileUrlOrUrn?: string; count?: number; start?: number; paginationToken?: string }, admit: Admit = noAdmit): Promise<Delivered> {
      const input = parseProfileInput(present(q.profileUrlOrUrn), {
        param: 'profileUrlOrUrn',
        host,
        allowMember: false,
        companies: 'refuse',
      })
      requireZeroStart(q.start)
      checkToken(q.paginationToken, 'paginationToken')
      const count = q.count ?? 10
      return cached(admit, `reactions|${JSON.stringify(input)}|${count}|${q.paginationToken ?? ''}`, async () => {
        const author = await resolveAuthor(input, profileNotFound, 'refuse')
        const scope = `reactions:${author.id}`
        let after: { reactedAt: number; postId: string } | null = null
        if (given(q.paginationToken)) {
          const p = tokens.open(q.paginationToken, scope, 'paginationToken') as unknown
          if (p !== null && !(Array.isArray(p) && typeof p[0] === 'number' && typeof p[1] === 'string')) {
            throw invalidParameter('paginationToken', 'malformed token.')
          }
          after = p === null ? null : { reactedAt: p[0] as number, postId: p[1] as string }
        }
        const page = await store.listProfileReactions(author.id, after, count)
        const last = page.rows.at(-1)
        const position = last ? [last.reactedAt, last.postId] : after ? [after.reactedAt, after.postId] : null
        const items = page.rows.map((r) => json(`{"reactionType":${JSON.stringify(r.reactionType)},"post":`, r.postDoc, '}'))
        return json(
          '{"reactions":',
          list(items),
          `,"paginationToken":${JSON.stringify(tokens.issue(scope, position))},"hasMore":${page.hasMore}}`,
        )
      })
    },

    /** GET /api/v1/profile/articles (4.5): the one offset-paged profile feed. */
    async profileArticles(q: { profileUrlOrUrn?: string; count?: number; start?: number }, admit: Admit = noAdmit): Promise<Delivered> {
      const input = parseProfileInput(present(q.profileUrlOrUrn), {
        param: 'profileUrlOrUrn',
        host,
        allowMember: false,
        companies: 'refuse',
      })
      const count = Math.min(q.count ?? 10, 100)
      const start = Math.min(q.start ?? 0, 100_000)
      return cached(admit, `articles|${JSON.stringify(input)}|${count}|${start}`, async () => {
        const author = await resolveAuthor(input, profileNotFound, 'refuse')
        const docs = await store.listArticles(author.id, start, count)
        // Only an empty page ends the feed (rule 3); nextStart advances by the requested count (rule 2).
        const hasMore = docs.length > 0
        return json('{"articles":', list(docs), `,"hasMore":${hasMore}${hasMore ? `,"nextStart":${start + count}` : ''}}`)
      })
    },

    /** GET /api/v1/posts (4.6): a member's (or a company page's) posts by cursor. */
    async posts(q: { profileUrlOrUrn?: string; count?: number; start?: number; paginationToken?: string }, admit: Admit = noAdmit): Promise<Delivered> {
      const input = parseProfileInput(present(q.profileUrlOrUrn), {
        param: 'profileUrlOrUrn',
        host,
        allowMember: true,
        companies: 'accept',
      })
      requireZeroStart(q.start)
      checkToken(q.paginationToken, 'paginationToken')
      const count = q.count ?? 10
      return cached(admit, `posts|${JSON.stringify(input)}|${count}|${q.paginationToken ?? ''}`, async () => {
        // 4.6 answers a missing record with COMPANY_NOT_FOUND only: a client of this endpoint branches
        // on that code, a member's input included. The endpoint takes company pages (4.0), so a bare
        // slug that no member has is looked for as a page's slug (a member's slug comes first).
        const author = await resolveAuthor(input, memberNotFoundAsCompany, 'author')
        const page = await feedPage(author, count, q.paginationToken)
        return json(
          '{"posts":',
          list(page.posts),
          `,"paginationToken":${JSON.stringify(page.token)},"hasMore":${page.hasMore},"pageSize":${count}}`,
        )
      })
    },

    /** GET /api/v1/posts/updates (4.7): newest posts of up to 60 profiles, older shape, aggregated. */
    async postsUpdates(q: { profileUrlsOrUrns?: string; count?: number }, admit: Admit = noAdmit): Promise<Delivered> {
      const raw = present(q.profileUrlsOrUrns)
      if (raw === undefined) throw missingParameter('profileUrlsOrUrns')
      const entries = [...new Set(raw.split(',').map((s) => s.trim()).filter((s) => s !== ''))]
      if (entries.length === 0) throw missingParameter('profileUrlsOrUrns')
      if (entries.length > 60) {
        throw invalidParameter('profileUrlsOrUrns', `at most 60 profiles per call (received ${entries.length}).`)
      }
      // One profile named twice (its id and its URN, or a slug in two cases) counts once; profile ids
      // are case-sensitive (D2), so two ids differing only in case are two profiles.
      const inputs = [
        ...new Map(
          entries.map((e) => {
            const input = parseProfileInput(e, { param: 'profileUrlsOrUrns', host, allowMember: true, companies: 'refuse' })
            return [input.type === 'slug' ? `slug:${input.slug.toLowerCase()}` : JSON.stringify(input), input] as const
          }),
        ).values(),
      ]
      const count = q.count ?? 15
      await admit(inputs.length)
      const collected: { id: string; docOlder: Buffer }[] = []
      // A profile reached by two forms (its id and its slug) gives its posts once.
      const seen = new Set<string>()
      for (const input of inputs) {
        const profileId = await profileIdFor(input as Exclude<ProfileInput, { type: 'company' }>)
        if (profileId === undefined || seen.has(profileId)) continue
        seen.add(profileId)
        collected.push(...(await store.listRecentPostsOlder({ kind: 'person', id: profileId }, count)))
      }
      if (seen.size === 0) throw profileNotFound()
      // 19-digit ids of equal length compare like their times: newest first.
      collected.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      return { body: json('{"posts":', list(collected.map((p) => p.docOlder)), '}'), units: inputs.length }
    },

    /** GET /api/v1/company (4.8). */
    async company(q: { companyUrlOrUrn?: string }, admit: Admit = noAdmit): Promise<Delivered> {
      const input = parseCompanyInput(present(q.companyUrlOrUrn), { param: 'companyUrlOrUrn', host })
      return cached(admit, `company|${JSON.stringify(input)}`, async () => (await findCompany(input)).doc)
    },

    /**
     * POST /api/v1/company/batch (4.9), whole-request validation only. Returns the distinct entries
     * (first spelling kept, case-insensitive duplicates dropped) for the caller to check credits and
     * rate units before anything is fetched.
     */
    batchEntries(body: unknown): string[] {
      const companies = (body as { companies?: unknown } | null | undefined)?.companies
      if (companies === undefined || companies === null) throw missingCompanies()
      if (!Array.isArray(companies)) {
        throw new ApiError('INVALID_PARAMETER', "'companies' must be an array of strings.", { parameter: 'companies' })
      }
      if (companies.length === 0) throw missingCompanies()
      if (companies.length > 50) {
        throw new ApiError('INVALID_PARAMETER', `'companies' accepts at most 50 entries (received ${companies.length}).`, {
          parameter: 'companies',
        })
      }
      const seen = new Map<string, string>()
      companies.forEach((entry: unknown, i) => {
        if (typeof entry !== 'string' || entry.trim() === '') {
          throw new ApiError('INVALID_PARAMETER', `'companies[${i}]' must be a non-empty string.`, {
            parameter: `companies[${i}]`,
          })
        }
        const text = entry.trim()
        if (!seen.has(text.toLowerCase())) seen.set(text.toLowerCase(), text)
      })
      return [...seen.values()]
    },

    /** One batch entry: a company or its own error object (never throws an ApiError). */
    async batchEntry(input: string): Promise<{ json: string | Buffer; outcome: 'found' | 'notFound' | 'failed' }> {
      try {
        const company = await findCompany(parseCompanyInput(input, { param: 'companies', host }))
        return { json: json(`{"input":${JSON.stringify(input)},"company":`, company.doc, '}'), outcome: 'found' }
      } catch (e) {
        // 4.9 rule 2: notFound counts the entries whose error status is 404, failed every other error.
        if (isApiError(e)) return { json: batchError(input, e), outcome: e.status === 404 ? 'notFound' : 'failed' }
        return {
          json: batchError(input, new ApiError('INTERNAL_ERROR', 'The entry could not be fetched; retry it.')),
          outcome: 'failed',
        }
      }
    },

    /** A batch entry refused without a fetch (the batch ran out of time for rate units). */
    batchRefused(input: string, e: ApiError): { json: string; outcome: 'failed' } {
      return { json: batchError(input, e), outcome: 'failed' }
    },

    /** Assembles the batch response from entries in input order. */
    batchResponse(results: { json: string | Buffer; outcome: 'found' | 'notFound' | 'failed' }[]): Delivered {
      const found = results.filter((r) => r.outcome === 'found').length
      const notFound = results.filter((r) => r.outcome === 'notFound').length
      return {
        body: json(
          '{"results":',
          list(results.map((r) => r.json)),
          `,"found":${found},"notFound":${notFound},"failed":${results.length - found - notFound}}`,
        ),
        units: found,
      }
    },

    /** GET /api/v1/company/posts (4.10). */
    async companyPosts(q: {
      companyUrlOrUrn?: string
      profileUrlOrUrn?: string
      count?: number
      start?: number
      paginationToken?: string
    }, admit: Admit = noAdmit): Promise<Delivered> {
      const given = present(q.companyUrlOrUrn) ?? present(q.profileUrlOrUrn)
      const input = parseCompanyInput(given, { param: 'companyUrlOrUrn', host })
      requireZeroStart(q.start)
      checkToken(q.paginationToken, 'paginationToken')
      const count = Math.min(q.count ?? 10, 100)
      return cached(admit, `companyPosts|${JSON.stringify(input)}|${count}|${q.paginationToken ?? ''}`, async () => {
        const companyId = await companyIdFor(input)
        if (companyId === undefined) throw companyNotFound()
        const page = await feedPage({ kind: 'company', id: companyId }, count, q.paginationToken)
        const token = page.hasMore ? `"paginationToken":${JSON.stringify(page.token)},` : ''
        return json('{"posts":', list(page.posts), `,${token}"hasMore":${page.hasMore},"pageSize":${page.rows}}`)
      })
    },

    /** GET /api/v1/post/engagement (4.11): comments and reactions in one call, all or nothing. */
    async engagement(q: {
      postUrlOrUrn?: string
      commentCount?: number
      commentStart?: number
      commentPaginationToken?: string
      reactionCount?: number
      reactionStart?: number
    }, admit: Admit = noAdmit): Promise<Delivered> {
      const input = parsePostInput(present(q.postUrlOrUrn), { param: 'postUrlOrUrn', host })
      checkToken(q.commentPaginationToken, 'commentPaginationToken')
      const key = `engagement|${JSON.stringify(input)}|${JSON.stringify([q.commentCount, q.commentStart, q.commentPaginationToken, q.reactionCount, q.reactionStart])}`
      return cached(admit, key, async () => {
        const postId = await resolvePostId(input)
        const comments = await commentsPage(
          postId,
          q.commentCount ?? 100,
          q.commentStart ?? 0,
          q.commentPaginationToken,
          'commentPaginationToken',
        )
        const reactions = await store.listPostReactions(postId, q.reactionStart ?? 0, q.reactionCount ?? 100)
        const token = comments.token ? `"commentsPaginationToken":${JSON.stringify(comments.token)},` : ''
        return (
          `{"post":"urn:li:activity:${postId}","comments":${comments.items},${token}"commentsHasMore":${comments.hasMore},` +
          `"reactions":${arr(reactions.reactions.map(reactionJson))},"reactionsHasMore":${reactions.hasMore}}`
        )
      })
    },

    /** GET /api/v1/post/comments (D6). */
    async comments(q: { postUrlOrUrn?: string; count?: number; start?: number; paginationToken?: string }, admit: Admit = noAdmit): Promise<Delivered> {
      const input = parsePostInput(present(q.postUrlOrUrn), { param: 'postUrlOrUrn', host })
      checkToken(q.paginationToken, 'paginationToken')
      return cached(admit, `comments|${JSON.stringify(input)}|${JSON.stringify([q.count, q.start, q.paginationToken])}`, async () => {
        const postId = await resolvePostId(input)
        const page = await commentsPage(postId, q.count ?? 100, q.start ?? 0, q.paginationToken, 'paginationToken')
        const token = page.token ? `"paginationToken":${JSON.stringify(page.token)},` : ''
        return `{"comments":${page.items},${token}"hasMore":${page.hasMore}}`
      })
    },

    /** GET /api/v1/post/reactions (D6). */
    async postReactions(q: { postUrlOrUrn?: string; count?: number; start?: number }, admit: Admit = noAdmit): Promise<Delivered> {
      const input = parsePostInput(present(q.postUrlOrUrn), { param: 'postUrlOrUrn', host })
      return cached(admit, `postReactions|${JSON.stringify(input)}|${q.count ?? 100}|${q.start ?? 0}`, async () => {
        const postId = await resolvePostId(input)
        const page = await store.listPostReactions(postId, q.start ?? 0, q.count ?? 100)
        return `{"reactions":${arr(page.reactions.map(reactionJson))},"hasMore":${page.hasMore}}`
      })
    },
  }

  /** One cursor page of an author's feed; reposts without commentary are dropped after the fetch. */
  async function feedPage(author: AuthorRef, count: number, token: string | undefined) {
    const scope = `posts:${author.kind}:${author.id}`
    let beforeId: string | null = null
    if (given(token)) {
      const p = tokens.open(token, scope, 'paginationToken')
      if (p !== null && (typeof p !== 'string' || !/^\d{1,20}$/.test(p))) {
        throw invalidParameter('paginationToken', 'malformed token.')
      }
      beforeId = p
    }
    const page = await store.listPosts(author, beforeId, count)
    const last = page.rows.at(-1)?.id ?? beforeId
    return {
      posts: page.rows.filter((r) => !r.isRepost).map((r) => r.doc),
      rows: page.rows.length,
      hasMore: page.hasMore,
      token: tokens.issue(scope, last),
    }
  }
}

function missingCompanies(): ApiError {
  return new ApiError('INVALID_PARAMETER', "'companies' is required: a non-empty array of 1 to 50 strings.", {
    parameter: 'companies',
  })
}

function batchError(input: string, e: ApiError): string {
  return JSON.stringify({ input, error: { code: e.code, message: e.message, status: e.status } })
}

const REGION_NAMES = new Intl.DisplayNames(['en'], { type: 'region' })

/**
 * A company location's `country` as a profile carries it (2.4: geoCountryName a name, countryCode an
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

/** A comment's place in the order as a comments token holds it: [pinned 0/1, reactions, created ms, id]. */
const commentPosition = (k: CommentKey): [number, number, number, string] => [k.pinned ? 1 : 0, k.reactionCount, k.createdMs, k.commentId]

/** commentPosition undone, or undefined when the token holds none (an offset, or anything else). */
function commentKeyFrom(p: unknown): CommentKey | undefined {
  if (!Array.isArray(p) || p.length !== 4) return undefined
  const [pinned, reactionCount, createdMs, commentId] = p as unknown[]
  if ((pinned !== 0 && pinned !== 1) || !Number.isSafeInteger(reactionCount) || (reactionCount as number) < 0) return undefined
  if (!Number.isSafeInteger(createdMs) || (createdMs as number) < 0 || typeof commentId !== 'string' || !/^\d{1,19}$/.test(commentId)) return undefined
  return { pinned: pinned === 1, reactionCount: reactionCount as number, createdMs: createdMs as number, commentId }
}
