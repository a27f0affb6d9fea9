/**
 * A TCP proxy between a pool and PostgreSQL that can lose a COMMIT on purpose. It reads the client's
 * side of the protocol message by message (the length-prefixed startup messages, then type byte +
 * length), and when a simple query ('Q') matches the armed fault:
 *   - 'apply': forwards that query and half-closes the server side after it (so the server runs it
 *     to the end, COMMIT included, but its reply is thrown away): an applied COMMIT whose answer was
 *     lost. Then it cuts every connection it carries (the client sees "Connection terminated
 *     unexpectedly", as when the server stops) and refuses new ones (accepts and closes them at once)
 *     for `outageMs`.
 *   - 'drop': the same, but the query never reaches the server, which rolls the transaction back on EOF.
 *   - 'hang': a network cut: the query is not forwarded and nothing is closed; every connection stops
 *     carrying anything in either direction, for good, and new ones accepted during `outageMs` hang
 *     too. A client that gives up and closes its side leaves the server side open (the server never
 *     learns): the session stays idle in its transaction until the server's own timeouts end it.
 */
import net from 'node:net'

export interface Fault {
  /** Which simple query trips the fault (its SQL text). */
  match: (sql: string) => boolean
  /** 'apply': it reaches the server, only the reply is lost; 'drop': it never arrives; 'hang': a network cut. */
  effect: 'apply' | 'drop' | 'hang'
  /** How long new connections are refused after the fault (ms). */
  outageMs: number
}

export interface PgProxy {
  /** `url` (a postgres:// URL) pointed at the proxy instead. */
  url(url: string): string
  /** Arms a one-shot fault; resolves when it has fired. */
  arm(fault: Fault): Promise<void>
  /** Faults fired so far. */
  readonly fired: number
  /** Connections accepted while not refusing (each a fresh connection to the server). */
  readonly connections: number
  /** Ends a refusal period now, and closes the connections a network cut left hanging. */
  heal(): void
  close(): Promise<void>
}

const SSL_REQUEST = 80877103
const GSS_REQUEST = 80877104
const QUERY = 0x51 // 'Q'

interface Pair {
  client: net.Socket
  server: net.Socket
  /** The server side is left open (to finish the forwarded query, or never told); nothing more is relayed. */
  lingering: boolean
}

export async function startPgProxy(target: { host: string; port: number }): Promise<PgProxy> {
  const pairs = new Set<Pair>()
  let armed: (Fault & { fired: () => void }) | undefined
  let refuseUntil = 0
  let hangNew = false
  /** Connections accepted during a network cut, never answered. */
  const hung = new Set<net.Socket>()
  let fired = 0
  let connections = 0

  function trip(tripped: Pair, query: Buffer, fault: Fault): void {
    refuseUntil = Date.now() + fault.outageMs
    hangNew = fault.effect === 'hang'
    fired++
    if (fault.effect === 'hang') {
      for (const p of pairs) p.lingering = true
      return
    }
    if (fault.effect === 'apply') {
      tripped.lingering = true
      tripped.server.write(query)
      // FIN after the query: the server reads it whole, runs it, then sees EOF and ends the session.
      tripped.server.end()
    } else {
      tripped.server.destroy()
    }
    tripped.client.destroy()
    for (const p of pairs) {
      if (p === tripped) continue
      p.client.destroy()
      p.server.destroy()
    }
  }

  const listener = net.createServer((client) => {
    client.on('error', () => {})
    if (Date.now() < refuseUntil) {
      // Refused, or (a network cut) never answered.
      if (!hangNew) client.destroy()
      else {
        hung.add(client)
        client.on('close', () => hung.delete(client))
      }
      return
    }
    connections++
    const server = net.connect(target.port, target.host)
    server.on('error', () => {})
    const pair: Pair = { client, server, lingering: false }
    pairs.add(pair)
    server.on('data', (d: Buffer) => {
      if (!pair.lingering && !client.destroyed) client.write(d)
    })
    server.on('close', () => {
      pairs.delete(pair)
      // Across a network cut the client never learns that the server closed.
      if (!pair.lingering) client.destroy()
    })
    client.on('close', () => {
      pairs.delete(pair)
      if (!pair.lingering) server.destroy()
    })
    let pending = Buffer.alloc(0)
    let startup = true
    client.on('data', (chunk: Buffer) => {
      if (pair.lingering) return
      pending = Buffer.concat([pending, chunk])
      for (;;) {
        if (startup) {
          if (pending.length < 8) return
          const length = pending.readInt32BE(0)
          if (pending.length < length) return
          const message = pending.subarray(0, length)
          pending = pending.subarray(length)
          const code = message.readInt32BE(4)
          if (code !== SSL_REQUEST && code !== GSS_REQUEST) startup = false
          server.write(message)
          continue
        }
        if (pending.length < 5) return
        const length = pending.readInt32BE(1)
        if (pending.length < 1 + length) return
        const message = pending.subarray(0, 1 + length)
        pending = pending.subarray(1 + length)
        if (armed && message[0] === QUERY) {
          // The query text, without its terminating NUL.
          const sql = message.subarray(5, message.length - 1).toString('utf8')
          if (armed.match(sql)) {
            const fault = armed
            armed = undefined
            trip(pair, message, fault)
            fault.fired()
            return
          }
        }
        server.write(message)
      }
    })
  })
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  const port = (listener.address() as net.AddressInfo).port

  return {
    url(url) {
      const u = new URL(url)
      u.hostname = '127.0.0.1'
      u.port = String(port)
      return u.toString()
    },
    arm(fault) {
      return new Promise<void>((fired) => (armed = { ...fault, fired }))
    },
    get fired() {
      return fired
    },
    get connections() {
      return connections
    },
    heal() {
      refuseUntil = 0
      // Connections left hanging by a network cut fail now rather than at their connect timeout.
      for (const c of hung) c.destroy()
    },
    async close() {
      for (const c of hung) c.destroy()
      for (const p of pairs) {
        p.client.destroy()
        p.server.destroy()
      }
      await new Promise<void>((resolve) => listener.close(() => resolve()))
    },
  }
}
