/**
 * The live source: answers a data call from a kept upstream answer while it is fresh, else from the
 * upstream, keeping what it fetched (`upstream` mode), or always from the upstream (`upstream-only`).
 *
 * One fetch per answer: calls for the same answer on this node share one run (single-flight); across
 * nodes one takes the fetch lock and the others wait for its answer to appear in the shared store (or
 * for its failure, shared for a moment rather than retried by each). Every upstream call first takes
 * its units from the shared budget, and a 429 pauses the budget and is retried while the caller may
 * still wait. When the upstream fails, a kept answer no older than its freshness plus
 * PRONET_SERVE_STALE_S is served as `stale`; otherwise the failure is the call's (502, 504 or 503).
 */
import { hash } from 'node:crypto'
import type { Logger } from 'pino'
import type { ContentWriter } from '../domain/content/content-writer.ts'
import { ApiError, type ErrorCode } from '../domain/errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { FetchLocks } from '../ports/fetch-locks.ts'
import type { LiveAnswerStore } from '../ports/live-answers.ts'
import { freshnessAsked } from './cache-control.ts'
import type { LiveSourceConfig } from './live-source-config.ts'
import type { AnswerSource, LiveMetrics, UpstreamOutcome } from './live-metrics.ts'
import type { LiveOperation } from './live-operations.ts'
import { createSingleFlight } from './single-flight.ts'
import { UpstreamBusy, type UpstreamAnswer } from './upstream-client.ts'
import type { UpstreamBudget } from './upstream-budget.ts'

/** One call's question to the live source. */
export interface LiveCall {
  /** The price-table row, as metrics name the endpoint. */
  operation: string
  op: LiveOperation
  /** The answer's name: operation, canonical request, and the upstream's page token. */
  name: string
  /** The call's Cache-Control request header. */
  cacheControl: string | string[] | undefined
  /** Asks the upstream. */
  fetch(): Promise<UpstreamAnswer>
  /** The upstream's body as the customer gets it (page tokens wrapped in ours). */
  present(text: string): Buffer
  /** Records of a fetched answer for the store (ingest format). */
  records?(body: unknown): unknown[]
  /** What the call costs upstream when the upstream does not say. */
  fallbackCredits(status: 200 | 404): number
}

export interface LiveResult {
  status: 200 | 404
  /** The body to send (200), or nothing (404: the caller answers its own not-found error). */
  bytes: Buffer
  /** The not-found code of a 404. */
  code: string | undefined
  source: AnswerSource
  /** Whole seconds since the answer was fetched. */
  ageS: number
}

export interface LiveSourceDeps {
  config: LiveSourceConfig
  budget: UpstreamBudget
  /** Kept answers (`upstream` mode); none in `upstream-only`. */
  answers: LiveAnswerStore | undefined
  /** Fetch locks shared by every node (Redis); none when this node is alone. */
  locks: FetchLocks | undefined
  /** Where fetched records are written (validated as ingest validates them). */
  writer: ContentWriter | undefined
  clock: Clock
  sleep: (ms: number) => Promise<void>
  logger: Pick<Logger, 'warn' | 'debug'>
  metrics: LiveMetrics
  /** The longest a call waits for the budget, a 429's pause, or another node's fetch. */
  maxWaitMs: number
  /** Answers kept in memory in front of the shared store. */
  memoEntries?: number
}

export interface LiveSource {
  readonly mode: LiveSourceConfig['mode']
  answer(call: LiveCall): Promise<LiveResult>
}

interface Kept {
  status: 200 | 404
  bytes: Buffer
  code: string | undefined
  fetchedAt: number
}

/** How long a failed fetch is told to the calls that waited on it, instead of each trying again. */
const FAILURE_SHARED_MS = 1_000
const POLL_MS = 20

const keyOf = (name: string): string => hash('sha256', name, 'base64url')

