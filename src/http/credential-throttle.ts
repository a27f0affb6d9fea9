/**
 * Wrong API keys and admin tokens counted per client address: past a limit within a window, the
 * address's further failures are answered 429 RATE_LIMITED (free, with Retry-After) until the window
 * ends. Only failures count and only failures are refused: the credential is checked first, so a
 * request bearing a valid key or token is answered as usual even while its address is throttled.
 *
 * The counts live in this node's memory. With several nodes (PostgreSQL and Redis) each node counts
 * what reaches it, so an address spread over N nodes gets up to N times the limit: the rate limiter's
 * shared windows are one second long, too short for this, and a per-node count is enough to make a
 * burst of guesses slow.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { throttledError } from '../identity/sign-in-throttle.ts'

export interface CredentialThrottleOptions {
  /** Monotonic milliseconds: windows measure time passed, whatever the billing clock says. */
  now: () => number
  /** Failures an address may make per window; 0 turns the throttle off. */
  limit: number
  windowMs: number
  /** Addresses tracked at once; beyond it the oldest windows are forgotten first. */
  maxAddresses?: number
}

interface Window {
  since: number
  failures: number
}

const MAX_ADDRESSES = 10_000

export interface CredentialThrottle {
  /** Counts a failure from `address`: the whole seconds to wait when it is over the limit, else undefined. */
  fail(address: string): number | undefined
}

export function createCredentialThrottle(options: CredentialThrottleOptions): CredentialThrottle {
  const { now, limit, windowMs } = options
  const maxAddresses = options.maxAddresses ?? MAX_ADDRESSES
  const windows = new Map<string, Window>()

  /**
   * Makes room for one more address. Windows are kept in the order they began (a new one is added at
   * the end), so the ended ones are at the front: they go first, then, if need be, the oldest.
   */
  function makeRoom(at: number): void {
    for (const [key, w] of windows) {
      if (windows.size < maxAddresses && at < w.since + windowMs) return
      windows.delete(key)
    }
  }

  return {
    fail(address) {
      if (limit <= 0) return undefined
      const key = addressKey(address)
      const at = now()
      const open = windows.get(key)
      if (open === undefined || at >= open.since + windowMs) {
        if (open !== undefined) windows.delete(key)
        else if (windows.size >= maxAddresses) makeRoom(at)
        windows.set(key, { since: at, failures: 1 })
        return undefined
      }
      open.failures++
      if (open.failures <= limit) return undefined
      return Math.max(1, Math.ceil((open.since + windowMs - at) / 1000))
    },
  }
}

/**
 * The key an address is counted under. An IPv6 client usually holds a whole /64 and can pick any
 * address in it, so IPv6 addresses count by their first 64 bits; IPv4 ones (mapped into IPv6 too)
 * by the address.
 */
export function addressKey(address: string): string {
  if (!address.includes(':')) return address
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return mapped[1] as string
  const [head = '', tail] = address.toLowerCase().split('%')[0]!.split('::') as [string, string | undefined]
  const left = head === '' ? [] : head.split(':')
  const right = tail === undefined || tail === '' ? [] : tail.split(':')
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`
}

/**
 * Whether a 401 answers a credential that was given and is wrong (a missing one is no guess): an
 * X-API-Key on the API, an Authorization header elsewhere (the admin API's token).
 */
function credentialGiven(request: FastifyRequest): boolean {
  if (!request.url.startsWith('/api/')) return request.headers.authorization !== undefined
  const key = request.headers['x-api-key']
  return key !== undefined && (typeof key !== 'string' || key.trim() !== '')
}

/**
 * The part of an onSend hook that turns a 401 for a wrong credential into the 429 of a throttled
 * address. Returns the payload to send: the 429's envelope, or `payload` as it was.
 */
export function throttleFailedCredentials(throttle: CredentialThrottle) {
  return (request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown => {
    if (reply.statusCode !== 401 || !credentialGiven(request)) return payload
    const wait = throttle.fail(request.ip)
    if (wait === undefined) return payload
    const refusal = throttledError(wait, 'wrong API keys or admin tokens from this address')
    reply.code(refusal.status).headers(refusal.headers ?? {}).header('x-credits-charged', '0').type('application/json; charset=utf-8')
    return JSON.stringify(refusal.toBody())
  }
}
