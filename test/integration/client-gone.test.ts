/**
 * A call whose client leaves before the response (a timeout, a closed connection) while the call is
 * still working is not delivered, so it is not billed (a delivered response bills); it is still
 * counted in usage (every request, whatever its outcome), as 499, client closed request.
 * Over a real socket: the batch waits for a rate unit on a gate the test holds, the client goes, then
 * the gate opens.
 */
import { connect, type AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { COMPANY_ID, fixtureRecords } from '../helpers/ingest-fixtures.ts'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'

let t: TestApp
let port: number
/** The batch's next wait for a rate unit: resolved when it starts; it ends when `open` is called. */
let waits: { started: Promise<void>; open: () => void }
let signalStarted: () => void
let gate: Promise<void>

function armGate(): void {
  let open!: () => void
  gate = new Promise<void>((r) => (open = r))
  const started = new Promise<void>((r) => (signalStarted = r))
  waits = { started, open }
}

beforeAll(async () => {
  armGate()
  t = await makeTestApp({
    records: fixtureRecords(),
    sleep: async (ms, clock) => {
      signalStarted()
      await gate
      clock.advance(ms)
    },
  })
  // A request marked x-test-hold waits here, before the gateway checks its key and before its body is
  // read, until the test lets it go: a PostgreSQL or Redis round trip at that point is such a wait.
  t.app.addHook('onRequest', async (request) => {
    if (request.headers['x-test-hold'] === undefined) return
    held.started()
    await held.gate
  })
  // A request marked x-test-ended finds, once its body is read, that its client's end of the stream
  // has arrived (readableEnded: a half-close, or a client leaving), or (x-test-ended: write) that its
  // connection can no longer be written; its (injected) connection records being destroyed.
  t.app.addHook('preHandler', async (request) => {
    const how = request.headers['x-test-ended']
    if (how === undefined) return
    Object.defineProperty(request.raw.socket, how === 'write' ? 'writable' : 'readableEnded', { value: how === 'write' ? false : true })
    Object.defineProperty(request.raw.socket, 'destroy', { value: () => destroyed.push(request.url) })
  })
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  port = (t.app.server.address() as AddressInfo).port
})
afterAll(async () => t.close())

/** URLs of the injected requests marked x-test-ended whose connection the server destroyed. */
const destroyed: string[] = []

/** The next request marked x-test-hold: `arrived` once it waits, `release` lets it go on. */
let held: { gate: Promise<void>; started: () => void; arrived: Promise<void>; release: () => void }
function armHold(): void {
  let release!: () => void
  let started!: () => void
  const gate = new Promise<void>((r) => (release = r))
  const arrived = new Promise<void>((r) => (started = r))
  held = { gate, started, arrived, release }
}
armHold()

/** Writes `head` and `body` on a raw socket; returns the socket and when it closed. */
function sendRaw(head: string, body: string) {
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  const closed = new Promise<void>((r) => socket.on('close', () => r()))
  socket.write(`${head}\r\n\r\n${body}`)
  return { socket, closed }
}

/** Sends a batch of two companies on a raw socket; returns the socket and what it reads. */
function sendBatch(key: string) {
  const body = JSON.stringify({ companies: [COMPANY_ID, 'ghost-co'] })
  const socket = connect(port, '127.0.0.1')
  let text = ''
  socket.on('data', (d) => (text += d.toString()))
  socket.on('error', () => {})
  const closed = new Promise<void>((r) => socket.on('close', () => r()))
  socket.write(
    `POST /api/v1/company/batch HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  )
  return { socket, closed, text: () => text }
}

async function usageOf(accountId: string, first?: () => void) {
  // The usage line lands after the response would have been written: wait for it.
  for (let i = 0; i < 100; i++) {
    if (i === 5) first?.()
    const rows = await t.c.ledger.usage(accountId, '2000-01-01', '2100-01-01')
    if (rows.length > 0) return rows
    await new Promise((r) => setTimeout(r, 20))
  }
  return []
}

/** The client leaves while its batch waits for a rate unit; then the wait ends. */
async function leaveWhileWaiting(call: ReturnType<typeof sendBatch>): Promise<void> {
  await waits.started
  call.socket.destroy()
  await call.closed
  // Let the server see the close before the call goes on.
  await new Promise((r) => setTimeout(r, 50))
  const open = waits.open
  armGate()
  open()
}

describe('a client that leaves before its response', () => {
  it('is not billed, and its call is counted as 499', async () => {
    const acct = await t.c.accounts.create({ name: 'gone', plan: 'custom', creditsLimit: 100, rpsLimit: 1 })
    await leaveWhileWaiting(sendBatch(acct.apiKey.key))
    const rows = await usageOf(acct.account.id)
    expect(rows).toEqual([expect.objectContaining({ endpoint: '/api/v1/company/batch', status: 499, requests: 1, billable: 0, credits: 0 })])
    expect((await t.c.ledger.entries(acct.account.id)).filter((e) => e.kind === 'debit')).toEqual([])
  })

  it("takes no more of the account's rate units once its client has gone: the next call is admitted", async () => {
    t.clock.advance(5_000)
    const acct = await t.c.accounts.create({ name: 'gone-units', plan: 'custom', creditsLimit: 100, rpsLimit: 1 })
    // One unit taken on arrival; the second company waits for the next one (1 rps). The wait ends
    // when the unit is free again: the batch, whose client has gone, must leave it.
    await leaveWhileWaiting(sendBatch(acct.apiKey.key))
    expect(await usageOf(acct.account.id)).toEqual([expect.objectContaining({ status: 499, credits: 0 })])
    const next = await t.app.inject({ method: 'GET', url: `/api/v1/company?companyUrlOrUrn=${COMPANY_ID}`, headers: { 'x-api-key': acct.apiKey.key } })
    expect(next.statusCode).toBe(200)
    expect(next.headers['x-ratelimit-remaining']).toBe('0')
  })

  it('a client that stays gets its 200 and is billed for the company found', async () => {
    t.clock.advance(5_000)
    const acct = await t.c.accounts.create({ name: 'stays', plan: 'custom', creditsLimit: 100, rpsLimit: 1 })
    const call = sendBatch(acct.apiKey.key)
    await waits.started
    const open = waits.open
    armGate()
    open()
    await call.closed
    expect(call.text()).toMatch(/^HTTP\/1\.1 200 /)
    expect(call.text()).toMatch(/x-credits-charged: 1\r\n/i)
    const rows = await usageOf(acct.account.id)
    expect(rows).toEqual([expect.objectContaining({ endpoint: '/api/v1/company/batch', status: 200, requests: 1, billable: 1, credits: 1 })])
  })
})

describe('a client that leaves before its body was read', () => {
  const search = JSON.stringify({ query: 'hiring', maxResults: 5 })
  const searchHead = (key: string, length: number, extra = '') =>
    `POST /api/v1/search/posts HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\ncontent-length: ${length}${extra}`

  it('sent the whole request and left while its key was being checked: counted as 499, not billed, not lost', async () => {
    t.clock.advance(5_000)
    const acct = await t.c.accounts.create({ name: 'gone-early', plan: 'custom', creditsLimit: 100, rpsLimit: 10 })
    armHold()
    // Node discards the body of a request whose connection closed before anything read it; Fastify
    // then waited for that body forever: no answer, no usage line (seen on PostgreSQL, where the key
    // check is a round trip).
    const call = sendRaw(searchHead(acct.apiKey.key, Buffer.byteLength(search), '\r\nx-test-hold: 1'), search)
    await held.arrived
    call.socket.destroy()
    await call.closed
    await new Promise((r) => setTimeout(r, 50))
    held.release()
    const rows = await usageOf(acct.account.id)
    expect(rows).toEqual([expect.objectContaining({ endpoint: '/api/v1/search/posts', status: 499, requests: 1, billable: 0, credits: 0 })])
    expect((await t.c.ledger.entries(acct.account.id)).filter((e) => e.kind === 'debit')).toEqual([])
  })

  it('half-closed (its end sent, still reading) while its key was being checked: counted as 499, not billed, sent nothing', async () => {
    t.clock.advance(5_000)
    const acct = await t.c.accounts.create({ name: 'half-closed', plan: 'custom', creditsLimit: 100, rpsLimit: 10 })
    armHold()
    // A client's end of the stream is how it leaves; one that only half-closed sends the same, and must
    // not read an answer it was not billed for.
    const call = sendRaw(searchHead(acct.apiKey.key, Buffer.byteLength(search), '\r\nx-test-hold: 1'), search)
    let text = ''
    call.socket.on('data', (d) => (text += d.toString()))
    await held.arrived
    call.socket.end()
    await new Promise((r) => setTimeout(r, 50))
    held.release()
    await call.closed
    expect(text).toBe('')
    const rows = await usageOf(acct.account.id)
    expect(rows).toEqual([expect.objectContaining({ endpoint: '/api/v1/search/posts', status: 499, requests: 1, billable: 0, credits: 0 })])
    expect((await t.c.ledger.entries(acct.account.id)).filter((e) => e.kind === 'debit')).toEqual([])
  })

  it.each([
    ['its end of the stream arrived', 'read'],
    ['its connection can no longer be written', 'write'],
  ])('%s by the time its answer was ready: counted as 499, not billed, its connection closed', async (_what, how) => {
    t.clock.advance(5_000)
    const acct = await t.c.accounts.create({ name: `ended-${how}`, plan: 'custom', creditsLimit: 100, rpsLimit: 10 })
    const headers = { 'x-api-key': acct.apiKey.key, 'x-test-ended': how }
    destroyed.length = 0
    await t.app.inject({ method: 'POST', url: '/api/v1/search/posts', headers, payload: { query: 'hiring' } })
    await t.app.inject({ method: 'GET', url: `/api/v1/company?companyUrlOrUrn=${COMPANY_ID}`, headers })
    const rows = await t.c.ledger.usage(acct.account.id, '2000-01-01', '2100-01-01')
    expect(rows.map((r) => ({ endpoint: r.endpoint, status: r.status, credits: r.credits })).sort((a, b) => a.endpoint.localeCompare(b.endpoint))).toEqual([
      { endpoint: '/api/v1/company', status: 499, credits: 0 },
      { endpoint: '/api/v1/search/posts', status: 499, credits: 0 },
    ])
    expect((await t.c.ledger.entries(acct.account.id)).filter((e) => e.kind === 'debit')).toEqual([])
    expect(destroyed).toEqual(['/api/v1/search/posts', `/api/v1/company?companyUrlOrUrn=${COMPANY_ID}`])
  })

  it('half-closed while its answer was being committed: answered, and billed for the answer', async () => {
    t.clock.advance(5_000)
    const acct = await t.c.accounts.create({ name: 'half-closed-settling', plan: 'custom', creditsLimit: 100, rpsLimit: 10 })
    // The settle commits the usage line and the debit before the answer goes: the client's end arrives
    // while it does (a PostgreSQL round trip). By Node's default the connection ended then, and the
    // answer billed was dropped.
    const settle = t.c.metering.settle.bind(t.c.metering)
    let ended: (() => void) | undefined
    const arrived = new Promise<void>((r) => (ended = r))
    const spy = vi.spyOn(t.c.metering, 'settle').mockImplementation(async (hold, line) => {
      if (line.accountId === acct.account.id) {
        call.socket.end()
        await arrived
      }
      return settle(hold, line)
    })
    let text = ''
    const call = sendRaw(searchHead(acct.apiKey.key, Buffer.byteLength(search)), search)
    call.socket.on('data', (d) => (text += d.toString()))
    call.socket.on('end', () => {})
    // Give the end time to reach the server before the settle goes on.
    setTimeout(() => ended?.(), 50)
    try {
      await call.closed
    } finally {
      spy.mockRestore()
    }
    expect(text).toMatch(/^HTTP\/1\.1 200 /)
    expect(text).toMatch(/x-credits-charged: 1\r\n/i)
    const rows = await usageOf(acct.account.id)
    expect(rows).toEqual([expect.objectContaining({ endpoint: '/api/v1/search/posts', status: 200, requests: 1, billable: 1, credits: 1 })])
  })

  it('half-closed after pipelining two calls, the second answered first: both answered in order, both billed', async () => {
    t.clock.advance(5_000)
    const acct = await t.c.accounts.create({ name: 'pipelined-half-closed', plan: 'custom', creditsLimit: 100, rpsLimit: 10 })
    armHold()
    // The first call waits; the second is settled (billed) and its answer queued behind the first's.
    // Then the client's end arrives. Judged gone, the first call closed the connection, and the second,
    // billed, was lost with it.
    const second = `GET /api/v1/company?companyUrlOrUrn=${COMPANY_ID} HTTP/1.1\r\nhost: x\r\nx-api-key: ${acct.apiKey.key}\r\n\r\n`
    const call = sendRaw(searchHead(acct.apiKey.key, Buffer.byteLength(search), '\r\nx-test-hold: 1'), search + second)
    let text = ''
    call.socket.on('data', (d) => (text += d.toString()))
    await held.arrived
    expect(await usageOf(acct.account.id)).toEqual([expect.objectContaining({ endpoint: '/api/v1/company', status: 200, credits: 1 })])
    call.socket.end()
    await new Promise((r) => setTimeout(r, 50))
    held.release()
    await call.closed
    const statuses = [...text.matchAll(/HTTP\/1\.1 (\d+) /g)].map((m) => m[1])
    expect(statuses).toEqual(['200', '200'])
    // The search's answer first (its body holds results), then the company's.
    const results = text.indexOf('"results"')
    expect(results).toBeGreaterThan(0)
    expect(results).toBeLessThan(text.lastIndexOf('HTTP/1.1 200 '))
    const rows = await t.c.ledger.usage(acct.account.id, '2000-01-01', '2100-01-01')
    expect(rows.map((r) => [r.endpoint, r.status, r.credits]).sort()).toEqual([
      ['/api/v1/company', 200, 1],
      ['/api/v1/search/posts', 200, 1],
    ])
  })

  it.each(['destroy', 'end'] as const)(
    'left halfway through its body (%s): counted as 499, sent nothing, and logged as the client leaving, not as a failure',
    async (how) => {
      t.clock.advance(5_000)
      const acct = await t.c.accounts.create({ name: `gone-mid-body-${how}`, plan: 'custom', creditsLimit: 100, rpsLimit: 10 })
      const error = vi.spyOn(t.c.logger, 'error')
      try {
        const call = sendRaw(searchHead(acct.apiKey.key, 200), search.slice(0, 10))
        let text = ''
        call.socket.on('data', (d) => (text += d.toString()))
        const rows = await usageOf(acct.account.id, () => (how === 'end' ? call.socket.end() : call.socket.destroy()))
        expect(rows).toEqual([expect.objectContaining({ endpoint: '/api/v1/search/posts', status: 499, requests: 1, billable: 0, credits: 0 })])
        await call.closed
        // A half-closed client was sent a 400 "not valid HTTP/1.1" for the request counted as 499.
        expect(text).toBe('')
        expect(error).not.toHaveBeenCalled()
      } finally {
        error.mockRestore()
      }
    },
  )
})
