/**
 * An empty pagination token is no token: every token-paged feed answers `paginationToken=` with its
 * first page, whether or not that page is in the response cache (it was a 400 on a cold cache and
 * the cached first page on a warm one); a token the service did not issue is still a 400, and a free
 * one, whether or not the feed's subject exists (beside a missing one it was a 404 billed 1).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { idFromTime } from '../../src/domain/content/ids.ts'
import { COMPANY_ID, PERSON_POST_ID, fixtureRecords, profileIdFor } from '../helpers/ingest-fixtures.ts'
import { expectError, makeTestApp, type TestApp } from '../helpers/test-app.ts'

let t: TestApp
let key: string
beforeAll(async () => {
  t = await makeTestApp({ records: fixtureRecords() })
  key = (await t.c.accounts.create({ name: 'tokens', plan: 'custom', creditsLimit: 10_000, rpsLimit: 10_000 })).apiKey.key
})
afterAll(async () => t.close())

const FEEDS: [base: string, param: string][] = [
  ['/api/v1/posts?profileUrlOrUrn=member-1&count=2', 'paginationToken'],
  ['/api/v1/profile/reactions?profileUrlOrUrn=member-2&count=2', 'paginationToken'],
  [`/api/v1/company/posts?companyUrlOrUrn=${COMPANY_ID}&count=2`, 'paginationToken'],
  [`/api/v1/post/comments?postUrlOrUrn=${PERSON_POST_ID}&count=2`, 'paginationToken'],
  [`/api/v1/post/engagement?postUrlOrUrn=${PERSON_POST_ID}&commentCount=2&reactionCount=2`, 'commentPaginationToken'],
]

describe('an empty pagination token', () => {
  it.each(FEEDS)('%s: `%s=` is the first page, before and after the first page is cached', async (base, param) => {
    const empty = await t.get(`${base}&${param}=`, key)
    expect(empty.statusCode, empty.body).toBe(200)
    const first = await t.get(base, key)
    expect(first.statusCode, first.body).toBe(200)
    expect(empty.body).toBe(first.body)
    const again = await t.get(`${base}&${param}=`, key)
    expect(again.body).toBe(first.body)
    expect(expectError(await t.get(`${base}&${param}=nonsense`, key), 400, 'INVALID_PARAMETER').details).toEqual({ parameter: param })
  })
})

// The same feeds of subjects nobody has: a profile id, a slug, a page id, and a well-formed post id never stored.
const MISSING_POST = idFromTime(Date.UTC(2025, 0, 1), 999)
const MISSING: [base: string, param: string][] = [
  [`/api/v1/posts?profileUrlOrUrn=${profileIdFor(9999)}&count=2`, 'paginationToken'],
  ['/api/v1/profile/reactions?profileUrlOrUrn=nobody-has-this-slug&count=2', 'paginationToken'],
  ['/api/v1/company/posts?companyUrlOrUrn=987654321&count=2', 'paginationToken'],
  [`/api/v1/post/comments?postUrlOrUrn=${MISSING_POST}&count=2`, 'paginationToken'],
  [`/api/v1/post/engagement?postUrlOrUrn=${MISSING_POST}&commentCount=2&reactionCount=2`, 'commentPaginationToken'],
]

describe('a token the service never issued, beside a subject nobody has', () => {
  it.each(MISSING)('%s: `%s=nonsense` is a free 400, not a billed 404', async (base, param) => {
    const without = await t.get(base, key)
    expect(without.statusCode, without.body).toBe(404)
    expect(without.headers['x-credits-charged']).toBe('1')
    const forged = await t.get(`${base}&${param}=${encodeURIComponent('eyJzIjoiYSIsInAiOjF9.AAAAAAAAAAAAAAAAAAAAAA')}`, key)
    expect(expectError(forged, 400, 'INVALID_PARAMETER').details).toEqual({ parameter: param })
    expect(forged.headers['x-credits-charged']).toBe('0')
    const nonsense = await t.get(`${base}&${param}=nonsense`, key)
    expect(expectError(nonsense, 400, 'INVALID_PARAMETER').details).toEqual({ parameter: param })
    expect(nonsense.headers['x-credits-charged']).toBe('0')
  })
})
