/**
 * The data operations as /openapi.json describes them to their callers: what each does, and an
 * example call with its answer. Each call's price and rate cost are added where the route is
 * registered, from the price table in force (data.routes.ts).
 */
import * as answers from '../examples/data.examples.ts'
import type { OperationDoc } from './operation-doc.ts'

const MEMBER = 'hui-min-lee-175acd'
const POST = 'urn:li:activity:7518843934460983324'
const NAMING_A_MEMBER =
  'Name the member by profile URN (`urn:li:fsd_profile:ACoAA…`, the stable form, recommended), profile id, public slug or profile URL.'
const TOKEN_PAGING = 'Pages by token: pass the answer’s `paginationToken` back while `hasMore` is true; a `start` other than 0 is refused.'

export const DATA_DOCS = {
  getProfile: {
    description: [
      'One member’s profile with every section: experiences, educations, skills, languages, certifications, recommendations, publications, projects and more.',
      `${NAMING_A_MEMBER} A company page is welcome too: the organisation comes back in profile form (its name in \`firstName\`, its tagline in \`title\`, no experiences or educations).`,
      'A missing record is a 404 `PROFILE_NOT_FOUND`, whatever the input named. `fullProfile` is accepted and changes nothing.',
    ].join('\n\n'),
    request: { query: { profileUrlOrUrn: MEMBER } },
    response: { status: 200, body: answers.getProfile },
    errors: { PROFILE_NOT_FOUND: { error: 'No profile or company page exists for this input.', code: 'PROFILE_NOT_FOUND' } },
  },
  getProfileReactions: {
    description: [
      'The posts a member reacted to, newest reaction first: each reaction’s type with a trimmed copy of the post.',
      `${NAMING_A_MEMBER} ${TOKEN_PAGING} A company page is refused (400).`,
    ].join('\n\n'),
    request: { query: { profileUrlOrUrn: MEMBER, count: 1 } },
    response: { status: 200, body: answers.getProfileReactions },
  },
  getProfileArticles: {
    description: [
      'The articles a member published, newest first.',
      `${NAMING_A_MEMBER} Pages by offset: \`nextStart\` is the \`start\` of the next page, present while \`hasMore\` is true; the walk ends on an empty page. A \`count\` above 100 is served as 100, and a \`start\` above 100,000 as 100,000. A company page is refused (400).`,
    ].join('\n\n'),
    request: { query: { profileUrlOrUrn: MEMBER, count: 1 } },
    response: { status: 200, body: answers.getProfileArticles },
  },
  getPosts: {
    description: [
      'A member’s posts, newest first. A company page, or a member URN (`urn:li:member:…`), is welcome too.',
      `${TOKEN_PAGING} A page can hold fewer posts than \`count\`, even none while \`hasMore\` is true: reposts without commentary take their places in the feed but are left out, so go on while \`hasMore\` is true.`,
      'A missing member or page is a 404 `COMPANY_NOT_FOUND`.',
    ].join('\n\n'),
    request: { query: { profileUrlOrUrn: MEMBER, count: 2 } },
    response: { status: 200, body: answers.getPosts },
    errors: { COMPANY_NOT_FOUND: { error: 'No profile or company page exists for this input.', code: 'COMPANY_NOT_FOUND' } },
  },
  getPostsUpdates: {
    description: [
      'The newest posts of up to 60 members together, newest first, in the older, shorter post shape. `profileUrlsOrUrns` lists them comma-separated, in any of the forms a member is named by; `count` is the posts per member.',
      'Members that do not exist are passed over; when none of them exists, the answer is a 404 `PROFILE_NOT_FOUND`.',
    ].join('\n\n'),
    request: { query: { profileUrlsOrUrns: `${MEMBER},darlene-hegmann-mertz-d9830067`, count: 1 } },
    response: { status: 200, body: answers.getPostsUpdates },
  },
  getCompany: {
    description:
      'One company page (school and showcase pages too), named by its URL (`/company/`, `/school/` or `/showcase/`), its bare slug, or its URN (`urn:li:fsd_company:…`).',
    request: { query: { companyUrlOrUrn: 'hydragrid' } },
    response: { status: 200, body: answers.getCompany },
  },
  getCompanyBatch: {
    description: [
      'Up to 50 companies in one call, each named as `/api/v1/company` takes it.',
      'Answers 200 with one result per distinct input, in order: `{input, company}`, or `{input, error}` for an entry that was not found or was refused. `notFound` counts the entries whose error is a 404, `failed` the others. An input given more than once (without regard to case) is fetched and billed once.',
    ].join('\n\n'),
    request: { body: { companies: ['hydragrid', 'no-such-company'] } },
    response: { status: 200, body: answers.getCompanyBatch },
    errors: {
      MISSING_PARAMETER: { error: "Missing required parameter 'companies'.", code: 'MISSING_PARAMETER', details: { parameter: 'companies' } },
      INVALID_PARAMETER: { error: "'companies' is required: a non-empty array of 1 to 50 strings.", code: 'INVALID_PARAMETER', details: { parameter: 'companies' } },
    },
  },
  getCompanyPosts: {
    description: [
      'A company page’s posts, newest first, named as `/api/v1/company` takes it (`profileUrlOrUrn` is an alias of `companyUrlOrUrn`).',
      'Pages by token: pass `paginationToken` back while `hasMore` is true; the last page has none. A `count` above 100 is served as 100. Reposts without commentary are left out, so a page can be short while `hasMore` is true.',
    ].join('\n\n'),
    request: { query: { companyUrlOrUrn: 'hydragrid', count: 1 } },
    response: { status: 200, body: answers.getCompanyPosts },
  },
  getPostEngagement: {
    description: [
      'A post’s comments and reactions in one call, the post named by its URL, its activity, ugcPost or share URN, or its bare activity id.',
      'Comments page by token (`commentPaginationToken`, whose next value comes back as `commentsPaginationToken`) or by offset (`commentStart`); reactions page by offset (`reactionStart`).',
    ].join('\n\n'),
    request: { query: { postUrlOrUrn: POST, commentCount: 1, reactionCount: 2 } },
    response: { status: 200, body: answers.getPostEngagement },
  },
  getPostComments: {
    description: [
      'A post’s comments, pinned first, then the most reacted, each with its replies.',
      'Pages by token (`paginationToken`) or by offset (`start`); the token wins over the offset, and goes on after the last comment shown, so a comment whose reactions changed meanwhile cannot make a page skip another.',
    ].join('\n\n'),
    request: { query: { postUrlOrUrn: POST, count: 1, start: 3 } },
    response: { status: 200, body: answers.getPostComments },
  },
  getPostReactions: {
    description: 'Who reacted to a post, and how. Pages by offset (`start`). Reactions carry no date.',
    request: { query: { postUrlOrUrn: POST, count: 2 } },
    response: { status: 200, body: answers.getPostReactions },
  },
  searchPosts: {
    description: [
      'Finds posts by their words (`"phrases"`, `#hashtags`, `AND`, `OR`, `NOT` and parentheses) and by who wrote them, sorted by relevance or by date, and filtered by date, kind, the companies they mention and the author’s job title.',
      'Send `query`, or `authorProfiles` or `authorCompanies`; `null` reads as omitted. Page with the answer’s `cursor` until it is null. The query as it was understood comes back as `query`.',
    ].join('\n\n'),
    // What the reference page's "Try it out" starts from: a body that searches (one built from the
    // field types would send "string" as a profile id and be refused).
    request: { body: { query: 'hiring OR "data platform"', maxResults: 1 } },
    response: { status: 200, body: answers.searchPosts },
    errors: {
      MISSING_PARAMETER: { error: "Send 'query', or at least one of 'authorProfiles' / 'authorCompanies'.", code: 'MISSING_PARAMETER', details: { parameter: 'query' } },
      INVALID_PARAMETER: { error: "Invalid parameter 'query': 'AND' needs a term on both sides", code: 'INVALID_PARAMETER', details: { parameter: 'query' } },
      INVALID_URN: { error: "Invalid identifier in 'authorCompanies[0]': a company id is a decimal number.", code: 'INVALID_URN', details: { parameter: 'authorCompanies[0]' } },
    },
  },
} as const satisfies Record<string, OperationDoc>
