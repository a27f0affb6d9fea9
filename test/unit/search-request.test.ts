/**
 * The post search body through parseSearchRequest directly: every refusal is a
 * 400 naming its field in details.parameter, `null` reads as omitted, identifiers are read in the
 * forms the spec lists, and searchScope (what a cursor is bound to) ignores maxResults and list order
 * but changes with every filter.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/domain/errors.ts'
import { parseSearchRequest, searchScope, type SearchRequest } from '../../src/domain/search/search-request.ts'
import { tokenize } from '../../src/domain/search/query-tokens.ts'

const NOW = Date.UTC(2026, 10, 1, 12, 0, 0)
const DAY = 86_400_000
const HOST = 'www.linkedin.com'
const PID = `ACoAA${'Bc'.repeat(17)}` // 39 characters, as every profile id has
const PID2 = `ACoAA${'Xy'.repeat(16)}-_`

const parse = (body: unknown, now = NOW): SearchRequest => parseSearchRequest(body, now, HOST)

/** The ApiError the body is refused with (fails when it is accepted or something else is thrown). */
function refusal(body: unknown, now = NOW): ApiError {
  try {
    parse(body, now)
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError)
    const error = e as ApiError
    expect(error.status).toBe(400)
    return error
  }
  throw new Error(`expected ${JSON.stringify(body)} to be refused`)
}

/** Asserts a 400 INVALID_PARAMETER naming `parameter`; returns the message. */
function invalid(body: unknown, parameter: string, now = NOW): string {
  const e = refusal(body, now)
  expect(e.code, e.message).toBe('INVALID_PARAMETER')
  expect(e.details).toEqual({ parameter })
  expect(e.message).toContain(`'${parameter}'`)
  return e.message
}

