#!/usr/bin/env node
/**
 * pronet-mcp: the MCP server for pronet's data API, on stdio (the default) or Streamable HTTP, set
 * by the environment (see README.md). On stdio, stdout carries the protocol alone: messages go to
 * stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { PronetClient } from '@pronet/client'
import { ConfigError, loadConfig } from './config.ts'
import { startHttpTransport } from './http-transport.ts'
import { createPronetMcpServer, createToolset, type ApiCaller } from './server.ts'
import { packageVersion } from './version.ts'

async function main(): Promise<void> {
  const config = loadConfig(process.env)
  const client: ApiCaller = new PronetClient({ apiKey: config.apiKey, baseUrl: config.baseUrl })
  const version = packageVersion()
  const budget = config.maxCredits === null ? 'no credit budget' : `a credit budget of ${config.maxCredits} per session`
  if (config.transport === 'stdio') {
    const { server } = createPronetMcpServer({ client, maxCredits: config.maxCredits, version })
    await server.connect(new StdioServerTransport())
    process.stderr.write(`pronet-mcp ${version} on stdio, calling ${config.baseUrl}, with ${budget}\n`)
    return
  }
  const toolset = createToolset()
  const http = await startHttpTransport({
    port: config.port,
    host: config.host,
    createSession: () => createPronetMcpServer({ client, maxCredits: config.maxCredits, toolset, version }).server,
  })
  process.stderr.write(`pronet-mcp ${version} listening on ${http.url}, calling ${config.baseUrl}, with ${budget}\n`)
  const stop = () => {
    http.close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

main().catch((err: unknown) => {
  process.stderr.write(`pronet-mcp: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exit(err instanceof ConfigError ? 2 : 1)
})
