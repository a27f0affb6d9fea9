import { describe, expect, it } from 'vitest'
import { firstSentence } from '../../src/domain/content/content.service.ts'

describe("firstSentence: a company page's tagline on /api/v1/profile", () => {
  it('ends at the first full stop, question or exclamation mark followed by a space', () => {
    expect(firstSentence('We build bridges. Then we cross them.')).toBe('We build bridges.')
    expect(firstSentence('Ready? Go!')).toBe('Ready?')
    expect(firstSentence('One sentence only')).toBe('One sentence only')
    expect(firstSentence('Version 2.0 is out. More soon.')).toBe('Version 2.0 is out.')
  })

  it('does not end at the full stop of a company abbreviation', () => {
    expect(firstSentence('Maple Co. builds accounting software for farms. Founded 1999.')).toBe('Maple Co. builds accounting software for farms.')
    expect(firstSentence('Juniper Inc. and Oak Ltd. merged in 2020. Offices worldwide.')).toBe('Juniper Inc. and Oak Ltd. merged in 2020.')
    expect(firstSentence('Tools for teams, e.g. planners. And more.')).toBe('Tools for teams, e.g. planners.')
  })
})
