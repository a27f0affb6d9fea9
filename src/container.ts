/**
 * The one place that picks implementations and wires them together. Everything else receives its
 * dependencies from here (or from a test that builds its own container with real test doubles).
 */
import { createHmac, randomBytes } from 'node:crypto'
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { availableParallelism } from 'node:os'
import { openSqlite, type SqliteDb } from './adapters/sqlite/database.ts'
import { createSqliteAccountStore } from './adapters/sqlite/sqlite-account-store.ts'
import { createSqliteKeyCaps } from './adapters/sqlite/sqlite-key-caps.ts'
import { createPgKeyCaps } from './adapters/postgres/pg-key-caps.ts'
import type { KeyCaps } from './ports/key-caps.ts'
import type { WebhookStore } from './ports/webhook-store.ts'
import { createSqliteWebhookStore } from './adapters/sqlite/sqlite-webhook-store.ts'
import { createPgWebhookStore } from './adapters/postgres/pg-webhook-store.ts'
import { createWebhooksService, type WebhooksService } from './webhooks/webhooks.service.ts'
import { createSqliteContentStore } from './adapters/sqlite/sqlite-content-store.ts'
import { createSqliteStoreSettings } from './adapters/sqlite/sqlite-store-settings.ts'
import { createSqliteFirstStartStore } from './adapters/sqlite/sqlite-first-start-store.ts'
import { createSqliteLedger } from './adapters/sqlite/sqlite-ledger.ts'
import { classifySqliteError } from './adapters/sqlite/sqlite-errors.ts'
import type { ErrorClassifier } from './http/error-handler.ts'
import { Registry } from 'prom-client'
import { migratePostgres, openPostgres, SEED_LOCK, sharedSecret, withAdvisoryLock } from './adapters/postgres/database.ts'
import { classifyPgError } from './adapters/postgres/pg-errors.ts'
import { createPgAccountStore } from './adapters/postgres/pg-account-store.ts'
import { createPgContentStore } from './adapters/postgres/pg-content-store.ts'
import { createPgStoreSettings } from './adapters/postgres/pg-store-settings.ts'
import { createPgFirstStartStore } from './adapters/postgres/pg-first-start-store.ts'
import { createPgLedger } from './adapters/postgres/pg-ledger.ts'
import { createPgSearchIndex } from './adapters/postgres/pg-search-index.ts'
import type { SearchIndex } from './ports/search-index.ts'
import { createSqliteSearchIndex } from './adapters/sqlite/sqlite-search-index.ts'
import { createSearchService, type SearchService } from './domain/search/search.service.ts'
import { createPooledSearch, type PooledSearch } from './search-pool/pooled-search.ts'
import type { SearchWorkerData } from './search-pool/search-job.ts'
import type { PoolObserver } from './search-pool/worker-pool.ts'
import { createThreadCommitter, createWorkerCommitter } from './adapters/sqlite/ledger-committer.ts'
import { createMemoryRateLimiter } from './adapters/memory/memory-rate-limiter.ts'
import { checkRedisDatabase } from './adapters/redis/redis-database-check.ts'
import { createRedisInvalidationBus } from './adapters/redis/redis-invalidation-bus.ts'
import { createRedisRateLimiter } from './adapters/redis/redis-rate-limiter.ts'
import { systemClock } from './adapters/system-clock.ts'
import { createSharedTestClock } from './adapters/shared-test-clock.ts'
import type { Config } from './config/config.ts'
import { makeDirs } from './config/make-dirs.ts'
import { dataDirFailure, databaseFailure, isProgrammingError, StartupError } from './config/startup-failure.ts'
import { pino, type Logger } from 'pino'
import { createAccountsService, type AccountsService } from './domain/accounts/accounts.service.ts'
import { createMeteringService, type MeteringService } from './domain/billing/metering.service.ts'
import { RPS_CACHE_MS } from './domain/billing/rps-cache.ts'
import { createContentService, type ContentService } from './domain/content/content.service.ts'
import { createContentWriter, type ContentWriter } from './domain/content/content-writer.ts'
import { createResponseCache } from './domain/content/response-cache.ts'
import { createObservabilityMetrics, type ObservabilityMetrics } from './observability/observability-metrics.ts'
import { createTokenSigner, type TokenSigner } from './domain/tokens.ts'
import { createUsageReporter, type UsageReporter } from './domain/usage/usage-report.ts'
import type { AccountStore } from './ports/account-store.ts'
import type { IdentityStore } from './ports/identity-store.ts'
import type { OrderStore } from './ports/order-store.ts'
import { createSqliteOrderStore } from './adapters/sqlite/sqlite-order-store.ts'
import { createPgOrderStore } from './adapters/postgres/pg-order-store.ts'
import { createOrdersService, type OrdersService } from './payments/orders.service.ts'
import { paymentProviderFor } from './payments/payment-provider-for.ts'
import { createSqliteIdentityStore } from './adapters/sqlite/sqlite-identity-store.ts'
import { createPgIdentityStore } from './adapters/postgres/pg-identity-store.ts'
import { createIdentityService, type IdentityService } from './identity/identity.service.ts'
import { createMailer, type Mailer } from './identity/mailer.ts'
import type { Clock } from './ports/clock.ts'
import type { ContentStore } from './ports/content-store.ts'
import type { StoreSettings } from './ports/store-settings.ts'
import type { FirstStartStore } from './ports/first-start-store.ts'
import type { Ledger } from './ports/ledger.ts'
import type { RateLimiter } from './ports/rate-limiter.ts'
import type { LiveAnswerStore } from './ports/live-answers.ts'
import { createSqliteLiveAnswers } from './adapters/sqlite/sqlite-live-answers.ts'
import { createPgLiveAnswers } from './adapters/postgres/pg-live-answers.ts'
import { createRedisFetchLocks } from './adapters/redis/redis-fetch-locks.ts'
import { createLiveWiring, type LiveWiring } from './live-source/live-wiring.ts'

