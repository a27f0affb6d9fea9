/**
 * Whether a call's client is still there to be answered, and what an answer on its connection is owed:
 * the gateway bills what is sent (a delivered response bills), and records a call whose client has
 * left as 499. Read by the gateway, the batch's wait for rate units and the hooks before a body is read.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../domain/errors.ts'

/** Answers committed on a connection (billed, still to be written): see connectionClosed. */
const COMMITTED = Symbol('pronet.committedAnswers')
type TrackedSocket = { [COMMITTED]?: number }

/**
 * Whether the client has left: its connection is closed or ended, or its end of the stream (FIN)
 * arrived. A client leaving and one that only half-closed (still reading) send the same FIN, so both
 * count as gone: the gateway records the call as 499, bills nothing and sends nothing (a half-closed
 * client must not read an answer it was not billed for). Except while the connection still carries an
 * answer committed before the FIN (commitAnswer): answers go out in the order of their requests, so
 * the calls pipelined beside it are answered (and billed) too; otherwise a call judged gone could close
 * the connection under an earlier call that was already billed, and that answer would be lost.
 */
export const connectionClosed = (request: FastifyRequest): boolean => {
  const socket = request.raw.socket as (typeof request.raw.socket & TrackedSocket) | undefined
  if (socket?.destroyed === true || socket?.writable === false) return true
  return socket?.readableEnded === true && !((socket[COMMITTED] ?? 0) > 0)
}

/** The connection of a committed answer, on its response (the response leaves its socket before it closes). */
const ANSWERED_ON = Symbol('pronet.answeredOn')
type TrackedResponse = { [ANSWERED_ON]?: TrackedSocket }

/** A response's 'close': its answer has gone out. One listener for every response, so none is made per call. */
function answerGone(this: TrackedResponse): void {
  const socket = this[ANSWERED_ON]
  if (socket) socket[COMMITTED] = (socket[COMMITTED] ?? 1) - 1
}

/** Marks the answer of `request` as committed (to be billed and sent) until it has gone out. */
export function commitAnswer(request: FastifyRequest, reply: FastifyReply): void {
  const socket = request.raw.socket as (typeof request.raw.socket & TrackedSocket) | undefined
  if (!socket) return
  socket[COMMITTED] = (socket[COMMITTED] ?? 0) + 1
  const response = reply.raw as typeof reply.raw & TrackedResponse
  response[ANSWERED_ON] = socket
  response.on('close', answerGone)
}

/**
 * Before its body is read: whether the client has left. Node discards the unread body of a request
 * whose connection closed (the request stream is destroyed; after a body is read it is destroyed too,
 * so this holds only before).
 */
export const clientLeft = (request: FastifyRequest): boolean => request.raw.destroyed || connectionClosed(request)

/**
 * The answer to a request whose client left before its body was read. No one receives it; it exists so
 * the call takes the usual way out (onSend records it, as 499) rather than none.
 */
export const clientGone = (): ApiError =>
  new ApiError('INVALID_PARAMETER', 'The connection closed before the request was read.', { parameter: 'request' })
