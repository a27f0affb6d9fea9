import Type from 'typebox'
import Value from 'typebox/value'
import { packTiersFrom, type PriceTier } from '../domain/billing/pack-pricing.ts'
import { pricesWithOverrides, type PriceTable } from '../domain/billing/prices.ts'
import { PROFILE_COUNT_RULE, profileCountProblem } from '../synth/network-plan.ts'
import { parseLiveSource, type LiveSourceConfig } from '../live-source/live-source-config.ts'

/** Environment variables of the operator interface (a stable interface: the README documents them). */
export const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HOST: Type.String({ default: '127.0.0.1' }),
  METRICS_PORT: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  PRONET_DATA_DIR: Type.String({ default: './data' }),
  DATABASE_URL: Type.Optional(Type.String()),
  REDIS_URL: Type.Optional(Type.String()),
  PRONET_ADMIN_TOKEN: Type.Optional(Type.String({ minLength: 1 })),
  PRONET_SEED: Type.String({ default: 'small' }),
  PRONET_TEST_CLOCK: Type.Optional(Type.String()),
  PRONET_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  PRONET_PLATFORM_HOST: Type.String({ default: 'www.linkedin.com' }),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, { default: 'info' }),
  PRONET_CACHE_MB: Type.Integer({ minimum: 0, default: 64 }),
  PRONET_BUY_CREDITS_URL: Type.Optional(Type.String({ minLength: 1 })),
  PRONET_COMMIT_WORKER: Type.Enum(['auto', 'on', 'off'] as const, { default: 'auto' }),
  PRONET_PRICES: Type.Optional(Type.String()),
  PRONET_PACK_TIERS: Type.Optional(Type.String()),
  PRONET_PUBLIC_URL: Type.Optional(Type.String({ minLength: 1 })),
  PRONET_SIGNUP: Type.Enum(['open', 'invite', 'closed'] as const, { default: 'open' }),
  PRONET_PAYMENTS: Type.Enum(['manual', 'stripe', 'test'] as const, { default: 'manual' }),
  SMTP_URL: Type.Optional(Type.String({ minLength: 1 })),
  STRIPE_SECRET_KEY: Type.Optional(Type.String({ minLength: 1 })),
  STRIPE_WEBHOOK_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  PRONET_TRUST_PROXY: Type.Optional(Type.String({ minLength: 1 })),
  PRONET_REQUEST_TIMEOUT_MS: Type.Optional(Type.String()),
  PRONET_SEARCH_WORKERS: Type.Optional(Type.String()),
  PRONET_AUTH_FAILURE_LIMIT: Type.Optional(Type.String()),
  PRONET_AUTH_FAILURE_WINDOW_MS: Type.Optional(Type.String()),
  PRONET_SOURCE: Type.Enum(['store', 'upstream', 'upstream-only'] as const, { default: 'store' }),
  PRONET_UPSTREAM_URL: Type.Optional(Type.String()),
  PRONET_UPSTREAM_KEY: Type.Optional(Type.String()),
  PRONET_UPSTREAM_RPS: Type.Optional(Type.String()),
  PRONET_UPSTREAM_TIMEOUT_MS: Type.Optional(Type.String()),
  PRONET_FRESHNESS: Type.Optional(Type.String()),
  PRONET_SERVE_STALE_S: Type.Optional(Type.String()),
  PRONET_LEDGER_BATCH_MS: Type.Optional(Type.String()),
  PRONET_LEDGER_BATCH_MAX: Type.Optional(Type.String()),
  PRONET_WEBHOOK_PRIVATE_URLS: Type.Enum(['refuse', 'allow'] as const, { default: 'refuse' }),
})

export type SeedSize = 'none' | 'small' | 'medium' | 'large' | number

