/**
 * The real inputs the fuzzer draws its valid values from, by field name: the fixture network's
 * profiles, companies and posts in every accepted form (and some that name nothing), page tokens
 * and cursors the API itself issued, dates and instants around the test clock, and search queries
 * over the fixtures' words. The admin API's ids come from accounts and orders made for it to change.
 */
import fc from 'fast-check'
import type { Operation } from './fuzz-operations.ts'
import type { Hints } from './fuzz-schema.ts'
import { activityUrn, AUTHOR_ID, COMPANY_ID, COMPANY_POST_ID, companyUrn, PERSON_POST_ID, profileIdFor, profileUrn, READER_ID } from './ingest-fixtures.ts'
import { oddText } from './fuzz-values.ts'
import { WEBHOOK_EVENTS } from '../../src/ports/webhook-store.ts'
import { KEY_ENDPOINTS } from '../../src/key-caps/key-settings.ts'

const HOST = 'https://www.linkedin.com'
const DAY = 86_400_000

/** Tokens and cursors the API issued, read from its first pages (see the suite's set-up). */
export interface Issued {
  pageTokens: string[]
  commentTokens: string[]
  searchCursors: string[]
}

const PROFILES = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('member-1', 'member-2', AUTHOR_ID, READER_ID, profileUrn(AUTHOR_ID), profileUrn(READER_ID), `${HOST}/in/member-1/`, `${HOST}/in/${AUTHOR_ID}`, 'www.linkedin.com/in/member-2', 'MEMBER-1') },
  { weight: 2, arbitrary: fc.constantFrom('nobody-here', profileUrn(profileIdFor(999)), `${HOST}/in/ghost/`, 'urn:li:member:123456') },
  { weight: 1, arbitrary: fc.constantFrom(`northwind-${COMPANY_ID}`, COMPANY_ID, `${HOST}/company/northwind-${COMPANY_ID}/`, 'urn:li:fsd_profile:', `${HOST}/in/`) },
)

const COMPANIES = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(COMPANY_ID, `northwind-${COMPANY_ID}`, companyUrn(COMPANY_ID), `${HOST}/company/northwind-${COMPANY_ID}/`, `${HOST}/school/northwind-${COMPANY_ID}`, `urn:li:fsd_organizationalPage:${COMPANY_ID}`, 'NORTHWIND-1035') },
  { weight: 2, arbitrary: fc.constantFrom('ghost-co', '999999', companyUrn('424242'), `${HOST}/company/ghost/`) },
  { weight: 1, arbitrary: fc.constantFrom(`${HOST}/in/member-1`, profileUrn(AUTHOR_ID), 'urn:li:company:', `${HOST}/company/`) },
)

const missingPost = PERSON_POST_ID.slice(0, -1) + (PERSON_POST_ID.endsWith('9') ? '8' : '9')
const POSTS = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom(activityUrn(PERSON_POST_ID), PERSON_POST_ID, activityUrn(COMPANY_POST_ID), `${HOST}/feed/update/${activityUrn(PERSON_POST_ID)}/`, `${HOST}/posts/member-1_post-activity-${PERSON_POST_ID}-abcd`),
  },
  { weight: 2, arbitrary: fc.constantFrom(activityUrn(missingPost), `urn:li:ugcPost:${missingPost}`, `urn:li:share:${missingPost}`) },
  { weight: 1, arbitrary: fc.constantFrom('urn:li:activity:', 'urn:li:activity:abc', `${HOST}/feed/update/`, PERSON_POST_ID.slice(1)) },
)

