/**
 * A deadline on a Redis reply that only a slow Redis can miss, not a busy node.
 *
 * ioredis's own `commandTimeout` is a timer, and after a stall of this process (a long synchronous
 * task, a collection, the process descheduled on a loaded machine) the event loop runs due timers
 * before it reads the sockets: a reply that arrived promptly while the process was stalled would be
 * counted as a timeout and send the node to its fallback, where it admits calls from its local share
 * that the shared log never sees (so more calls could be admitted than the budget holds).
 *
 * Here the expired timer defers its verdict with setImmediate, which runs after the event loop's
 * poll phase: every reply already in a socket buffer has been read (and its promise settled) by then.
 */
export class ReplyTimeout extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`)
    this.name = 'ReplyTimeout'
  }
}

/** `reply`, or a ReplyTimeout when it has not settled `ms` after the call and after the next socket read. */
export function withReplyDeadline<T>(reply: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (settled) return
        settled = true
        reject(new ReplyTimeout(ms))
      })
    }, ms)
    reply.then(
      (value) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resolve(value)
      },
      (e: unknown) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        reject(e)
      },
    )
  })
}
