/**
 * The tools: one per call of the data API, plus the free account calls. Each names its operation in
 * the contract table (its input schema comes from there), its price, and the fields of its default
 * view, which keeps a large record to what an agent usually needs.
 */
import { CONTRACT, type OperationId } from './contract.generated.ts'
import type { JsonSchema } from './contract-types.ts'
import { DEFAULT_TEXT_LIMIT } from './field-trim.ts'
import { priceText, type Price } from './prices.ts'

export interface ToolSpec {
  name: string
  title: string
  operationId: OperationId
  price: Price
  /** The default view's fields; null: the whole answer (small answers). */
  defaultFields: readonly string[] | null
  /** A hint beyond the contract's summary: how to page, what to pass. */
  hint?: string
  /** A path the description gives as an example of `fields` (default: the view's first dotted one). */
  fieldsExample?: string
}

const under = (prefix: string, fields: readonly string[]) => fields.map((f) => `${prefix}.${f}`)

const POST = ['id', 'date', 'content', 'postType', 'reactionCount', 'commentCount', 'sharesCount', 'shareUrl', 'authorType', 'profile.name', 'profile.url', 'resharedPostUrn']
const COMPANY = [
  'id', 'companyId', 'name', 'publicIdentifier', 'url', 'websiteUrl', 'industry', 'employeeCount', 'employeeCountRange',
  'headquarter.city', 'headquarter.geographicArea', 'headquarter.country', 'followerCount', 'description', 'specialities', 'companyType',
]
const COMMENT = ['urn', 'text', 'createdAt', 'reactionCount', 'pinned', 'author.name', 'author.headline', 'author.profileUrl']
const REPLY = ['urn', 'text', 'createdAt', 'reactionCount', 'author.name', 'author.profileUrl']
const REACTION = ['reactionType', 'actor.name', 'actor.headline', 'actor.profileUrl']
const PROFILE = [
  'id', 'publicIdentifier', 'url', 'firstName', 'lastName', 'title', 'description', 'location', 'jobTitle', 'companyName',
  'currentPosition.title', 'currentPosition.name', 'currentPosition.url', 'currentSchool.name', 'followerCount', 'connectionsCount',
  'openToWork', 'hiring', 'industry',
  'experiences.jobTitle', 'experiences.name', 'experiences.dateRange', 'experiences.current',
  'educations.name', 'educations.dateRange', 'skills.name', 'languages.name',
]

const flat = (credits: number, notFound = 1): Price => ({ rule: { kind: 'flat', credits }, notFound })
const perBlock = (clampedAt?: number): Price => ({ rule: { kind: 'perBlock', credits: 1, block: 50, ...(clampedAt ? { clampedAt } : {}) }, notFound: 1 })
const TOKEN_PAGING = 'While hasMore is true, pass the answer\'s paginationToken back for the next page.'

export const TOOLS: readonly ToolSpec[] = [
  { name: 'get_profile', title: 'Member profile', operationId: 'getProfile', price: flat(1), defaultFields: PROFILE, fieldsExample: 'experiences.description' },
  {
    name: 'get_profile_reactions', title: 'Posts a member reacted to', operationId: 'getProfileReactions', price: perBlock(),
    defaultFields: ['reactions.reactionType', ...under('reactions.post', ['id', 'date', 'content', 'reactionCount', 'commentCount', 'shareUrl', 'profile.name', 'profile.url']), 'paginationToken', 'hasMore'],
    hint: TOKEN_PAGING,
  },
  {
    name: 'get_profile_articles', title: 'Articles of a member', operationId: 'getProfileArticles', price: perBlock(100),
    defaultFields: [...under('articles', ['articleUrn', 'title', 'url', 'publishedAt', 'description', 'readTimeMinutes']), 'hasMore', 'nextStart'],
    hint: 'Pass nextStart as start for the next page.',
  },
  {
    name: 'get_posts', title: 'Posts of a member or page', operationId: 'getPosts', price: perBlock(),
    defaultFields: [...under('posts', POST), 'paginationToken', 'hasMore', 'pageSize'],
    hint: `${TOKEN_PAGING} A page may hold fewer posts than count.`,
  },
  {
    name: 'get_posts_updates', title: 'Recent posts of several members', operationId: 'getPostsUpdates',
    price: { rule: { kind: 'perGroup', credits: 1, group: 15 }, notFound: 0 },
    defaultFields: under('posts', ['id', 'date', 'content', 'reactionCount', 'commentCount', 'profile.name', 'profile.url']),
  },
  { name: 'get_company', title: 'Company page', operationId: 'getCompany', price: flat(1), defaultFields: COMPANY },
  {
    name: 'get_company_batch', title: 'Several company pages', operationId: 'getCompanyBatch',
    price: { rule: { kind: 'perFound', credits: 1 }, notFound: 0 },
    defaultFields: ['results.input', ...under('results.company', COMPANY), 'results.error', 'found', 'notFound', 'failed'],
  },
  {
    name: 'get_company_posts', title: 'Posts of a company page', operationId: 'getCompanyPosts', price: perBlock(100),
    defaultFields: [...under('posts', POST), 'paginationToken', 'hasMore', 'pageSize'],
    hint: TOKEN_PAGING,
  },
  {
    name: 'get_post_engagement', title: 'Comments and reactions of a post', operationId: 'getPostEngagement', price: flat(2),
    defaultFields: ['post', ...under('comments', COMMENT), ...under('comments.replies', REPLY), 'commentsPaginationToken', 'commentsHasMore', ...under('reactions', REACTION), 'reactionsHasMore'],
  },
  {
    name: 'get_post_comments', title: 'Comments of a post', operationId: 'getPostComments', price: flat(1),
    defaultFields: [...under('comments', COMMENT), ...under('comments.replies', REPLY), 'paginationToken', 'hasMore'],
    hint: TOKEN_PAGING,
  },
  {
    name: 'get_post_reactions', title: 'Reactions to a post', operationId: 'getPostReactions', price: flat(1),
    defaultFields: [...under('reactions', REACTION), 'hasMore'],
    hint: 'Pass a larger start for the next page.',
  },
  {
    name: 'search_posts', title: 'Search posts', operationId: 'searchPosts', price: flat(1, 0),
    defaultFields: ['query', 'sort', ...under('results', POST), 'cursor', 'partial'],
    hint: 'Send query, or authorProfiles / authorCompanies. Pass the answer\'s cursor back, with the same search, for the next page.',
  },
  { name: 'get_balance', title: 'Plan and credit balance', operationId: 'getSubscription', price: { rule: { kind: 'free' }, notFound: 0 }, defaultFields: null },
  {
    name: 'get_usage', title: 'Credit usage', operationId: 'getUsage', price: { rule: { kind: 'free' }, notFound: 0 }, defaultFields: null,
    hint: 'Counts the account\'s calls from every client, not only this session\'s.',
  },
]

