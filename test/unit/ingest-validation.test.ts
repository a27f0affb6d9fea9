/** What ingest says of a record that does not fit its kind's schema (D13): every reason in words. */
import { describe, expect, it } from 'vitest'
import { validateRecord } from '../../src/domain/content/content-writer.ts'
import { COMMENT_ID, PERSON_POST_ID, commentRecord, profileUrn, AUTHOR_ID } from '../helpers/ingest-fixtures.ts'

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
})
