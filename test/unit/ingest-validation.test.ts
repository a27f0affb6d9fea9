/** What ingest says of a record that does not fit its kind's schema: every reason in words. */
import { describe, expect, it } from 'vitest'
import { prepareRecord, validateRecord } from '../../src/domain/content/content-writer.ts'
import { COMMENT_ID, FIXTURE_NOW, PERSON_POST_ID, commentRecord, companyRecord, personPostRecord, profileRecord, profileUrn, AUTHOR_ID } from '../helpers/ingest-fixtures.ts'

describe('validateRecord reasons', () => {
  it('a comment copied from GET /api/v1/post/comments is refused with why each derived field is left out', () => {
    const copied = { ...commentRecord(PERSON_POST_ID, COMMENT_ID, profileUrn(AUTHOR_ID)), permalink: 'https://www.linkedin.com/feed/update/x', replies: [] }
    expect(validateRecord({ kind: 'comment', data: copied })).toEqual({
      reason:
        'data has unknown field(s) permalink, replies (permalink is derived from urn; each reply is a comment record of its own, with parentCommentId)',
    })
    // Without them it is accepted.
    expect(validateRecord({ kind: 'comment', data: commentRecord(PERSON_POST_ID, COMMENT_ID, profileUrn(AUTHOR_ID)) })).toHaveProperty('record')
  })

  it('never words a reason as the validator does ("schema is false")', () => {
    const reason = (data: unknown) => {
      const v = validateRecord({ kind: 'comment', data })
      return 'reason' in v ? v.reason : ''
    }
    for (const data of [{ bogus: 1 }, { ...commentRecord(PERSON_POST_ID, COMMENT_ID, profileUrn(AUTHOR_ID)), a: 1, b: 2 }]) {
      expect(reason(data)).not.toMatch(/schema is false/)
      expect(reason(data)).toMatch(/has unknown field\(s\)/)
    }
  })

  it('a NUL anywhere in a record\'s text is refused, naming where (PostgreSQL text cannot hold one; SQLite kept it)', () => {
    const company = companyRecord()
    expect(validateRecord({ kind: 'company', data: { ...company, name: 'North\u0000wind' } })).toEqual({
      reason: 'data.name holds a NUL character (U+0000), which no text may hold',
    })
    expect(validateRecord({ kind: 'company', data: { ...company, specialities: ['analytics', '\u0000'] } })).toEqual({
      reason: 'data.specialities[1] holds a NUL character (U+0000), which no text may hold',
    })
    expect(validateRecord({ kind: 'company', data: { ...company, headquarter: { ...company.headquarter, city: 'Leeds\u0000' } } })).toEqual({
      reason: 'data.headquarter.city holds a NUL character (U+0000), which no text may hold',
    })
    const post = personPostRecord(AUTHOR_ID, FIXTURE_NOW - 86_400_000, 7)
    expect(validateRecord({ kind: 'post', data: { ...post, content: 'a\u0000b' } })).toEqual({
      reason: 'data.content holds a NUL character (U+0000), which no text may hold',
    })
    // Other control characters are text like any other, and the records without the NUL pass.
    expect(validateRecord({ kind: 'post', data: { ...post, content: 'a\u0001b\tc' } })).toHaveProperty('record')
    expect(validateRecord({ kind: 'company', data: company })).toHaveProperty('record')
  })

  it('counts past 2^31 - 1 and years outside 1..9999 are refused on their line (PostgreSQL refused them with its own words; 1e21 was served as 1e+21)', () => {
    const reason = (kind: 'comment' | 'post' | 'profile' | 'company', data: unknown) => {
      const v = validateRecord({ kind, data })
      return 'reason' in v ? v.reason : 'accepted'
    }
    const comment = commentRecord(PERSON_POST_ID, COMMENT_ID, profileUrn(AUTHOR_ID))
    expect(reason('comment', { ...comment, reactionCount: 2_147_483_647 })).toBe('accepted')
    expect(reason('comment', { ...comment, reactionCount: 2_147_483_648 })).toMatch(/^data\.reactionCount .*2147483647/)
    const post = personPostRecord(AUTHOR_ID, FIXTURE_NOW - 86_400_000, 7)
    expect(reason('post', { ...post, sharesCount: 1e21 })).toMatch(/^data\.sharesCount /)
    expect(reason('post', { ...post, reactionsByType: { like: 2 ** 53 + 1 } })).toMatch(/^data\.reactionsByType\.like /)
    const company = companyRecord()
    expect(reason('company', { ...company, followerCount: 3e9 })).toMatch(/^data\.followerCount /)
    const profile = profileRecord(1)
    const first = profile.experiences[0]!
    const withStart = (year: number) => ({
      ...profile,
      experiences: [{ ...first, timePeriod: { ...first.timePeriod, startDate: { year, month: 3 } } }, ...profile.experiences.slice(1)],
    })
    expect(reason('profile', withStart(2019))).toBe('accepted')
    expect(reason('profile', withStart(-5))).toMatch(/^data\.experiences\.0\.timePeriod\.startDate\.year must be/)
    expect(reason('profile', withStart(12_000))).toMatch(/^data\.experiences\.0\.timePeriod\.startDate\.year must be/)
  })

  it('a lone surrogate in any text becomes U+FFFD; the input is not changed and well-formed records are passed as they are', () => {
    const company = companyRecord()
    const input = { ...company, specialities: ['ok', 'half \ud83d'], headquarter: { ...company.headquarter, city: '\udc00Leeds' } }
    const v = validateRecord({ kind: 'company', data: input })
    expect(v).toHaveProperty('record')
    if (!('record' in v)) throw new Error('unreachable')
    expect(v.record.data).toMatchObject({ specialities: ['ok', 'half \uFFFD'], headquarter: { city: '\uFFFDLeeds' }, name: company.name })
    expect(input.specialities[1]).toBe('half \ud83d')
    // A pair is one character, not two halves.
    const paired = { ...company, name: 'Rocket \u{1F680}' }
    const ok = validateRecord({ kind: 'company', data: paired })
    expect('record' in ok && ok.record.data).toBe(paired)
  })

  it('a leap second (23:59:60), which the schema takes, is refused naming the field instead of skipping the id check', () => {
    const at = Date.UTC(2016, 11, 31, 23, 59, 59, 900)
    const post = personPostRecord(AUTHOR_ID, at, 7)
    const prepare = (data: unknown) => {
      const v = validateRecord(data)
      if (!('record' in v)) throw new Error(v.reason)
      return prepareRecord(v.record, FIXTURE_NOW, 'www.linkedin.com')
    }
    expect(() => prepare({ kind: 'post', data: post })).not.toThrow()
    expect(() => prepare({ kind: 'post', data: { ...post, date: '2016-12-31T23:59:60Z' } })).toThrow(/^data\.date is a leap second \(:60\)/)
    // Before, any leap second passed for any id: one a year away was stored with the id's time.
    expect(() => prepare({ kind: 'post', data: { ...post, date: '2015-06-30T23:59:60Z' } })).toThrow(/^data\.date is a leap second/)
    const reaction = { profileId: AUTHOR_ID, postId: PERSON_POST_ID, reactionType: 'LIKE', reactedAt: '2025-01-31T23:59:60Z' }
    expect(() => prepare({ kind: 'profileReaction', data: reaction })).toThrow(/^data\.reactedAt is a leap second/)
  })

  it('a company id or member id of more than 19 digits, which no lookup can name, is refused', () => {
    const reason = (kind: 'company' | 'profile', data: unknown) => {
      const v = validateRecord({ kind, data })
      return 'reason' in v ? v.reason : 'accepted'
    }
    const company = companyRecord()
    const long = '1'.repeat(25)
    expect(reason('company', { ...company, companyId: long, id: `urn:li:fsd_company:${long}` })).toMatch(/^data\.companyId must match pattern/)
    expect(reason('company', { ...company, companyId: '9'.repeat(19), id: `urn:li:fsd_company:${'9'.repeat(19)}`, url: `https://www.linkedin.com/company/${company.publicIdentifier}/` })).toBe('accepted')
    const profile = profileRecord(1)
    expect(reason('profile', { ...profile, memberId: '4'.repeat(40) })).toMatch(/^data\.memberId must match pattern/)
    expect(reason('profile', { ...profile, memberId: '4'.repeat(19) })).toBe('accepted')
    const post = personPostRecord(AUTHOR_ID, FIXTURE_NOW - 86_400_000, 7)
    expect(validateRecord({ kind: 'post', data: { ...post, mentionsCompanies: ['1'.repeat(20)] } })).toMatchObject({ reason: expect.stringMatching(/^data\.mentionsCompanies\.0 must match pattern/) })
  })

  it('an experience that ends before it starts is refused; one that starts and ends in the same month or year is fine', () => {
    const profile = profileRecord(1)
    // A past position added after the fixture's own.
    const i = profile.experiences.length
    const e = { ...profile.experiences[0]!, current: false, ongoing: false, positionUrn: 'urn:li:fsd_profilePosition:(past,1)' }
    const prepare = (startDate: { year: number; month?: number }, endDate: { year: number; month?: number }) => {
      const experiences = [...profile.experiences, { ...e, timePeriod: { startDate, endDate } }]
      const v = validateRecord({ kind: 'profile', data: { ...profile, experiences } })
      if (!('record' in v)) throw new Error(v.reason)
      return prepareRecord(v.record, FIXTURE_NOW, 'www.linkedin.com')
    }
    expect(() => prepare({ year: 2020, month: 5 }, { year: 2020, month: 4 })).toThrow(`data.experiences[${i}].timePeriod.endDate is before its startDate`)
    expect(() => prepare({ year: 2021 }, { year: 2020, month: 12 })).toThrow(/endDate is before its startDate/)
    expect(() => prepare({ year: 2020, month: 5 }, { year: 2020, month: 5 })).not.toThrow()
    expect(() => prepare({ year: 2020, month: 5 }, { year: 2020 })).not.toThrow()
    expect(() => prepare({ year: 2020 }, { year: 2020, month: 1 })).not.toThrow()
  })
})

