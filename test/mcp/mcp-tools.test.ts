/**
 * The MCP server through the SDK's own client, in memory, against a running pronet: the tools it
 * lists, calls that reach the API and say what they charged (checked against the account's balance),
 * the default view and `fields`, and the session's credit budget refusing a call before it is sent.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { createServer, type AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PronetClient } from '../../packages/client/src/index.ts'
import { CONTRACT } from '../../packages/mcp/src/contract.generated.ts'
import { DEFAULT_TEXT_LIMIT } from '../../packages/mcp/src/field-trim.ts'
import { createPronetMcpServer } from '../../packages/mcp/src/server.ts'
import { activityUrn, PERSON_POST_ID } from '../helpers/ingest-fixtures.ts'
import { callTool, COMPANY_SLUG, connectInMemory, creditsRemaining, LONG_ABOUT, startPronet, type RunningPronet } from './mcp-fixtures.ts'

const DATA_TOOLS = [
  'get_profile',
  'get_profile_reactions',
  'get_profile_articles',
  'get_posts',
  'get_posts_updates',
  'get_company',
  'get_company_batch',
  'get_company_posts',
  'get_post_engagement',
  'get_post_comments',
  'get_post_reactions',
  'search_posts',
]

let p: RunningPronet
beforeAll(async () => {
  p = await startPronet()
})
afterAll(async () => p.close())

describe('tools/list', () => {
  let tools: Tool[]
  beforeAll(async () => {
    const s = await connectInMemory(p, 100)
    tools = (await s.client.listTools()).tools
    await s.close()
  })

  it('lists one tool per data call, and the free balance and usage tools', () => {
    expect(tools.map((t) => t.name).sort()).toEqual([...DATA_TOOLS, 'get_balance', 'get_usage'].sort())
  })

  it('states each data tool\'s price and default view in its description', () => {
    const byName = new Map(tools.map((t) => [t.name, t]))
    for (const name of DATA_TOOLS) {
      const d = byName.get(name)?.description ?? ''
      expect(d, name).toMatch(/Cost: \d+ credits? per/)
      expect(d, name).toContain('`fields`')
      expect(d, name).toContain('["*"]')
    }
    expect(byName.get('get_post_engagement')?.description).toContain('Cost: 2 credits per call')
    // Tiers only for counts the call accepts: posts stop at 50, company posts are served at 100 at most.
    expect(byName.get('get_posts')?.description).toContain('Cost: 1 credit per call (`count` 1-50); a record that does not exist: 1 credit.')
    expect(byName.get('get_profile_reactions')?.description).toContain('Cost: 1 credit per call (`count` 1-50);')
    expect(byName.get('get_posts')?.description).not.toContain('51-100')
    expect(byName.get('get_company_posts')?.description).toContain(
      'Cost: 1 credit per started block of 50 of `count` (count 1-50: 1 credit, 51-100: 2 credits; a larger count is served as 100);',
    )
    expect(byName.get('get_profile_articles')?.description).toContain('51-100: 2 credits; a larger count is served as 100)')
    expect(byName.get('get_company_batch')?.description).toContain('1 credit per company found')
    expect(byName.get('get_balance')?.description).toContain('free (0 credits)')
    expect(byName.get('get_profile')?.description).toContain(`texts over ${DEFAULT_TEXT_LIMIT} characters are cut`)
  })

  it('takes each tool\'s input schema from the contract, plus fields', () => {
    const byName = new Map(tools.map((t) => [t.name, t]))
    const posts = byName.get('get_posts')?.inputSchema as { properties: Record<string, Record<string, unknown>>; required: string[] }
    const contractCount = CONTRACT.getPosts.query.find((q) => q.name === 'count')
    expect(posts.properties.count).toEqual({ ...contractCount?.schema, description: contractCount?.description })
    expect(posts.properties.count?.maximum).toBe(50)
    expect(posts.required).toEqual(['profileUrlOrUrn'])
    expect(Object.keys(posts.properties).sort()).toEqual([...CONTRACT.getPosts.query.map((q) => q.name), 'fields'].sort())
    // A POST call's tool takes its body's fields.
    const search = byName.get('search_posts')?.inputSchema as { properties: Record<string, unknown>; additionalProperties?: unknown }
    expect(Object.keys(search.properties).sort()).toEqual([...Object.keys(CONTRACT.searchPosts.body?.properties as object), 'fields'].sort())
    // A misspelt argument is refused rather than silently dropped.
    expect(search.additionalProperties).toBe(false)
    const batch = byName.get('get_company_batch')?.inputSchema as { required: string[] }
    expect(batch.required).toEqual(['companies'])
    for (const t of tools) expect(t.annotations?.readOnlyHint, t.name).toBe(true)
  })
})

describe('tools/call against a running pronet', () => {
  it('get_profile: charged 1 credit, as the account\'s balance shows, with a default view that keeps a profile short', async () => {
    const s = await connectInMemory(p, 100)
    const before = await creditsRemaining(p)
    const r = await callTool(s.client, 'get_profile', { profileUrlOrUrn: 'long-about' })
    expect(r.isError, r.note).toBe(false)
    expect(r.meta['pronet/creditsCharged']).toBe(1)
    expect(r.meta['pronet/sessionCreditsSpent']).toBe(1)
    expect(r.note).toMatch(/^1 credit charged; 1 of this session's 100 credits spent\. Request id: \S+\./)
    expect(await creditsRemaining(p)).toBe(before - 1)
    const profile = r.data as Record<string, unknown>
    expect(profile.firstName).toBe(LONG_ABOUT.firstName)
    // Sections the default view leaves out are named, so the agent knows to ask for them.
    expect(profile).not.toHaveProperty('certifications')
    expect(profile).not.toHaveProperty('profilePictureUrl')
    expect(r.note).toContain('Left out: ')
    expect(r.note).toContain('certifications')
    // Nested records keep only the view's fields.
    expect(profile.skills).toEqual(LONG_ABOUT.skills.map((k) => ({ name: k.name })))
    expect(profile.experiences).toEqual([{ name: 'Northwind Analytics', jobTitle: 'Data engineer', dateRange: 'Jan 2021 - Present', current: true }])
    // The long About is cut, and says by how much.
    const about = profile.description as string
    expect(about.startsWith(LONG_ABOUT.description.slice(0, DEFAULT_TEXT_LIMIT))).toBe(true)
    expect(about).toContain(`[${LONG_ABOUT.description.length - DEFAULT_TEXT_LIMIT} more characters]`)
    expect(r.note).toContain(`1 text was cut at ${DEFAULT_TEXT_LIMIT} characters`)
    expect(JSON.stringify(profile).length).toBeLessThan(2_000)
    await s.close()
  })

  it('get_profile with fields: exactly those fields, whole, and the paths that matched nothing named', async () => {
    const s = await connectInMemory(p, 100)
    const r = await callTool(s.client, 'get_profile', { profileUrlOrUrn: 'long-about', fields: ['firstName', 'description', 'skills.endorsementCount', 'noSuchField'] })
    expect(r.isError, r.note).toBe(false)
    expect(r.data).toEqual({
      firstName: LONG_ABOUT.firstName,
      description: LONG_ABOUT.description,
      skills: LONG_ABOUT.skills.map((k) => ({ endorsementCount: k.endorsementCount })),
    })
    expect(r.note).toContain('Not found in this answer: noSuchField.')
    expect(r.note).not.toContain('Default view')
    const whole = await callTool(s.client, 'get_profile', { profileUrlOrUrn: 'long-about', fields: ['*'] })
    expect(Object.keys(whole.data as object)).toContain('certifications')
    expect((whole.data as { description: string }).description).toBe(LONG_ABOUT.description)
    await s.close()
  })

  it('get_posts and get_post_engagement: each result says what it charged; the session adds them up', async () => {
    const s = await connectInMemory(p, 100)
    const before = await creditsRemaining(p)
    const posts = await callTool(s.client, 'get_posts', { profileUrlOrUrn: 'member-1', count: 5 })
    expect(posts.isError, posts.note).toBe(false)
    expect(posts.meta['pronet/creditsCharged']).toBe(1)
    const list = (posts.data as { posts: Record<string, unknown>[] }).posts
    expect(list.map((x) => x.id)).toContain(activityUrn(PERSON_POST_ID))
    expect(Object.keys(list[0] ?? {})).not.toContain('permissions')
    const engagement = await callTool(s.client, 'get_post_engagement', { postUrlOrUrn: activityUrn(PERSON_POST_ID), fields: ['comments.text', 'reactions.reactionType'] })
    expect(engagement.isError, engagement.note).toBe(false)
    expect(engagement.meta['pronet/creditsCharged']).toBe(2)
    expect(engagement.note).toMatch(/^2 credits charged; 3 of this session's 100 credits spent/)
    expect((engagement.data as { reactions: unknown[] }).reactions).toContainEqual({ reactionType: 'PRAISE' })
    const company = await callTool(s.client, 'get_company', { companyUrlOrUrn: COMPANY_SLUG, fields: ['name', 'employeeCount'] })
    expect(company.data).toEqual({ name: 'Northwind Analytics', employeeCount: expect.any(Number) })
    expect(company.meta['pronet/sessionCreditsSpent']).toBe(4)
    expect(await creditsRemaining(p)).toBe(before - 4)
    await s.close()
  })

  it('an API error is a tool error with its code, and a missing record\'s credit counts', async () => {
    const s = await connectInMemory(p, 100)
    const r = await callTool(s.client, 'get_profile', { profileUrlOrUrn: 'no-such-member' })
    expect(r.isError).toBe(true)
    expect(r.note).toMatch(/^PROFILE_NOT_FOUND \(404\): /)
    expect(r.note).toContain('1 credit charged; 1 of this session\'s 100 credits spent')
    expect(r.meta['pronet/creditsCharged']).toBe(1)
    await s.close()
  })

  it('arguments outside the contract are refused before any call, free', async () => {
    const s = await connectInMemory(p, 100)
    const before = await creditsRemaining(p)
    const r = await callTool(s.client, 'get_posts', { profileUrlOrUrn: 'member-1', count: 51 })
    expect(r.isError).toBe(true)
    expect(r.note).toMatch(/^Invalid arguments for get_posts: .*count.*50/)
    const typo = await callTool(s.client, 'get_company', { companyUrl: COMPANY_SLUG })
    expect(typo.isError).toBe(true)
    expect(typo.note).toBe('Invalid arguments for get_company: it takes no companyUrl; it takes companyUrlOrUrn, fields. Nothing was called.')
    expect(await creditsRemaining(p)).toBe(before)
    await s.close()
  })

  it('get_balance and get_usage are free and whole', async () => {
    const s = await connectInMemory(p, 0)
    const remaining = await creditsRemaining(p)
    p.t.clock.advance(1_000)
    const balance = await callTool(s.client, 'get_balance')
    expect(balance.isError, balance.note).toBe(false)
    expect(balance.meta['pronet/creditsCharged']).toBe(0)
    expect(balance.data).toMatchObject({ plan: 'custom', creditsRemaining: remaining })
    const usage = await callTool(s.client, 'get_usage', { from: '2025-06-01', to: '2025-06-01' })
    expect(usage.isError, usage.note).toBe(false)
    expect(usage.data).toHaveProperty('endpoints')
    await s.close()
  })
})

describe('the session credit budget', () => {
  it('refuses a call whose price would pass the budget, before sending it, and still serves what fits', async () => {
    const s = await connectInMemory(p, 3)
    const before = await creditsRemaining(p)
    expect((await callTool(s.client, 'get_company', { companyUrlOrUrn: COMPANY_SLUG })).meta['pronet/creditsCharged']).toBe(1)
    // A feed of 100 posts may cost 2: with 2 of 3 left it fits, and spends the budget whole.
    const feed = await callTool(s.client, 'get_company_posts', { companyUrlOrUrn: COMPANY_SLUG, count: 100 })
    expect(feed.isError, feed.note).toBe(false)
    expect(feed.meta['pronet/creditsCharged']).toBe(2)
    expect(feed.note).toContain('3 of this session\'s 3 credits spent')
    const refused = await callTool(s.client, 'get_profile', { profileUrlOrUrn: 'member-1' })
    expect(refused.isError).toBe(true)
    expect(refused.note).toContain('Refused by this session\'s credit budget: get_profile may cost 1 credit with these arguments, and 3 of the budget\'s 3 credits are spent')
    expect(refused.note).toContain('PRONET_MCP_MAX_CREDITS')
    expect(refused.meta['pronet/creditsCharged']).toBe(0)
    // Nothing reached the API: the account paid for the two calls that fitted, no more.
    expect(await creditsRemaining(p)).toBe(before - 3)
    // The free tools still answer.
    p.t.clock.advance(1_000)
    expect((await callTool(s.client, 'get_balance')).isError).toBe(false)
    await s.close()
  })

  it('prices a call by its arguments: a larger count is refused where a smaller one fits', async () => {
    const s = await connectInMemory(p, 1)
    const before = await creditsRemaining(p)
    const big = await callTool(s.client, 'get_posts', { profileUrlOrUrn: 'member-1', count: 50 })
    expect(big.isError, big.note).toBe(false)
    const s2 = await connectInMemory(p, 1)
    const batch = await callTool(s2.client, 'get_company_batch', { companies: [COMPANY_SLUG, 'no-such-page'] })
    expect(batch.isError).toBe(true)
    expect(batch.note).toContain('get_company_batch may cost 2 credits')
    // One entry, named twice in two cases, is one credit: it fits.
    const one = await callTool(s2.client, 'get_company_batch', { companies: [COMPANY_SLUG, COMPANY_SLUG.toUpperCase()] })
    expect(one.isError, one.note).toBe(false)
    expect(one.meta['pronet/creditsCharged']).toBe(1)
    expect(await creditsRemaining(p)).toBe(before - 2)
    await s.close()
    await s2.close()
  })

  it('counts a call whose answer never came at its full price, as it may have been billed', async () => {
    // A port that was just let go: nothing listens there, so the call gets no answer.
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const port = (probe.address() as AddressInfo).port
    await new Promise((resolve) => probe.close(resolve))
    const unreachable = new PronetClient({ apiKey: p.t.key, baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 })
    const mcp = createPronetMcpServer({ client: unreachable, maxCredits: 3 })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await mcp.server.connect(serverSide)
    const client = new Client({ name: 'mcp-test', version: '1.0.0' })
    await client.connect(clientSide)
    const lost = await callTool(client, 'get_post_engagement', { postUrlOrUrn: activityUrn(PERSON_POST_ID) })
    expect(lost.isError).toBe(true)
    expect(lost.note).toMatch(/^No answer from the API \(.+\)\. The call may have been billed before its answer was lost, so 2 credits count/)
    expect(mcp.budget.state()).toEqual({ spent: 2, reserved: 0, limit: 3 })
    expect((await callTool(client, 'get_post_engagement', { postUrlOrUrn: activityUrn(PERSON_POST_ID) })).note).toContain('Refused by this session\'s credit budget')
    await client.close()
  })

  it('with no budget, calls are counted and never refused', async () => {
    const s = await connectInMemory(p, null)
    const r = await callTool(s.client, 'get_company', { companyUrlOrUrn: COMPANY_SLUG })
    expect(r.note).toContain('1 credit spent this session (no session budget)')
    await s.close()
  })
})
