/**
 * The profile endpoints: one profile (a company page in profile form), the posts a member
 * reacted to, and the articles a member published. `profileRequests` parses their queries (no store);
 * `createProfilesService` answers a parsed request once its price is held.
 */
import { CLAMPED, type ProfileArticlesQuery, type ProfileQuery, type ProfileReactionsQuery } from '../../contract/endpoints.schemas.ts'
import type { Validated } from '../../contract/validated.ts'
import type { ContentStore } from '../../ports/content-store.ts'
import { invalidParameter } from '../errors.ts'
import type { TokenSigner } from '../tokens.ts'
import { pageNotFoundAsProfile, profileNotFound, type ContentLookups } from './content-lookups.ts'
import { companySlug, parseProfileInput, type ProfileInput } from './input-resolution.ts'
import { json, list } from './json-parts.ts'
import { organizationAsProfile } from './organization-profile.ts'
import { createProfileRenderer } from './profile-doc.ts'
import { present, requireZeroStart, sentToken, type ParseDeps } from './request-params.ts'

// Requests are plain data holding all that shapes their answer (their serialisation is their cache
// key), and type aliases rather than interfaces so that a price rule can read them (PriceBasis).
export type ProfileRequest = {
  input: ProfileInput
  /** The UTC month (year * 12 + month) the profile's durations run to: an answer is good for that month only. */
  month: number
}
export type ProfileReactionsRequest = { input: ProfileInput; count: number; token: string | null }
export type ProfileArticlesRequest = { input: ProfileInput; count: number; start: number }

export function profileRequests(deps: ParseDeps) {
  const { host, clock } = deps
  const memberOnly = (raw: string | undefined) => parseProfileInput(present(raw), { param: 'profileUrlOrUrn', host, allowMember: false, companies: 'refuse' })
  return {
    /** GET /api/v1/profile: company pages accepted. */
    profile(q: Validated<typeof ProfileQuery>): ProfileRequest {
      const input = parseProfileInput(present(q.profileUrlOrUrn), { param: 'profileUrlOrUrn', host, allowMember: false, companies: 'accept' })
      const today = new Date(clock.now())
      return { input, month: today.getUTCFullYear() * 12 + today.getUTCMonth() }
    },

    /** GET /api/v1/profile/reactions: members only, by cursor. */
    profileReactions(q: Validated<typeof ProfileReactionsQuery>): ProfileReactionsRequest {
      const input = memberOnly(q.profileUrlOrUrn)
      requireZeroStart(q.start)
      return { input, count: q.count, token: sentToken(deps, q.paginationToken, 'paginationToken') }
    },

    /** GET /api/v1/profile/articles: members only, by offset; count and start are clamped. */
    profileArticles(q: Validated<typeof ProfileArticlesQuery>): ProfileArticlesRequest {
      const input = memberOnly(q.profileUrlOrUrn)
      return { input, count: Math.min(q.count, CLAMPED.articlesCount), start: Math.min(q.start, CLAMPED.articlesStart) }
    },
  }
}

export function createProfilesService(deps: { store: ContentStore; tokens: TokenSigner; lookups: ContentLookups }) {
  const { store, tokens, lookups } = deps
  const renderer = createProfileRenderer()

  return {
    /** One profile, its durations running to the request's month. */
    async profile(r: ProfileRequest): Promise<Buffer> {
      const { input } = r
      // /profile answers a missing record with PROFILE_NOT_FOUND only: a client of this endpoint branches
      // on that code, a company page given to it included.
      if (input.type === 'company') return Buffer.from(organizationAsProfile((await lookups.findCompany(input.company, pageNotFoundAsProfile)).doc))
      // One read for the document; only a member id needs a lookup first.
      let doc: Buffer | undefined
      if (input.type === 'slug') {
        doc = (await store.getProfileBySlug(input.slug))?.doc
        // The endpoint takes company pages, and /posts looks a bare slug that no member has up
        // as a page's slug: so does this one, or the same input named a page there and nothing here.
        if (doc === undefined && input.bare) {
          return Buffer.from(organizationAsProfile((await lookups.findCompany(companySlug(input.slug), pageNotFoundAsProfile)).doc))
        }
      } else if (input.type === 'profileId') {
        doc = await store.getProfileDoc(input.profileId)
      } else {
        const profileId = await store.findProfileIdByMemberId(input.memberId)
        doc = profileId === undefined ? undefined : await store.getProfileDoc(profileId)
      }
      if (doc === undefined) throw profileNotFound()
      // Labels depend on the month alone (profile-doc.ts): its first instant renders them as any other would.
      return renderer.render(doc, Date.UTC(Math.floor(r.month / 12), r.month % 12))
    },

    /** Posts a member reacted to, newest first. Company pages are refused: only members' reactions are recorded. */
    async profileReactions(r: ProfileReactionsRequest): Promise<Buffer> {
      const author = await lookups.resolveAuthor(r.input, profileNotFound, 'refuse')
      const scope = `reactions:${author.id}`
      let after: { reactedAt: number; postId: string } | null = null
      if (r.token !== null) {
        const p = tokens.open(r.token, scope, 'paginationToken') as unknown
        if (p !== null && !(Array.isArray(p) && typeof p[0] === 'number' && typeof p[1] === 'string')) {
          throw invalidParameter('paginationToken', 'malformed token.')
        }
        after = p === null ? null : { reactedAt: p[0] as number, postId: p[1] as string }
      }
      const page = await store.listProfileReactions(author.id, after, r.count)
      const last = page.rows.at(-1)
      const position = last ? [last.reactedAt, last.postId] : after ? [after.reactedAt, after.postId] : null
      const items = page.rows.map((row) => json(`{"reactionType":${JSON.stringify(row.reactionType)},"post":`, row.postDoc, '}'))
      return json('{"reactions":', list(items), `,"paginationToken":${JSON.stringify(tokens.issue(scope, position))},"hasMore":${page.hasMore}}`)
    },

    /** Articles a member published, newest first: the one offset-paged profile feed. */
    async profileArticles(r: ProfileArticlesRequest): Promise<Buffer> {
      const author = await lookups.resolveAuthor(r.input, profileNotFound, 'refuse')
      const docs = await store.listArticles(author.id, r.start, r.count)
      // Only an empty page ends the feed; nextStart advances by the requested count.
      const hasMore = docs.length > 0
      return json('{"articles":', list(docs), `,"hasMore":${hasMore}${hasMore ? `,"nextStart":${r.start + r.count}` : ''}}`)
    },
  }
}
