/**
 * This node's operational series: calls by route, method and status with their durations, credits
 * billed and refusals, the response cache's lookups, and the queues that parts of the service (the
 * search worker pool) register. One set per container, on the container's registry, which
 * GET /metrics, GET /admin/v1/metrics and the METRICS_PORT listener all render.
 */
import { Gauge, type Registry } from 'prom-client'
import { PlainHistogram, PlainValues, registered } from './plain-metrics.ts'

/** Call durations in seconds: a cached answer takes well under a millisecond, a search up to seconds. */
export const DURATION_BUCKETS = [0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const

/** How long a job waited in a queue before it started, in seconds. */
export const QUEUE_WAIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5] as const

/** The series the HTTP hooks feed (http-metrics.ts). */
export interface HttpSeries {
  /** Calls by route pattern (or `unknown`), method and status. */
  requests: PlainValues
  durations: PlainHistogram
  /** Credits billed, by endpoint: the X-Credits-Charged of each answer. */
  credits: PlainValues
  /** Answers with the API's error envelope, by its code. */
  refusals: PlainValues
  /** 429 answers, by endpoint. */
  rateLimited: PlainValues
}

/**
 * What a queue of work reports as it goes. Its shape is that of an observer a pool calls: the
 * depth after every change, and each job's wait as it starts. The account a job belongs to is not a
 * label (there is no bound on accounts), so it is taken and left unused.
 */
export interface QueueObserver {
  /** Jobs waiting, after a change. */
  depth(waiting: number): void
  /** A job left the queue for a worker after waiting `ms`. */
  started(accountId: string, ms: number): void
  /** A job was refused because its queue was full. */
  refused(accountId: string): void
}

export interface ObservabilityMetrics {
  readonly registry: Registry
  readonly http: HttpSeries
  /**
   * Registers a queue of work under `name` (a lowercase word, e.g. `search`):
   * `pronet_<name>_queue_depth`, `pronet_<name>_queue_wait_seconds` and
   * `pronet_<name>_queue_refused_total`. The search worker pool passes what this returns as its
   * observer. Registering a name again returns the same series.
   */
  registerQueue(name: string): QueueObserver
}

/** What the response cache says of itself (ResponseCache.stats). */
type CacheStats = () => { entries: number; bytes: number; hits: number; misses: number }

export function createObservabilityMetrics(deps: { registry: Registry; cacheStats?: CacheStats }): ObservabilityMetrics {
  const { registry } = deps
  const http: HttpSeries = {
    requests: registered(
      registry,
      new PlainValues({ type: 'counter', name: 'pronet_http_requests_total', help: 'HTTP calls answered, by route pattern (unknown for a path no route matches), method and status', labelNames: ['route', 'method', 'status'] }),
    ),
    durations: registered(
      registry,
      new PlainHistogram({ name: 'pronet_http_request_duration_seconds', help: 'Time from a call reaching the service to its answer being sent, by route pattern, method and status', labelNames: ['route', 'method', 'status'], buckets: DURATION_BUCKETS }),
    ),
    credits: registered(
      registry,
      new PlainValues({ type: 'counter', name: 'pronet_credits_billed_total', help: 'Credits billed, by endpoint (the sum of the X-Credits-Charged answers carried)', labelNames: ['endpoint'] }),
    ),
    refusals: registered(
      registry,
      new PlainValues({ type: 'counter', name: 'pronet_http_refusals_total', help: "Answers carrying the API's error envelope, by its code", labelNames: ['code'] }),
    ),
    rateLimited: registered(
      registry,
      new PlainValues({ type: 'counter', name: 'pronet_http_rate_limited_total', help: 'Calls refused with 429 RATE_LIMITED, by endpoint', labelNames: ['endpoint'] }),
    ),
  }
  const cacheStats = deps.cacheStats
  if (cacheStats) watchCache(registry, cacheStats)

  return {
    registry,
    http,
    registerQueue(name) {
      if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`a queue's name is a lowercase word (got ${JSON.stringify(name)})`)
      const depth = registered(registry, new PlainValues({ type: 'gauge', name: `pronet_${name}_queue_depth`, help: `Jobs waiting in the ${name} queue` })).cell()
      const waits = registered(
        registry,
        new PlainHistogram({ name: `pronet_${name}_queue_wait_seconds`, help: `How long jobs of the ${name} queue waited before they started`, buckets: QUEUE_WAIT_BUCKETS }),
      ).cell()
      const refused = registered(registry, new PlainValues({ type: 'counter', name: `pronet_${name}_queue_refused_total`, help: `Jobs refused because the ${name} queue was full` })).cell()
      return {
        depth(waiting) {
          depth.value = waiting
        },
        started(_accountId, ms) {
          waits.observe(ms / 1000)
        },
        refused() {
          refused.value++
        },
      }
    },
  }
}

/**
 * The response cache's lookups (a search page counts each item it looks up), read from the cache's
 * own counts at each scrape, so a lookup costs nothing more; its size as gauges.
 */
function watchCache(registry: Registry, stats: CacheStats): void {
  const lookups = registered(
    registry,
    new PlainValues({
      type: 'counter',
      name: 'pronet_response_cache_lookups_total',
      help: 'Response cache lookups, by result (hit or miss)',
      labelNames: ['result'],
      collect: () => {
        const s = stats()
        hits.value = s.hits
        misses.value = s.misses
      },
    }),
  )
  const hits = lookups.cell('hit')
  const misses = lookups.cell('miss')
  const size = (name: string, help: string, read: (s: ReturnType<CacheStats>) => number) => {
    if (registry.getSingleMetric(name)) return
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read(stats()))
      },
    })
  }
  size('pronet_response_cache_bytes', 'Bytes the response cache holds, counted against PRONET_CACHE_MB', (s) => s.bytes)
  size('pronet_response_cache_entries', 'Answers the response cache holds', (s) => s.entries)
}