export interface Config {
  readonly port: number
  readonly host: string
  /** A second port, on 127.0.0.1 only, serving GET /metrics without the admin token; none when unset. */
  readonly metricsPort: number | undefined
  readonly dataDir: string
  readonly databaseUrl: string | undefined
  readonly redisUrl: string | undefined
  readonly adminToken: string | undefined
  readonly seed: SeedSize
  readonly testClock: boolean
  readonly secret: string | undefined
  readonly platformHost: string
  readonly logLevel: string
  /** On PostgreSQL: how long a batch of holds and settles waits for more after its first, ms (0: none), or 'auto' (batch-wait.ts). */
  readonly ledgerBatchMs: number | 'auto'
  /** On PostgreSQL: requests in one batch of holds and settles at most (unset: the ledger's default). */
  readonly ledgerBatchMax: number | undefined
  /** Budget of the in-memory response cache in MiB; 0 turns it off. */
  readonly cacheMb: number
  /** The self-serve purchase page named in 402 details (default: the console's billing page). */
  readonly buyCreditsUrl: string
  /** Whether the operator set it (PRONET_BUY_CREDITS_URL), rather than the default link into the docs. */
  readonly buyCreditsUrlSet: boolean
  /**
   * Where the embedded store's billing commits run: a worker thread (`on`), the event-loop thread
   * (`off`), or `auto`: the worker when the machine has more than two CPUs.
   */
  readonly commitWorker: 'auto' | 'on' | 'off'
  /** Credit prices of the data endpoints: the default table with PRONET_PRICES's overrides. */
  readonly prices: PriceTable
  /** Pack price tiers: the default table, or PRONET_PACK_TIERS. */
  readonly packTiers: readonly PriceTier[]
  /** The address customers reach the console at, without a trailing slash: links, cookies, buyCreditsUrl. */
  readonly publicUrl: string
  /** Who may create an account in the console: anyone, holders of an invitation, or nobody. */
  readonly signup: 'open' | 'invite' | 'closed'
  /** Whether webhooks may reach private, loopback and plain-http addresses (development only). */
  readonly webhookPrivateUrls: boolean
  /** How pack orders are paid: the operator approves them, Stripe Checkout, or at once (tests, demos). */
  readonly payments: 'manual' | 'stripe' | 'test'
  /** SMTP server for the console's mail; without it each message's link goes to the log. */
  readonly smtpUrl: string | undefined
  /** Present with PRONET_PAYMENTS=stripe. */
  readonly stripe: { readonly secretKey: string; readonly webhookSecret: string } | undefined
  /**
   * Which proxies' X-Forwarded-For to believe for the client's address (sign-in throttling counts by
   * it): none, every one (`true`), the nearest N, or those at the listed addresses or ranges.
   */
  readonly trustProxy: boolean | number | readonly string[]
  /**
   * Worker threads that walk searches off the event loop (`auto`: one fewer than the CPUs, at least
   * one); 0 walks them on the event loop, as an in-memory store always does.
   */
  readonly searchWorkers: number | 'auto'
  /** The time a whole request (headers and body) has to arrive; the headers get at most 10 s of it. */
  readonly requestTimeoutMs: number
  /** Wrong API keys or admin tokens one client address may send per window before the rest get 429; 0: no limit. */
  readonly authFailureLimit: number
  readonly authFailureWindowMs: number
  /**
   * Where data records come from beyond the store: an upstream service speaking this API, read through
   * (`upstream`) or forwarded every call (`upstream-only`); undefined when the store alone serves.
   */
  readonly liveSource: LiveSourceConfig | undefined
}

export class ConfigError extends Error {}

function parseSeed(raw: string): SeedSize {
  const v = raw.trim().toLowerCase()
  if (v === 'none' || v === 'small' || v === 'medium' || v === 'large') return v
  if (/^\d+$/.test(v) && profileCountProblem(Number(v)) === undefined) return Number(v)
  throw new ConfigError(`PRONET_SEED must be none, small, medium, large or ${PROFILE_COUNT_RULE} (got "${raw}")`)
}

/**
 * `1` turns the test clock on. Anything else but `0` is refused: an operator who wrote `true` or `yes`
 * would otherwise get no clock and no word about it (its admin endpoints would simply answer 404).
 */
function parseTestClock(raw: string | undefined): boolean {
  if (raw === undefined || raw === '0') return false
  if (raw === '1') return true
  throw new ConfigError(`invalid environment: PRONET_TEST_CLOCK must be 1 (on) or 0 (off) (got ${JSON.stringify(raw.slice(0, 40))})`)
}

/**
 * Any other scheme would reach the PostgreSQL driver anyway (it reads only host, port, user and
 * database from the URL) and fail at run time with a driver error far from the cause. Only the
 * scheme is quoted back: the rest of the URL may hold a password.
 */
function checkDatabaseUrl(raw: string): void {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1]
  if (scheme === undefined || !/^postgres(ql)?$/i.test(scheme)) {
    const got = scheme === undefined ? 'not a URL' : `a ${scheme}: URL`
    throw new ConfigError(`invalid environment: DATABASE_URL must be a postgres:// or postgresql:// URL (got ${got})`)
  }
  if (!URL.canParse(raw)) throw new ConfigError('invalid environment: DATABASE_URL is not a valid URL')
}

/**
 * REDIS_URL reaches ioredis, which reads anything: a bare word as a host name, an http: URL as
 * redis:. Such a node would never reach Redis and would serve every account's whole budget from its
 * own, so a value that cannot name a Redis database is refused at start.
 * The database is the path (`/0` to `/15` on a default Redis); whether Redis has it is checked
 * when the node connects (redis-database-check.ts).
 */