describe('the body itself', () => {
  it.each([[null], [undefined], ['query'], [42], [true], [[]], [[{ query: 'a' }]]])('refuses %j as not an object', (body) => {
    expect(invalid(body, 'body')).toMatch(/JSON object/)
  })

  it('refuses an unknown key by its name', () => {
    expect(invalid({ query: 'a', keywords: 'b' }, 'keywords')).toMatch(/unknown field/)
    expect(invalid({ query: 'a', MaxResults: 5 }, 'MaxResults')).toMatch(/unknown field/)
    expect(invalid({ query: 'a', count: 5 }, 'count')).toMatch(/unknown field/)
    // Even when its value is null: only the listed fields read null as omitted.
    expect(invalid({ query: 'a', start: null }, 'start')).toMatch(/unknown field/)
  })

  it.each(['group', 'groups', 'groupId', 'groupIds'])('refuses the group filter %s with its own message', (key) => {
    const message = invalid({ query: 'a', [key]: ['123'] }, key)
    expect(message).toMatch(/group filters are not supported/)
    expect(message).not.toMatch(/unknown field/)
  })

  it.each([
    'network',
    'networkDepth',
    'connectionOf',
    'connections',
    'firstDegree',
    'secondDegree',
    'followerOf',
    'followedBy',
    'fromFollowing',
    'postedByFollowing',
    'mentionsMember',
    'mentionsMembers',
    'fromMember',
  ])("refuses the viewer-network filter %s with its own message", (key) => {
    const message = invalid({ query: 'a', [key]: true }, key)
    expect(message).toMatch(/viewer's own network/)
    expect(message).not.toMatch(/unknown field/)
  })

  it('needs a query or an author list (MISSING_PARAMETER naming query)', () => {
    for (const body of [
      {},
      { query: null },
      { contentType: ['image'] },
      { mentionsCompanies: ['1035'] },
      { authorJobTitle: 'Data engineer', sortBy: 'date', postedWithin: 'week' },
      { authorProfiles: null, authorCompanies: null, query: null },
    ]) {
      const e = refusal(body)
      expect(e.code).toBe('MISSING_PARAMETER')
      expect(e.details).toEqual({ parameter: 'query' })
    }
    expect(parse({ authorProfiles: [PID] }).query).toBeNull()
    expect(parse({ authorCompanies: ['1035'] }).query).toBeNull()
  })
})

describe('enums', () => {
  it.each([['newest'], ['DATE'], ['Relevance'], [''], [1], [true], [['date']]])('refuses sortBy %j', (value) => {
    expect(invalid({ query: 'a', sortBy: value }, 'sortBy')).toMatch(/'relevance', 'date'/)
  })
  it.each([['day'], ['1h'], ['year'], ['24H'], ['Week'], [24], [{}]])('refuses postedWithin %j', (value) => {
    expect(invalid({ query: 'a', postedWithin: value }, 'postedWithin')).toMatch(/'24h', 'week', 'month'/)
  })
  it('refuses an unknown contentType value, naming the entry', () => {
    invalid({ query: 'a', contentType: ['text'] }, 'contentType[0]')
    invalid({ query: 'a', contentType: ['image', 'article'] }, 'contentType[1]')
    invalid({ query: 'a', contentType: ['Image'] }, 'contentType[0]')
    invalid({ query: 'a', contentType: ['platformVideo'] }, 'contentType[0]')
    invalid({ query: 'a', contentType: [1] }, 'contentType[0]')
    invalid({ query: 'a', contentType: 'image' }, 'contentType')
  })
  it('accepts every enum value', () => {
    expect(parse({ query: 'a', sortBy: 'date' }).sortBy).toBe('date')
    expect(parse({ query: 'a', sortBy: 'relevance' }).sortBy).toBe('relevance')
    expect(parse({ query: 'a' }).sortBy).toBeNull()
    for (const w of ['24h', 'week', 'month'] as const) expect(parse({ query: 'a', postedWithin: w }).postedWithin).toBe(w)
    const kinds = { image: 1, video: 2, liveVideo: 4, jobPost: 8, document: 16 }
    for (const [kind, bit] of Object.entries(kinds)) expect(parse({ query: 'a', contentType: [kind] }).contentKinds).toBe(bit)
    expect(parse({ query: 'a', contentType: Object.keys(kinds) }).contentKinds).toBe(31)
    expect(parse({ query: 'a' }).contentKinds).toBe(0)
  })
})

describe('lists', () => {
  const eleven = (f: (i: number) => string) => Array.from({ length: 11 }, (_, i) => f(i))
  it('refuses over-long lists naming the field', () => {
    const ids = eleven((i) => `ACoAA${'Q'.repeat(32)}${String(i).padStart(2, '0')}`)
    expect(invalid({ authorProfiles: ids }, 'authorProfiles')).toMatch(/at most 10/)
    expect(invalid({ authorCompanies: eleven((i) => String(100 + i)) }, 'authorCompanies')).toMatch(/at most 10/)
    expect(invalid({ query: 'a', mentionsCompanies: eleven((i) => String(100 + i)) }, 'mentionsCompanies')).toMatch(/at most 10/)
    const six = ['image', 'video', 'liveVideo', 'jobPost', 'document', 'image']
    expect(invalid({ query: 'a', contentType: six }, 'contentType')).toMatch(/at most 5/)
  })
  it('accepts lists at their maximum', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `ACoAA${'Q'.repeat(32)}${String(i).padStart(2, '0')}`)
    expect(parse({ authorProfiles: ten }).authors).toHaveLength(10)
    expect(parse({ authorCompanies: Array.from({ length: 10 }, (_, i) => String(i + 1)) }).authors).toHaveLength(10)
    expect(parse({ query: 'a', mentionsCompanies: Array.from({ length: 10 }, (_, i) => String(i + 1)) }).mentions).toHaveLength(10)
  })
  it.each(['authorProfiles', 'authorCompanies', 'mentionsCompanies', 'contentType'])('refuses an empty %s', (field) => {
    expect(invalid({ query: 'a', [field]: [] }, field)).toMatch(/1 to/)
  })
  it.each(['authorProfiles', 'authorCompanies', 'mentionsCompanies'])('refuses %s that is not an array of non-blank strings', (field) => {
    invalid({ query: 'a', [field]: '1035' }, field)
    invalid({ query: 'a', [field]: { 0: '1035' } }, field)
    invalid({ query: 'a', [field]: [''] }, `${field}[0]`)
    invalid({ query: 'a', [field]: ['1035', '   '] }, `${field}[1]`)
    invalid({ query: 'a', [field]: [1035] }, `${field}[0]`)
    invalid({ query: 'a', [field]: [null] }, `${field}[0]`)
  })
})

describe('maxResults', () => {
  it.each([[0], [51], [1.5], ['10'], [-1], [true], [1e100], [[10]]])('refuses %j', (value) => {
    expect(invalid({ query: 'a', maxResults: value }, 'maxResults')).toMatch(/1 to 50/)
  })
  it('accepts 1 to 50 and defaults to 50', () => {
    expect(parse({ query: 'a', maxResults: 1 }).maxResults).toBe(1)
    expect(parse({ query: 'a', maxResults: 50 }).maxResults).toBe(50)
    expect(parse({ query: 'a', maxResults: 7 }).maxResults).toBe(7)
    expect(parse({ query: 'a', maxResults: 10.0 }).maxResults).toBe(10)
    expect(parse({ query: 'a' }).maxResults).toBe(50)
  })
})

