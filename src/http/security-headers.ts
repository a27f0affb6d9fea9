/**
 * The security headers of every answer. The API answers JSON, which no browser should sniff into
 * something else, frame, cache or render as a page: its policy allows nothing. A page with a policy
 * of its own (the console's, the reference page's) keeps it, and gets the headers that fit any answer.
 */
import type { FastifyReply } from 'fastify'

/** A policy that allows nothing: the answer is data, never a page. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

/**
 * The one inline style of the reference page: the colours of the logo in its top bar, a `<style>`
 * inside that SVG. Allowed by its hash, so that nothing else inline is.
 */
const DOCS_LOGO_STYLE = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='"

/**
 * The reference page (/docs): its scripts, styles and images are files it serves itself, and it
 * fetches the API's description from this origin; nothing from elsewhere.
 */
export const DOCS_CSP = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", DOCS_LOGO_STYLE],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'frame-ancestors': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'object-src': ["'none'"],
}

/** Headers as name/value pairs, flat, so that setting them allocates nothing per answer. */
type Flat = readonly string[]

export interface SecurityHeaders {
  /** Sets the headers an answer does not carry yet: once per answer, from an onSend hook. */
  apply(reply: FastifyReply): void
  /** The same headers as HTTP/1.1 header lines, for an answer written on a socket by hand. */
  readonly lines: string
}

/** `https`: the service is reached over TLS (PRONET_PUBLIC_URL), so browsers may be told to keep to it. */
export function securityHeaders(options: { https: boolean }): SecurityHeaders {
  const always: Flat = ['x-content-type-options', 'nosniff']
  // Set together, and only where no page has set its own policy (it set the rest of its set with it).
  const apiOnly: Flat = [
    'content-security-policy',
    API_CSP,
    'x-frame-options',
    'DENY',
    'referrer-policy',
    'no-referrer',
    'cross-origin-resource-policy',
    'same-origin',
    ...(options.https ? ['strict-transport-security', 'max-age=31536000'] : []),
  ]
  const set = (reply: FastifyReply, pairs: Flat) => {
    for (let i = 0; i < pairs.length; i += 2) reply.header(pairs[i] as string, pairs[i + 1])
  }
  const all = [...always, ...apiOnly, 'cache-control', 'no-store']
  let lines = ''
  for (let i = 0; i < all.length; i += 2) lines += `${all[i]}: ${all[i + 1]}\r\n`
  return {
    lines,
    apply(reply) {
      // Files that may be cached (the console's and the reference page's) say so themselves.
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store')
      set(reply, always)
      if (!reply.hasHeader('content-security-policy')) set(reply, apiOnly)
    },
  }
}