function checkRedisUrl(raw: string): void {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1]
  if (scheme === undefined || !/^rediss?$/i.test(scheme)) {
    const got = scheme === undefined ? 'not a URL' : `a ${scheme}: URL`
    throw new ConfigError(`invalid environment: REDIS_URL must be a redis:// or rediss:// URL (got ${got})`)
  }
  if (!URL.canParse(raw)) throw new ConfigError('invalid environment: REDIS_URL is not a valid URL')
  const path = new URL(raw).pathname
  if (path !== '' && path !== '/' && !/^\/\d{1,9}$/.test(path)) {
    throw new ConfigError(`invalid environment: REDIS_URL's path must be a database number such as /0 (got ${JSON.stringify(path.slice(0, 40))})`)
  }
}

/** Addresses that listen on every interface: no one reaches the service by them. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '::0'])

/**
 * HOST as a URL writes it: IPv6 in brackets (`http://:::3000/` is no URL), and `localhost` for a
 * wildcard address, which names no machine a client can open.
 */
export function urlHost(host: string): string {
  if (WILDCARD_HOSTS.has(host)) return 'localhost'
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
}

/** Whether HOST listens on every interface (the default purchase link then names only this machine). */
export const isWildcardHost = (host: string): boolean => WILDCARD_HOSTS.has(host)

/** A public host name as URLs carry it (PRONET_PLATFORM_HOST). */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i