describe('null reads as omitted', () => {
  const FIELDS = [
    'query',
    'sortBy',
    'postedWithin',
    'postedAfter',
    'contentType',
    'authorProfiles',
    'authorCompanies',
    'mentionsCompanies',
    'authorJobTitle',
    'maxResults',
    'cursor',
  ]
  it('every field null is the same request as every field omitted', () => {
    const allNull = Object.fromEntries(FIELDS.map((f) => [f, null]))
    expect(parse({ ...allNull, query: 'data' })).toEqual(parse({ query: 'data' }))
    expect(parse({ ...allNull, authorProfiles: [PID] })).toEqual(parse({ authorProfiles: [PID] }))
    const e = refusal(allNull)
    expect(e.code).toBe('MISSING_PARAMETER')
  })
  it.each(FIELDS.filter((f) => f !== 'query'))('%s: null equals omitted', (field) => {
    expect(parse({ query: 'data', [field]: null })).toEqual(parse({ query: 'data' }))
  })
})

describe('postedAfter', () => {
  it('accepts ISO 8601 and epoch milliseconds', () => {
    const t = Date.UTC(2026, 9, 1, 8, 30, 0)
    expect(parse({ query: 'a', postedAfter: '2026-10-01T08:30:00Z' }).postedAfter).toBe(t)
    expect(parse({ query: 'a', postedAfter: '2026-10-01T08:30:00.000Z' }).postedAfter).toBe(t)
    expect(parse({ query: 'a', postedAfter: '2026-10-01T10:30:00+02:00' }).postedAfter).toBe(t)
    expect(parse({ query: 'a', postedAfter: '2026-10-01' }).postedAfter).toBe(Date.UTC(2026, 9, 1))
    expect(parse({ query: 'a', postedAfter: t }).postedAfter).toBe(t)
    expect(parse({ query: 'a', postedAfter: String(t) }).postedAfter).toBe(t)
  })
  it('accepts now and exactly 365 days back', () => {
    expect(parse({ query: 'a', postedAfter: NOW }).postedAfter).toBe(NOW)
    expect(parse({ query: 'a', postedAfter: NOW - 365 * DAY }).postedAfter).toBe(NOW - 365 * DAY)
  })
  it('refuses the future and more than 365 days back', () => {
    expect(invalid({ query: 'a', postedAfter: NOW + 1 }, 'postedAfter')).toMatch(/future/)
    expect(invalid({ query: 'a', postedAfter: new Date(NOW + DAY).toISOString() }, 'postedAfter')).toMatch(/future/)
    expect(invalid({ query: 'a', postedAfter: NOW - 365 * DAY - 1 }, 'postedAfter')).toMatch(/365 days/)
    expect(invalid({ query: 'a', postedAfter: '2020-01-01T00:00:00Z' }, 'postedAfter')).toMatch(/365 days/)
    expect(invalid({ query: 'a', postedAfter: 0 }, 'postedAfter')).toMatch(/365 days/)
  })
  it('refuses impossible calendar dates and times as not ISO 8601, never rolling them over', () => {
    // Date.parse reads 2026-02-30 as 2 March, and 2026-10-31T24:00 as the next midnight.
    for (const value of ['2026-02-30T00:00:00Z', '2026-02-29', '2026-09-31', '2026-10-31T24:00:00Z', '2026-10-01T12:60:00Z', '2026-10-01T12:00:60Z']) {
      expect(invalid({ query: 'a', postedAfter: value }, 'postedAfter'), value).toMatch(/ISO 8601/)
    }
    // Not "in the future": 2026-11-31 is no date at all.
    expect(invalid({ query: 'a', postedAfter: '2026-11-31' }, 'postedAfter')).toMatch(/ISO 8601/)
    expect(parse({ query: 'a', postedAfter: '2026-02-28T23:59:59Z' }).postedAfter).toBe(Date.UTC(2026, 1, 28, 23, 59, 59))
  })
  it.each([['yesterday'], ['2026-13-45'], ['2026-10-01T25:00:00Z'], ['01/10/2026'], [''], ['-5'], [1.5], [-1], [true], [{}], [[NOW]], [1e20]])(
    'refuses %j as not a date',
    (value) => {
      invalid({ query: 'a', postedAfter: value }, 'postedAfter')
    },
  )
})

