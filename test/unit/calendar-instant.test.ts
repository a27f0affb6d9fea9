import { describe, expect, it } from 'vitest'
import { MAX_INSTANT_MS, parseInstant } from '../../src/domain/billing/calendar.ts'

describe('parseInstant: the instants an operator gives the admin API and the CLI', () => {
  it('reads ISO 8601 with a zone, a bare day (midnight UTC) and epoch milliseconds', () => {
    expect(parseInstant('2027-01-31T09:30:00Z')).toBe(Date.UTC(2027, 0, 31, 9, 30))
    expect(parseInstant('2027-01-31T09:30Z')).toBe(Date.UTC(2027, 0, 31, 9, 30))
    expect(parseInstant('2027-01-31T09:30:00.250Z')).toBe(Date.UTC(2027, 0, 31, 9, 30, 0, 250))
    expect(parseInstant('2027-01-31T10:30:00+01:00')).toBe(Date.UTC(2027, 0, 31, 9, 30))
    expect(parseInstant('2027-01-31T04:00:00-05:30')).toBe(Date.UTC(2027, 0, 31, 9, 30))
    expect(parseInstant('2028-02-29')).toBe(Date.UTC(2028, 1, 29))
    expect(parseInstant('1800000000000')).toBe(1_800_000_000_000)
    expect(parseInstant('0')).toBe(0)
    expect(parseInstant('9999-12-31T23:59:59.999Z')).toBe(MAX_INSTANT_MS)
  })

  it('refuses days and times that do not exist instead of rolling them over', () => {
    for (const text of ['2028-02-30T12:00:00Z', '2027-02-29T12:00:00Z', '2028-04-31T00:00:00Z', '2028-06-31', '2027-13-01', '2027-01-31T24:00:00Z', '2027-01-31T09:60:00Z', '2027-01-31T09:30:60Z', '2027-01-31T09:30:00+24:00', '2027-01-31T09:30:00+01:60']) {
      expect(parseInstant(text), text).toBeUndefined()
    }
  })

  it('refuses text that is not ISO 8601 with a zone, and instants past the year 9999', () => {
    for (const text of ['March 7, 2028', 'June 20, 2028', '2028-03-07 10:00', '2028-03-07T10:00:00', 'soon', '', ' 2028-03-07', '1e12', '-5', '1.5', '99999999999999999', String(MAX_INSTANT_MS + 1)]) {
      expect(parseInstant(text), text).toBeUndefined()
    }
  })
})
