/**
 * pronet-mcp as an MCP client starts it: a process of its own on stdio, set by its environment, its
 * tools listed and called through the SDK's StdioClientTransport against a running pronet. And a
 * missing setting stops it at start with a message naming it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { callTool, COMPANY_SLUG, creditsRemaining, startPronet, type RunningPronet } from './mcp-fixtures.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const MAIN = fileURLToPath(new URL('../../packages/mcp/src/main.ts', import.meta.url))
const CLIENT_FROM_SOURCE = fileURLToPath(new URL('./client-from-source.ts', import.meta.url))
const NODE_ARGS = ['--import', 'tsx', '--import', CLIENT_FROM_SOURCE, MAIN]

let p: RunningPronet
beforeAll(async () => {
  p = await startPronet()
})
afterAll(async () => p?.close())

describe('pronet-mcp on stdio', () => {
  it('serves the tools to a client that starts it, within PRONET_MCP_MAX_CREDITS', async () => {
    const before = await creditsRemaining(p)
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: NODE_ARGS,
      cwd: ROOT,
      env: { ...getDefaultEnvironment(), PRONET_API_KEY: p.t.key, PRONET_BASE_URL: p.baseUrl, PRONET_MCP_MAX_CREDITS: '1' },
      stderr: 'pipe',
    })
    let stderr = ''
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()))
    const client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' })
    await client.connect(transport)
    try {
      expect(client.getServerVersion()?.name).toBe('pronet')
      expect((await client.listTools()).tools).toHaveLength(14)
      const company = await callTool(client, 'get_company', { companyUrlOrUrn: COMPANY_SLUG, fields: ['name'] })
      expect(company.isError, company.note).toBe(false)
      expect(company.data).toEqual({ name: 'Northwind Analytics' })
      expect(company.note).toMatch(/^1 credit charged; 1 of this session's 1 credits spent/)
      const refused = await callTool(client, 'get_company', { companyUrlOrUrn: COMPANY_SLUG })
      expect(refused.note).toContain('Refused by this session\'s credit budget')
      expect(await creditsRemaining(p)).toBe(before - 1)
      expect(stderr).toContain(`on stdio, calling ${p.baseUrl}, with a credit budget of 1 per session`)
    } finally {
      await client.close()
    }
  })

  it('exits 2 at start, naming the setting, without PRONET_API_KEY or with a bad budget', async () => {
    const run = (env: Record<string, string>) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        execFile(process.execPath, NODE_ARGS, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 }, (err, _out, stderr) => {
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr })
        })
      })
    const noKey = await run({})
    expect(noKey.code).toBe(2)
    expect(noKey.stderr).toContain('PRONET_API_KEY is required')
    const badBudget = await run({ PRONET_API_KEY: 'pk_secret-value', PRONET_MCP_MAX_CREDITS: 'lots' })
    expect(badBudget.code).toBe(2)
    expect(badBudget.stderr).toContain('PRONET_MCP_MAX_CREDITS must be a whole number')
    expect(badBudget.stderr).not.toContain('pk_secret-value')
  })
})