describe('authorProfiles', () => {
  it('accepts a profile id, a profile URL holding one, and a profile URN', () => {
    for (const entry of [
      PID,
      `  ${PID} `,
      `https://www.linkedin.com/in/${PID}/`,
      `https://www.linkedin.com/in/${PID}`,
      `www.linkedin.com/in/${PID}/?trk=x#top`,
      `https://uk.linkedin.com/in/${PID}/`,
      `urn:li:fsd_profile:${PID}`,
    ]) {
      expect(parse({ authorProfiles: [entry] }).authors, entry).toEqual([{ kind: 'person', id: PID }])
    }
  })
  it('keeps several entries as person authors', () => {
    expect(parse({ authorProfiles: [PID, `urn:li:fsd_profile:${PID2}`] }).authors).toEqual([
      { kind: 'person', id: PID },
      { kind: 'person', id: PID2 },
    ])
  })
  it('refuses a bare slug, saying a slug is not accepted', () => {
    expect(invalid({ authorProfiles: ['jane-doe'] }, 'authorProfiles[0]')).toMatch(/bare slug is not accepted/)
    expect(invalid({ authorProfiles: [PID, 'Jane.Doe'] }, 'authorProfiles[1]')).toMatch(/bare slug is not accepted/)
  })
  it('refuses a profile URL holding a slug rather than an id', () => {
    expect(invalid({ authorProfiles: ['https://www.linkedin.com/in/jane-doe/'] }, 'authorProfiles[0]')).toMatch(
      /profile id \(ACoAA…\) or a profile URL holding one/,
    )
  })
  it('refuses company pages and malformed identifiers as 400s naming the entry', () => {
    invalid({ authorProfiles: ['urn:li:fsd_company:1035'] }, 'authorProfiles[0]')
    invalid({ authorProfiles: ['https://www.linkedin.com/company/1035/'] }, 'authorProfiles[0]')
    for (const entry of ['urn:li:member:12345', 'urn:li:fsd_profile:ACoAAshort', 'https://example.com/in/x']) {
      const e = refusal({ authorProfiles: [entry] })
      expect(e.details, entry).toEqual({ parameter: 'authorProfiles[0]' })
      expect(['INVALID_PARAMETER', 'INVALID_URN']).toContain(e.code)
    }
  })
})

describe('refusal messages say the limits and forms of the field', () => {
  it('an empty contentType says 1 to 5, an empty company list 1 to 10', () => {
    expect(invalid({ query: 'a', contentType: [] }, 'contentType')).toMatch(/1 to 5 entries/)
    expect(invalid({ query: 'a', mentionsCompanies: [] }, 'mentionsCompanies')).toMatch(/1 to 10 entries/)
  })
  it('a member in a company list, or more digits than a page id holds, names the forms the field takes', () => {
    const member = invalid({ query: 'a', authorCompanies: [`urn:li:fsd_profile:${PID}`] }, 'authorCompanies[0]')
    expect(member).toMatch(/numeric page id, page URN or a page URL ending in the id/)
    expect(member).not.toMatch(/slug/)
    const long = invalid({ query: 'a', mentionsCompanies: ['1'.repeat(201)] }, 'mentionsCompanies[0]')
    expect(long).toMatch(/page id has at most 19 digits/)
    expect(long).not.toMatch(/slug/)
  })
})

describe('authorCompanies and mentionsCompanies', () => {
  const forms = [
    '1035',
    'urn:li:fsd_company:1035',
    'urn:li:company:1035',
    'urn:li:fsd_organizationalPage:1035',
    'urn:li:organization:1035',
    'https://www.linkedin.com/company/1035/',
    'https://www.linkedin.com/company/1035',
    'linkedin.com/company/1035?trk=x',
  ]
  it.each(forms)('authorCompanies accepts %s', (entry) => {
    expect(parse({ authorCompanies: [entry] }).authors).toEqual([{ kind: 'company', id: '1035' }])
  })
  it.each(forms)('mentionsCompanies accepts %s', (entry) => {
    const r = parse({ query: 'a', mentionsCompanies: [entry] })
    expect(r.mentions).toEqual(['1035'])
    expect(r.authors).toEqual([])
  })
  it.each(['authorCompanies', 'mentionsCompanies'])('%s refuses a slug, bare or in a URL', (field) => {
    expect(invalid({ query: 'a', [field]: ['northwind'] }, `${field}[0]`)).toMatch(/slug/)
    expect(invalid({ query: 'a', [field]: ['1035', 'https://www.linkedin.com/company/northwind/'] }, `${field}[1]`)).toMatch(
      /slug/,
    )
  })
  it.each(['authorCompanies', 'mentionsCompanies'])('%s refuses member inputs', (field) => {
    invalid({ query: 'a', [field]: [`urn:li:fsd_profile:${PID}`] }, `${field}[0]`)
    invalid({ query: 'a', [field]: [`https://www.linkedin.com/in/${PID}/`] }, `${field}[0]`)
  })
  it('authorProfiles and authorCompanies together are one author list (persons first)', () => {
    expect(parse({ authorCompanies: ['7'], authorProfiles: [PID] }).authors).toEqual([
      { kind: 'person', id: PID },
      { kind: 'company', id: '7' },
    ])
  })
})

