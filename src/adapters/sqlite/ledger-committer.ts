/**
 * Where the SQLite ledger's batches are written: on the event-loop thread (in-memory databases,
 * short-lived CLI commands, and servers with two CPUs or fewer), or by a worker thread with its own
 * connection to the file, so the commit's fsync does not stop the event loop (container.commitsInWorker).
 */
import { Worker } from 'node:worker_threads'
import type { SqliteDb } from './database.ts'
import { createLedgerWrites, toWire, type BatchResult, type WriteJob } from './ledger-writes.ts'

export interface Committer {
  /** Writes one batch (in submission order); rejects only when the committer itself failed. */
  write(jobs: WriteJob[]): Promise<BatchResult>
  close(): Promise<void>
}

export function createThreadCommitter(db: SqliteDb): Committer {
  const writes = createLedgerWrites(db)
  return {
    async write(jobs) {
      return writes.write(jobs)
    },
    async close() {},
  }
}

/**
 * A worker running the built .js directly, or, from the .ts source (tests, dev), a small ESM loader
 * that registers tsx first: on Node 20 a worker does not take `--import tsx` from its execArgv.
 */
function startWorker(path: string): Worker {
  const entry = new URL(`./ledger-commit.worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url)
  if (entry.pathname.endsWith('.js')) return new Worker(entry, { workerData: { path } })
  const tsxApi = import.meta.resolve('tsx/esm/api')
  const code = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}) })`
  return new Worker(code, { eval: true, workerData: { path } })
}

/**
 * `fallback` takes over if the worker dies: the batches it held are refused (their calls answer 500,
 * unbilled unless the worker had committed them) and later batches are written on this thread.
 */
export function createWorkerCommitter(path: string, onFailure: (error: unknown) => void, fallback?: () => Committer): Committer {
  const worker = startWorker(path)
  const waiting = new Map<number, { resolve(r: BatchResult): void; reject(e: unknown): void }>()
  let nextId = 1
  let failure: unknown
  let replacement: Committer | undefined
  let closed: (() => void) | undefined
  worker.unref()

  const fail = (error: unknown) => {
    failure ??= error
    for (const w of waiting.values()) w.reject(error)
    waiting.clear()
    replacement ??= fallback?.()
    onFailure(error)
  }
  worker.on('message', (message: { replies: (BatchResult & { id: number })[] } | { closed: true }) => {
    if ('closed' in message) {
      closed?.()
      return
    }
    for (const reply of message.replies) {
      const w = waiting.get(reply.id)
      waiting.delete(reply.id)
      w?.resolve(reply)
    }
    if (waiting.size === 0) worker.unref()
  })
  worker.on('error', fail)
  worker.on('exit', (code) => {
    if (!closed) fail(new Error(`ledger commit worker exited (${code})`))
    closed?.()
  })

  return {
    write(jobs) {
      if (replacement) return replacement.write(jobs)
      if (failure) return Promise.reject(failure)
      const id = nextId++
      return new Promise<BatchResult>((resolve, reject) => {
        waiting.set(id, { resolve, reject })
        // Referenced while a batch is in flight, so the process waits for its commit.
        worker.ref()
        worker.postMessage({ id, jobs: jobs.map(toWire) })
      })
    },
    async close() {
      if (failure) {
        await replacement?.close()
        await worker.terminate()
        return
      }
      await new Promise<void>((resolve) => {
        closed = resolve
        worker.ref()
        worker.postMessage({ close: true })
      })
      await worker.terminate()
    },
  }
}
