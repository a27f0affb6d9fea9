/**
 * A webhook endpoint as a customer or the operator sets it: where (an https address on the public
 * internet) and which events. Deliveries go out from the service's own network, so an address on a
 * private, loopback or link-local network is refused (it would let a customer reach what only the
 * service can), unless the operator allows it (PRONET_WEBHOOK_PRIVATE_URLS=allow, for development),
 * which also allows plain http.
 */
import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { invalidParameter } from '../domain/errors.ts'
import { WEBHOOK_EVENTS, type WebhookEventType } from '../ports/webhook-store.ts'
import { privateAddress } from './private-address.ts'

export const MAX_WEBHOOK_URL = 2048
/** Endpoints an account may have. */
export const MAX_WEBHOOKS = 10

/**
 * Names that only ever mean a host of one's own network: localhost, and the suffixes set aside for
 * local and private use (a trailing dot is the same name).
 */
function localName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '')
  return name === 'localhost' || /\.(localhost|local|internal|home\.arpa)$/.test(name)
}

/** A webhook address as given, checked: absolute, https (http too when private ones are allowed), no credentials, not a private host. */
export function checkWebhookUrl(url: unknown, allowPrivate: boolean): string {
  const tooLong = () => invalidParameter('url', `must be an https address of at most ${MAX_WEBHOOK_URL} characters.`)
  if (typeof url !== 'string' || url.length === 0 || url.length > MAX_WEBHOOK_URL) throw tooLong()
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw invalidParameter('url', 'must be an absolute https address, such as https://example.com/pronet-events.')
  }
  if (parsed.protocol !== 'https:' && !(allowPrivate && parsed.protocol === 'http:')) throw invalidParameter('url', 'must be an https address.')
  if (parsed.username !== '' || parsed.password !== '') throw invalidParameter('url', 'must carry no user name or password; deliveries are signed instead.')
  const host = parsed.hostname.replace(/^\[|\]$/g, '')
  if (isIP(host) === 0 && !dnsName(host)) throw invalidParameter('url', 'must name a host that can exist: labels of at most 63 characters, 253 in all.')
  if (!allowPrivate && (localName(host) || (isIP(host) !== 0 && privateAddress(host)))) {
    throw invalidParameter('url', 'must be an address on the public internet, not a private or local one.')
  }
  // The address is kept as the URL parser writes it (a path of "/" added, characters escaped), which
  // may be longer than what was given.
  const written = parsed.toString()
  if (written.length > MAX_WEBHOOK_URL) throw tooLong()
  return written
}

/** A host name DNS can carry (as the URL parser writes it, international names in their ASCII form): labels of 1 to 63 characters, 253 in all, a trailing dot aside. */
function dnsName(host: string): boolean {
  const name = host.endsWith('.') ? host.slice(0, -1) : host
  return name.length > 0 && name.length <= 253 && name.split('.').every((label) => label.length > 0 && label.length <= 63)
}

/** The events an endpoint takes: known names, each once, at least one. */
export function checkWebhookEvents(events: unknown): WebhookEventType[] {
  if (!Array.isArray(events) || events.length === 0) throw invalidParameter('events', `must list at least one of: ${WEBHOOK_EVENTS.join(', ')}.`)
  const out: WebhookEventType[] = []
  for (const e of events) {
    if (typeof e !== 'string' || !(WEBHOOK_EVENTS as readonly string[]).includes(e)) {
      throw invalidParameter('events', `${typeof e === 'string' ? `'${e.slice(0, 60)}'` : 'an entry that is not text'} is not an event; use: ${WEBHOOK_EVENTS.join(', ')}.`)
    }
    if (!out.includes(e as WebhookEventType)) out.push(e as WebhookEventType)
  }
  return out
}

/**
 * Why a delivery may not go to `url` as written (its host is a private IP address), or undefined.
 * A name is checked as it is resolved for the connection itself (webhook-post.ts), once an attempt,
 * since its addresses can change after it was accepted.
 */
export function destinationProblem(url: string, allowPrivate: boolean): string | undefined {
  if (allowPrivate) return undefined
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '')
  return isIP(host) !== 0 && privateAddress(host) ? `the host ${host} is a private or local address, which deliveries may not reach` : undefined
}

/** Every address a name resolves to, by the system's lookup. */
export async function resolveAll(host: string): Promise<string[]> {
  return (await lookup(host, { all: true })).map((a) => a.address)
}
