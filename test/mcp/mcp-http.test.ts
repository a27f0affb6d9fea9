/**
 * The Streamable HTTP transport, through the SDK's StreamableHTTPClientTransport: tools listed and
 * called over HTTP against a running pronet, one budget per session, and requests the transport
 * refuses (no session, an unknown one, a Host that is not the loopback).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHttpTransport, type HttpTransportHandle } from '../../packages/mcp/src/http-transport.ts'
import { createPronetMcpServer, createToolset } from '../../packages/mcp/src/server.ts'
import { callTool, COMPANY_SLUG, creditsRemaining, startPronet, type RunningPronet } from './mcp-fixtures.ts'

let p: RunningPronet
let http: HttpTransportHandle
beforeAll(async () => {
  p = await startPronet()
  const toolset = createToolset()
  http = await startHttpTransport({ port: 0, host: '127.0.0.1', createSession: () => createPronetMcpServer({ client: p.client, maxCredits: 1, toolset }).server })
})
afterAll(async () => {
  await http?.close()
  await p?.close()
})

async function connect(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(http.url))
  const client = new Client({ name: 'mcp-http-test', version: '1.0.0' })
  await client.connect(transport)
  return { client, transport }
}

/** A raw request to the transport: its status and body. */
function send(method: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(http.url, { method, headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('error', reject)
    req.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

describe('the Streamable HTTP transport', () => {
  it('lists the tools and runs them against pronet, each session within its own budget', async () => {
    const before = await creditsRemaining(p)
    const a = await connect()
    expect(a.transport.sessionId).toMatch(/^[0-9a-f-]{36}$/)
    const names = (await a.client.listTools()).tools.map((t) => t.name)
    expect(names).toHaveLength(14)
    expect(names).toContain('get_company')
    const first = await callTool(a.client, 'get_company', { companyUrlOrUrn: COMPANY_SLUG, fields: ['name'] })
    expect(first.isError, first.note).toBe(false)
    expect(first.data).toEqual({ name: 'Northwind Analytics' })
    expect(first.note).toMatch(/^1 credit charged; 1 of this session's 1 credits spent/)
    const refused = await callTool(a.client, 'get_company', { companyUrlOrUrn: COMPANY_SLUG })
    expect(refused.isError).toBe(true)
    expect(refused.note).toContain('Refused by this session\'s credit budget')
    // Another session has a budget of its own.
    const b = await connect()
    expect(b.transport.sessionId).not.toBe(a.transport.sessionId)
    const other = await callTool(b.client, 'get_company', { companyUrlOrUrn: COMPANY_SLUG, fields: ['name'] })
    expect(other.isError, other.note).toBe(false)
    expect(await creditsRemaining(p)).toBe(before - 2)
    expect(http.sessions()).toBe(2)
    // A client that ends its session ends it on the server too.
    await a.transport.terminateSession()
    await a.client.close()
    expect(http.sessions()).toBe(1)
    await b.client.close()
  })

  it('refuses a request without a session, with an unknown session, or addressed to another host', async () => {
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }
    const none = await send('POST', {}, list)
    expect(none.status).toBe(400)
    expect(none.body).toContain('initialize')
    const unknown = await send('POST', { 'mcp-session-id': '00000000-0000-4000-8000-000000000000' }, list)
    expect(unknown.status).toBe(404)
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }
    const rebound = await send('POST', { host: 'attacker.example:80' }, initialize)
    expect(rebound.status).toBe(403)
    // The stream of server messages (a GET) belongs to a session too.
    const stream = await send('GET', {}, undefined)
    expect(stream.status).toBe(400)
  })
})
