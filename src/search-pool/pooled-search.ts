/**
 * The search service with its walks on the worker pool: validation and cursor checks stay on the
 * event-loop thread (they are cheap, and their 400s free), the walk and the page's rendering run on a
 * worker in fair order across accounts. A call with no account (the unmetered benchmark) is walked
 * where it is.
 */
import { Worker } from 'node:worker_threads'
import type { Clock } from '../ports/clock.ts'
import type { SearchService } from '../domain/search/search.service.ts'
import type { SearchJob, SearchResult, SearchWorkerData } from './search-job.ts'
import { createWorkerPool, type PoolObserver, type WorkerPool } from './worker-pool.ts'

export interface PooledSearchOptions {
  inner: SearchService
  workers: number
  worker: SearchWorkerData
  clock: Clock
  /** The content store's version (the worker caches follow it). */
  version(): string
  monotonic(): number
  observer?: PoolObserver
  onWorkerFailure(error: unknown): void
}

export type PooledSearch = SearchService & { close(): Promise<void>; pool: WorkerPool<SearchJob, SearchResult> }

/**
 * A worker running the built .js directly, or, from the .ts source (tests, dev), a small ESM loader
 * that registers tsx first: on Node 20 a worker does not take `--import tsx` from its execArgv.
 */
function startSearchWorker(data: SearchWorkerData): Worker {
  const entry = new URL(`./search.worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url)
  if (entry.pathname.endsWith('.js')) return new Worker(entry, { workerData: data })
  const tsxApi = import.meta.resolve('tsx/esm/api')
  const code = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}) })`
  return new Worker(code, { eval: true, workerData: data })
}

export function createPooledSearch(opts: PooledSearchOptions): PooledSearch {
  const pool = createWorkerPool<SearchJob, SearchResult>({
    size: opts.workers,
    start: () => startSearchWorker(opts.worker),
    monotonic: opts.monotonic,
    ...(opts.observer ? { observer: opts.observer } : {}),
    onWorkerFailure: opts.onWorkerFailure,
  })
  const inner = opts.inner
  return {
    pool,
    prepare: inner.prepare,
    async run(prepared, who) {
      if (!who) return inner.run(prepared)
      const result = await pool.run(who.accountId, who.weight, { prepared, now: opts.clock.now(), version: opts.version() })
      return { body: result.parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)) }
    },
    search: inner.search,
    close: () => pool.close(),
  }
}
