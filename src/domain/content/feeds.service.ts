/**
 * The post feeds: a member's or a page's posts by cursor, the newest posts of up to
 * 60 profiles in the older shape, and a company page's posts. `feedRequests` parses their queries (no
 * store); `createFeedsService` answers a parsed request once its price is held.
 */
import { CLAMPED, LISTS, type CompanyPostsQuery, type PostsQuery, type PostsUpdatesQuery } from '../../contract/endpoints.schemas.ts'
import type { Validated } from '../../contract/validated.ts'
import type { AuthorRef, ContentStore } from '../../ports/content-store.ts'
import { invalidParameter, missingParameter } from '../errors.ts'
import type { TokenSigner } from '../tokens.ts'
import { companyNotFound, memberNotFoundAsCompany, profileNotFound, type ContentLookups } from './content-lookups.ts'
import { parseCompanyInput, parseProfileInput, type CompanyInput, type ProfileInput } from './input-resolution.ts'
import { json, list } from './json-parts.ts'
import { present, requireZeroStart, sentToken, type MemberInput, type ParseDeps } from './request-params.ts'

// Plain data, type aliases: see profiles.service.ts.
export type PostsRequest = { input: ProfileInput; count: number; token: string | null }
export type PostsUpdatesRequest = {
  profiles: MemberInput[]
  /** Posts per profile. */
  count: number
  /** Distinct profiles requested: what the price counts. */
  units: number
}
export type CompanyPostsRequest = { input: CompanyInput; count: number; token: string | null }

export function feedRequests(deps: ParseDeps) {
  const { host } = deps
  return {
    /** GET /api/v1/posts: a member's or a company page's posts, by cursor. */
    posts(q: Validated<typeof PostsQuery>): PostsRequest {
      const input = parseProfileInput(present(q.profileUrlOrUrn), { param: 'profileUrlOrUrn', host, allowMember: true, companies: 'accept' })
      requireZeroStart(q.start)
      return { input, count: q.count, token: sentToken(deps, q.paginationToken, 'paginationToken') }
    },

    /** GET /api/v1/posts/updates: up to LISTS.updatesProfiles profiles, each counted once. */
    postsUpdates(q: Validated<typeof PostsUpdatesQuery>): PostsUpdatesRequest {
      const raw = present(q.profileUrlsOrUrns)
      if (raw === undefined) throw missingParameter('profileUrlsOrUrns')
      const entries = [...new Set(raw.split(',').map((s) => s.trim()).filter((s) => s !== ''))]
      if (entries.length === 0) throw missingParameter('profileUrlsOrUrns')
      if (entries.length > LISTS.updatesProfiles) {
        throw invalidParameter('profileUrlsOrUrns', `at most ${LISTS.updatesProfiles} profiles per call (received ${entries.length}).`)
      }
      // One profile named twice (its id and its URN, or a slug in two cases) counts once; profile ids
      // are case-sensitive, so two ids differing only in case are two profiles.
      const profiles = [
        ...new Map(
          entries.map((e) => {
            const input = parseProfileInput(e, { param: 'profileUrlsOrUrns', host, allowMember: true, companies: 'refuse' }) as MemberInput
            return [input.type === 'slug' ? `slug:${input.slug.toLowerCase()}` : JSON.stringify(input), input] as const
          }),
        ).values(),
      ]
      return { profiles, count: q.count, units: profiles.length }
    },

    /** GET /api/v1/company/posts: profileUrlOrUrn is an alias; count is clamped. */
    companyPosts(q: Validated<typeof CompanyPostsQuery>): CompanyPostsRequest {
      const input = parseCompanyInput(present(q.companyUrlOrUrn) ?? present(q.profileUrlOrUrn), { param: 'companyUrlOrUrn', host })
      requireZeroStart(q.start)
      return { input, count: Math.min(q.count, CLAMPED.companyPostsCount), token: sentToken(deps, q.paginationToken, 'paginationToken') }
    },
  }
}

export function createFeedsService(deps: { store: ContentStore; tokens: TokenSigner; lookups: ContentLookups }) {
  const { store, tokens, lookups } = deps

  /** One cursor page of an author's feed; reposts without commentary are dropped after the fetch. */
  async function feedPage(author: AuthorRef, count: number, token: string | null) {
    const scope = `posts:${author.kind}:${author.id}`
    let beforeId: string | null = null
    if (token !== null) {
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

  return {
    /** A member's (or a company page's) posts by cursor. */
    async posts(r: PostsRequest): Promise<Buffer> {
      // /posts answers a missing record with COMPANY_NOT_FOUND only: a client of this endpoint branches
      // on that code, a member's input included. The endpoint takes company pages, so a bare
      // slug that no member has is looked for as a page's slug (a member's slug comes first).
      const author = await lookups.resolveAuthor(r.input, memberNotFoundAsCompany, 'author')
      const page = await feedPage(author, r.count, r.token)
      return json('{"posts":', list(page.posts), `,"paginationToken":${JSON.stringify(page.token)},"hasMore":${page.hasMore},"pageSize":${r.count}}`)
    },

    /** Newest posts of up to 60 profiles, older shape, aggregated newest first. */
    async postsUpdates(r: PostsUpdatesRequest): Promise<Buffer> {
      const collected: { id: string; docOlder: Buffer }[] = []
      // A profile reached by two forms (its id and its slug) gives its posts once.
      const seen = new Set<string>()
      for (const input of r.profiles) {
        const profileId = await lookups.profileIdFor(input)
        if (profileId === undefined || seen.has(profileId)) continue
        seen.add(profileId)
        collected.push(...(await store.listRecentPostsOlder({ kind: 'person', id: profileId }, r.count)))
      }
      if (seen.size === 0) throw profileNotFound()
      // 19-digit ids of equal length compare like their times: newest first.
      collected.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      return json('{"posts":', list(collected.map((p) => p.docOlder)), '}')
    },

    /** A company page's posts by cursor. */
    async companyPosts(r: CompanyPostsRequest): Promise<Buffer> {
      const companyId = await lookups.companyIdFor(r.input)
      if (companyId === undefined) throw companyNotFound()
      const page = await feedPage({ kind: 'company', id: companyId }, r.count, r.token)
      const token = page.hasMore ? `"paginationToken":${JSON.stringify(page.token)},` : ''
      return json('{"posts":', list(page.posts), `,${token}"hasMore":${page.hasMore},"pageSize":${page.rows}}`)
    },
  }
}
