/**
 * A running pronet for the MCP suites: the real app on a real port (makeTestApp, listening), with the
 * fixture network and a long-winded member, a client of @pronet/client from its sources, and an MCP
 * client of the SDK connected to a server in-process.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { AddressInfo } from 'node:net'
import { expect } from 'vitest'
import { PronetClient } from '../../packages/client/src/index.ts'
import { createPronetMcpServer, type PronetMcp } from '../../packages/mcp/src/server.ts'
import { COMPANY_ID, FIXTURE_NOW, fixtureRecords, profileRecord } from '../helpers/ingest-fixtures.ts'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'

/** A member whose About runs long: the default view cuts it. */
export const LONG_ABOUT = profileRecord(3, { slug: 'long-about' })
LONG_ABOUT.description = 'Pipelines, warehouses and the people who run them. '.repeat(40).trim()
LONG_ABOUT.skills = Array.from({ length: 12 }, (_, i) => ({ name: `Skill ${i}`, endorsementCount: i }))

export const COMPANY_SLUG = `northwind-${COMPANY_ID}`

export interface RunningPronet {
  t: TestApp
  baseUrl: string
  client: PronetClient
  close(): Promise<void>
}

export async function startPronet(): Promise<RunningPronet> {
  const t = await makeTestApp({ nowMs: FIXTURE_NOW, records: [...fixtureRecords(), { kind: 'profile', data: LONG_ABOUT }] })
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  // No retries: a test that meets a failure sees it at once.
  const client = new PronetClient({ apiKey: t.key, baseUrl, maxRetries: 0 })
  return { t, baseUrl, client, close: () => t.close() }
}

/** An MCP server for the running pronet, with an SDK client connected to it in memory. */
export async function connectInMemory(p: RunningPronet, maxCredits: number | null): Promise<{ mcp: PronetMcp; client: Client; close(): Promise<void> }> {
  const mcp = createPronetMcpServer({ client: p.client, maxCredits })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await mcp.server.connect(serverSide)
  const client = new Client({ name: 'mcp-test', version: '1.0.0' })
  await client.connect(clientSide)
  return { mcp, client, close: () => client.close() }
}

export interface ToolOutcome {
  isError: boolean
  /** The first text block: what the call charged, and the notes. */
  note: string
  /** The second text block, parsed: the (trimmed) answer. */
  data: unknown
  meta: Record<string, unknown>
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  const texts = result.content.map((c) => {
    expect(c.type).toBe('text')
    return (c as { text: string }).text
  })
  return {
    isError: result.isError === true,
    note: texts[0] ?? '',
    data: texts[1] === undefined ? undefined : JSON.parse(texts[1]),
    meta: (result._meta ?? {}) as Record<string, unknown>,
  }
}

/**
 * The account's balance as the API reports it (free). The subscription endpoint answers an account
 * once a second: the test's manual clock is moved on a second first.
 */
export async function creditsRemaining(p: RunningPronet): Promise<number> {
  p.t.clock.advance(1_000)
  return (await p.client.getSubscription()).data.creditsRemaining
}
