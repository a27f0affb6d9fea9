/**
 * A live-source node's parts, built once by the container from the live-source settings: the
 * upstream client, the shared budget, the kept answers and fetch locks, the metrics, and the routes
 * that answer through them. `status()` is what `pronet upstream status` shows.
 */
import type { Logger } from 'pino'
import type { Registry } from 'prom-client'
import type { PriceTable } from '../domain/billing/prices.ts'
import type { ContentWriter } from '../domain/content/content-writer.ts'
import type { TokenSigner } from '../domain/tokens.ts'
import type { DataRoute } from '../http/data-route.ts'
import type { Clock } from '../ports/clock.ts'
import type { FetchLocks } from '../ports/fetch-locks.ts'
import type { LiveAnswerStore } from '../ports/live-answers.ts'
import type { RateLimiter } from '../ports/rate-limiter.ts'
import type { LiveSourceConfig } from './live-source-config.ts'
import { createLiveMetrics, type LiveFigures } from './live-metrics.ts'
import { liveRoutes } from './live-routes.ts'
import { createLiveSource, type LiveSource } from './live-source.ts'
import { createUpstreamBudget, type BudgetFigures } from './upstream-budget.ts'
import { createUpstreamClient, type UpstreamClient } from './upstream-client.ts'
import { createTokenSeal } from './token-seal.ts'

/** The longest a customer's call waits for the upstream's budget, its 429 pause, or another node's fetch. */
export const LIVE_MAX_WAIT_MS = 5_000

export interface LiveWiring {
  config: LiveSourceConfig
  source: LiveSource
  client: UpstreamClient
  routes(routes: readonly DataRoute[]): DataRoute[]
  status(): Promise<UpstreamStatus>
  /** Deletes kept answers too old to be served even as stale; how many. */
  prune(): Promise<number>
  close(): Promise<void>
}

export interface UpstreamStatus {
  mode: LiveSourceConfig['mode']
  /** The upstream's own GET /api/v1/subscription, or why it could not be read. */
  subscription: unknown
  budget: BudgetFigures
  /** This node's figures since it started. */
  node: LiveFigures
  /** Answers kept in the store, by operation (`upstream` mode). */
  kept: Record<string, number> | null
}

export interface LiveWiringDeps {
  config: LiveSourceConfig
  limiter: RateLimiter
  answers: LiveAnswerStore | undefined
  locks: FetchLocks | undefined
  writer: ContentWriter
  tokens: TokenSigner
  /** The server secret, which seals the upstream's page tokens inside ours. */
  secret: string | Buffer
  prices: PriceTable
  platformHost: string
  clock: Clock
  monotonic: () => number
  sleep: (ms: number) => Promise<void>
  logger: Logger
  registry: Registry
}

export function createLiveWiring(deps: LiveWiringDeps): LiveWiring {
  const { config, clock } = deps
  const client = createUpstreamClient({
    baseUrl: config.upstreamUrl,
    apiKey: config.upstreamKey,
    timeoutMs: config.timeoutMs,
    logger: deps.logger,
    now: () => clock.now(),
    monotonic: deps.monotonic,
  })
  const budget = createUpstreamBudget({ limiter: deps.limiter, rps: config.upstreamRps, clock, sleep: deps.sleep, maxWaitMs: LIVE_MAX_WAIT_MS })
  const metrics = createLiveMetrics(deps.registry)
  const seal = createTokenSeal(deps.secret)
  const answers = config.mode === 'upstream' ? deps.answers : undefined
  const source = createLiveSource({
    config,
    budget,
    answers,
    locks: deps.locks,
    writer: config.mode === 'upstream' ? deps.writer : undefined,
    clock,
    sleep: deps.sleep,
    logger: deps.logger,
    metrics,
    maxWaitMs: LIVE_MAX_WAIT_MS,
  })
  return {
    config,
    source,
    client,
    routes: (routes) => liveRoutes(routes, { live: source, client, tokens: deps.tokens, seal, prices: deps.prices, platformHost: deps.platformHost }),
    async status() {
      let subscription: unknown
      try {
        // The operator's own view of the upstream plan: not metered by us, and outside the budget's count only by one call.
        await budget.acquire()
        subscription = (await client.get('/api/v1/subscription')).body
      } catch (e) {
        subscription = { error: (e as { code?: string }).code ?? 'UPSTREAM_ERROR', message: (e as Error).message }
      }
      return { mode: config.mode, subscription, budget: budget.figures(), node: metrics.snapshot(), kept: answers ? await answers.counts() : null }
    },
    async prune() {
      if (!answers) return 0
      const longestS = Math.max(...Object.values(config.freshness)) + config.serveStaleS
      return answers.prune(clock.now() - longestS * 1000)
    },
    async close() {
      client.close()
      await deps.locks?.close()
    },
  }
}
