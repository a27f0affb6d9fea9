/**
 * A delivery connects only to an address that passed the private-address check: the name is
 * resolved once an attempt, by the socket, through the check, so a name whose answer changes (DNS
 * rebinding) cannot lead it to a private address.
 */
import type { LookupAddress } from 'node:dns'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import type { Attempt, DueDelivery, WebhookStore } from '../../src/ports/webhook-store.ts'
import { createDelivery } from '../../src/webhooks/webhook-delivery.ts'
import { guardedLookup, postWebhook, RefusedDestinationError } from '../../src/webhooks/webhook-post.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts'

/** A resolver answering each call with the next list of `answers` (the last one repeats). */
const answering = (...answers: string[][]) => {
  const calls: string[] = []
  const resolve = async (host: string) => {
    calls.push(host)
    return answers[Math.min(calls.length - 1, answers.length - 1)] as string[]
  }
  return { resolve, calls }
}

const lookupWith = (resolve: (host: string) => Promise<string[]>, all: boolean, family?: number) =>
  new Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }>((done) => {
    guardedLookup(resolve)('hooks.test', { all, ...(family ? { family } : {}) }, (err, address, fam) => done({ err, address, ...(fam !== undefined ? { family: fam } : {}) }))
  })

let receiver: WebhookReceiver | undefined
afterEach(async () => {
  await receiver?.close()
  receiver = undefined
})

describe('the connection lookup of a delivery', () => {
  it('answers public addresses as the socket asks for them, and refuses a host with any private one', async () => {
    const publicOnly = answering(['93.184.216.34', '2606:2800:220:1::1'])
    expect(await lookupWith(publicOnly.resolve, true)).toEqual({
      err: null,
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1::1', family: 6 },
      ],
    })
    expect(await lookupWith(publicOnly.resolve, false)).toEqual({ err: null, address: '93.184.216.34', family: 4 })
    expect(await lookupWith(publicOnly.resolve, false, 6)).toEqual({ err: null, address: '2606:2800:220:1::1', family: 6 })

    const mixed = await lookupWith(answering(['93.184.216.34', '10.0.0.5']).resolve, true)
    expect(mixed.err).toBeInstanceOf(RefusedDestinationError)
    expect(mixed.err?.message).toBe('the host hooks.test resolves to a private or local address, which deliveries may not reach')
    const none = (await lookupWith(answering([]).resolve, true)).err
    expect([none instanceof RefusedDestinationError, none?.message]).toEqual([true, 'the host hooks.test has no address'])
    const gone = await new Promise<Error | null>((done) => guardedLookup(async () => Promise.reject(new Error('ENOTFOUND')))('gone.test', { all: true }, (err) => done(err)))
    expect([gone instanceof RefusedDestinationError, gone?.message]).toEqual([true, 'the host gone.test could not be resolved'])
    expect((await lookupWith(answering(['93.184.216.34']).resolve, false, 6)).err).toMatchObject({ code: 'ENOTFOUND' })
  })

  it('is the one the POST connects through: a name no DNS knows reaches the address it gives', async () => {
    receiver = await startWebhookReceiver()
    const port = new URL(receiver.url).port
    const viaOwnLookup = await postWebhook(`http://hooks.test:${port}/hooks`, {
      headers: { 'content-type': 'application/json' },
      body: '{"id":"evt_1"}',
      timeoutMs: 5_000,
      lookup: (_host, options, callback) => (options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4)),
    })
    expect(viaOwnLookup).toBe(204)
    expect(receiver.received.map((r) => r.body)).toEqual(['{"id":"evt_1"}'])

    const guarded = postWebhook(`http://hooks.test:${port}/hooks`, { headers: {}, body: '{}', timeoutMs: 5_000, lookup: guardedLookup(answering(['127.0.0.1']).resolve) })
    await expect(guarded).rejects.toBeInstanceOf(RefusedDestinationError)
    expect(receiver.received).toHaveLength(1)
  })
})

