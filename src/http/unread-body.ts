/**
 * A request refused before its body was read (a body over the limit, a wrong key) still has that body
 * on its way. Closing the connection with unread bytes makes the kernel answer with a TCP reset,
 * which can destroy the refusal before the client reads it. So the rest of the body is read and
 * discarded first, up to a bound; the refusal then goes out on a connection that is in step (kept
 * open), or closes cleanly after it.
 */
import type { IncomingMessage } from 'node:http'

/** The most of a refused body read and thrown away; past it the connection is closed after the answer. */
export const DISCARD_LIMIT = 32 * 1024 * 1024

/**
 * Reads what is left of `req`'s body and throws it away. Resolves true once the body has ended (the
 * connection is in step), false when more than `limit` bytes would have to be read or the connection
 * closed first (it must not be reused).
 */
export function discardBody(req: IncomingMessage, limit = DISCARD_LIMIT): Promise<boolean> {
  // Read whole: by Node's parser (`complete`), or to its end by a reader (a request made in process
  // by app.inject has no parser).
  if (req.complete || req.readableEnded) return Promise.resolve(true)
  if (req.destroyed) return Promise.resolve(false)
  const declared = Number(req.headers['content-length'])
  if (declared > limit) return Promise.resolve(false)
  return new Promise((resolve) => {
    let read = 0
    const finish = (inStep: boolean) => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('close', onClose)
      req.off('error', onClose)
      resolve(inStep)
    }
    const onData = (chunk: Buffer) => {
      read += chunk.length
      if (read > limit) finish(false)
    }
    const onEnd = () => finish(true)
    const onClose = () => finish(req.complete)
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('close', onClose)
    req.on('error', onClose)
    req.resume()
  })
}
