/**
 * Requests a client pipelines on one connection (several requests in one write) are each answered
 * and billed as if sent one by one, also behind a request whose body could not be parsed. Fastify
 * closed the connection after such a 400; Node had already started the requests queued behind it,
 * and they were billed though their responses could never be sent (a delivered response bills).
 */
import { connect, type AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMPANY_ID, fixtureRecords } from '../helpers/ingest-fixtures.ts'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'

let t: TestApp
let port: number

beforeAll(async () => {
  t = await makeTestApp({ records: fixtureRecords(), account: { name: 'pipelining', plan: 'custom', creditsLimit: 1000, rpsLimit: 1000 } })
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  port = (t.app.server.address() as AddressInfo).port
})
afterAll(async () => t.close())

/** Writes `raw` in one go and reads until `responses` status lines arrived or the socket closed. */
function exchange(raw: string, responses: number): Promise<{ statuses: number[]; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let text = ''
    const statuses = () => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]))
    const finish = (closed: boolean) => {
      clearTimeout(timer)
      socket.destroy()
      resolve({ statuses: statuses(), closed })
    }
    const timer = setTimeout(() => finish(false), 5_000)
    socket.on('data', (d) => {
      text += d.toString()
      // Every response here has a content-length; wait until the last one's body is in too.
      if (statuses().length === responses && /\r\n\r\n[^]*\}$/.test(text)) finish(false)
    })
    socket.on('close', () => finish(true))
    socket.on('error', () => {})
    socket.write(raw)
  })
}

const request = (method: string, path: string, body?: string) =>
  `${method} ${path} HTTP/1.1\r\nhost: x\r\nx-api-key: ${t.key}\r\n` +
  (body === undefined ? '\r\n' : `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)

async function creditsUsed(): Promise<number> {
  const rows = await t.c.ledger.usage(t.accountId, '2000-01-01', '2100-01-01')
  return rows.reduce((sum, r) => sum + r.credits, 0)
}

describe('pipelined requests (several in one write)', () => {
  it.each([
    ['malformed JSON', '{bad'],
    ['a body of the wrong shape', '[1,2]'],
  ])('behind a batch with %s: every request is answered, and only the delivered ones billed', async (_, body) => {
    const before = await creditsUsed()
    const raw =
      request('POST', '/api/v1/company/batch', body) +
      request('GET', `/api/v1/company?companyUrlOrUrn=urn:li:fsd_company:${COMPANY_ID}`) +
      request('GET', '/api/v1/profile?profileUrlOrUrn=no-such-member-zz')
    const { statuses } = await exchange(raw, 3)
    expect(statuses).toEqual([400, 200, 404])
    // The company (1) and the missing profile's 404 (1); the refused batch is free.
    expect((await creditsUsed()) - before).toBe(2)
  })

  it('a gzip-labelled body behind which two calls queue: all three answered', async () => {
    const before = await creditsUsed()
    const bad =
      `POST /api/v1/company/batch HTTP/1.1\r\nhost: x\r\nx-api-key: ${t.key}\r\ncontent-type: application/json\r\n` +
      'content-encoding: gzip\r\ncontent-length: 2\r\n\r\n{}'
    const raw = bad + request('GET', `/api/v1/company?companyUrlOrUrn=urn:li:fsd_company:${COMPANY_ID}`) + request('GET', `/api/v1/company?companyUrlOrUrn=urn:li:fsd_company:${COMPANY_ID}`)
    const { statuses } = await exchange(raw, 3)
    expect(statuses).toEqual([400, 200, 200])
    expect((await creditsUsed()) - before).toBe(2)
  })
})