describe('a delivery to a name that resolves to a private address', () => {
  it('resolves it once, by the connection, and is not sent: the answer checked is the one connected to', async () => {
    receiver = await startWebhookReceiver()
    const port = new URL(receiver.url).port
    const due: DueDelivery = { id: 'dlv_1', webhookId: 'wh_1', url: `http://rebind.test:${port}/hooks`, secret: 'whsec_x', body: '{"id":"evt_1"}', createdAt: 0, attempts: 0 }
    const finished: { attempt: Attempt; next: { state: string; nextAt: number } }[] = []
    const store = {
      takeOne: async () => due,
      finish: async (_id: string, attempt: Attempt, next: { state: string; nextAt: number }) => void finished.push({ attempt, next }),
    } as unknown as WebhookStore
    const dns = answering(['127.0.0.1'], ['93.184.216.34'])
    const delivery = createDelivery({ store, clock: { now: () => 1_000 }, allowPrivate: false, resolve: dns.resolve, timeoutMs: 5_000 })
    await delivery.deliverOne('dlv_1')

    expect(dns.calls).toEqual(['rebind.test'])
    expect(receiver.received).toEqual([])
    expect(finished).toHaveLength(1)
    expect(finished[0]?.attempt).toMatchObject({
      status: null,
      error: 'Not sent: the host rebind.test resolves to a private or local address, which deliveries may not reach.',
    })
    expect(finished[0]?.next).toEqual({ state: 'pending', nextAt: 31_000 })
  })

  it('a private address as written is not sent, and nothing is resolved', async () => {
    const finished: Attempt[] = []
    const due: DueDelivery = { id: 'dlv_3', webhookId: 'wh_1', url: 'https://[::ffff:7f00:1]/hooks', secret: 'whsec_x', body: '{}', createdAt: 0, attempts: 0 }
    const store = { takeOne: async () => due, finish: async (_id: string, attempt: Attempt) => void finished.push(attempt) } as unknown as WebhookStore
    const dns = answering(['93.184.216.34'])
    await createDelivery({ store, clock: { now: () => 0 }, allowPrivate: false, resolve: dns.resolve, timeoutMs: 2_000 }).deliverOne('dlv_3')
    expect(dns.calls).toEqual([])
    expect(finished[0]).toMatchObject({ status: null, error: 'Not sent: the host ::ffff:7f00:1 is a private or local address, which deliveries may not reach.' })
  })
})

describe('a failed attempt', () => {
  const attemptTo = async (url: string, timeoutMs: number): Promise<Attempt> => {
    const finished: Attempt[] = []
    const due: DueDelivery = { id: 'dlv_2', webhookId: 'wh_1', url, secret: 'whsec_x', body: '{}', createdAt: 0, attempts: 0 }
    const store = { takeOne: async () => due, finish: async (_id: string, attempt: Attempt) => void finished.push(attempt) } as unknown as WebhookStore
    await createDelivery({ store, clock: { now: () => 0 }, allowPrivate: true, timeoutMs }).deliverOne('dlv_2')
    return finished[0] as Attempt
  }

  it('says why: no answer in time, a refused connection, or the status a receiver answered', async () => {
    const silent = createServer(() => {})
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const silentPort = (silent.address() as AddressInfo).port
    try {
      expect(await attemptTo(`http://127.0.0.1:${silentPort}/`, 200)).toMatchObject({ status: null, error: 'No answer within 0.2 s.' })
    } finally {
      silent.closeAllConnections()
      await new Promise((resolve) => silent.close(resolve))
    }
    // The silent server's port, now closed: nothing listens there.
    expect(await attemptTo(`http://127.0.0.1:${silentPort}/`, 2_000)).toMatchObject({ status: null, error: 'Could not connect (ECONNREFUSED).' })
    receiver = await startWebhookReceiver()
    receiver.answers.push(302)
    expect(await attemptTo(receiver.url, 2_000)).toMatchObject({ status: 302, error: 'The receiver answered 302.' })
  })
})
