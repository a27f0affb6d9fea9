/**
 * One webhook POST over node:http(s). Where private addresses are refused, the socket finds its
 * address through a lookup that refuses them: the name is resolved once, by the connection, so a
 * name whose answer changes (DNS rebinding) cannot lead a delivery into the service's own network.
 */
import type { LookupAddress, LookupOptions } from 'node:dns'
import { request as httpRequest, type RequestOptions } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import { privateAddress } from './private-address.ts'

/** A delivery not sent, because of what its host resolved to (or that it resolved to nothing). */
export class RefusedDestinationError extends Error {}

/**
 * A socket lookup through `resolve` that refuses a host with any private or local address. It is
 * the only resolution of an attempt, so the address connected to is one that was checked.
 */
export function guardedLookup(resolve: (host: string) => Promise<string[]>): LookupFunction {
  return (hostname: string, options: LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
    const refuse = (why: string) => callback(new RefusedDestinationError(`the host ${hostname} ${why}`), '')
    resolve(hostname).then(
      (found) => {
        if (found.length === 0) return refuse('has no address')
        if (found.some(privateAddress)) return refuse('resolves to a private or local address, which deliveries may not reach')
        const family = typeof options.family === 'number' ? options.family : 0
        const usable: LookupAddress[] = found.map((address) => ({ address, family: isIP(address) })).filter((a) => family === 0 || a.family === family)
        const first = usable[0]
        if (!first) return callback(Object.assign(new Error(`the host ${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' }), '')
        if (options.all) callback(null, usable)
        else callback(null, first.address, first.family)
      },
      () => refuse('could not be resolved'),
    )
  }
}

export interface WebhookPost {
  headers: Record<string, string>
  body: string
  timeoutMs: number
  /** How the socket finds its address (absent: the system's lookup). */
  lookup?: LookupFunction
}

/** Sends the POST; resolves to the receiver's status, read without its body. Redirects are not followed. */
export function postWebhook(url: string, post: WebhookPost): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url)
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest
    const options: RequestOptions = {
      method: 'POST',
      headers: { ...post.headers, 'content-length': String(Buffer.byteLength(post.body)) },
      signal: AbortSignal.timeout(post.timeoutMs),
      // A connection of its own: a pooled one could outlive the check its address passed.
      agent: false,
      ...(post.lookup ? { lookup: post.lookup } : {}),
    }
    const req = send(target, options, (res) => {
      // The answer's body is not read, so a receiver cannot hold the sender.
      res.destroy()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', reject)
    req.end(post.body)
  })
}
