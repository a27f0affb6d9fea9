/**
 * Webhooks from serving nodes as operators run them: two server processes on one PostgreSQL and one
 * Redis, each looking for events and sending deliveries on its own timers. A subscription change made
 * on one node reaches the receiver once, signed, within seconds; however many rounds both nodes run
 * after, it is not sent again, and its delivery shows the one attempt.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifySignature } from '../../src/webhooks/webhook-signature.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'
import { REDIS_URL, redisAvailable } from '../helpers/redis.ts'
import { startServer, type ServerProcess } from '../helpers/server-process.ts'

const ADMIN = 'webhooks-nodes-admin-token'
const available = (await postgresAvailable()) && (await redisAvailable())

describe.skipIf(!available)('webhooks from two serving nodes', () => {
  let db: { url: string; drop(): Promise<void> }
  const dirs: string[] = []
  let nodes: ServerProcess[] = []
  let receiver: Server
  const received: { signature: string; body: string; at: number }[] = []

  const admin = (node: ServerProcess, method: string, path: string, body?: unknown) =>
    fetch(`${node.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        received.push({ signature: String(req.headers['pronet-signature']), body: Buffer.concat(chunks).toString('utf8'), at: Date.now() })
        res.end()
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    db = await createTestDatabase('pronet_webhook_nodes')
    nodes = await Promise.all(
      [0, 1].map(() => {
        const dir = mkdtempSync(join(tmpdir(), 'pronet-webhook-node-'))
        dirs.push(dir)
        return startServer({
          dataDir: dir,
          env: { DATABASE_URL: db.url, REDIS_URL, PRONET_SEED: '20', PRONET_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', PRONET_WEBHOOK_PRIVATE_URLS: 'allow' },
          timeoutMs: 120_000,
        })
      }),
    )
  }, 180_000)

  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.kill()))
    await db?.drop()
    await new Promise((resolve) => receiver?.close(resolve))
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  }, 60_000)

  it('a change made on one node is delivered once, signed, by whichever node sends it', async () => {
    const created = await admin(nodes[0]!, 'POST', '/admin/v1/accounts', { name: 'hooked', plan: 'custom', creditsLimit: 1000, rpsLimit: 10 })
    const { account } = (await created.json()) as { account: { id: string } }
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/events`
    const made = await admin(nodes[1]!, 'POST', `/admin/v1/accounts/${account.id}/webhooks`, { url, events: ['subscription.changed'] })
    expect(made.status).toBe(201)
    const webhook = (await made.json()) as { id: string; secret: string }

    expect((await admin(nodes[0]!, 'PUT', `/admin/v1/accounts/${account.id}/subscription`, { creditsLimit: 2000 })).status).toBe(200)
    const deadline = Date.now() + 20_000
    while (received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect(received).toHaveLength(1)
    // Several more rounds of both nodes' timers: nothing is sent again.
    await new Promise((r) => setTimeout(r, 7_000))
    expect(received).toHaveLength(1)

    const got = received[0]!
    expect(verifySignature(webhook.secret, got.signature, got.body, Math.floor(got.at / 1000))).toBe(true)
    const event = JSON.parse(got.body) as { id: string; type: string; account: string; data: unknown }
    expect(event).toMatchObject({ type: 'subscription.changed', account: account.id, data: { changes: { creditsLimit: 2000 } } })
    const listed = (await (await admin(nodes[0]!, 'GET', `/admin/v1/accounts/${account.id}/webhooks/${webhook.id}/deliveries`)).json()) as {
      deliveries: { eventId: string; state: string; attempts: { status: number }[] }[]
    }
    expect(listed.deliveries).toEqual([expect.objectContaining({ eventId: event.id, state: 'delivered', attempts: [expect.objectContaining({ status: 200 })] })])
  }, 60_000)
})