const WORDS = fc.constantFrom('shipping', 'data', 'index', 'quarterly', 'analytics', 'Northwind', 'post', 'engineer', 'Leeds', 'café', '東京', 'C#', 'R&D', "O'Neil", 'don\u2019t')
const TERM = fc.oneof({ weight: 6, arbitrary: WORDS }, { weight: 2, arbitrary: fc.tuple(WORDS, WORDS).map(([a, b]) => `"${a} ${b}"`) }, { weight: 1, arbitrary: fc.constantFrom('#logistics', '#hiring', '#AI') })
const OPERATOR = fc.constantFrom(' ', ' AND ', ' OR ', ' NOT ', ' and ', ' or ', ' & ')
/** Well-formed queries of the search grammar: terms and phrases joined by operators, some in parentheses. */
const WELL_FORMED = fc.letrec<{ query: string }>((tie) => ({
  query: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    TERM,
    fc.tuple(tie('query'), OPERATOR, TERM).map(([a, op, b]) => `${a}${op}${b}`),
    tie('query').map((q) => `(${q})`),
  ),
})).query
/** Queries as people mistype them: parentheses, quotes and operators anywhere. */
const JOINS = fc.constantFrom(' ', ' ', ' AND ', ' OR ', ' NOT ', ' and ', ' or ', ' (', ') ', ' & ', ' “', '” ', "'")
const MISTYPED = fc.array(fc.tuple(TERM, JOINS), { minLength: 1, maxLength: 8 }).map((parts) => parts.map(([t, j]) => t + j).join('').trim())
const SEARCH_QUERY = fc.oneof({ weight: 4, arbitrary: WELL_FORMED }, { weight: 1, arbitrary: MISTYPED })

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** Days and instants at the ends of what dates can hold, and written in forms a date parser may half-accept. */
const EXTREME_DAYS = fc.constantFrom('0000-01-01', '1970-01-01', '9999-12-31', '+275760-09-13', '2026-02-29', '2026-13-01', '2026-1-1', '20261101', '2026-11-02T00:00:00Z', ' 2026-11-01')
const EXTREME_INSTANTS = fc.constantFrom<unknown>(
  0,
  -1,
  253_402_300_799_999,
  8.64e15,
  '1970-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '+275760-09-13T00:00:00.000Z',
  '-000001-01-01T00:00:00Z',
  '2026-11-02T09:00:00+14:00',
  '2026-11-02',
  '1e12',
  '1762074000000',
  'now',
)

