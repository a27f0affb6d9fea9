/**
 * Parsed inputs resolved against the store: which member, page or post an input names, or the
 * endpoint's 404. Runs only while serving, after the call's price is held.
 */
import type { AuthorRef, ContentStore } from '../../ports/content-store.ts'
import { ApiError } from '../errors.ts'
import { companyPageRefused, companySlug, type CompanyInput, type PostInput, type ProfileInput } from './input-resolution.ts'
import type { MemberInput } from './request-params.ts'

export const profileNotFound = () => new ApiError('PROFILE_NOT_FOUND', 'No profile exists for this input.')
export const companyNotFound = () => new ApiError('COMPANY_NOT_FOUND', 'No company page exists for this input.')
export const pageNotFoundAsProfile = () => new ApiError('PROFILE_NOT_FOUND', 'No profile or company page exists for this input.')
export const memberNotFoundAsCompany = () => new ApiError('COMPANY_NOT_FOUND', 'No profile or company page exists for this input.')
export const postNotFound = () => new ApiError('POST_NOT_FOUND', 'No post exists for this input.')

export type ContentLookups = ReturnType<typeof createContentLookups>

export function createContentLookups(store: ContentStore) {
  async function companyIdFor(input: CompanyInput): Promise<string | undefined> {
    if (input.type === 'companyId') return (await store.hasCompany(input.companyId)) ? input.companyId : undefined
    const bySlug = await store.findCompanyIdBySlug(input.slug)
    if (bySlug !== undefined) return bySlug
    // A numeric path segment is how pages without a vanity name are addressed (/company/1035/).
    if (input.numeric && (await store.hasCompany(input.slug))) return input.slug
    return undefined
  }

  async function profileIdFor(input: MemberInput): Promise<string | undefined> {
    switch (input.type) {
      case 'profileId':
        return (await store.hasProfile(input.profileId)) ? input.profileId : undefined
      case 'slug':
        return store.findProfileIdBySlug(input.slug)
      case 'memberId':
        return store.findProfileIdByMemberId(input.memberId)
    }
  }

  return {
    companyIdFor,
    profileIdFor,

    /** The company page an input names, read once; `notFound` (COMPANY_NOT_FOUND) when there is none. */
    async findCompany(input: CompanyInput, notFound: () => ApiError = companyNotFound): Promise<{ doc: Buffer }> {
      const id = input.type === 'companyId' ? input.companyId : await store.findCompanyIdBySlug(input.slug)
      const company =
        (id === undefined ? undefined : await store.getCompany(id)) ??
        (input.type === 'slug' && input.numeric ? await store.getCompany(input.slug) : undefined)
      if (company === undefined) throw notFound()
      return company
    },

    /**
     * The member (or a company page) an input names; 404 codes follow the kind of input unless
     * `memberNotFound` says otherwise. A bare slug no member has is looked up as a page's slug, as
     * /api/v1/profile does: with `pages` 'author' the page is the author; on a member-only feed
     * ('refuse') it is the free 400 a page's URL or URN gets there, rather than a 404 billed 1: the
     * same page must not cost 1 or 0 by how it was written.
     */
    async resolveAuthor(input: ProfileInput, memberNotFound: () => ApiError, pages: 'author' | 'refuse'): Promise<AuthorRef> {
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
    },

    /** The id of the post an input names, or POST_NOT_FOUND. */
    async resolvePostId(input: PostInput): Promise<string> {
      const id = input.type === 'activity' ? (await store.getPost(input.id))?.id : await store.findPostIdByShare(input.type, input.id)
      if (id === undefined) throw postNotFound()
      return id
    },
  }
}
