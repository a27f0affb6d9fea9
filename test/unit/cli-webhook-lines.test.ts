/** How the CLI words a delivery: its state (a disabled endpoint's wait among them) and each attempt. */
import { describe, expect, it } from 'vitest'
import { deliveryLines } from '../../src/cli/webhooks.command.ts'

const pending = {
  id: 'evt_1.wh_1',
  eventId: 'evt_1',
  event: 'credits.low',
  state: 'pending' as const,
  createdAt: '2026-12-06T20:00:00.000Z',
  nextAttemptAt: '2026-12-06T20:00:30.000Z',
  attempts: [
    { at: '2026-12-06T20:00:00.000Z', status: 500, error: 'The receiver answered 500.', durationMs: 4 },
    { at: '2026-12-06T20:00:01.000Z', status: null, error: 'No answer within 10 s.', durationMs: 10_001 },
    { at: '2026-12-06T20:00:02.000Z', status: null, error: 'Not sent: the host 10.0.0.1 resolves to a private or local address, which deliveries may not reach.', durationMs: 0 },
  ],
}

describe('a delivery in the CLI', () => {
  it('says when it is tried next, or that it waits for its endpoint to be enabled', () => {
    expect(deliveryLines(pending)[0]).toBe('2026-12-06T20:00:00.000Z  credits.low  evt_1  pending, next attempt 2026-12-06T20:00:30.000Z')
    expect(deliveryLines(pending, false)[0]).toBe('2026-12-06T20:00:00.000Z  credits.low  evt_1  pending, waits until the endpoint is enabled')
    expect(deliveryLines({ ...pending, state: 'failed', nextAttemptAt: null }, false)[0]).toMatch(/failed \(given up\)$/)
  })

  it('tells an attempt answered, unanswered and never sent apart', () => {
    expect(deliveryLines(pending).slice(1)).toEqual([
      '  2026-12-06T20:00:00.000Z  HTTP 500  4 ms  The receiver answered 500.',
      '  2026-12-06T20:00:01.000Z  no answer  10001 ms  No answer within 10 s.',
      '  2026-12-06T20:00:02.000Z  not sent  0 ms  Not sent: the host 10.0.0.1 resolves to a private or local address, which deliveries may not reach.',
    ])
  })
})