const FIELDS_INPUT: JsonSchema = {
  type: 'array',
  items: { type: 'string', minLength: 1 },
  description:
    'Fields of the answer to return: top-level names or dotted paths, which go through lists ("posts.content" is the content of every post). ["*"] returns the whole answer. Omitted: the default view (see the tool description).',
}

/** The tool's input: the call's query parameters or body fields, as the contract states them, and `fields`. */
export function inputSchemaOf(spec: ToolSpec): JsonSchema & { type: 'object' } {
  const op = CONTRACT[spec.operationId]
  const properties: Record<string, unknown> = {}
  const required: string[] = []
  if (op.body) {
    Object.assign(properties, structuredClone((op.body.properties ?? {}) as Record<string, unknown>))
    required.push(...((op.body.required ?? []) as string[]))
  }
  for (const p of op.query) {
    properties[p.name] = { ...structuredClone(p.schema), ...(p.description ? { description: p.description } : {}) }
    if (p.required) required.push(p.name)
  }
  properties.fields = FIELDS_INPUT
  return {
    type: 'object',
    ...(typeof op.body?.description === 'string' ? { description: op.body.description } : {}),
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  }
}

/** The tool's description: what the call gives, what it costs, and how its answer is trimmed. */
export function descriptionOf(spec: ToolSpec): string {
  const op = CONTRACT[spec.operationId]
  const view =
    spec.defaultFields === null
      ? 'Answer: the whole answer unless `fields` names some of it.'
      : `Answer, by default: ${compact(spec.defaultFields)}; texts over ${DEFAULT_TEXT_LIMIT} characters are cut. Pass \`fields\` to choose (dotted paths, such as "${spec.fieldsExample ?? spec.defaultFields.find((f) => f.includes('.'))}"), or ["*"] for the whole answer; fields named are never cut.`
  const countMax = op.query.find((p) => p.name === 'count')?.schema.maximum
  return [`${op.summary}.`, spec.hint, `Cost: ${priceText(spec.price, typeof countMax === 'number' ? countMax : undefined)}.`, view].filter(Boolean).join(' ')
}

/** Paths written as a tree, "posts{id, content, profile{name}}, hasMore", to keep descriptions short. */
export function compact(paths: readonly string[]): string {
  type Node = Map<string, Node>
  const root: Node = new Map()
  for (const path of paths) {
    let node = root
    for (const part of path.split('.')) {
      const next = node.get(part) ?? new Map()
      node.set(part, next)
      node = next
    }
  }
  const render = (node: Node): string => [...node].map(([k, sub]) => (sub.size === 0 ? k : `${k}{${render(sub)}}`)).join(', ')
  return render(root)
}

/** The contract's default page size of a call, which prices a feed called without `count`. */
export function countDefault(spec: ToolSpec): number | undefined {
  const count = CONTRACT[spec.operationId].query.find((p) => p.name === 'count')
  return typeof count?.schema.default === 'number' ? count.schema.default : undefined
}
