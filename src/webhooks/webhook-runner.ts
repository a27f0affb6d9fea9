/**
 * The background work of webhooks on a serving node: look for new events every few seconds and send
 * what is due every second. Every node runs it; the store keeps them from recording or sending
 * anything twice. A round never overlaps the one before it.
 */
import type { WebhooksService } from './webhooks.service.ts'

export const FIND_EVERY_MS = 5_000
export const DELIVER_EVERY_MS = 1_000

export function startWebhookWork(webhooks: WebhooksService, onError: (err: unknown, what: string) => void): { stop(): Promise<void> } {
  const running = new Set<Promise<unknown>>()
  const loop = (work: () => Promise<unknown>, everyMs: number, what: string) => {
    let busy = false
    const timer = setInterval(() => {
      if (busy) return
      busy = true
      const round = work()
        .catch((err: unknown) => onError(err, what))
        .finally(() => {
          busy = false
          running.delete(round)
        })
      running.add(round)
    }, everyMs)
    timer.unref()
    return timer
  }
  const timers = [loop(() => webhooks.findEvents(), FIND_EVERY_MS, 'look for webhook events'), loop(() => webhooks.deliverDue(), DELIVER_EVERY_MS, 'send webhook deliveries')]
  return {
    async stop() {
      for (const t of timers) clearInterval(t)
      await Promise.allSettled([...running])
    },
  }
}
