/**
 * Requests that Node's HTTP parser refuses before Fastify sees them: headers over the limit (which a
 * long query string counts towards), bytes that are not HTTP, and requests that did not arrive in time.
 * Node's own answers have an empty body or Fastify's, with statuses the API does not use (431, 408).
 * Here they get the API's error envelope as 400 INVALID_PARAMETER, free, with the headers of every
 * answer. There is no request or reply yet, so the answer is written on the socket by hand, and the
 * connection is always closed: the parser cannot resume after an error.
 *
 * Nothing is written when a response on the connection has begun or is owed to an earlier request
 * (a second message would be read as, or inside, that one), and nothing when the client's end of the
 * stream came in the middle of a request (HPE_INVALID_EOF_STATE) or the connection was reset: the
 * client has left, and a request already under way is recorded as 499.
 *
 * Which responses a connection owes is tracked from the server's `request` event: each connection's
 * responses until they are sent, in request order (Node writes them in that order).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { ApiError } from '../domain/errors.ts'

export interface ClientErrors {
  /** Fastify's clientErrorHandler. */
  handle(error: Error & { code?: string }, socket: Socket): void
  /** Starts tracking the responses of `server`'s connections (once, before it listens). */
  watch(server: Server): void
}

export function createClientErrors(options: {
  /** The time limits of a request's headers and of all of it (ms), for the message of one that did not arrive in time. */
  timeouts: { headersTimeout: number; requestTimeout: number }
  /** Header lines every answer carries (security headers), each ending in CRLF. */
  headerLines: string
  /** A new request id (the app's own generator), so this answer carries X-Request-Id as every answer does. */
  requestId: () => string
}): ClientErrors {
  /** Per connection, the responses of its requests that are not done (see `done`), oldest first. */
  const owed = new WeakMap<object, ServerResponse[]>()
  const done = (res: ServerResponse) => res.writableFinished && res.req.complete

  // A response that went out for a request whose body had all arrived is done with. One sent before
  // its request's body had arrived stays: a timeout while that body still trickles in must not be
  // answered a second time. It goes once its request completes and the next one arrives.
  function forget(this: ServerResponse): void {
    const list = owed.get(this.req.socket)
    if (list === undefined || !this.req.complete) return
    const i = list.indexOf(this)
    if (i >= 0) list.splice(i, 1)
  }

  /** Whether an answer written now is read as the answer to the request that failed, and nothing else. */
  function answerable(socket: object): boolean {
    const list = owed.get(socket)
    if (list === undefined) return true
    let unanswered = 0
    for (const res of list) {
      if (done(res)) continue
      // A response begun (or sent before its request arrived), or one owed to a request that has
      // arrived whole and is being served: a message written now would land inside or before it.
      if (res.headersSent || res.req.complete) return false
      unanswered++
    }
    return unanswered <= 1
  }

  const seconds = (ms: number) => `${ms / 1000} second${ms === 1000 ? '' : 's'}`
  const { headersTimeout, requestTimeout } = options.timeouts
  const limits =
    headersTimeout < requestTimeout ? `its headers within ${seconds(headersTimeout)}, all of it within ${seconds(requestTimeout)}` : `all of it within ${seconds(requestTimeout)}`
  const messages: Record<string, string> = {
    HPE_HEADER_OVERFLOW: "The request's URL and headers are too large; send a shorter query string and fewer or smaller headers.",
    HPE_CHUNK_EXTENSIONS_OVERFLOW: "The request's chunk extensions are too large.",
    ERR_HTTP_REQUEST_TIMEOUT: `The request did not arrive in time (${limits}); send it again.`,
  }
  /** Each answer whole but for its request id, made once here: the status line, the headers and the envelope. */
  const render = (message: string): { head: string; rest: string } => {
    const body = JSON.stringify(new ApiError('INVALID_PARAMETER', message).toBody())
    return {
      head: 'HTTP/1.1 400 Bad Request\r\ncontent-type: application/json; charset=utf-8\r\n',
      rest: `content-length: ${Buffer.byteLength(body)}\r\nx-credits-charged: 0\r\n${options.headerLines}connection: close\r\n\r\n${body}`,
    }
  }
  const answers = new Map(Object.entries(messages).map(([code, message]) => [code, render(message)]))
  const notHttp = render('The request is not valid HTTP/1.1.')

  return {
    handle(error, socket) {
      const left = error.code === 'ECONNRESET' || error.code === 'HPE_INVALID_EOF_STATE'
      if (!left && socket.writable && answerable(socket)) {
        const answer = answers.get(error.code ?? '') ?? notHttp
        socket.write(`${answer.head}x-request-id: ${options.requestId()}\r\n${answer.rest}`)
      }
      socket.destroy()
    },
    watch(server) {
      server.on('request', (req: IncomingMessage, res: ServerResponse) => {
        const list = owed.get(req.socket)
        if (list === undefined) owed.set(req.socket, [res])
        else {
          while (list.length > 0 && done(list[0] as ServerResponse)) list.shift()
          list.push(res)
        }
        res.on('close', forget)
      })
    },
  }
}
