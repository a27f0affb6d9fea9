/**
 * The HTTP edge over real sockets, where a hostile client shows what app.inject cannot: requests that
 * never finish arriving, bodies far over the limit (a reset instead of an answer, once), and bytes
 * Node's parser refuses before Fastify sees them.
 */
import { connect, type AddressInfo, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fixtureRecords } from '../helpers/ingest-fixtures.ts'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'

interface Response {
  status: number
  headers: Record<string, string>
  body: string
}

/**
 * One client connection that reads HTTP/1.1 responses framed by Content-Length (as all of this API's
 * are), and remembers how it ended: a clean close, or an error such as a reset.
 */
class Client {
  readonly socket: Socket
  private buffer = Buffer.alloc(0)
  private waiting: (() => void) | undefined
  error: string | undefined
  closed = false

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1')
    this.socket.on('data', (d: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, d])
      this.waiting?.()
    })
    this.socket.on('error', (e: NodeJS.ErrnoException) => {
      this.error ??= e.code ?? e.message
    })
    this.socket.on('close', () => {
      this.closed = true
      this.waiting?.()
    })
  }

  /** Writes `data`; resolves once the kernel has taken all of it (the server is reading). */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve) => this.socket.write(data, () => resolve()))
  }

  /** The next whole response, or undefined if the connection closed first. */
  async response(): Promise<Response | undefined> {
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n')
      if (end >= 0) {
        const [statusLine, ...lines] = this.buffer.subarray(0, end).toString('latin1').split('\r\n')
        const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
        const length = Number(headers['content-length'] ?? 0)
        if (this.buffer.length >= end + 4 + length) {
          const body = this.buffer.subarray(end + 4, end + 4 + length).toString('utf8')
          this.buffer = this.buffer.subarray(end + 4 + length)
          return { status: Number(statusLine?.split(' ')[1]), headers, body }
        }
      }
      if (this.closed) return undefined
      await new Promise<void>((resolve) => (this.waiting = resolve))
      this.waiting = undefined
    }
  }

  /** Resolves once the connection has closed. */
  async closing(): Promise<void> {
    while (!this.closed) {
      await new Promise<void>((resolve) => (this.waiting = resolve))
      this.waiting = undefined
    }
  }

  /** What arrived and was not read as a response. */
  rest(): string {
    return this.buffer.toString('latin1')
  }

  destroy(): void {
    this.socket.destroy()
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The error envelope of a refusal written by hand on the socket, as Fastify's answers carry it. */
function expectFreeRefusal(res: Response | undefined, message: RegExp): void {
  expect(res, 'a response arrived').toBeDefined()
  const r = res as Response
  expect(r.status, r.body).toBe(400)
  expect(r.headers['content-type']).toBe('application/json; charset=utf-8')
  expect(r.headers['x-credits-charged']).toBe('0')
  // The same request ids as every other answer: the app's prefix and a counter.
  expect(r.headers['x-request-id']).toMatch(/^[\w-]{8}-[0-9a-z]+$/)
  expect(r.headers['x-content-type-options']).toBe('nosniff')
  expect(r.headers['cache-control']).toBe('no-store')
  expect(r.headers['content-security-policy']).toMatch(/^default-src 'none'/)
  expect(r.headers.connection).toBe('close')
  expect(JSON.parse(r.body)).toEqual({ error: expect.stringMatching(message), code: 'INVALID_PARAMETER' })
}

const listen = async (t: TestApp): Promise<number> => {
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  return (t.app.server.address() as AddressInfo).port
}

describe('requests that do not arrive in time (PRONET_REQUEST_TIMEOUT_MS=500)', () => {
  let t: TestApp
  let port: number
  beforeAll(async () => {
    t = await makeTestApp({ env: { PRONET_REQUEST_TIMEOUT_MS: '500' } })
    port = await listen(t)
  })
  afterAll(async () => t.close())

  it('a body trickled a byte at a time is cut: the 400 envelope, free, and the connection closed; the call is recorded as 499', async () => {
    const client = new Client(port)
    await client.write(
      `POST /api/v1/company/batch HTTP/1.1\r\nhost: x\r\nx-api-key: ${t.key}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{`,
    )
    const trickle = setInterval(() => {
      if (!client.closed) client.socket.write(' ')
    }, 100)
    try {
      expectFreeRefusal(await client.response(), /^The request did not arrive in time \(all of it within 0\.5 seconds\); send it again\.$/)
      await client.closing()
    } finally {
      clearInterval(trickle)
    }
    // The call is recorded once it has gone its way out, just after the connection closed.
    const recorded = async () => (await t.c.ledger.usage(t.accountId, '2000-01-01', '2100-01-01')).filter((r) => r.endpoint === '/api/v1/company/batch')
    await expect.poll(recorded).toHaveLength(1)
    expect(await recorded()).toEqual([expect.objectContaining({ status: 499, requests: 1, credits: 0 })])
  })

  it('headers that never end, and a connection that sends nothing, are cut the same way', async () => {
    const slow = new Client(port)
    await slow.write('GET /api/v1/subscription HTTP/1.1\r\nhost: x\r\n')
    const trickle = setInterval(() => {
      if (!slow.closed) slow.socket.write('x-a: b\r\n')
    }, 100)
    try {
      expectFreeRefusal(await slow.response(), /did not arrive in time/)
      await slow.closing()
    } finally {
      clearInterval(trickle)
    }
    const silent = new Client(port)
    expectFreeRefusal(await silent.response(), /did not arrive in time/)
    await silent.closing()
  })

  it('only the arrival of a request is timed: a kept-alive connection idle for longer is answered as usual', async () => {
    const client = new Client(port)
    const ask = `GET /api/v1/subscription HTTP/1.1\r\nhost: x\r\nx-api-key: ${t.key}\r\n\r\n`
    await client.write(ask)
    expect((await client.response())?.status).toBe(200)
    await sleep(1_500)
    t.clock.advance(1_000)
    await client.write(ask)
    const again = await client.response()
    expect(again?.status, again?.body).toBe(200)
    expect(client.closed).toBe(false)
    client.destroy()
  })
})

describe('bodies over 1 MiB', () => {
  let t: TestApp
  let port: number
  beforeAll(async () => {
    t = await makeTestApp({ records: fixtureRecords() })
    port = await listen(t)
  })
  afterAll(async () => t.close())

  const head = (extra: string) => `POST /api/v1/company/batch HTTP/1.1\r\nhost: x\r\nx-api-key: ${t.key}\r\ncontent-type: application/json\r\n${extra}\r\n`
  const chunked = (body: Buffer): Buffer[] => {
    const parts: Buffer[] = []
    for (let i = 0; i < body.length; i += 65_536) {
      const part = body.subarray(i, i + 65_536)
      parts.push(Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n'))
    }
    parts.push(Buffer.from('0\r\n\r\n'))
    return parts
  }

  /**
   * Sends the whole body before reading anything, as most clients do: an answer followed by a close
   * with unread bytes (a reset) would be lost, or the write would fail.
   */
  async function sendBig(client: Client, size: number, framing: 'length' | 'chunked', close = false): Promise<Response | undefined> {
    const body = Buffer.alloc(size, 'a')
    client.socket.pause()
    const connection = close ? 'connection: close\r\n' : ''
    if (framing === 'length') await client.write(Buffer.concat([Buffer.from(head(`${connection}content-length: ${size}\r\n`)), body]))
    else {
      await client.write(head(`${connection}transfer-encoding: chunked\r\n`))
      for (const part of chunked(body)) await client.write(part)
    }
    client.socket.resume()
    return client.response()
  }

  for (const size of [2_000_000, 10_000_000]) {
    for (const framing of ['length', 'chunked'] as const) {
      it(`${size / 1e6} MB (${framing === 'length' ? 'Content-Length' : 'chunked'}), three times: the whole 400 envelope, free, and the connection kept in step`, async () => {
        for (let i = 0; i < 3; i++) {
          const client = new Client(port)
          const res = await sendBig(client, size, framing)
          expect(client.error, 'no reset, no broken pipe').toBeUndefined()
          expect(res?.status, res?.body).toBe(400)
          expect(JSON.parse(res?.body ?? '')).toEqual({ error: 'The body exceeds 1 MiB.', code: 'INVALID_PARAMETER', details: { parameter: 'body' } })
          expect(res?.headers['x-credits-charged']).toBe('0')
          expect(res?.headers.connection).not.toBe('close')
          // The body was read to its end: the next request on the connection is answered.
          await client.write(`GET /api/v1/subscription HTTP/1.1\r\nhost: x\r\nx-api-key: ${t.key}\r\n\r\n`)
          t.clock.advance(1_000)
          expect((await client.response())?.status).toBe(200)
          client.destroy()
        }
      })
    }
  }

  it('a client that asked to close gets the whole 400, then a clean close', async () => {
    for (const framing of ['length', 'chunked'] as const) {
      const client = new Client(port)
      const res = await sendBig(client, 10_000_000, framing, true)
      expect(res?.status).toBe(400)
      expect(res?.headers.connection, JSON.stringify(res?.headers)).toBe('close')
      await client.closing()
      expect(client.error, 'closed without a reset').toBeUndefined()
    }
  })

  it('a refusal before the body is read (a wrong key) waits for the body too', async () => {
    const client = new Client(port)
    client.socket.pause()
    const size = 5_000_000
    await client.write(
      Buffer.concat([Buffer.from(`POST /api/v1/company/batch HTTP/1.1\r\nhost: x\r\nx-api-key: pk_wrong\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${size}\r\n\r\n`), Buffer.alloc(size, 'a')]),
    )
    client.socket.resume()
    const res = await client.response()
    expect(res?.status).toBe(401)
    expect(res?.headers['x-credits-charged']).toBe('0')
    await client.closing()
    expect(client.error).toBeUndefined()
  })
})

describe("requests Node's parser refuses", () => {
  let t: TestApp
  let port: number
  beforeAll(async () => {
    t = await makeTestApp()
    port = await listen(t)
  })
  afterAll(async () => t.close())

  it('headers over the limit and bytes that are not HTTP: the 400 envelope with the headers of every answer', async () => {
    const big = new Client(port)
    await big.write(`GET /api/v1/profile?profileUrlOrUrn=${'a'.repeat(70_000)} HTTP/1.1\r\nhost: x\r\n\r\n`)
    expectFreeRefusal(await big.response(), /too large/)
    const garbage = new Client(port)
    await garbage.write('NOT HTTP AT ALL\r\n\r\n')
    expectFreeRefusal(await garbage.response(), /^The request is not valid HTTP\/1\.1\.$/)
  })

  it('bytes that are not HTTP behind a request still being served: nothing that would read as its answer', async () => {
    const client = new Client(port)
    await client.write(`GET /api/v1/subscription HTTP/1.1\r\nhost: x\r\nx-api-key: ${t.key}\r\n\r\nNOT HTTP AT ALL\r\n\r\n`)
    const first = await client.response()
    // The request's own answer, or none (the connection is closed under it); never the refusal of
    // the bytes behind it, which the client would take for the answer to its request.
    if (first !== undefined) expect(first.status, first.body).toBe(200)
    await client.closing()
    expect(client.rest()).not.toMatch(/HTTP\/1\.1 400/)
  })
})
