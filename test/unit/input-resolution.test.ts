import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  MAX_INPUT_LENGTH,
  MAX_SLUG_LENGTH,
  parseCompanyInput,
  parsePostInput,
  parseProfileInput,
} from '../../src/domain/content/input-resolution.ts'
import { ApiError, type ErrorCode } from '../../src/domain/errors.ts'

const HOST = 'www.linkedin.com'
const PID = 'ACoAAAbCdEfGhIjKlMnOpQrStUvWxYz012345_-' // 39 characters
const ACTIVITY = '7123456789012345678'

const profileOpts = (over: Partial<{ allowMember: boolean; companies: 'accept' | 'refuse'; host: string }> = {}) => ({
  param: 'profileUrlOrUrn',
  host: HOST,
  allowMember: false,
  companies: 'refuse' as const,
  ...over,
})
const companyOpts = { param: 'companyUrlOrUrn', host: HOST }
const postOpts = { param: 'postUrlOrUrn', host: HOST }

const profile = (raw: string | undefined, over?: Parameters<typeof profileOpts>[0]) => parseProfileInput(raw, profileOpts(over))
const company = (raw: string | undefined) => parseCompanyInput(raw, companyOpts)
const post = (raw: string | undefined) => parsePostInput(raw, postOpts)

function refusal(run: () => unknown): ApiError {
  try {
    run()
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError)
    return e as ApiError
  }
  throw new Error('expected a refusal, got a value')
}

function expectRefused(run: () => unknown, code: ErrorCode, param: string): void {
  const e = refusal(run)
  expect(e.code).toBe(code)
  expect(e.status).toBe(400)
  expect(e.details).toEqual({ parameter: param })
}

it('the sample profile id is a valid one', () => {
  expect(PID).toHaveLength(39)
})

