/**
 * What the gateway keeps of a call made with an Idempotency-Key: the body it was sent (read as it
 * arrives, for the fingerprint), and the answer it got, when that answer is one a retry would get
 * again.
 */
import { Transform } from 'node:stream'
import type { FastifyReply, FastifyRequest, preParsingHookHandler } from 'fastify'
import type { KeptAnswer, KeyClaim } from '../ports/ledger.ts'

/** A call made with an Idempotency-Key, from its header to the end of its claim. */
export interface KeyedCall {
  key: string
  /** The body's bytes as they arrived (bodyTap), part of what the key names. */
  body: Buffer[] | undefined
  /** Held while the call runs; its settle keeps the answer, or the claim is released. */
  claim: KeyClaim | null
  /** The call is a repeat answered with the kept answer: free. */
  replayed: boolean
  /** The body the route served, to keep. */
  served: Buffer | readonly Buffer[] | undefined
}

export const keyedCall = (key: string): KeyedCall => ({ key, body: undefined, claim: null, replayed: false, served: undefined })

/**
 * A route's preParsing hook: the body of a call with a key passes through a copy of its bytes on
 * its way to the parser. A call without one goes on untouched.
 */
export const bodyTap: preParsingHookHandler = (request, _reply, payload, done) => {
  const keyed = request.meter?.keyed
  if (!keyed) return done(null, payload)
  const parts: Buffer[] = []
  keyed.body = parts
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, next) {
      parts.push(chunk)
      next(null, chunk)
    },
  })
  // What the client's stream fails with (it left) is what the parser must see.
  payload.on('error', (e) => tap.destroy(e))
  done(null, payload.pipe(tap))
}

/**
 * Whether an answer is kept for its key: what a retry would get again (delivered, a 404, a 400 of
 * the request itself, anything billed), not a refusal a retry may not meet (402, 429, 5xx, 499).
 */
export const finalAnswer = (status: number, credits: number): boolean => credits > 0 || status === 200 || status === 400 || status === 404

/**
 * The headers that belong to an answer rather than to the call that got it: a repeat gets its own
 * request id, rate figures and charge (0), and the headers every answer carries, afresh.
 */
const KEPT_HEADERS = ['content-type'] as const

/** The answer as sent, to keep under its key; undefined when its body is not at hand as bytes. */
export function answerOf(keyed: KeyedCall, reply: FastifyReply, payload: unknown): KeptAnswer | undefined {
  const status = reply.statusCode
  const served = status === 200 ? keyed.served : undefined
  const body =
    served !== undefined
      ? Buffer.isBuffer(served)
        ? served
        : Buffer.concat(served)
      : typeof payload === 'string'
        ? Buffer.from(payload)
        : Buffer.isBuffer(payload)
          ? payload
          : undefined
  if (!body) return undefined
  const headers: Record<string, string> = {}
  for (const name of KEPT_HEADERS) {
    const value = reply.getHeader(name)
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value)
  }
  return { status, headers, body }
}

/** Sets a kept answer's status and headers on the reply of its repeat; its body is what to send. */
export function replay(reply: FastifyReply, answer: KeptAnswer): Buffer {
  reply.code(answer.status).headers(answer.headers).header('idempotent-replayed', 'true')
  return answer.body
}

/** The request the call names, as its fingerprint takes it: the body only for a method that has one. */
export const sentBody = (request: FastifyRequest, keyed: KeyedCall): Buffer[] | undefined =>
  request.method === 'GET' ? undefined : (keyed.body ?? [])
