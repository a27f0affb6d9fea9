/**
 * The live source's settings: where records come from (the store alone, or an upstream service
 * speaking this API), how to reach the upstream, its request budget, and how long a fetched record
 * stays fresh. Errors name the setting and never quote the key, nor the URL (it may carry a password).
 */

export type SourceMode = 'store' | 'upstream' | 'upstream-only'

export const FRESHNESS_DEFAULTS = Object.freeze({
  profile: 604_800,
  company: 604_800,
  posts: 3_600,
  reactions: 3_600,
  articles: 86_400,
  comments: 900,
  search: 300,
  notFound: 86_400,
})

export type FreshnessResource = keyof typeof FRESHNESS_DEFAULTS

export interface LiveSourceConfig {
  readonly mode: 'upstream' | 'upstream-only'
  /** The upstream's base address, without a trailing slash. */
  readonly upstreamUrl: string
  readonly upstreamKey: string
  /** The upstream plan's requests per rolling second, shared by every node. */
  readonly upstreamRps: number
  readonly timeoutMs: number
  /** Seconds a fetched record (or a known absence, `notFound`) is served without asking again. */
  readonly freshness: Readonly<Record<FreshnessResource, number>>
  /** How old a stored record may be and still be served when the upstream fails; 0: never. */
  readonly serveStaleS: number
}

export interface LiveSourceEnv {
  PRONET_SOURCE?: SourceMode
  PRONET_UPSTREAM_URL?: string
  PRONET_UPSTREAM_KEY?: string
  PRONET_UPSTREAM_RPS?: string
  PRONET_UPSTREAM_TIMEOUT_MS?: string
  PRONET_FRESHNESS?: string
  PRONET_SERVE_STALE_S?: string
}

/** Ten years: any longer is a typo, not a policy. */
const MAX_SECONDS = 315_360_000

/**
 * Parses and checks every live-source setting that is set, whatever the mode (a bad value is
 * reported before the operator switches the mode on); undefined in store mode. Throws an Error whose
 * message starts with the setting's name.
 */
export function parseLiveSource(env: LiveSourceEnv): LiveSourceConfig | undefined {
  const mode = env.PRONET_SOURCE ?? 'store'
  const upstreamUrl = env.PRONET_UPSTREAM_URL === undefined ? undefined : parseUpstreamUrl(env.PRONET_UPSTREAM_URL)
  if (env.PRONET_UPSTREAM_KEY !== undefined) checkKey(env.PRONET_UPSTREAM_KEY)
  const upstreamRps = env.PRONET_UPSTREAM_RPS === undefined ? undefined : wholeNumber('PRONET_UPSTREAM_RPS', env.PRONET_UPSTREAM_RPS, { min: 1, max: 100_000, unit: 'requests per second' })
  const timeoutMs = env.PRONET_UPSTREAM_TIMEOUT_MS === undefined ? 30_000 : wholeNumber('PRONET_UPSTREAM_TIMEOUT_MS', env.PRONET_UPSTREAM_TIMEOUT_MS, { min: 100, max: 600_000, unit: 'milliseconds' })
  const freshness = parseFreshness(env.PRONET_FRESHNESS)
  const serveStaleS = env.PRONET_SERVE_STALE_S === undefined ? 0 : wholeNumber('PRONET_SERVE_STALE_S', env.PRONET_SERVE_STALE_S, { min: 0, max: MAX_SECONDS, unit: 'seconds' })
  if (mode === 'store') return undefined
  // No default budget: a guess either wastes the operator's plan or earns the upstream's refusals.
  const missing = (['PRONET_UPSTREAM_URL', 'PRONET_UPSTREAM_KEY', 'PRONET_UPSTREAM_RPS'] as const).filter((k) => env[k] === undefined)
  if (missing.length > 0) throw new Error(`PRONET_SOURCE=${mode} needs ${missing.join(', ').replace(/, ([^,]*)$/, ' and $1')}`)
  return Object.freeze({
    mode,
    upstreamUrl: upstreamUrl as string,
    upstreamKey: env.PRONET_UPSTREAM_KEY as string,
    upstreamRps: upstreamRps as number,
    timeoutMs,
    freshness,
    serveStaleS,
  })
}

/** Only the scheme is ever quoted back: the rest of the address may hold a user name and password. */
function parseUpstreamUrl(raw: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1]
  if (scheme === undefined || !/^https?$/i.test(scheme)) {
    const got = scheme === undefined ? 'not a URL' : `a ${scheme.slice(0, 20)}: URL`
    throw new Error(`PRONET_UPSTREAM_URL must be an http:// or https:// URL (got ${got})`)
  }
  if (!URL.canParse(raw) || new URL(raw).hostname === '') throw new Error('PRONET_UPSTREAM_URL is not a valid URL')
  const url = new URL(raw)
  if (url.search !== '' || url.hash !== '' || /[?#]/.test(raw)) {
    throw new Error('PRONET_UPSTREAM_URL must have no query or fragment (it is the base address the API paths are added to)')
  }
  // The upstream is called with the operator's key in a header, never with the address's own
  // credentials: an address carrying them would be served as if they were sent.
  if (url.username !== '' || url.password !== '') {
    throw new Error('PRONET_UPSTREAM_URL must carry no user name or password: they are not sent (the upstream is called with PRONET_UPSTREAM_KEY)')
  }
  if (/\/api\/v1\/?$/i.test(url.pathname)) {
    throw new Error('PRONET_UPSTREAM_URL is the base address the API paths are added to: leave out /api/v1')
  }
  return raw.replace(/\/+$/, '')
}

/** The key travels in a request header, which holds visible ASCII only; what it holds is never said. */
function checkKey(raw: string): void {
  if (!/^[\x21-\x7e]+$/.test(raw)) {
    throw new Error('PRONET_UPSTREAM_KEY must be printable ASCII without spaces or line breaks (its value is not shown)')
  }
}

function parseFreshness(raw: string | undefined): Readonly<Record<FreshnessResource, number>> {
  const merged: Record<FreshnessResource, number> = { ...FRESHNESS_DEFAULTS }
  if (raw === undefined) return Object.freeze(merged)
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    throw new Error(`PRONET_FRESHNESS must be a JSON object of seconds by resource, such as {"posts": 600}`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`PRONET_FRESHNESS must be a JSON object of seconds by resource, such as {"posts": 600}`)
  }
  const known = Object.keys(FRESHNESS_DEFAULTS)
  for (const [key, value] of Object.entries(parsed)) {
    const name = JSON.stringify(key.slice(0, 40))
    if (!Object.hasOwn(FRESHNESS_DEFAULTS, key)) {
      throw new Error(`PRONET_FRESHNESS has an unknown resource ${name} (known: ${known.join(', ')})`)
    }
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_SECONDS) {
      throw new Error(`PRONET_FRESHNESS's ${name} must be a whole number of seconds from 0 to ${MAX_SECONDS}`)
    }
    merged[key as FreshnessResource] = value
  }
  return Object.freeze(merged)
}

function wholeNumber(name: string, raw: string, range: { min: number; max: number; unit: string }): number {
  const value = /^\d{1,10}$/.test(raw.trim()) ? Number(raw.trim()) : NaN
  if (!(value >= range.min && value <= range.max)) {
    throw new Error(`${name} must be a whole number of ${range.unit} from ${range.min} to ${range.max} (got ${JSON.stringify(raw.slice(0, 40))})`)
  }
  return value
}
