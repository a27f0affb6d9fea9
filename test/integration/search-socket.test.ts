/**
 * A search page is sent as its parts in one gathered write (http/gathered-body.ts), not through
 * Buffer.concat. Over a real keep-alive socket: the response has an exact content-length (never
 * chunked), the same bytes as the in-process call, the metering and request headers, and the
 * connection serves the next request; a refusal on the same connection is an ordinary JSON error.
 */
import { connect, type AddressInfo, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bodyBytes } from '../../src/domain/content/content.service.ts'
import { makeSearchApp, searchNetwork, type SearchApp } from '../helpers/search-fixtures.ts'

let t: SearchApp
let port: number

beforeAll(async () => {
  t = await makeSearchApp({ records: searchNetwork(60, 5) })
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  port = (t.app.server.address() as AddressInfo).port
})
afterAll(async () => t.close())

interface RawResponse {
  status: number
  headers: Map<string, string>
  body: Buffer
}

/** Reads HTTP/1.1 responses (content-length framed only) off one socket, in order. */
function responses(socket: Socket) {
  let buf = Buffer.alloc(0)
  const waiting: ((r: RawResponse) => void)[] = []
  const ready: RawResponse[] = []
  socket.on('data', (d: Buffer) => {
    buf = Buffer.concat([buf, d])
    for (;;) {
      const end = buf.indexOf('\r\n\r\n')
      if (end < 0) return
      const lines = buf.subarray(0, end).toString('latin1').split('\r\n')
      const headers = new Map(lines.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as [string, string]))
      // A chunked body would have no content-length: the test fails on it rather than mis-framing.
      const length = Number(headers.get('content-length'))
      if (!Number.isInteger(length)) throw new Error(`no content-length: ${lines.join(' | ')}`)
      if (buf.length < end + 4 + length) return
      const r = { status: Number(lines[0]?.split(' ')[1]), headers, body: Buffer.from(buf.subarray(end + 4, end + 4 + length)) }
      buf = buf.subarray(end + 4 + length)
      const w = waiting.shift()
      if (w) w(r)
      else ready.push(r)
    }
  })
  return () => new Promise<RawResponse>((resolve) => (ready.length > 0 ? resolve(ready.shift() as RawResponse) : waiting.push(resolve)))
}

function send(socket: Socket, body: unknown): void {
  const text = JSON.stringify(body)
  socket.write(
    `POST /api/v1/search/posts HTTP/1.1\r\nhost: x\r\nx-api-key: ${t.key}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  )
}

describe('search pages over a real socket', () => {
  it('are framed by an exact content-length, byte-identical to the service, and keep the connection for the next call', async () => {
    const socket = connect(port, '127.0.0.1')
    const next = responses(socket)
    const closed = new Promise<boolean>((r) => socket.on('close', () => r(true)))
    const bodies = [{ query: 'the', sortBy: 'date', maxResults: 50 }, { query: 'the', maxResults: 7 }, { query: 'NOT' }, { query: 'the', sortBy: 'date', maxResults: 3 }]
    const got: RawResponse[] = []
    for (const body of bodies) {
      send(socket, body)
      got.push(await next())
    }
    const [date50, relevance7, refused, date3] = got as [RawResponse, RawResponse, RawResponse, RawResponse]

    for (const r of [date50, relevance7, date3]) {
      expect(r.status).toBe(200)
      expect(r.headers.get('transfer-encoding')).toBeUndefined()
      expect(r.headers.get('content-type')).toMatch(/^application\/json/)
      expect(r.headers.get('x-credits-charged')).toBe('1')
      expect(r.headers.get('x-request-id')).toMatch(/.+/)
      expect(r.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/)
    }
    const page = JSON.parse(date50.body.toString()) as { results: { id: string }[]; cursor: string | null }
    expect(page.results).toHaveLength(50)
    expect(typeof page.cursor).toBe('string')
    expect((JSON.parse(relevance7.body.toString()) as { results: unknown[] }).results).toHaveLength(7)
    expect((JSON.parse(date3.body.toString()) as { results: { id: string }[] }).results.map((p) => p.id)).toEqual(page.results.slice(0, 3).map((p) => p.id))
    // The same bytes the service produces in-process (the cursor is deterministic for one search).
    expect(date50.body.equals(bodyBytes(await t.c.search.search(bodies[0], async () => {})))).toBe(true)

    expect(refused.status).toBe(400)
    expect(JSON.parse(refused.body.toString())).toMatchObject({ code: 'INVALID_PARAMETER' })
    expect(refused.headers.get('x-credits-charged')).toBe('0')

    // Still open after four responses: nothing was ended or destroyed early.
    expect(socket.destroyed).toBe(false)
    socket.end()
    expect(await closed).toBe(true)
  })

  it('bills and records each page once', async () => {
    const report = async () => {
      const usage = await t.get('/api/v1/usage')
      // The usage endpoint has its own 1/s budget.
      t.clock.advance(1000)
      expect(usage.statusCode).toBe(200)
      const r = usage.json() as { creditsRemaining: number; endpoints: { endpoint: string; requests: number; creditsUsed: number }[] }
      return { remaining: r.creditsRemaining, search: r.endpoints.find((e) => e.endpoint === '/api/v1/search/posts') }
    }
    const before = await report()
    const socket = connect(port, '127.0.0.1')
    const next = responses(socket)
    send(socket, { query: 'the', sortBy: 'date', maxResults: 40 })
    const r = await next()
    socket.destroy()
    expect(r.status).toBe(200)
    expect((JSON.parse(r.body.toString()) as { results: unknown[] }).results).toHaveLength(40)
    const after = await report()
    expect(after.remaining).toBe(before.remaining - 1)
    expect(after.search?.requests).toBe((before.search?.requests ?? 0) + 1)
    expect(after.search?.creditsUsed).toBe((before.search?.creditsUsed ?? 0) + 1)
  })
})