export function createLiveSource(deps: LiveSourceDeps): LiveSource {
  const { config, budget, answers, locks, clock, metrics } = deps
  const flights = createSingleFlight<string, Kept>()
  const memo = new Map<string, Kept>()
  const memoEntries = deps.memoEntries ?? 10_000

  function remember(name: string, kept: Kept): Kept {
    memo.delete(name)
    memo.set(name, kept)
    if (memo.size > memoEntries) memo.delete(memo.keys().next().value as string)
    return kept
  }

  /** An answer as served: a 200's body presented for the customer, or a 404's not-found code. */
  function keptFrom(call: LiveCall, status: 200 | 404, text: string, fetchedAt: number): Kept {
    if (status === 404) return { status, bytes: Buffer.alloc(0), code: codeOf(text), fetchedAt }
    return { status, bytes: call.present(text), code: undefined, fetchedAt }
  }

  /** How long (ms) a kept answer stays fresh for this call. */
  function freshFor(call: LiveCall, kept: Kept): number {
    const asked = freshnessAsked(call.cacheControl)
    if (asked.noCache) return -1
    const own = config.freshness[kept.status === 404 ? 'notFound' : call.op.resource] * 1000
    return asked.maxAgeS === undefined ? own : Math.min(own, asked.maxAgeS * 1000)
  }

  const ageMs = (kept: Kept, now: number) => Math.max(0, now - kept.fetchedAt)

  function result(kept: Kept, source: AnswerSource, now: number): LiveResult {
    metrics.answered(source)
    return { status: kept.status, bytes: kept.bytes, code: kept.code, source, ageS: source === 'upstream' ? 0 : Math.floor(ageMs(kept, now) / 1000) }
  }

  /** The upstream's answer, within the budget; a 429 pauses the budget and is retried while the caller may wait. */
  async function ask(call: LiveCall): Promise<UpstreamAnswer> {
    const deadline = clock.now() + deps.maxWaitMs
    for (;;) {
      try {
        await budget.acquire(call.op.units)
      } catch (e) {
        metrics.call(call.operation, 'budget')
        throw e
      }
      try {
        const got = await call.fetch()
        metrics.call(call.operation, got.status === 200 ? 'ok' : 'not_found')
        metrics.credits(got.creditsCharged ?? call.fallbackCredits(got.status))
        return got
      } catch (e) {
        metrics.call(call.operation, outcomeOf(e))
        if (e instanceof UpstreamBusy) {
          budget.pause(e.retryAfterMs)
          if (clock.now() + e.retryAfterMs <= deadline) continue
        }
        throw e
      }
    }
  }

  /** Fetches, keeps the answer in the shared store and its records in the content store. */
  async function fetchAndKeep(call: LiveCall): Promise<Kept> {
    const got = await ask(call)
    const fetchedAt = clock.now()
    const text = storedText(got)
    const kept = keptFrom(call, got.status, text, fetchedAt)
    if (!answers) return kept
    await answers.put({ key: keyOf(call.name), operation: call.operation, status: got.status, body: Buffer.from(text), fetchedAt })
    if (got.status === 200 && deps.writer && call.records) {
      const records = call.records(got.body)
      if (records.length > 0) {
        try {
          const outcomes = await deps.writer.write(records)
          const refused = outcomes.filter((o) => !o.ok).length
          if (refused > 0) deps.logger.debug({ operation: call.operation, refused }, 'fetched records not kept in the store')
        } catch (err) {
          deps.logger.warn({ err, operation: call.operation }, 'fetched records could not be written to the store; the answer is kept')
        }
      }
    }
    return remember(call.name, kept)
  }

  async function readKept(call: LiveCall, key: string): Promise<Kept | undefined> {
    const row = await (answers as LiveAnswerStore).get(key)
    return row ? keptFrom(call, row.status, row.body.toString('utf8'), row.fetchedAt) : undefined
  }

  /**
   * One fetch for all the nodes: the lock's holder fetches, the others wait for its answer. `seen`
   * is the kept answer this call found too old (or none): an answer kept since then that is fresh
   * enough for the call will do, though it was fetched just before the call began. Its node may
   * still have been writing it when the call looked; fetching again would cost the upstream a
   * second call for the same answer.
   */
  async function fetchOnce(call: LiveCall, startedAt: number, seen: Kept | undefined): Promise<Kept> {
    if (!locks || !answers) return fetchAndKeep(call)
    const key = keyOf(call.name)
    const serves = (done: Kept | undefined): done is Kept =>
      done !== undefined &&
      (done.fetchedAt >= startedAt || (done.fetchedAt > (seen?.fetchedAt ?? Number.NEGATIVE_INFINITY) && ageMs(done, clock.now()) <= freshFor(call, done)))
    const deadline = startedAt + deps.maxWaitMs + config.timeoutMs
    let waited = false
    for (;;) {
      let release: (() => Promise<void>) | undefined
      try {
        release = await locks.tryTake(key, deps.maxWaitMs + config.timeoutMs + 1_000)
      } catch {
        // Without the shared locks (Redis away), this node fetches on its own: one call per node at most.
        return fetchAndKeep(call)
      }
      if (release) {
        try {
          // Another node may have finished between our miss and our lock.
          const done = await readKept(call, key)
          if (serves(done)) return remember(call.name, done)
          return await fetchAndKeep(call)
        } catch (e) {
          if (e instanceof ApiError) await locks.noteFailure(key, encodeFailure(e), FAILURE_SHARED_MS).catch(() => undefined)
          throw e
        } finally {
          await release().catch(() => undefined)
        }
      }
      if (!waited) metrics.coalesced('cluster')
      waited = true
      for (;;) {
        if (clock.now() >= deadline) throw new ApiError('UPSTREAM_TIMEOUT', 'The live data source did not answer in time; nothing was charged.')
        await deps.sleep(POLL_MS)
        const done = await readKept(call, key)
        if (serves(done)) return remember(call.name, done)
        let failed: string | undefined
        let held: boolean
        try {
          failed = await locks.failure(key)
          held = failed === undefined && (await locks.held(key))
        } catch {
          return fetchAndKeep(call)
        }
        if (failed !== undefined) throw decodeFailure(failed)
        if (!held) break
      }
    }
  }

  return {
    mode: config.mode,
    async answer(call) {
      const startedAt = clock.now()
      if (config.mode === 'upstream-only') {
        const got = await ask(call)
        return result(keptFrom(call, got.status, storedText(got), startedAt), 'upstream', startedAt)
      }
      const limit = (kept: Kept) => freshFor(call, kept)
      let kept = memo.get(call.name)
      if (!kept || ageMs(kept, startedAt) > limit(kept)) kept = (await readKept(call, keyOf(call.name))) ?? kept
      if (kept && ageMs(kept, startedAt) <= limit(kept)) {
        if (memo.get(call.name) !== kept) remember(call.name, kept)
        return result(kept, 'cache', startedAt)
      }
      const stale = kept
      try {
        const started = flights.stats().started
        const flight = flights.run(call.name, () => fetchOnce(call, startedAt, stale))
        // run() starts a new flight at once or joins the one under way.
        if (flights.stats().started === started) metrics.coalesced('node')
        return result(await flight, 'upstream', clock.now())
      } catch (e) {
        const now = clock.now()
        // A customer who asked for a fresher copy (Cache-Control) gets the failure, not an older copy.
        const asked = freshnessAsked(call.cacheControl)
        const wantsFresher = asked.noCache || asked.maxAgeS !== undefined
        if (stale && !wantsFresher && config.serveStaleS > 0 && e instanceof ApiError && e.status >= 500) {
          const own = config.freshness[stale.status === 404 ? 'notFound' : call.op.resource] * 1000
          if (ageMs(stale, now) <= own + config.serveStaleS * 1000) return result(stale, 'stale', now)
        }
        throw e
      }
    },
  }
}