export interface Container {
  config: Config
  logger: Logger
  clock: Clock
  /**
   * Present only with PRONET_TEST_CLOCK=1: the operator's clock, an offset over real time kept in the store, so a restart,
   * the CLI and every node started after a change keep to it.
   */
  testClock: TestClock | undefined
  contentStore: ContentStore
  accountStore: AccountStore
  identityStore: IdentityStore
  orderStore: OrderStore
  /** The first start's record (src/startup.ts). */
  firstStart: FirstStartStore
  /** Named facts kept in the store (the synthetic network `pronet seed` wrote, the test clock). */
  settings: StoreSettings
  writer: ContentWriter
  tokens: TokenSigner
  /** The key the console's form tokens are signed with: the server secret's, so every node shares it. */
  formKey: Buffer
  content: ContentService
  accounts: AccountsService
  /** Console users, their accounts and sessions. */
  identity: IdentityService
  /** Pack orders and their payment. */
  orders: OrdersService
  ledger: Ledger
  /** Reservations against keys' monthly credit limits. */
  keyCaps: KeyCaps
  /** Accounts' webhook endpoints, their events and deliveries. */
  webhooks: WebhooksService
  limiter: RateLimiter
  metering: MeteringService
  usage: UsageReporter
  search: SearchService
  /** A live-source node's upstream, kept answers and routes (PRONET_SOURCE upstream or upstream-only); none on a store node. */
  live: LiveWiring | undefined
  /** This node's metrics (Prometheus), served at GET /metrics, GET /admin/v1/metrics and on METRICS_PORT. */
  metrics: Registry
  /** The request, credit, refusal and cache series on `metrics`, and where a queue of work registers its own. */
  observability: ObservabilityMetrics
  /** Store failures that mean "unavailable, retry" → 503 (see http/error-handler.ts). */
  classifyError: ErrorClassifier
  /** The monotonic clock in ms that waits and search time are measured by (performance.now unless overridden). */
  monotonic: () => number
  /**
   * Runs `work` while no other node of this store runs its own (first-start seeding): several nodes
   * starting on one empty database seed it exactly once.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T>
  close(): Promise<void>
}

/** How often the keys' last uses are written. */
const KEY_USES_FLUSH_MS = 5_000

export interface ContainerOverrides {
  /** A clock for tests (a manual clock); wins over PRONET_TEST_CLOCK. */
  clock?: Clock
  /** Use this SQLite path instead of <dataDir>/pronet.db (':memory:' in tests). */
  sqlitePath?: string
  /** How the batch waits for rate units (tests with a manual clock move it instead). */
  sleep?: (ms: number) => Promise<void>
  /**
   * Commit billing batches on a worker thread or on the event-loop thread; wins over
   * PRONET_COMMIT_WORKER. ':memory:' always commits on the event-loop thread, and the CLI's one-shot
   * commands need no worker.
   */
  commitInWorker?: boolean
  /** CPUs the process may use (default os.availableParallelism()): PRONET_COMMIT_WORKER=auto decides by it. */
  cpus?: number
  /**
   * Wraps the search index the search service plans over (the search benchmark times its calls).
   * Searches are then walked on the event-loop thread, where the wrapper is.
   */
  wrapSearchIndex?: (index: SearchIndex) => SearchIndex
  /** Search worker threads; wins over PRONET_SEARCH_WORKERS (the CLI's commands need none). */
  searchWorkers?: number
  /** Told of every search the worker pool starts, beside the metrics (the fairness tests count with it). */
  searchObserver?: PoolObserver
  /** The monotonic clock searches are timed by (each account's share of search time) and a call's wait before its rate is checked (default performance.now). */
  monotonic?: () => number
  /**
   * Where lines for the operator about the store go as it opens (a slow one-time rebuild, a file others
   * can read); default the log at warn. The CLI writes them to stderr, keeping its stdout (--json) clean.
   */
  notice?: (line: string) => void
  /** Log lines go to stderr instead of stdout (the CLI: a Redis it cannot reach must not log into --json output). */
  logToStderr?: boolean
  /** How long the rate limiter waits for Redis before it answers from this node's share (default: the limiter's own). */
  redisReplyTimeoutMs?: number
  /** Where the console's mail goes instead of SMTP or the log (tests read the links from it). */
  mailer?: Mailer
}

/**
 * New stores are created 0600 (openSqlite); one made by an earlier build (created 0644), or copied
 * in, keeps the mode it has, which is said at every open while any user may read it or others may
 * write it: it holds key hashes and the ledger. A group's read (a backup user's) is the operator's call.
 */
function warnIfReadableByOthers(path: string, notice: (line: string) => void): void {
  const mode = statSync(path).mode & 0o777
  if ((mode & 0o026) !== 0) {
    notice(`${path} is open to other users (mode ${mode.toString(8).padStart(4, '0')}): it holds API key hashes and every account's ledger; chmod 600 it, with its -wal and -shm`)
  }
}

/** The embedded store's file: pronet.db in the data directory. */
export const embeddedStorePath = (config: Config): string => join(config.dataDir, 'pronet.db')

/** The server secret: PRONET_SECRET, else one generated once and kept (0600) in the data dir. */
export function loadSecret(config: Config): string {
  if (config.secret) return config.secret
  const file = join(config.dataDir, 'secret')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  makeDirs(config.dataDir)
  const secret = randomBytes(32).toString('base64url')
  writeFileSync(file, `${secret}\n`, { mode: 0o600 })
  chmodSync(file, 0o600)
  return secret
}

/** The stores of one backend, and what the rest of the container needs to know about them. */
interface Stores {
  contentStore: ContentStore
  accountStore: AccountStore
  identityStore: IdentityStore
  orderStore: OrderStore
  firstStart: FirstStartStore
  settings: StoreSettings
  ledger: Ledger
  keyCaps: KeyCaps
  webhookStore: WebhookStore
  searchIndex: SearchIndex
  /** Upstream answers a live-source node keeps. */
  liveAnswers: LiveAnswerStore
  /** What a search worker opens its own read connection to; none for an in-memory store. */
  searchStore: SearchWorkerData['store'] | undefined
  secret: string | Buffer
  classifyError: ErrorClassifier
  exclusive<T>(work: () => Promise<T>): Promise<T>
  close(): Promise<void>
}

/** The operator's test clock (PRONET_TEST_CLOCK=1): setting it is durable before it resolves. */
export interface TestClock {
  now(): number
  set(ms: number): Promise<void>
}

const newLotId = () => `lot_${randomBytes(9).toString('base64url')}`

/**
 * Whether the embedded ledger commits on a worker thread. The worker keeps each commit's fsync off the
 * event loop, but it needs a CPU of its own: on two CPUs it competes with the event loop (and, on a
 * loaded machine, everything else) for one, and each batch waits for the thread to be scheduled. So
 * on two CPUs or fewer, committing on the event loop is faster, in commit latency, response time and
 * throughput alike (the metering benchmark, `npm run bench:metering`, compares the two).
 */
export function commitsInWorker(config: Config, overrides: ContainerOverrides): boolean {
  if (overrides.commitInWorker !== undefined) return overrides.commitInWorker
  if (config.commitWorker !== 'auto') return config.commitWorker === 'on'
  return (overrides.cpus ?? availableParallelism()) > 2
}

function bothObservers(a: PoolObserver, b: PoolObserver | undefined): PoolObserver {
  if (!b) return a
  return {
    depth: (n) => (a.depth?.(n), b.depth?.(n)),
    started: (id, ms, passedBy) => (a.started?.(id, ms, passedBy), b.started?.(id, ms, passedBy)),
    refused: (id) => (a.refused?.(id), b.refused?.(id)),
  }
}

/**
 * How many search worker threads walk searches: PRONET_SEARCH_WORKERS, `auto` one fewer than the CPUs
 * (at least one, so the event-loop thread keeps a CPU for cheap calls). None for an in-memory store
 * (a worker cannot open it) or when the index is wrapped.
 */
function searchWorkerCount(config: Config, overrides: ContainerOverrides, store: SearchWorkerData['store'] | undefined): number {
  if (!store || overrides.wrapSearchIndex) return 0
  if (overrides.searchWorkers !== undefined) return overrides.searchWorkers
  if (config.searchWorkers !== 'auto') return config.searchWorkers
  return Math.max(1, (overrides.cpus ?? availableParallelism()) - 1)
}

/** Embedded: one SQLite file in the data dir (or ':memory:' in tests); ledger commits as commitsInWorker decides. */
function sqliteStores(config: Config, overrides: ContainerOverrides, logger: Logger, metrics: Registry): Stores {
  const sqlitePath = overrides.sqlitePath ?? embeddedStorePath(config)
  if (sqlitePath !== ':memory:') makeDirs(config.dataDir)
  const notice = overrides.notice ?? ((line: string) => logger.warn(line))
  const db: SqliteDb = openSqlite(sqlitePath, { notice })
  if (sqlitePath !== ':memory:') warnIfReadableByOthers(sqlitePath, notice)
  const contentStore = createSqliteContentStore(db)
  const accountStore = createSqliteAccountStore(db)
  const identityStore = createSqliteIdentityStore(db)
  const orderStore = createSqliteOrderStore(db)
  const settings = createSqliteStoreSettings(db)
  const inWorker = sqlitePath !== ':memory:' && commitsInWorker(config, overrides)
  // Said once at start (the CLI chooses for itself and keeps its output clean).
  if (overrides.commitInWorker === undefined && sqlitePath !== ':memory:') {
    logger.info({ commits: inWorker ? 'worker thread' : 'event-loop thread', setting: config.commitWorker }, 'billing group commits')
  }
  const ledger = createSqliteLedger(db, {
    newLotId,
    registry: metrics,
    onBatchReplay: (error) => logger.warn({ error }, 'billing batch replayed request by request'),
    ...(inWorker
      ? {
          committer: createWorkerCommitter(
            sqlitePath,
            (err) => logger.error({ err }, 'billing commit worker failed; committing on the event-loop thread from now on'),
            () => createThreadCommitter(db),
          ),
        }
      : {}),
  })
  return {
    contentStore,
    accountStore,
    identityStore,
    orderStore,
    firstStart: createSqliteFirstStartStore(db, settings),
    settings,
    ledger,
    keyCaps: createSqliteKeyCaps(db),
    webhookStore: createSqliteWebhookStore(db),
    searchIndex: createSqliteSearchIndex(db),
    liveAnswers: createSqliteLiveAnswers(db),
    searchStore: sqlitePath === ':memory:' ? undefined : { kind: 'sqlite', path: sqlitePath },
    secret: sqlitePath === ':memory:' && !config.secret ? randomBytes(32) : loadSecret(config),
    classifyError: classifySqliteError,
    // One process owns an embedded store while it serves.
    exclusive: (work) => work(),
    async close() {
      await ledger.close()
      await contentStore.close()
      await accountStore.close()
      await identityStore.close()
      await orderStore.close()
      db.close()
    },
  }
}

/**
 * Scale-out: PostgreSQL shared by every node. Migrations run at start under an advisory lock, the
 * first-start seeding under another, and the server secret (cursors and tokens must verify on every
 * node) is PRONET_SECRET or one generated once and kept in the database.
 */
async function postgresStores(config: Config, url: string, logger: Logger, metrics: Registry, now: () => number): Promise<Stores> {
  const pool = openPostgres(url)
  try {
    await migratePostgres(pool)
  } catch (e) {
    await pool.end()
    throw e
  }
  const contentStore = createPgContentStore(pool)
  const accountStore = createPgAccountStore(pool)
  const identityStore = createPgIdentityStore(pool)
  const orderStore = createPgOrderStore(pool)
  const settings = createPgStoreSettings(pool)
  // A settle whose COMMIT reply was lost is retried until its outcome is known for at most 5 s (then
  // answered 503 and, if it had committed, compensated in the background).
  const ledger = createPgLedger(pool, {
    newLotId,
    logger,
    registry: metrics,
    settleDeadlineMs: 5_000,
    batchWaitMs: config.ledgerBatchMs,
    batchMaxRequests: config.ledgerBatchMax,
    now,
  })
  const secret = config.secret ?? (await sharedSecret(pool))
  return {
    contentStore,
    accountStore,
    identityStore,
    orderStore,
    firstStart: createPgFirstStartStore(pool, settings),
    settings,
    ledger,
    keyCaps: createPgKeyCaps(pool),
    webhookStore: createPgWebhookStore(pool),
    searchIndex: createPgSearchIndex(pool),
    liveAnswers: createPgLiveAnswers(pool),
    searchStore: { kind: 'postgres', url },
    secret,
    classifyError: classifyPgError,
    exclusive: (work) => withAdvisoryLock(pool, SEED_LOCK, work),
    async close() {
      await ledger.close()
      await contentStore.close()
      await accountStore.close()
      await identityStore.close()
      await orderStore.close()
      await pool.end()
    },
  }
}

/**
 * createContainer for the entry points (`npm start`, the CLI): a store that cannot be opened (a data
 * dir that cannot be used, a database that cannot be reached) is told in one line naming the setting,
 * not with a driver's stack trace; a bug keeps its stack.
 */
export async function openContainer(config: Config, overrides: ContainerOverrides = {}): Promise<Container> {
  try {
    return await createContainer(config, overrides)
  } catch (e) {
    if (e instanceof StartupError || isProgrammingError(e)) throw e
    throw config.databaseUrl ? databaseFailure(config.databaseUrl, e) : dataDirFailure(config.dataDir, e)
  }
}

export async function createContainer(config: Config, overrides: ContainerOverrides = {}): Promise<Container> {
  // The CLI keeps stdout for its own output (--json): its container logs to stderr.
  const logOptions = { level: config.logLevel, base: { service: 'pronet' } }
  const logger = overrides.logToStderr ? pino(logOptions, pino.destination(2)) : pino(logOptions)
  // Process-wide default metrics are added by `serve` only: tests build many containers per process.
  const metrics = new Registry()
  // The requests' clock, known once the stores are open (a test clock is kept in them).
  let requestsClock: Clock = overrides.clock ?? systemClock
  const stores = config.databaseUrl
    ? await postgresStores(config, config.databaseUrl, logger, metrics, () => requestsClock.now())
    : sqliteStores(config, overrides, logger, metrics)
  const { contentStore, accountStore, ledger } = stores
  if (config.redisUrl) await checkRedisDatabase(config.redisUrl)
  const bus = config.redisUrl ? await createRedisInvalidationBus({ url: config.redisUrl, logger }) : undefined
  const testClock = !overrides.clock && config.testClock ? await createSharedTestClock({ settings: stores.settings, ...(bus ? { bus } : {}) }) : undefined
  const clock: Clock = overrides.clock ?? testClock ?? systemClock
  requestsClock = clock
  const tokens = createTokenSigner(stores.secret)
  const platformHost = config.platformHost
  // REDIS_URL: rate budgets, search leases and key revocations shared by every node. Redis's own clock
  // decides the windows, unless the clock is the operator's test clock (or a test's).
  const limiter: RateLimiter = config.redisUrl
    ? await createRedisRateLimiter({
        url: config.redisUrl,
        logger,
        registry: metrics,
        clock: testClock || overrides.clock ? 'caller' : 'redis',
        ...(overrides.redisReplyTimeoutMs === undefined ? {} : { commandTimeoutMs: overrides.redisReplyTimeoutMs }),
      })
    : createMemoryRateLimiter()
  const sleep = overrides.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)))
  const monotonic = overrides.monotonic ?? (() => performance.now())
  let closing: Promise<void> | undefined
  // One byte budget for every ready body: content responses and search result items.
  const cache = createResponseCache({ maxBytes: config.cacheMb * 1024 * 1024, version: () => contentStore.version() })
  const observability = createObservabilityMetrics({ registry: metrics, cacheStats: () => cache.stats() })
  const inProcessSearch = createSearchService({ index: overrides.wrapSearchIndex?.(stores.searchIndex) ?? stores.searchIndex, tokens, clock, platformHost, cache })
  const workers = searchWorkerCount(config, overrides, stores.searchStore)
  const searchPool: PooledSearch | undefined =
    workers > 0 && stores.searchStore
      ? createPooledSearch({
          inner: inProcessSearch,
          workers,
          worker: { store: stores.searchStore, secret: stores.secret, platformHost, cacheMb: config.cacheMb === 0 ? 0 : Math.max(8, Math.ceil(config.cacheMb / 4)) },
          clock,
          version: () => contentStore.version(),
          monotonic,
          observer: bothObservers(observability.registerQueue('search'), overrides.searchObserver),
          onWorkerFailure: (err) => logger.error({ err }, 'a search worker stopped; the search it held was answered 500, unbilled, and a new worker takes the next'),
        })
      : undefined
  const search: SearchService = searchPool ?? inProcessSearch
  const accounts = createAccountsService({ store: accountStore, clock, randomBytes, ...(bus ? { bus } : {}) })
  const identity = createIdentityService({
    store: stores.identityStore,
    accounts,
    clock,
    randomBytes,
    mailer: overrides.mailer ?? createMailer({ smtpUrl: config.smtpUrl, publicUrl: config.publicUrl, logger }),
    publicUrl: config.publicUrl,
    signup: config.signup,
    adminToken: config.adminToken,
    onMailError: (failure) => logger.warn(failure, 'console mail could not be sent'),
  })
  // Keys' last uses reach the store in bulk, a few seconds late, never on a call's own path.
  const flushKeyUses = () =>
    accounts.flushKeyUses().catch((err: unknown) => logger.warn({ err }, 'could not record when keys were last used; tried again shortly'))
  const keyUses = setInterval(() => void flushKeyUses(), KEY_USES_FLUSH_MS)
  keyUses.unref()
  const webhooks = createWebhooksService({
    store: stores.webhookStore,
    ledger,
    clock,
    randomBytes,
    accountExists: (id) => accounts.get(id),
    allowPrivate: config.webhookPrivateUrls,
    onError: (err) => logger.warn({ err }, 'could not check a balance for its webhook alerts; checked again at the next look'),
  })
  const writer = createContentWriter({ store: contentStore, clock, platformHost })
  const live = config.liveSource
    ? createLiveWiring({
        config: config.liveSource,
        limiter,
        answers: stores.liveAnswers,
        // Nodes sharing a Redis fetch each kept answer once between them (upstream-only keeps none).
        locks: config.redisUrl && config.liveSource.mode === 'upstream' ? await createRedisFetchLocks({ url: config.redisUrl }) : undefined,
        writer,
        tokens,
        secret: stores.secret,
        prices: config.prices,
        platformHost,
        clock,
        monotonic,
        sleep,
        logger,
        registry: metrics,
      })
    : undefined

  return {
    config,
    logger,
    clock,
    testClock,
    contentStore,
    accountStore,
    identityStore: stores.identityStore,
    orderStore: stores.orderStore,
    firstStart: stores.firstStart,
    settings: stores.settings,
    writer,
    tokens,
    formKey: createHmac('sha256', stores.secret).update('console form tokens').digest(),
    content: createContentService({ store: contentStore, clock, tokens, platformHost, cache }),
    accounts,
    identity,
    orders: createOrdersService({
      orders: stores.orderStore,
      ledger,
      provider: paymentProviderFor(config),
      clock,
      randomBytes,
      packTiers: config.packTiers,
      publicUrl: config.publicUrl,
      logger,
    }),
    ledger,
    keyCaps: stores.keyCaps,
    webhooks,
    limiter,
    metering: createMeteringService({
      ledger,
      limiter,
      clock,
      sleep,
      buyCreditsUrl: config.buyCreditsUrl,
      packTiers: config.packTiers,
      monotonic,
      // The worker pool shares its threads fairly itself; walked on the event loop, searches need the time share.
      searchTimeShare: !config.databaseUrl && !searchPool,
      // On PostgreSQL the limit would be a round trip on every call; the embedded store reads it in the process.
      rpsCacheMs: config.databaseUrl ? RPS_CACHE_MS : 0,
      bus,
    }),
    usage: createUsageReporter({ ledger, clock }),
    search,
    live,
    metrics,
    observability,
    classifyError: stores.classifyError,
    monotonic,
    exclusive: stores.exclusive,
    // Idempotent: a second close (a test that pulled the store away, then its cleanup) waits for the first.
    close() {
      closing ??= (async () => {
        clearInterval(keyUses)
        await webhooks.settled()
        await searchPool?.close()
        await flushKeyUses()
        testClock?.stop()
        await limiter.close()
        await live?.close()
        await bus?.close()
        await stores.close()
      })()
      return closing
    },
  }
}
