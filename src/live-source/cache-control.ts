/**
 * The request's standard Cache-Control header, as far as a client can ask a live-source node for a
 * fresher copy: `no-cache` (or `max-age=0`) fetches again; `max-age=N` accepts a copy at most N
 * seconds old. Anything else in it is ignored, as caches do.
 */
export interface FreshnessAsked {
  noCache: boolean
  maxAgeS: number | undefined
}

const NONE: FreshnessAsked = Object.freeze({ noCache: false, maxAgeS: undefined })

export function freshnessAsked(header: string | string[] | undefined): FreshnessAsked {
  if (header === undefined) return NONE
  const text = Array.isArray(header) ? header.join(',') : header
  let noCache = false
  let maxAgeS: number | undefined
  for (const part of text.split(',')) {
    const directive = part.trim().toLowerCase()
    if (directive === 'no-cache' || directive === 'no-store') noCache = true
    const m = /^max-age\s*=\s*"?(\d{1,10})"?$/.exec(directive)
    if (m) maxAgeS = Math.min(maxAgeS ?? Infinity, Number(m[1]))
  }
  return { noCache: noCache || maxAgeS === 0, maxAgeS }
}
