/** Startup notes for a PRONET_SECRET or PRONET_ADMIN_TOKEN too short to keep its job (told, not refused). */
import { describe, expect, it } from 'vitest'
import { MIN_SECRET_CHARS, weakSecretNotes } from '../../src/config/weak-secrets.ts'

describe('weakSecretNotes', () => {
  it('names each setting shorter than 16 characters, and nothing for long or unset ones', () => {
    expect(weakSecretNotes({ secret: 'x', adminToken: 'admin' })).toEqual([
      expect.stringMatching(/^Note: PRONET_SECRET has 1 character: whoever guesses it can forge pagination tokens and cursors; use at least 16 random characters/),
      expect.stringMatching(/^Note: PRONET_ADMIN_TOKEN has 5 characters: it opens the whole admin API/),
    ])
    const long = 'k'.repeat(MIN_SECRET_CHARS)
    expect(weakSecretNotes({ secret: long, adminToken: long })).toEqual([])
    expect(weakSecretNotes({ secret: undefined, adminToken: undefined })).toEqual([])
    // Characters, not UTF-16 units: 15 emoji are 15 characters, short.
    expect(weakSecretNotes({ secret: '🔑'.repeat(15), adminToken: undefined })).toHaveLength(1)
  })
})
