/**
 * The Streamable HTTP transport on node:http: one MCP session per client (its own server and credit
 * budget), created by an initialize request, named by the Mcp-Session-Id header after it, ended by a
 * DELETE, by staying idle too long, or by close().
 */
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'

export interface HttpTransportOptions {
  port: number
  host: string
  /** A new session's server, not yet connected. */
  createSession(): Server
  /** The path MCP is served on (default /mcp). */
  path?: string
  /** A session unheard of this long is closed (default one hour). */
  idleMs?: number
  /** The largest request body read (default 4 MiB). */
  maxBodyBytes?: number
}

export interface HttpTransportHandle {
  /** The MCP endpoint, such as http://127.0.0.1:3333/mcp. */
  url: string
  port: number
  /** Sessions open now. */
  sessions(): number
  close(): Promise<void>
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]'])

interface Session {
  transport: StreamableHTTPServerTransport
  server: Server
  lastSeen: number
}

export async function startHttpTransport(opts: HttpTransportOptions): Promise<HttpTransportHandle> {
  const path = opts.path ?? '/mcp'
  const idleMs = opts.idleMs ?? 3_600_000
  const maxBodyBytes = opts.maxBodyBytes ?? 4 * 1024 * 1024
  const sessions = new Map<string, Session>()
  // Bound to the loopback, the server answers only requests addressed to the loopback by name, so
  // that a web page cannot reach it through a DNS name rebound to 127.0.0.1 (DNS rebinding).
  const checkHost = LOOPBACK.has(opts.host)

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    if (url.pathname !== path) return reply(res, 404, { error: `Not found: MCP is served on ${path}` })
    if (checkHost && !LOOPBACK.has(hostnameOf(req.headers.host))) return reply(res, 403, rpcError(-32000, 'Forbidden: the Host header must name the loopback'))
    const sessionId = header(req, 'mcp-session-id')
    let body: unknown
    if (req.method === 'POST') {
      const read = await readJson(req, maxBodyBytes)
      if (!read.ok) return reply(res, read.status, rpcError(-32700, read.message))
      body = read.value
    }
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId)
      if (!session) return reply(res, 404, rpcError(-32001, 'Session not found: start a new one with an initialize request'))
      session.lastSeen = Date.now()
      return session.transport.handleRequest(req, res, body)
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return reply(res, 400, rpcError(-32000, 'Bad request: send an initialize request first, then the Mcp-Session-Id header it gives'))
    }
    const server = opts.createSession()
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, lastSeen: Date.now() })
      },
    })
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
    }
    await server.connect(transport)
    await transport.handleRequest(req, res, body)
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) reply(res, 500, rpcError(-32603, `Internal error: ${err instanceof Error ? err.message : String(err)}`))
      else res.end()
    })
  })
  const sweep = setInterval(() => {
    const now = Date.now()
    for (const [id, s] of sessions) {
      if (now - s.lastSeen > idleMs) {
        sessions.delete(id)
        void s.server.close()
      }
    }
  }, Math.min(idleMs, 60_000))
  sweep.unref()

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject)
    http.listen(opts.port, opts.host, () => {
      http.off('error', reject)
      resolve()
    })
  })
  const port = (http.address() as AddressInfo).port
  const shownHost = opts.host.includes(':') ? `[${opts.host}]` : opts.host
  return {
    url: `http://${shownHost}:${port}${path}`,
    port,
    sessions: () => sessions.size,
    async close() {
      clearInterval(sweep)
      const open = [...sessions.values()]
      sessions.clear()
      await Promise.all(open.map((s) => s.server.close()))
      await new Promise<void>((resolve) => {
        http.close(() => resolve())
        http.closeAllConnections()
      })
    },
  }
}

function hostnameOf(host: string | undefined): string {
  if (!host) return ''
  // "[::1]:3333" keeps its brackets; "localhost:3333" loses its port.
  const m = /^(\[[^\]]+\]|[^:]+)(?::\d+)?$/.exec(host.trim().toLowerCase())
  return m?.[1] ?? ''
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name]
  return Array.isArray(v) ? v[0] : v
}

const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null })

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

async function readJson(req: IncomingMessage, max: number): Promise<{ ok: true; value: unknown } | { ok: false; status: number; message: string }> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > max) return { ok: false, status: 413, message: `Request body over ${max} bytes` }
    chunks.push(chunk as Buffer)
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) }
  } catch {
    return { ok: false, status: 400, message: 'Parse error: the body is not JSON' }
  }
}
