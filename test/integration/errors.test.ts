/** Failures the client should never see the inside of. */
import { connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { checkRedisDatabase } from '../../src/adapters/redis/redis-database-check.ts'
import { ConfigError, loadConfig } from '../../src/config/config.ts'
import { StartupError } from '../../src/config/startup-failure.ts'
import { REDIS_URL, redisAvailable } from '../helpers/redis.ts'
import { expectError, makeTestApp, type TestApp } from '../helpers/test-app.ts'

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(async () => t.close())

describe('unexpected failures', () => {
  it('a store failure is a 500 INTERNAL_ERROR envelope, with no stack, SQL or driver text', async () => {
    const key = t.key
    await t.get('/api/v1/company?companyUrlOrUrn=warm-up', key)
    // Pull the floor out from under the next request: the database handle goes away.
    await t.c.close()
    const res = await t.get('/api/v1/company?companyUrlOrUrn=anything-else', key)
    const body = expectError(res, 500, 'INTERNAL_ERROR')
    expect(JSON.stringify(body)).not.toMatch(/database|sqlite|connection|Error:/i)
  })
})

describe('configuration', () => {
  it('refuses bad environment values with a clear message', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError)
    expect(() => loadConfig({ PRONET_SEED: 'huge' })).toThrow(/PRONET_SEED/)
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(ConfigError)
    expect(loadConfig({}).port).toBe(3000)
    expect(loadConfig({ PRONET_SEED: '500' }).seed).toBe(500)
    // A profile count the generator can build: at least 20 (every edge case fits), at most 500,000
    // (its plan in memory; 99,999,999,999 crashed the first start, and every start after it).
    for (const n of ['20', '500000']) expect(loadConfig({ PRONET_SEED: n }).seed).toBe(Number(n))
    for (const n of ['0', '5', '19', '500001', '99999999999']) {
      expect(() => loadConfig({ PRONET_SEED: n })).toThrow(/^PRONET_SEED must be none, small, medium, large or a profile count from 20 to 500,000 \(got "\d+"\)$/)
    }
  })

  it('PRONET_TEST_CLOCK is 1 (on) or 0 (off); anything else is refused, not read as off', () => {
    expect(loadConfig({ PRONET_TEST_CLOCK: '1' }).testClock).toBe(true)
    expect(loadConfig({ PRONET_TEST_CLOCK: '0' }).testClock).toBe(false)
    expect(loadConfig({ PRONET_TEST_CLOCK: '' }).testClock).toBe(false)
    expect(loadConfig({}).testClock).toBe(false)
    for (const v of ['yes', 'true', '2', 'on']) {
      expect(() => loadConfig({ PRONET_TEST_CLOCK: v })).toThrow(new ConfigError(`invalid environment: PRONET_TEST_CLOCK must be 1 (on) or 0 (off) (got "${v}")`))
    }
  })

  it('DATABASE_URL selects PostgreSQL only as a postgres:// or postgresql:// URL; its password is never echoed', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x/y' })).toThrow(/^invalid environment: DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL \(got a mysql: URL\)$/)
    expect(() => loadConfig({ DATABASE_URL: 'x.example.org:5432/db' })).toThrow(ConfigError)
    expect(() => loadConfig({ DATABASE_URL: '/var/lib/pronet.db' })).toThrow(/DATABASE_URL/)
    expect(() => loadConfig({ DATABASE_URL: 'postgres://u:secret@h:port/db' })).toThrow(/^invalid environment: DATABASE_URL is not a valid URL$/)
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@h:5432/db' }).databaseUrl).toBe('postgres://u:p@h:5432/db')
    expect(loadConfig({ DATABASE_URL: 'postgresql://h/db' }).databaseUrl).toBe('postgresql://h/db')
    expect(loadConfig({ DATABASE_URL: 'POSTGRES:///db?host=/var/run/postgresql' }).databaseUrl).toBe('POSTGRES:///db?host=/var/run/postgresql')
  })

  it('REDIS_URL must be a redis:// or rediss:// URL whose path, if any, is a database number', () => {
    expect(() => loadConfig({ REDIS_URL: 'garbage' })).toThrow(/^invalid environment: REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL \(got not a URL\)$/)
    expect(() => loadConfig({ REDIS_URL: 'http://127.0.0.1:6379' })).toThrow(/REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL \(got a http: URL\)/)
    expect(() => loadConfig({ REDIS_URL: 'redis://127.0.0.1:port/0' })).toThrow(/^invalid environment: REDIS_URL is not a valid URL$/)
    expect(() => loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379/seven' })).toThrow(/REDIS_URL's path must be a database number/)
    expect(() => loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379/7/x' })).toThrow(/REDIS_URL's path must be a database number/)
    for (const ok of ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379/', 'redis://:pw@h:6379/7', 'rediss://h/15', 'REDIS://h']) {
      expect(loadConfig({ REDIS_URL: ok }).redisUrl).toBe(ok)
    }
  })
})

