/**
 * A webhook receiver of a test's own on 127.0.0.1: it keeps every delivery (with the instant `now`
 * gives as it arrives) and answers each with the next status of `answers`, 204 once they run out.
 * The service reaches it only with PRONET_WEBHOOK_PRIVATE_URLS=allow.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ReceivedDelivery {
  /** When it arrived, by the `now` the receiver was given (ms). */
  at: number
  method: string
  headers: IncomingHttpHeaders
  body: string
  json: { id: string; type: string; createdAt: string; account: string; data: Record<string, unknown> }
}

export interface WebhookReceiver {
  /** An address on it (`/hooks`). */
  url: string
  received: ReceivedDelivery[]
  /** Statuses to answer with, in turn; 204 once empty. */
  answers: number[]
  close(): Promise<void>
}

export async function startWebhookReceiver(now: () => number = Date.now): Promise<WebhookReceiver> {
  const receiver: Omit<WebhookReceiver, 'url' | 'close'> = { received: [], answers: [] }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      receiver.received.push({ at: now(), method: req.method ?? '', headers: req.headers, body, json: JSON.parse(body) })
      res.statusCode = receiver.answers.shift() ?? 204
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  })
}