describe('authorJobTitle', () => {
  it('refuses empty, blank, over 100 characters, non-strings and punctuation only', () => {
    for (const value of ['', '   ', 'x'.repeat(101), 5, ['Engineer'], {}]) {
      expect(invalid({ query: 'a', authorJobTitle: value }, 'authorJobTitle'), JSON.stringify(value)).toMatch(/1 to 100/)
    }
    for (const value of ['!!!', '--', '#', '& / ,', '😀']) {
      expect(invalid({ query: 'a', authorJobTitle: value }, 'authorJobTitle'), value).toMatch(/no letters or digits/)
    }
  })
  it('accepts 1 to 100 characters, counted as code points, and keeps its tokens', () => {
    expect(parse({ query: 'a', authorJobTitle: 'x' }).jobTitle).toEqual(['x'])
    expect(parse({ query: 'a', authorJobTitle: 'x'.repeat(100) }).jobTitle).toEqual(['x'.repeat(100)])
    // 100 code points, 199 UTF-16 units.
    const wide = `a${'😀'.repeat(99)}`
    expect(parse({ query: 'a', authorJobTitle: wide }).jobTitle).toEqual(tokenize(wide))
    expect(parse({ query: 'a', authorJobTitle: 'Senior Data Engineer' }).jobTitle).toEqual(['senior', 'data', 'engineer'])
    expect(parse({ query: 'a', authorJobTitle: 'Founder & CEO' }).jobTitle).toEqual(['founder', 'ceo'])
  })
})

describe('cursor', () => {
  it('refuses over 1024 characters, empty and non-strings', () => {
    expect(invalid({ query: 'a', cursor: 'x'.repeat(1025) }, 'cursor')).toMatch(/1024/)
    invalid({ query: 'a', cursor: '' }, 'cursor')
    invalid({ query: 'a', cursor: 12 }, 'cursor')
    invalid({ query: 'a', cursor: ['abc'] }, 'cursor')
  })
  it('passes a string of up to 1024 characters on (it is verified by the search)', () => {
    expect(parse({ query: 'a', cursor: 'x'.repeat(1024) }).cursor).toBe('x'.repeat(1024))
  })
})

describe('query', () => {
  it('refuses a non-string, an over-long or ungrammatical query naming query', () => {
    invalid({ query: 5 }, 'query')
    invalid({ query: ['a'] }, 'query')
    invalid({ query: 'a'.repeat(501) }, 'query')
    invalid({ query: 'a AND' }, 'query')
    invalid({ query: 'NOT java' }, 'query')
    invalid({ query: '' }, 'query')
    invalid({ query: 'a AND b AND c AND d AND e AND f AND g' }, 'query')
  })
  it("refuses sortBy 'date' with a hashtag term, naming sortBy", () => {
    expect(invalid({ query: '#hiring', sortBy: 'date' }, 'sortBy')).toMatch(/hashtag/)
    expect(invalid({ query: 'python AND (remote OR #Hiring)', sortBy: 'date' }, 'sortBy')).toMatch(/hashtag/)
    expect(invalid({ query: 'python NOT #java', sortBy: 'date' }, 'sortBy')).toMatch(/hashtag/)
  })
  it("allows a hashtag with relevance or no sortBy, and 'date' without a hashtag term", () => {
    expect(parse({ query: '#hiring', sortBy: 'relevance' }).query?.hasHashtag).toBe(true)
    expect(parse({ query: '#hiring' }).sortBy).toBeNull()
    // C# is a word and a quoted "#hiring" a phrase: neither is a hashtag term.
    expect(parse({ query: 'C# developer', sortBy: 'date' }).sortBy).toBe('date')
    expect(parse({ query: '"#hiring"', sortBy: 'date' }).sortBy).toBe('date')
  })
  it('keeps the normalised query', () => {
    expect(parse({ query: 'python and  “machine learning”' }).query?.query).toBe('python AND "machine learning"')
  })
})