describe.skipIf(!(await redisAvailable()))('REDIS_URL naming a database Redis does not have', () => {
  it('stops the start with one line naming it (ioredis would go on in database 0)', async () => {
    const url = new URL(REDIS_URL)
    url.pathname = '/99999'
    await expect(checkRedisDatabase(url.toString())).rejects.toThrow(/^REDIS_URL names database 99999, which this Redis does not have \(.*\); use one of its databases, such as \/0$/)
    await expect(checkRedisDatabase(url.toString())).rejects.toBeInstanceOf(StartupError)
    url.pathname = '/3'
    await expect(checkRedisDatabase(url.toString())).resolves.toBeUndefined()
    // Redis not there now: the node starts on its local share of the rate budget, so this is no failure.
    await expect(checkRedisDatabase('redis://127.0.0.1:1/3', 200)).resolves.toBeUndefined()
  })

  it('stops the start when Redis refuses the credentials, naming the refusal but not the password', async () => {
    // Started on as "not reachable yet", the node stayed on its own share of every budget for good.
    const url = new URL(REDIS_URL)
    url.username = 'pronet-no-such-user'
    url.password = 'hunter2-secret'
    url.pathname = '/3'
    const start = checkRedisDatabase(url.toString())
    await expect(start).rejects.toBeInstanceOf(StartupError)
    await expect(start).rejects.toThrow(/^REDIS_URL redis:\/\/pronet-no-such-user:\*\*\*@.* was refused by Redis \(WRONGPASS\): check the user name and password it carries$/)
    await expect(start).rejects.not.toThrow(/hunter2/)
  })
})

/** Sends raw bytes to the server and reads everything it writes until it closes the connection. */
function rawRequest(port: number, bytes: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (d) => chunks.push(d))
    // The server may close while the client is still writing a huge request: EPIPE/ECONNRESET on
    // our side is expected then, as long as the response arrived first.
    socket.on('error', () => {})
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const split = text.indexOf('\r\n\r\n')
      if (split < 0) return reject(new Error(`no HTTP response: ${JSON.stringify(text.slice(0, 200))}`))
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n')
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
      resolve({ status: Number(statusLine?.split(' ')[1]), headers, body: text.slice(split + 4) })
    })
    socket.write(bytes)
  })
}

describe("errors of Node's HTTP parser (before Fastify routes the request)", () => {
  let s: TestApp
  let port: number
  beforeAll(async () => {
    s = await makeTestApp()
    await s.app.listen({ port: 0, host: '127.0.0.1' })
    port = (s.app.server.address() as AddressInfo).port
  })
  afterAll(async () => s.close())

  const expectEnvelope = (res: { status: number; headers: Record<string, string>; body: string }, message: RegExp) => {
    expect(res.status, res.body).toBe(400)
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(res.headers.connection).toBe('close')
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body))
    const body = JSON.parse(res.body)
    expect(body).toMatchObject({ code: 'INVALID_PARAMETER', error: expect.stringMatching(message) })
    expect(Object.keys(body).every((k) => ['error', 'code', 'details'].includes(k))).toBe(true)
  }

  it('a 70,000-character query string is a 400 INVALID_PARAMETER envelope saying the headers are too large, not a 431', async () => {
    const url = `/api/v1/profile?profileUrlOrUrn=${'a'.repeat(70_000)}`
    const res = await rawRequest(port, `GET ${url} HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${s.key}\r\n\r\n`)
    expectEnvelope(res, /too large/i)
  })

  it('one 20 KB header is the same 400 envelope', async () => {
    const res = await rawRequest(port, `GET /api/v1/usage HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`)
    expectEnvelope(res, /too large/i)
  })

  it('a malformed request is a 400 INVALID_PARAMETER envelope', async () => {
    expectEnvelope(await rawRequest(port, 'NOT HTTP AT ALL\r\n\r\n'), /HTTP/)
    expectEnvelope(await rawRequest(port, 'GET /api/v1/usage HTTP/1.1\r\nHost: localhost\r\nBad Header: x\r\n\r\n'), /HTTP/)
  })

  it('an HTTP/1.1 request without a Host header is a 400 INVALID_PARAMETER envelope, not an empty 400', async () => {
    expectEnvelope(await rawRequest(port, `GET /api/v1/usage HTTP/1.1\r\nX-API-Key: ${s.key}\r\nConnection: close\r\n\r\n`), /Host/)
    // HTTP/1.0 has no Host requirement.
    const old = await rawRequest(port, `GET /api/v1/usage HTTP/1.0\r\nX-API-Key: ${s.key}\r\n\r\n`)
    expect(old.status, old.body).toBe(200)
  })

  it('an expectation other than 100-continue is ignored (RFC 9110 10.1.1), not an empty 417', async () => {
    // The subscription endpoint: the usage endpoint's budget (1 a second) went to the test above.
    const res = await rawRequest(port, `GET /api/v1/subscription HTTP/1.1\r\nHost: localhost\r\nExpect: foo\r\nX-API-Key: ${s.key}\r\nConnection: close\r\n\r\n`)
    expect(res.status, res.body).toBe(200)
    expect(JSON.parse(res.body)).toHaveProperty('rpsLimit')
    const anon = await rawRequest(port, 'GET /api/v1/usage HTTP/1.1\r\nHost: localhost\r\nExpect: foo\r\nConnection: close\r\n\r\n')
    expect(anon.status).toBe(401)
    expect(JSON.parse(anon.body)).toMatchObject({ code: 'UNAUTHENTICATED' })
  })

  it('well-formed requests on the same server are answered as usual', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/usage`)
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({ code: 'UNAUTHENTICATED' })
  })

  it('writes nothing to a socket that is no longer writable, and only destroys it', () => {
    const socket = { writable: false, destroyed: false, write: vi.fn(), destroy: vi.fn(), end: vi.fn() }
    s.app.server.emit('clientError', Object.assign(new Error('Parse Error'), { code: 'HPE_INVALID_METHOD' }), socket)
    expect(socket.write).not.toHaveBeenCalled()
    expect(socket.end).not.toHaveBeenCalled()
    expect(socket.destroy).toHaveBeenCalled()
  })
})
