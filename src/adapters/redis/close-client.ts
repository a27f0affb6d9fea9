/**
 * Closing an ioredis client so that it always finishes, whatever state its connection is in. A plain
 * `quit()` does not: on a client with an offline queue that is not connected (Redis unreachable since
 * start, or gone and being retried) QUIT is queued behind the commands already waiting, and with
 * `maxRetriesPerRequest: null` those wait for a connection that never comes, so the promise never
 * settles and a graceful shutdown hangs for ever. On a connected client whose server has stopped
 * answering (a partition) QUIT waits for a reply without end unless the client has a commandTimeout.
 */
import type { Redis } from 'ioredis'

/** How long a connected client may take to answer QUIT before its socket is simply dropped. */
export const QUIT_TIMEOUT_MS = 500

/**
 * ioredis's `disconnectTimeout` for every client of these adapters. disconnect() arms a timer of this
 * length to destroy a socket that has not closed; when the socket is already gone (the client was
 * between retries) nothing ever clears it, so it holds the process open for its whole length (2 s
 * by default) after close(). A socket that is still open is destroyed just as surely after 200 ms.
 */
export const DISCONNECT_TIMEOUT_MS = 200

/**
 * Sends QUIT when the client is connected (the server finishes what is in flight and closes its end),
 * waiting at most `quitTimeoutMs`; otherwise, or after that wait, drops the connection and stops the
 * reconnect loop at once. Never rejects; afterwards no socket or retry timer of the client is left.
 */
export async function closeRedisClient(client: Redis, quitTimeoutMs = QUIT_TIMEOUT_MS): Promise<void> {
  if (client.status === 'ready') {
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      client.quit().catch(() => {}),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, quitTimeoutMs)
      }),
    ])
    clearTimeout(timer)
  }
  // Harmless after a QUIT that ended the connection; the only way out of any other state: it clears a
  // pending reconnect and destroys a socket still connecting, and nothing queued is ever sent.
  client.disconnect()
}