describe('searchScope (what a cursor is bound to)', () => {
  const scope = (body: Record<string, unknown>) => searchScope(parse(body))
  const base = {
    query: 'data AND (remote OR hybrid)',
    sortBy: 'date',
    postedWithin: 'month',
    postedAfter: NOW - 10 * DAY,
    contentType: ['image', 'video'],
    authorProfiles: [PID, PID2],
    authorCompanies: ['1035', '2040'],
    mentionsCompanies: ['11', '12'],
    authorJobTitle: 'Data Engineer',
  }

  it('is the same regardless of maxResults, cursor, list order and spelling of the same ids', () => {
    const s = scope(base)
    expect(scope({ ...base, maxResults: 3 })).toBe(s)
    expect(scope({ ...base, maxResults: 50, cursor: 'abc.def' })).toBe(s)
    expect(
      scope({
        ...base,
        contentType: ['video', 'image'],
        authorProfiles: [`urn:li:fsd_profile:${PID2}`, `https://www.linkedin.com/in/${PID}/`],
        authorCompanies: ['urn:li:fsd_company:2040', 'https://www.linkedin.com/company/1035/'],
        mentionsCompanies: ['12', 'urn:li:fsd_company:11'],
      }),
    ).toBe(s)
    expect(scope({ ...base, query: 'data and (remote or hybrid)' })).toBe(s)
    expect(scope({ ...base, postedAfter: new Date(NOW - 10 * DAY).toISOString() })).toBe(s)
  })

  it('follows the order walked, not its spelling: relevance with or without sortBy, and author-only searches whatever sortBy says', () => {
    expect(scope({ ...base, sortBy: 'relevance' })).toBe(scope({ ...base, sortBy: null }))
    expect(scope({ ...base, sortBy: 'relevance' })).not.toBe(scope(base))
    const authorsOnly = { authorProfiles: [PID] }
    expect(new Set([null, 'date', 'relevance'].map((sortBy) => scope({ ...authorsOnly, sortBy }))).size).toBe(1)
  })

  it('differs for any change of the query or a filter', () => {
    const s = scope(base)
    const changes: Record<string, unknown>[] = [
      { query: 'data AND (remote OR onsite)' },
      { query: 'data OR (remote OR hybrid)' },
      { sortBy: 'relevance' },
      { postedWithin: 'week' },
      { postedWithin: null },
      { postedAfter: NOW - 10 * DAY + 1 },
      { postedAfter: null },
      { contentType: ['image'] },
      { contentType: ['image', 'video', 'document'] },
      { contentType: null },
      { authorProfiles: [PID] },
      { authorProfiles: null },
      { authorCompanies: ['1035'] },
      { authorCompanies: ['1035', '2041'] },
      { mentionsCompanies: ['11'] },
      { mentionsCompanies: null },
      { authorJobTitle: 'Data Engineering' },
      { authorJobTitle: null },
    ]
    const seen = new Set([s])
    for (const change of changes) {
      const other = scope({ ...base, ...change })
      expect(other, JSON.stringify(change)).not.toBe(s)
      seen.add(other)
    }
    expect(seen.size).toBe(changes.length + 1)
  })

  it('tells an author company from a mentioned one and a person from a company', () => {
    expect(scope({ query: 'a', authorCompanies: ['11'] })).not.toBe(scope({ query: 'a', mentionsCompanies: ['11'] }))
    expect(scope({ authorCompanies: ['11'] })).not.toBe(scope({ authorCompanies: ['12'] }))
  })

  it('property: shuffling lists and changing maxResults never changes it', () => {
    const shuffled = <T>(xs: readonly T[]) =>
      fc.shuffledSubarray([...xs], { minLength: xs.length, maxLength: xs.length })
    fc.assert(
      fc.property(
        shuffled(base.contentType),
        shuffled(base.authorProfiles),
        shuffled(base.authorCompanies),
        shuffled(base.mentionsCompanies),
        fc.integer({ min: 1, max: 50 }),
        (contentType, authorProfiles, authorCompanies, mentionsCompanies, maxResults) => {
          expect(scope({ ...base, contentType, authorProfiles, authorCompanies, mentionsCompanies, maxResults })).toBe(scope(base))
        },
      ),
      { numRuns: 100 },
    )
  })
})
