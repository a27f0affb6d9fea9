/**
 * A scripted upstream for a live-source node: a real HTTP server on 127.0.0.1 that a test tells how to
 * answer, request by request, and can stop (calls then meet a refused connection) and start again on
 * the same port. It refuses a wrong `x-api-key` with 401, as the real API does, and records every
 * request it receives.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/** How one request is answered. */
export type Reply = (req: IncomingMessage, res: ServerResponse) => void

export interface SeenRequest {
  method: string
  path: string
  query: URLSearchParams
  apiKey: string | undefined
}

export interface FakeUpstream {
  /** The base address to give as PRONET_UPSTREAM_URL. */
  readonly url: string
  readonly port: number
  /** Every request received, oldest first. */
  readonly requests: SeenRequest[]
  /** Answers every later request with `reply`, once the replies queued by `next` are used. */
  always(reply: Reply): void
  /** Answers the next requests with these replies, one each, before the standing one. */
  next(...replies: Reply[]): void
  /** Stops listening and cuts every open connection: calls then meet a refused connection. */
  stop(): Promise<void>
  /** Listens again on the same port. */
  start(): Promise<void>
  close(): Promise<void>
}

export async function startFakeUpstream(opts: { apiKey: string }): Promise<FakeUpstream> {
  const requests: SeenRequest[] = []
  const queued: Reply[] = []
  let standing: Reply = json(500, { error: 'no reply scripted', code: 'INTERNAL_ERROR' })
  const sockets = new Set<Socket>()

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://upstream.invalid')
    const apiKey = typeof req.headers['x-api-key'] === 'string' ? req.headers['x-api-key'] : undefined
    requests.push({ method: req.method ?? '', path: url.pathname, query: url.searchParams, apiKey })
    if (apiKey !== opts.apiKey) return json(401, { error: 'The API key is not valid.', code: 'INVALID_API_KEY' })(req, res)
    const reply = queued.shift() ?? standing
    reply(req, res)
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject)
        resolve()
      })
    })
  await listen(0)
  const port = (server.address() as AddressInfo).port

  async function stop(): Promise<void> {
    if (!server.listening) return
    const closed = new Promise<void>((resolve) => server.close(() => resolve()))
    for (const s of sockets) s.destroy()
    await closed
  }

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    always(reply) {
      standing = reply
    },
    next(...replies) {
      queued.push(...replies)
    },
    stop,
    start: () => listen(port),
    close: stop,
  }
}

/** A JSON answer with the given status, body and headers. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return text(status, JSON.stringify(body), headers)
}

/** An answer whose body is the given text, sent whole (a well-formed HTTP answer, whatever the text). */
export function text(status: number, body: string, headers: Record<string, string> = {}): Reply {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), ...headers })
    res.end(body)
  }
}

/** `reply`, sent after `ms` unless the caller left (or the server stopped) first. */
export function slow(ms: number, reply: Reply): Reply {
  return (req, res) => {
    const timer = setTimeout(() => reply(req, res), ms)
    res.on('close', () => clearTimeout(timer))
  }
}

/** A head promising the whole body, part of it, then the connection cut. */
export function cutMidBody(status: number, whole: string, headers: Record<string, string> = {}): Reply {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(whole), ...headers })
    res.write(whole.slice(0, Math.floor(whole.length / 2)), () => res.socket?.destroy())
  }
}

/** No answer at all: the connection is cut as the request arrives. */
export function resetConnection(): Reply {
  return (req) => {
    req.socket.destroy()
  }
}
