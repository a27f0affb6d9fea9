/**
 * A search worker thread: its own read connection to the store (a read-only SQLite connection to the
 * data file, or a small PostgreSQL pool), its own cache of ready result items, and the same search
 * code as the event-loop thread. It walks the searches the pool hands it one at a time; the event loop
 * only validated them and holds their price.
 */
import Database from 'better-sqlite3'
import { setPriority } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import { classifyPgError } from '../adapters/postgres/pg-errors.ts'
import { openPostgres } from '../adapters/postgres/database.ts'
import { createPgSearchIndex } from '../adapters/postgres/pg-search-index.ts'
import { classifySqliteError } from '../adapters/sqlite/sqlite-errors.ts'
import { createSqliteSearchIndex } from '../adapters/sqlite/sqlite-search-index.ts'
import { createResponseCache } from '../domain/content/response-cache.ts'
import { ApiError } from '../domain/errors.ts'
import { createSearchService } from '../domain/search/search.service.ts'
import { createTokenSigner } from '../domain/tokens.ts'
import type { SearchJob, SearchWorkerData } from './search-job.ts'
import type { WireError, WorkerReply } from './worker-pool.ts'

/** The search threads' nice value: lower priority than the serving thread's 0. */
const SEARCH_NICE = 10

// Below the serving thread's priority (on Linux a thread's nice value is its own): when the CPUs are
// all busy, the kernel runs cheap calls first and searches in what is left.
try {
  setPriority(SEARCH_NICE)
} catch {
  // Not permitted here (some containers): the fair queue still orders the searches.
}

const port = parentPort
if (!port) throw new Error('search.worker must run as a worker thread')
const data = workerData as SearchWorkerData

const { index, classify, close } =
  data.store.kind === 'sqlite'
    ? (() => {
        const db = new Database(data.store.path, { readonly: true, fileMustExist: true })
        db.pragma('busy_timeout = 5000')
        db.pragma('cache_size = -65536')
        return { index: createSqliteSearchIndex(db), classify: classifySqliteError, close: async () => void db.close() }
      })()
    : (() => {
        const pool = openPostgres(data.store.url, { max: 2, applicationName: 'pronet-search' })
        return { index: createPgSearchIndex(pool), classify: classifyPgError, close: () => pool.end() }
      })()

// The store's version comes with each job from the event-loop thread, which sees every write.
let version = ''
let now = 0
const cache = createResponseCache({ maxBytes: data.cacheMb * 1024 * 1024, version: () => version })
const search = createSearchService({ index, tokens: createTokenSigner(data.secret), clock: { now: () => now }, platformHost: data.platformHost, cache })

port.on('message', (message: { id: number; payload: SearchJob } | { close: true }) => {
  if ('close' in message) {
    void close().finally(() => process.exit(0))
    return
  }
  const { id, payload } = message
  version = payload.version
  now = payload.now
  search.run(payload.prepared).then(
    (delivered) => {
      const parts = Buffer.isBuffer(delivered.body) ? [delivered.body] : delivered.body
      port.postMessage({ id, ok: true, result: { parts } } satisfies WorkerReply<{ parts: readonly Buffer[] }>)
    },
    (error: unknown) => port.postMessage({ id, ok: false, error: toWire(error) } satisfies WorkerReply<never>),
  )
})

function toWire(error: unknown): WireError {
  const known = error instanceof ApiError ? error : classify(error)
  if (known) {
    return {
      code: known.code,
      message: known.message,
      ...(known.details ? { details: known.details } : {}),
      ...(known.headers ? { headers: known.headers } : {}),
    }
  }
  return { message: error instanceof Error ? error.message : String(error) }
}
