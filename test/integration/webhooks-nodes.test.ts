/**
 * Webhooks from serving nodes as operators run them: two server processes on one PostgreSQL and one
 * Redis, each looking for events and sending deliveries on its own timers. A subscription change made
 * on one node reaches the receiver once, signed, within seconds; however many rounds both nodes run
 * after, it is not sent again, and its delivery shows the one attempt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifySignature } from '../../src/webhooks/webhook-signature.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'
import { redisAvailable } from '../helpers/redis.ts'
import { startNodeCluster, type NodeCluster } from '../helpers/node-cluster.ts'
import type { ServerProcess } from '../helpers/server-process.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts'

const ADMIN = 'webhooks-nodes-admin-token'
const available = (await postgresAvailable()) && (await redisAvailable())

describe.skipIf(!available)('webhooks from two serving nodes', () => {
  let db: { url: string; drop(): Promise<void> }
  let cluster: NodeCluster | undefined
  let nodes: ServerProcess[] = []
  let receiver: WebhookReceiver
  const admin: NodeCluster['admin'] = (...args) => (cluster as NodeCluster).admin(...args)

  beforeAll(async () => {
    receiver = await startWebhookReceiver()
    db = await createTestDatabase('pronet_webhook_nodes')
    cluster = await startNodeCluster({ databaseUrl: db.url, count: 2, adminToken: ADMIN, env: { PRONET_WEBHOOK_PRIVATE_URLS: 'allow' } })
    nodes = cluster.nodes
  }, 180_000)

  afterAll(async () => {
    await cluster?.stop()
    await db?.drop()
    await receiver?.close()
  }, 60_000)

  it('a change made on one node is delivered once, signed, by whichever node sends it', async () => {
    const created = await admin(nodes[0]!, 'POST', '/admin/v1/accounts', { name: 'hooked', plan: 'custom', creditsLimit: 1000, rpsLimit: 10 })
    const { account } = (await created.json()) as { account: { id: string } }
    const { url, received } = receiver
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
    expect(verifySignature(webhook.secret, String(got.headers['pronet-signature']), got.body, Math.floor(got.at / 1000))).toBe(true)
    const event = got.json
    expect(event).toMatchObject({ type: 'subscription.changed', account: account.id, data: { changes: { creditsLimit: 2000 } } })
    const listed = (await (await admin(nodes[0]!, 'GET', `/admin/v1/accounts/${account.id}/webhooks/${webhook.id}/deliveries`)).json()) as {
      deliveries: { eventId: string; state: string; attempts: { status: number }[] }[]
    }
    expect(listed.deliveries).toEqual([expect.objectContaining({ eventId: event.id, state: 'delivered', attempts: [expect.objectContaining({ status: 204 })] })])
  }, 60_000)
})