/** Parses the environment once; the result is frozen and passed to whoever needs it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const picked: Record<string, unknown> = {}
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = env[key]
    if (value !== undefined && value !== '') picked[key] = key === 'PORT' || key === 'METRICS_PORT' || key === 'PRONET_CACHE_MB' ? Number(value) : value
  }
  const withDefaults = Value.Default(EnvSchema, picked)
  if (!Value.Check(EnvSchema, withDefaults)) {
    const first = [...Value.Errors(EnvSchema, withDefaults)][0]
    const name = first?.instancePath.slice(1) ?? ''
    // An enum's own message ("must be equal to one of the allowed values") does not say which.
    const allowed = (EnvSchema.properties as Record<string, { enum?: readonly string[] }>)[name]?.enum
    const why = allowed ? `must be one of ${allowed.join(', ')}` : (first?.message ?? '')
    throw new ConfigError(`invalid environment: ${name} ${why}`.trim())
  }
  const e = withDefaults as Type.Static<typeof EnvSchema>
  if (e.DATABASE_URL !== undefined) checkDatabaseUrl(e.DATABASE_URL)
  if (e.REDIS_URL !== undefined) checkRedisUrl(e.REDIS_URL)
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT === e.PORT) {
    throw new ConfigError(`invalid environment: METRICS_PORT must differ from PORT (both ${e.PORT}): the metrics listener is a second one`)
  }
  if (!HOST_NAME.test(e.PRONET_PLATFORM_HOST)) {
    throw new ConfigError(`invalid environment: PRONET_PLATFORM_HOST must be a host name such as www.linkedin.com (got ${JSON.stringify(e.PRONET_PLATFORM_HOST.slice(0, 80))})`)
  }
  const buy = e.PRONET_BUY_CREDITS_URL
  if (buy !== undefined && !(URL.canParse(buy) && /^https?:$/.test(new URL(buy).protocol))) {
    throw new ConfigError('invalid environment: PRONET_BUY_CREDITS_URL must be an http:// or https:// URL (customers open it from a 402)')
  }
  const publicUrl = parsePublicUrl(e.PRONET_PUBLIC_URL) ?? `http://${urlHost(e.HOST)}:${e.PORT}`
  if (e.SMTP_URL !== undefined && !(URL.canParse(e.SMTP_URL) && /^smtps?:$/.test(new URL(e.SMTP_URL).protocol))) {
    throw new ConfigError('invalid environment: SMTP_URL must be an smtp:// or smtps:// URL')
  }
  if (e.PRONET_PAYMENTS === 'stripe') {
    const missing = (['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'] as const).filter((k) => e[k] === undefined)
    if (missing.length > 0) throw new ConfigError(`invalid environment: PRONET_PAYMENTS=stripe needs ${missing.join(' and ')}`)
  }
  const table = <T>(parse: () => T): T => {
    try {
      return parse()
    } catch (err) {
      throw new ConfigError(`invalid environment: ${(err as Error).message}`)
    }
  }
  const liveSource = table(() => parseLiveSource(e))
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    metricsPort: e.METRICS_PORT,
    dataDir: e.PRONET_DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    adminToken: e.PRONET_ADMIN_TOKEN,
    // A gateway in front of a live source starts with an empty store unless a network is asked for.
    seed: parseSeed((env.PRONET_SEED ?? '') === '' && liveSource ? 'none' : e.PRONET_SEED),
    testClock: parseTestClock(e.PRONET_TEST_CLOCK),
    secret: e.PRONET_SECRET,
    platformHost: e.PRONET_PLATFORM_HOST.toLowerCase(),
    logLevel: e.LOG_LEVEL,
    cacheMb: e.PRONET_CACHE_MB,
    buyCreditsUrl: buy ?? `${publicUrl}/console/billing`,
    buyCreditsUrlSet: buy !== undefined,
    commitWorker: e.PRONET_COMMIT_WORKER,
    prices: table(() => pricesWithOverrides(e.PRONET_PRICES)),
    packTiers: table(() => packTiersFrom(e.PRONET_PACK_TIERS)),
    publicUrl,
    signup: e.PRONET_SIGNUP,
    webhookPrivateUrls: e.PRONET_WEBHOOK_PRIVATE_URLS === 'allow',
    payments: e.PRONET_PAYMENTS,
    smtpUrl: e.SMTP_URL,
    trustProxy: parseTrustProxy(e.PRONET_TRUST_PROXY),
    searchWorkers:
      e.PRONET_SEARCH_WORKERS === undefined || e.PRONET_SEARCH_WORKERS.trim() === 'auto'
        ? 'auto'
        : wholeNumber('PRONET_SEARCH_WORKERS (or auto)', e.PRONET_SEARCH_WORKERS, { fallback: 0, min: 0, max: 64 }),
    requestTimeoutMs: wholeNumber('PRONET_REQUEST_TIMEOUT_MS', e.PRONET_REQUEST_TIMEOUT_MS, { fallback: 30_000, min: 100, max: 3_600_000, unit: 'milliseconds' }),
    ledgerBatchMs:
      e.PRONET_LEDGER_BATCH_MS === undefined || e.PRONET_LEDGER_BATCH_MS.trim() === 'auto'
        ? 'auto'
        : wholeNumber('PRONET_LEDGER_BATCH_MS (or auto)', e.PRONET_LEDGER_BATCH_MS, { fallback: 0, min: 0, max: 1_000, unit: 'milliseconds' }),
    ledgerBatchMax:
      e.PRONET_LEDGER_BATCH_MAX === undefined ? undefined : wholeNumber('PRONET_LEDGER_BATCH_MAX', e.PRONET_LEDGER_BATCH_MAX, { fallback: 0, min: 1, max: 100_000 }),
    authFailureLimit: wholeNumber('PRONET_AUTH_FAILURE_LIMIT', e.PRONET_AUTH_FAILURE_LIMIT, { fallback: 20, min: 0, max: 1_000_000 }),
    authFailureWindowMs: wholeNumber('PRONET_AUTH_FAILURE_WINDOW_MS', e.PRONET_AUTH_FAILURE_WINDOW_MS, { fallback: 10_000, min: 1_000, max: 86_400_000, unit: 'milliseconds' }),
    stripe:
      e.STRIPE_SECRET_KEY !== undefined && e.STRIPE_WEBHOOK_SECRET !== undefined
        ? { secretKey: e.STRIPE_SECRET_KEY, webhookSecret: e.STRIPE_WEBHOOK_SECRET }
        : undefined,
    liveSource,
  })
}

/** A setting that is a whole number in decimal digits within a range, or its fallback when unset. */
function wholeNumber(name: string, raw: string | undefined, range: { fallback: number; min: number; max: number; unit?: string }): number {
  if (raw === undefined) return range.fallback
  const value = /^\d{1,10}$/.test(raw.trim()) ? Number(raw.trim()) : NaN
  if (!(value >= range.min && value <= range.max)) {
    throw new ConfigError(
      `invalid environment: ${name} must be a whole number ${range.unit === undefined ? '' : `of ${range.unit} `}from ${range.min} to ${range.max} (got ${JSON.stringify(raw.slice(0, 40))})`,
    )
  }
  return value
}

/** PRONET_TRUST_PROXY: `true`, `false`, a count of hops, or a comma-separated list of addresses and CIDR ranges. */
function parseTrustProxy(raw: string | undefined): boolean | number | string[] {
  if (raw === undefined || raw === 'false') return false
  if (raw === 'true') return true
  if (/^\d{1,2}$/.test(raw)) return Number(raw)
  const list = raw.split(',').map((x) => x.trim()).filter((x) => x !== '')
  if (list.length === 0 || !list.every((x) => /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(x))) {
    throw new ConfigError('invalid environment: PRONET_TRUST_PROXY must be true, false, a number of proxies, or a comma-separated list of addresses or ranges (10.0.0.0/8)')
  }
  return list
}

/** PRONET_PUBLIC_URL: an http(s) origin, perhaps with a path prefix; kept without its trailing slash. */
function parsePublicUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined
  if (!URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol) || /[?#]/.test(raw)) {
    throw new ConfigError('invalid environment: PRONET_PUBLIC_URL must be an http:// or https:// URL without a query or fragment (the address customers open the console at)')
  }
  return raw.replace(/\/+$/, '')
}