/** Real values by field name, around the test clock's `now`. */
export function hintsFor(issued: Issued, now: number): Hints {
  const pick = (values: string[], fallback: string) => fc.constantFrom(...(values.length > 0 ? values : [fallback]))
  const pageToken = fc.oneof({ weight: 4, arbitrary: pick(issued.pageTokens, 'token') }, { weight: 1, arbitrary: fc.base64String({ minLength: 4, maxLength: 60 }) })
  const instant = fc.integer({ min: now - 400 * DAY, max: now + 2 * DAY })
  return {
    profileUrlOrUrn: PROFILES,
    companyUrlOrUrn: COMPANIES,
    postUrlOrUrn: POSTS,
    profileUrlsOrUrns: fc.oneof(
      { weight: 6, arbitrary: fc.array(PROFILES, { minLength: 1, maxLength: 20 }).map((p) => p.join(',')) },
      { weight: 1, arbitrary: fc.array(PROFILES, { minLength: 55, maxLength: 65 }).map((p) => p.join(',')) },
      { weight: 1, arbitrary: fc.constantFrom(',', 'member-1,,member-2', ' member-1 , member-2 ', 'member-1,') },
    ),
    start: fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 30 }) }),
    commentStart: fc.integer({ min: 0, max: 3 }),
    reactionStart: fc.integer({ min: 0, max: 3 }),
    paginationToken: pageToken,
    commentPaginationToken: fc.oneof(pick(issued.commentTokens, 'token'), pageToken),
    cursor: fc.oneof({ weight: 4, arbitrary: pick(issued.searchCursors, 'cursor') }, { weight: 1, arbitrary: fc.base64String({ maxLength: 80 }) }),
    from: fc.oneof({ weight: 6, arbitrary: fc.integer({ min: now - 400 * DAY, max: now + 5 * DAY }).map(day) }, { weight: 1, arbitrary: EXTREME_DAYS }),
    to: fc.oneof({ weight: 6, arbitrary: fc.integer({ min: now - 60 * DAY, max: now + 5 * DAY }).map(day) }, { weight: 1, arbitrary: EXTREME_DAYS }),
    query: SEARCH_QUERY,
    authorJobTitle: fc.constantFrom('Data engineer', 'engineer', 'Head of "data"', 'x'),
    'authorProfiles[]': fc.oneof({ weight: 6, arbitrary: fc.constantFrom(AUTHOR_ID, READER_ID, `${HOST}/in/${AUTHOR_ID}`, profileUrn(AUTHOR_ID)) }, { weight: 1, arbitrary: fc.constant('member-1') }),
    'authorCompanies[]': fc.oneof({ weight: 6, arbitrary: fc.constantFrom(COMPANY_ID, companyUrn(COMPANY_ID), `${HOST}/company/${COMPANY_ID}/`) }, { weight: 1, arbitrary: fc.constant(`northwind-${COMPANY_ID}`) }),
    'mentionsCompanies[]': fc.constantFrom(COMPANY_ID, `urn:li:fsd_organizationalPage:${COMPANY_ID}`, '77'),
    postedAfter: fc.oneof({ weight: 3, arbitrary: instant }, { weight: 3, arbitrary: instant.map((ms) => new Date(ms).toISOString()) }, { weight: 1, arbitrary: EXTREME_INSTANTS }),
    'companies[]': COMPANIES,
    // The schema takes any text for these (the service names the valid ones in its refusal): mostly valid names.
    'events[]': fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...WEBHOOK_EVENTS) }, { weight: 1, arbitrary: fc.constantFrom('order.refunded', '') }),
    'endpoints[]': fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...KEY_ENDPOINTS) }, { weight: 1, arbitrary: fc.constantFrom('profiles', '/api/v1/profile') }),
    renewalDate: fc.oneof(fc.integer({ min: now - 10 * DAY, max: now + 400 * DAY }).map((ms) => new Date(ms).toISOString()), fc.constantFrom('2027-01-01', '2026-02-30T00:00:00Z', 'tomorrow'), EXTREME_INSTANTS),
    purchasedAt: fc.oneof(instant, instant.map((ms) => new Date(ms).toISOString()), EXTREME_INSTANTS),
    credits: fc.oneof(fc.integer({ min: 1, max: 2_000 }), fc.constantFrom(50_000, 1_000_000, 50_000_000)),
    // Webhook addresses: names that resolve nowhere (.invalid), so a test delivery never leaves the machine.
    url: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('https://hooks.example.invalid/pronet', 'https://a.example.invalid/h?x=1') },
      { weight: 1, arbitrary: fc.constantFrom('http://hooks.example.invalid/', 'https://127.0.0.1/', 'ftp://x.invalid/', 'nope') },
    ),
  }
}

/** Accounts, keys and orders the admin calls may change: never the accounts whose credits the suite counts. */
export interface AdminTargets {
  /** Accounts only read (the counted ones included). */
  readable: string[]
  /** Accounts the admin calls may suspend, re-plan, give packs and keys. */
  changeable: string[]
  /** Ids of the changeable accounts' keys. */
  keyIds: string[]
  orderIds: string[]
  /** Ids of the changeable accounts' webhook endpoints. */
  webhookIds: string[]
}

export function pathValues(targets: AdminTargets): (op: Operation, name: string) => fc.Arbitrary<string> {
  const garbage = fc.oneof(oddText, fc.constantFrom('acc_x', 'ord_x', 'key_x', 'x'.repeat(150), '..', '.', '%'))
  const pool = (values: string[]) => fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...values) }, { weight: 1, arbitrary: garbage })
  return (op, name) => {
    if (op.path.startsWith('/admin/v1/orders/')) return pool(targets.orderIds)
    if (name === 'keyId') return pool(targets.keyIds)
    if (name === 'whId') return pool(targets.webhookIds)
    return pool(op.method === 'GET' ? [...targets.readable, ...targets.changeable] : targets.changeable)
  }
}