describe('parseProfileInput', () => {
  const P = 'profileUrlOrUrn'

  describe('accepts', () => {
    it.each([
      ['https://www.linkedin.com/in/jane-doe', 'jane-doe'],
      ['http://www.linkedin.com/in/jane-doe', 'jane-doe'],
      ['HTTPS://WWW.LINKEDIN.COM/in/jane-doe', 'jane-doe'],
      ['www.linkedin.com/in/jane-doe', 'jane-doe'],
      ['linkedin.com/in/jane-doe', 'jane-doe'],
      ['https://linkedin.com/in/jane-doe', 'jane-doe'],
      ['https://uk.linkedin.com/in/jane-doe', 'jane-doe'],
      ['https://m.linkedin.com/in/jane-doe', 'jane-doe'],
      ['https://De.LinkedIn.com/in/jane-doe', 'jane-doe'],
      ['//www.linkedin.com/in/jane-doe', 'jane-doe'],
      ['https://www.linkedin.com/in/jane-doe/', 'jane-doe'],
      ['https://www.linkedin.com/in/jane-doe//', 'jane-doe'],
      ['https://www.linkedin.com/in/jane-doe?trk=public_profile', 'jane-doe'],
      ['https://www.linkedin.com/in/jane-doe/?trk=x&y=1#about', 'jane-doe'],
      ['https://www.linkedin.com/in/jane-doe#experience', 'jane-doe'],
      ['https://www.linkedin.com/in/jane-doe/details/experience/', 'jane-doe'],
      ['https://www.linkedin.com/IN/jane-doe', 'jane-doe'],
      ['https://www.linkedin.com/in/Jane-Doe', 'jane-doe'],
      ['https://www.linkedin.com/in/j%C3%BCrgen-m%C3%BCller-1a2b3c', 'jürgen-müller-1a2b3c'],
      ['https://www.linkedin.com/in/J%C3%9CRGEN', 'jürgen'],
      ['https://www.linkedin.com/in/jürgen', 'jürgen'],
      ['https://www.linkedin.com/in/%E7%8E%8B%E5%B0%8F%E6%98%8E', '王小明'],
      ['https://www.linkedin.com/in/jane_doe.42', 'jane_doe.42'],
      ['  https://www.linkedin.com/in/jane-doe  ', 'jane-doe'],
      ['jane-doe', 'jane-doe'],
      ['Jane-Doe', 'jane-doe'],
      ['  jane-doe\n', 'jane-doe'],
      ['j%C3%BCrgen', 'jürgen'],
      ['jane.doe', 'jane.doe'],
      ['123456', '123456'],
      ['ACoAA-too-short', 'acoaa-too-short'],
      ['a'.repeat(MAX_SLUG_LENGTH), 'a'.repeat(MAX_SLUG_LENGTH)],
      ['ü'.repeat(MAX_SLUG_LENGTH), 'ü'.repeat(MAX_SLUG_LENGTH)],
    ])('%s as slug %s', (raw, slug) => {
      // A bare slug is told from one in a /in/ URL: /posts may then look for a company page by it.
      expect(profile(raw)).toEqual({ type: 'slug', slug, ...(/\/in\//i.test(raw) ? {} : { bare: true }) })
    })

    it.each([
      [`urn:li:fsd_profile:${PID}`],
      [`  urn:li:fsd_profile:${PID} `],
      [PID],
      [`https://www.linkedin.com/in/${PID}`],
      [`www.linkedin.com/in/${PID}/`],
    ])('%s as the profile id', (raw) => {
      expect(profile(raw)).toEqual({ type: 'profileId', profileId: PID })
    })

    it('a member URN when allowMember', () => {
      expect(profile('urn:li:member:12345', { allowMember: true })).toEqual({ type: 'memberId', memberId: '12345' })
    })

    it.each([
      ['urn:li:fsd_company:1035', { type: 'companyId', companyId: '1035' }],
      ['urn:li:company:1035', { type: 'companyId', companyId: '1035' }],
      ['urn:li:fsd_organizationalPage:1035', { type: 'companyId', companyId: '1035' }],
      ['urn:li:organization:1035', { type: 'companyId', companyId: '1035' }],
      ['https://www.linkedin.com/company/Acme-Corp/', { type: 'slug', slug: 'acme-corp', numeric: false }],
      ['linkedin.com/school/harvard-university', { type: 'slug', slug: 'harvard-university', numeric: false }],
      ['https://www.linkedin.com/showcase/acme-cloud/posts/', { type: 'slug', slug: 'acme-cloud', numeric: false }],
      ['https://www.linkedin.com/company/1035/', { type: 'slug', slug: '1035', numeric: true }],
    ])('a company page %s when companies: accept', (raw, expected) => {
      expect(profile(raw, { companies: 'accept', allowMember: true })).toEqual({ type: 'company', company: expected })
    })

    it('a configured host without www., and its subdomains', () => {
      const opts = profileOpts({ host: 'pronet.example' })
      expect(parseProfileInput('https://pronet.example/in/jane', opts)).toEqual({ type: 'slug', slug: 'jane' })
      expect(parseProfileInput('https://eu.pronet.example/in/jane', opts)).toEqual({ type: 'slug', slug: 'jane' })
    })

    it('a configured host with a port, only on that port', () => {
      const opts = profileOpts({ host: 'localhost:8080' })
      expect(parseProfileInput('http://localhost:8080/in/jane', opts)).toEqual({ type: 'slug', slug: 'jane' })
      expectRefused(() => parseProfileInput('http://localhost/in/jane', opts), 'INVALID_URN', P)
    })
  })

  describe('refuses', () => {
    it.each([[undefined], [''], ['   '], ['\t\n']])('%j as MISSING_PARAMETER', (raw) => {
      expectRefused(() => profile(raw), 'MISSING_PARAMETER', P)
    })

    it('a non-string value (a repeated query key) as INVALID_PARAMETER', () => {
      expectRefused(() => profile(['a', 'b'] as unknown as string), 'INVALID_PARAMETER', P)
    })

    it.each([
      ['a slug over the limit', 'a'.repeat(MAX_SLUG_LENGTH + 1)],
      ['an encoded slug over the limit', '%C3%BC'.repeat(MAX_SLUG_LENGTH + 1)],
      ['a URL slug over the limit', `https://www.linkedin.com/in/${'a'.repeat(MAX_SLUG_LENGTH + 1)}`],
      ['an input over the input limit', `https://www.linkedin.com/in/jane?${'x'.repeat(MAX_INPUT_LENGTH)}`],
    ])('%s as INVALID_PARAMETER', (_, raw) => {
      expectRefused(() => profile(raw), 'INVALID_PARAMETER', P)
    })

    it.each([
      ['https://www.linkedin.com/company/acme'],
      ['https://www.linkedin.com/school/harvard/'],
      ['https://www.linkedin.com/showcase/acme-cloud'],
      ['urn:li:fsd_company:1035'],
      ['urn:li:organization:1035'],
    ])('a company page %s as INVALID_PARAMETER when companies: refuse', (raw) => {
      const e = refusal(() => profile(raw))
      expect(e.code).toBe('INVALID_PARAMETER')
      expect(e.details).toEqual({ parameter: P })
      expect(e.message).toMatch(/member profiles only/)
    })

    it.each([
      ['another host', 'https://www.example.com/in/jane'],
      ['a look-alike host', 'https://linkedin.com.evil.io/in/jane'],
      ['a host ending like the base', 'https://notlinkedin.com/in/jane'],
      ['a schemeless other host', 'example.com/in/jane'],
      ['user-info in the URL', 'https://user@www.linkedin.com/in/jane'],
      ['an unexpected port', 'https://www.linkedin.com:8443/in/jane'],
      ['a non-http scheme', 'ftp://www.linkedin.com/in/jane'],
      ['a pathless URL', 'https://www.linkedin.com'],
      ['a pathless URL with a slash', 'https://www.linkedin.com/'],
      ['a bare platform host', 'www.linkedin.com'],
      ['a bare platform host with a query', 'linkedin.com?x=1'],
      ['/in/ alone', 'https://www.linkedin.com/in/'],
      ['/in alone', 'https://www.linkedin.com/in'],
      ['/in/ with only a query', 'https://www.linkedin.com/in/?x=jane'],
      ['/company/ alone', 'https://www.linkedin.com/company/'],
      ['an old /pub/ URL', 'https://www.linkedin.com/pub/jane-doe/1/2/3'],
      ['a post URL', `https://www.linkedin.com/feed/update/urn:li:activity:${ACTIVITY}/`],
      ['a host-less path', '/in/jane'],
      ['a malformed %-escape in a URL', 'https://www.linkedin.com/in/jane%E0%A4%A'],
      ['a malformed %-escape bare', 'jane%zz'],
      ['an encoded slash', 'https://www.linkedin.com/in/jane%2Fdoe'],
      ['an encoded space', 'jane%20doe'],
      ['a space inside', 'jane doe'],
      ['a slash inside', 'jane/doe'],
      ['a query in a bare value', 'jane?x=1'],
      ['a fragment in a bare value', 'jane#x'],
      ['a colon inside', 'jane:doe'],
      ['other punctuation', 'jane+doe'],
      ['an @ handle', '@jane'],
      ['dots only', '..'],
      ['dots only in a URL', 'https://www.linkedin.com/in/...'],
      ['a malformed profile id URN', 'urn:li:fsd_profile:ACoAAshort'],
      ['a profile id URN with a bad character', `urn:li:fsd_profile:${PID.slice(0, -1)}!`],
      ['a member URN without allowMember', 'urn:li:member:12345'],
      ['a non-numeric member URN', 'urn:li:member:abc'],
      ['an unknown URN kind', 'urn:li:person:12345'],
      ['a post URN', `urn:li:activity:${ACTIVITY}`],
      ['a school URN', 'urn:li:fsd_school:1234'],
      ['a wrong namespace', `urn:xx:fsd_profile:${PID}`],
      ['an upper-case namespace', `urn:LI:fsd_profile:${PID}`],
      ['an upper-case scheme', `URN:li:fsd_profile:${PID}`],
      ['a kind in the wrong case', `urn:li:FSD_PROFILE:${PID}`],
      ['a URN without an id', 'urn:li:fsd_profile'],
      ['a URN with an empty id', 'urn:li:fsd_profile:'],
      ['a URN with an empty kind', 'urn:li::x'],
      ['a URN with trailing text', `urn:li:fsd_profile:${PID} x`],
      ['a non-numeric company URN', 'urn:li:company:acme'],
    ])('%s as INVALID_URN', (_, raw) => {
      expectRefused(() => profile(raw, { companies: 'accept' }), 'INVALID_URN', P)
    })

    it('names the parameter it was given', () => {
      const opts = { ...profileOpts(), param: 'profileUrlsOrUrns[3]' }
      expectRefused(() => parseProfileInput('jane doe', opts), 'INVALID_URN', 'profileUrlsOrUrns[3]')
      expectRefused(() => parseProfileInput(' ', opts), 'MISSING_PARAMETER', 'profileUrlsOrUrns[3]')
    })
  })
})

describe('parseCompanyInput', () => {
  const P = 'companyUrlOrUrn'

  describe('accepts', () => {
    it.each([
      ['https://www.linkedin.com/company/acme-corp', 'acme-corp'],
      ['http://www.linkedin.com/company/acme-corp', 'acme-corp'],
      ['www.linkedin.com/company/acme-corp/', 'acme-corp'],
      ['linkedin.com/company/acme-corp', 'acme-corp'],
      ['https://uk.linkedin.com/company/acme-corp', 'acme-corp'],
      ['https://M.LINKEDIN.COM/COMPANY/Acme-Corp', 'acme-corp'],
      ['https://www.linkedin.com/company/acme-corp/?originalSubdomain=uk', 'acme-corp'],
      ['https://www.linkedin.com/company/acme-corp#top', 'acme-corp'],
      ['https://www.linkedin.com/company/acme-corp/about/', 'acme-corp'],
      ['https://www.linkedin.com/company/soci%C3%A9t%C3%A9-g%C3%A9n%C3%A9rale', 'société-générale'],
      ['https://www.linkedin.com/school/harvard-university/', 'harvard-university'],
      ['https://www.linkedin.com/showcase/acme-cloud', 'acme-cloud'],
      ['acme-corp', 'acme-corp'],
      ['Acme_Corp.io', 'acme_corp.io'],
      ['soci%C3%A9t%C3%A9', 'société'],
      [' acme ', 'acme'],
    ])('%s as slug %s', (raw, slug) => {
      expect(company(raw)).toEqual({ type: 'slug', slug, numeric: false })
    })

    it.each([['1035'], ['https://www.linkedin.com/company/1035/'], ['linkedin.com/school/1035']])(
      '%s as a numeric slug',
      (raw) => {
        expect(company(raw)).toEqual({ type: 'slug', slug: '1035', numeric: true })
      },
    )

    it.each([
      ['urn:li:fsd_company:1035'],
      ['urn:li:company:1035'],
      ['urn:li:fsd_organizationalPage:1035'],
      ['urn:li:organization:1035'],
      [' urn:li:company:1035 '],
    ])('%s as company id 1035', (raw) => {
      expect(company(raw)).toEqual({ type: 'companyId', companyId: '1035' })
    })
  })

  describe('refuses', () => {
    it.each([[undefined], [''], ['  ']])('%j as MISSING_PARAMETER', (raw) => {
      expectRefused(() => company(raw), 'MISSING_PARAMETER', P)
    })

    it.each([
      ['a profile URL', 'https://www.linkedin.com/in/jane-doe'],
      ['a schemeless profile URL', 'linkedin.com/in/jane-doe/'],
      ['a profile URL holding a profile id', `https://www.linkedin.com/in/${PID}`],
      ['a profile URN', `urn:li:fsd_profile:${PID}`],
      ['a member URN', 'urn:li:member:12345'],
      ['a bare profile id', PID],
      ['a slug over the limit', 'a'.repeat(MAX_SLUG_LENGTH + 1)],
      ['a URL slug over the limit', `https://www.linkedin.com/company/${'a'.repeat(MAX_SLUG_LENGTH + 1)}`],
    ])('%s as INVALID_PARAMETER', (_, raw) => {
      expectRefused(() => company(raw), 'INVALID_PARAMETER', P)
    })

    it('says why a member input is refused', () => {
      expect(refusal(() => company('https://www.linkedin.com/in/jane')).message).toMatch(/member input/)
    })

    it.each([
      ['another host', 'https://www.example.com/company/acme'],
      ['/company/ alone', 'https://www.linkedin.com/company/'],
      ['/school alone', 'https://www.linkedin.com/school'],
      ['/in/ alone', 'https://www.linkedin.com/in/'],
      ['an unknown path', 'https://www.linkedin.com/groups/12345'],
      ['a post URL', `https://www.linkedin.com/posts/acme_launch-activity-${ACTIVITY}-AbCd`],
      ['a non-numeric company URN', 'urn:li:fsd_company:acme'],
      ['a company URN with an empty id', 'urn:li:company:'],
      ['a company URN id over 19 digits', `urn:li:company:${'1'.repeat(20)}`],
      ['a malformed profile URN', 'urn:li:fsd_profile:nope'],
      ['a post URN', `urn:li:activity:${ACTIVITY}`],
      ['an unknown URN kind', 'urn:li:group:1'],
      ['a malformed %-escape', 'https://www.linkedin.com/company/acme%'],
      ['punctuation in a slug', 'acme&co'],
      ['a space in a slug', 'acme corp'],
    ])('%s as INVALID_URN', (_, raw) => {
      expectRefused(() => company(raw), 'INVALID_URN', P)
    })

    it('names the parameter it was given', () => {
      expectRefused(() => parseCompanyInput('acme corp', { param: 'companies[2]', host: HOST }), 'INVALID_URN', 'companies[2]')
    })
  })
})

describe('parsePostInput', () => {
  const P = 'postUrlOrUrn'

  describe('accepts', () => {
    it.each([
      [`urn:li:activity:${ACTIVITY}`, 'activity', ACTIVITY],
      [`urn:li:ugcPost:${ACTIVITY}`, 'ugcPost', ACTIVITY],
      ['urn:li:activity:1', 'activity', '1'],
      [` urn:li:activity:${ACTIVITY} `, 'activity', ACTIVITY],
      [ACTIVITY, 'activity', ACTIVITY],
      [`https://www.linkedin.com/feed/update/urn:li:activity:${ACTIVITY}/`, 'activity', ACTIVITY],
      [`http://www.linkedin.com/feed/update/urn:li:activity:${ACTIVITY}`, 'activity', ACTIVITY],
      [`linkedin.com/feed/update/urn:li:ugcPost:${ACTIVITY}?utm_source=share`, 'ugcPost', ACTIVITY],
      [`https://uk.linkedin.com/feed/update/urn%3Ali%3Aactivity%3A${ACTIVITY}`, 'activity', ACTIVITY],
      [`https://www.linkedin.com/embed/feed/update/urn:li:activity:${ACTIVITY}`, 'activity', ACTIVITY],
      [`https://www.linkedin.com/feed/update/urn:li:activity:${ACTIVITY}/#comments`, 'activity', ACTIVITY],
      [`https://www.linkedin.com/posts/jane-doe_launch-day-activity-${ACTIVITY}-AbCd`, 'activity', ACTIVITY],
      [`https://www.linkedin.com/posts/jane-doe_launch-day-activity-${ACTIVITY}-AbCd/?utm_source=x`, 'activity', ACTIVITY],
      [`www.linkedin.com/posts/acme_news-ugcPost-${ACTIVITY}-x1-y2`, 'ugcPost', ACTIVITY],
      [`https://www.linkedin.com/posts/jane_activity-2024-recap-activity-${ACTIVITY}-AbCd`, 'activity', ACTIVITY],
      [`https://www.linkedin.com/posts/jane_title-activity-${ACTIVITY}`, 'activity', ACTIVITY],
      [`https://www.linkedin.com/posts/j%C3%BCrgen_gr%C3%BC%C3%9Fe-activity-${ACTIVITY}-AbCd`, 'activity', ACTIVITY],
      // A post without title words: the marker follows the author's '_', or comes first.
      [`https://www.linkedin.com/posts/jane-doe_activity-${ACTIVITY}-AbCd`, 'activity', ACTIVITY],
      [`https://www.linkedin.com/posts/acme_ugcPost-${ACTIVITY}-x1`, 'ugcPost', ACTIVITY],
      [`https://www.linkedin.com/posts/activity-${ACTIVITY}-AbCd`, 'activity', ACTIVITY],
    ])('%s as %s %s', (raw, type, id) => {
      expect(post(raw)).toEqual({ type, id })
    })

    it.each([
      [`urn:li:share:${ACTIVITY}`],
      [`https://www.linkedin.com/feed/update/urn:li:share:${ACTIVITY}/`],
      [`https://www.linkedin.com/posts/jane_hello-share-${ACTIVITY}-AbCd`],
    ])('%s as a share', (raw) => {
      expect(post(raw)).toEqual({ type: 'share', id: ACTIVITY })
    })
  })

  describe('refuses', () => {
    it.each([[undefined], [''], [' \t ']])('%j as MISSING_PARAMETER', (raw) => {
      expectRefused(() => post(raw), 'MISSING_PARAMETER', P)
    })

    it('an input over the input limit as INVALID_PARAMETER', () => {
      expectRefused(() => post(`${ACTIVITY}${' x'.repeat(MAX_INPUT_LENGTH)}`), 'INVALID_PARAMETER', P)
    })

    it.each([
      ['an id over 19 digits', `urn:li:activity:${ACTIVITY}0`],
      ['an empty id', 'urn:li:activity:'],
      ['a non-numeric id', 'urn:li:activity:abc'],
      ['a kind in the wrong case', `urn:li:ugcpost:${ACTIVITY}`],
      ['a comment URN', `urn:li:comment:(activity:${ACTIVITY},${ACTIVITY})`],
      ['a profile URN', `urn:li:fsd_profile:${PID}`],
      ['a wrong namespace', `urn:xx:activity:${ACTIVITY}`],
      ['a bare short number', '12345'],
      ['a bare 20-digit number', `${ACTIVITY}0`],
      ['a bare slug', 'jane-doe'],
      ['a profile URL', 'https://www.linkedin.com/in/jane-doe'],
      ['another host', `https://www.example.com/feed/update/urn:li:activity:${ACTIVITY}`],
      ['/feed/update/ alone', 'https://www.linkedin.com/feed/update/'],
      ['/feed/ alone', 'https://www.linkedin.com/feed/'],
      ['a feed URL with a bare id', `https://www.linkedin.com/feed/update/${ACTIVITY}`],
      ['a posts URL without a marker', 'https://www.linkedin.com/posts/jane_hello-AbCd'],
      ['a posts URL whose marker is inside a word', `https://www.linkedin.com/posts/jane_reactivity-${ACTIVITY}-AbCd`],
      ['a posts URL with a malformed id', 'https://www.linkedin.com/posts/jane_hello-activity-12x4-AbCd'],
      ['a posts URL with an over-long id', `https://www.linkedin.com/posts/jane_hello-activity-${ACTIVITY}00-AbCd`],
      ['/posts/ alone', 'https://www.linkedin.com/posts/'],
      ['a malformed %-escape', `https://www.linkedin.com/feed/update/urn%3Ali%3Aactivity%3A${ACTIVITY}%E0%A4%A`],
    ])('%s as INVALID_URN', (_, raw) => {
      expectRefused(() => post(raw), 'INVALID_URN', P)
    })
  })
})

describe('properties', () => {
  // Arbitrary text, plus text built from the pieces the parser branches on, so deep paths are reached.
  const piece = fc.constantFrom(
    'urn:li:', 'fsd_profile:', 'member:', 'company:', 'activity:', 'share:', 'ugcPost:', 'https://', 'http://',
    '//', 'www.linkedin.com', 'uk.linkedin.com', 'example.com', '/', '/in/', '/company/', '/school/',
    '/feed/update/', '/posts/', '-activity-', '-share-', ACTIVITY, PID, '%', '%C3%BC', '%E0%A4%A', '?', '#',
    ':', '@', ' ', '.', '..', 'jane', 'ü', '\u0000', '\uD800',
  )
  const anyInput = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.array(fc.oneof(piece, fc.string({ maxLength: 5 })), { maxLength: 12 }).map((parts) => parts.join('')),
  )
  const hostArb = fc.constantFrom(HOST, 'linkedin.com', 'pronet.example', 'localhost:8080')

  function onlyApiErrors(run: () => unknown): boolean {
    try {
      run()
    } catch (e) {
      if (!(e instanceof ApiError)) throw e
      expect(['MISSING_PARAMETER', 'INVALID_PARAMETER', 'INVALID_URN']).toContain(e.code)
      expect(e.details).toEqual({ parameter: 'p' })
    }
    return true
  }

  it('any string is either parsed or refused with a 400 ApiError naming the parameter', () => {
    fc.assert(
      fc.property(anyInput, hostArb, fc.boolean(), fc.boolean(), (raw, host, flag, accept) => {
        const companies = accept ? 'accept' : 'refuse'
        onlyApiErrors(() => parseProfileInput(raw, { param: 'p', host, allowMember: flag, companies }))
        onlyApiErrors(() => parseCompanyInput(raw, { param: 'p', host }))
        onlyApiErrors(() => parsePostInput(raw, { param: 'p', host }))
      }),
      { numRuns: 3000 },
    )
  })

  const slugChar = fc.constantFrom(...'abcXYZ019-_.üÉ王ж'.split(''), 'ी')
  const slugArb = fc
    .array(slugChar, { minLength: 1, maxLength: 40 })
    .map((cs) => cs.join(''))
    .filter((s) => /[\p{L}\p{Nd}]/u.test(s))
  const urlArb = (path: string) =>
    fc
      .record({
        slug: slugArb,
        scheme: fc.constantFrom('', 'http://', 'https://', 'HTTPS://'),
        host: fc.constantFrom('www.linkedin.com', 'linkedin.com', 'uk.linkedin.com', 'M.LinkedIn.com'),
        encode: fc.boolean(),
        tail: fc.constantFrom('', '/', '?trk=x', '/?a=b#c', '#frag', '/details/experience/'),
      })
      .map((r) => ({
        slug: r.slug,
        url: `${r.scheme}${r.host}/${path}/${r.encode ? encodeURIComponent(r.slug) : r.slug}${r.tail}`,
      }))

  it('a profile URL built from a slug parses back to that slug, lower-cased', () => {
    fc.assert(
      fc.property(urlArb('in'), ({ slug, url }) => {
        expect(profile(url)).toEqual({ type: 'slug', slug: slug.toLowerCase() })
      }),
    )
  })

  it('a company URL built from a slug parses back to that slug, lower-cased', () => {
    fc.assert(
      fc.property(urlArb('company'), ({ slug, url }) => {
        expect(company(url)).toEqual({ type: 'slug', slug: slug.toLowerCase(), numeric: /^[0-9]+$/.test(slug) })
      }),
    )
  })

  it('a parsed slug given back bare parses to itself', () => {
    fc.assert(
      fc.property(urlArb('in'), ({ url }) => {
        const first = profile(url)
        if (first.type !== 'slug') throw new Error('expected a slug')
        expect(profile(first.slug)).toEqual({ ...first, bare: true })
        expect(profile(encodeURIComponent(first.slug))).toEqual({ ...first, bare: true })
      }),
    )
  })

  it('a post URN parses back to its kind and id, in any URL form', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('activity', 'ugcPost', 'share') as fc.Arbitrary<'activity' | 'ugcPost' | 'share'>,
        fc.stringMatching(/^[0-9]{1,19}$/),
        fc.constantFrom('urn', 'feed', 'encoded', 'posts'),
        (type, id, form) => {
          const urn = `urn:li:${type}:${id}`
          const raw =
            form === 'urn'
              ? urn
              : form === 'feed'
                ? `https://www.linkedin.com/feed/update/${urn}/`
                : form === 'encoded'
                  ? `linkedin.com/feed/update/${encodeURIComponent(urn)}`
                  : `https://www.linkedin.com/posts/jane_x-${type}-${id}-AbCd`
          expect(post(raw)).toEqual({ type, id })
        },
      ),
    )
  })
})