/** What is kept of an answer: a 200's body as the upstream wrote it; of a 404, only which record is absent. */
function storedText(got: UpstreamAnswer): string {
  return got.status === 404 ? JSON.stringify({ code: (got.body as { code: string }).code }) : got.text
}

const codeOf = (text: string): string => (JSON.parse(text) as { code: string }).code

function outcomeOf(e: unknown): UpstreamOutcome {
  if (e instanceof UpstreamBusy) return 'busy'
  if (e instanceof ApiError) {
    if (e.status === 400) return 'refused_input'
    if (e.code === 'UPSTREAM_TIMEOUT') return 'timeout'
    if (e.code === 'SERVICE_UNAVAILABLE') return 'refused'
  }
  return 'error'
}

/** A failure as other nodes' waiting calls re-raise it: our own code, message and Retry-After only. */
function encodeFailure(e: ApiError): string {
  return JSON.stringify({ code: e.code, message: e.message, retryAfter: e.headers?.['retry-after'] })
}

function decodeFailure(text: string): ApiError {
  try {
    const f = JSON.parse(text) as { code: ErrorCode; message: string; retryAfter?: string }
    return new ApiError(f.code, f.message, undefined, f.retryAfter ? { 'retry-after': f.retryAfter } : undefined)
  } catch {
    return new ApiError('UPSTREAM_ERROR', 'The live data source failed to give a usable answer; nothing was charged.')
  }
}
