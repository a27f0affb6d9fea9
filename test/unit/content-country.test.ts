/** A company location's country as a profile shows it: a name and an ISO code. */
import { describe, expect, it } from 'vitest'
import { countryOf } from '../../src/domain/content/content.service.ts'

describe('countryOf', () => {
  it('names a two-letter code and keeps it as the code', () => {
    expect(countryOf('ES')).toEqual({ name: 'Spain', code: 'ES' })
    expect(countryOf('US')).toEqual({ name: 'United States', code: 'US' })
  })
  it('takes anything else for a name, with no code; nothing gives empty strings', () => {
    expect(countryOf('Spain')).toEqual({ name: 'Spain', code: '' })
    expect(countryOf('')).toEqual({ name: '', code: '' })
    expect(countryOf(undefined)).toEqual({ name: '', code: '' })
  })
  it('gives no name for a code that names no region', () => {
    expect(countryOf('ZZ')).toEqual({ name: '', code: 'ZZ' })
    expect(countryOf('XA').code).toBe('XA')
  })
})
