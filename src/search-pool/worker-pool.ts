/**
 * A pool of worker threads for calls that take milliseconds of CPU (searches), so the event loop stays
 * free for cheap calls. Admission is per account and fair (fair-queue.ts): each account may queue
 * what its share of the pool drains within QUEUE_SECONDS, its share being its weight (the plan's
 * rate) over the weights of the accounts using the pool now. Past that, the call is refused before
 * anything is held, with 429 and a Retry-After of the time its own queue needs to drain at that share.
 * A worker runs one job at a time: a job is a CPU-bound slice, and two on one thread would only
 * interleave.
 */
import type { Worker } from 'node:worker_threads'
import { ApiError, nodeClosing } from '../domain/errors.ts'
import { FairQueue } from './fair-queue.ts'

/** Seconds of its share of the pool an account may have queued. */
export const QUEUE_SECONDS = 1
/** Jobs an account may always queue, whatever its share: a client's retry is never refused for rounding. */
export const MIN_QUEUED = 2
/** How long a closing worker gets to close its connections. */
const CLOSE_WAIT_MS = 3_000
/** What a job is assumed to take before any of its account's jobs was timed. */
const FIRST_GUESS_MS = 20
/** Weight of the newest job's time in an account's running average. */
const SMOOTHING = 0.2
/** Accounts whose average job time is remembered at most (the oldest are forgotten first). */
const MAX_REMEMBERED = 10_000

export interface PoolObserver {
  /** Jobs waiting over all accounts, after every change. */
  depth?(waiting: number): void
  /** A job left the queue for a worker after waiting `ms`; `passedBy`: other accounts' jobs taken meanwhile. */
  started?(accountId: string, ms: number, passedBy: number): void
  /** A call was refused because its account's queue was full. */
  refused?(accountId: string): void
}

/** What a worker replies to one job: its result, or an error to rebuild on this side. */
export type WorkerReply<R> = { id: number; ok: true; result: R } | { id: number; ok: false; error: WireError }

export interface WireError {
  /** An API error's code; absent for an unexpected failure (a 500). */
  code?: ApiError['code']
  message: string
  details?: Record<string, unknown>
  headers?: Record<string, string>
}

export interface WorkerPoolOptions {
  size: number
  /** Starts one worker (its own read connections are its business). */
  start(): Worker
  /** Monotonic milliseconds. */
  monotonic(): number
  observer?: PoolObserver
  /** A worker died: logged by the owner; the pool starts another. */
  onWorkerFailure?(error: unknown): void
}

interface Job<P, R> {
  accountId: string
  payload: P
  enqueuedAt: number
  resolve(r: R): void
  reject(e: unknown): void
}

interface Slot<P, R> {
  /** Started on the first job, so a process that never searches starts no thread. */
  worker: Worker | undefined
  job: (Job<P, R> & { id: number; startedAt: number }) | null
}

export interface WorkerPool<P, R> {
  /**
   * Queues the job in the account's lane and resolves to its result; rejects at once with 429
   * RATE_LIMITED and Retry-After when the account's queue is full.
   */
  run(accountId: string, weight: number, payload: P): Promise<R>
  close(): Promise<void>
}

export function createWorkerPool<P, R>(opts: WorkerPoolOptions): WorkerPool<P, R> {
  const queue = new FairQueue<Job<P, R>>()
  const slots: Slot<P, R>[] = []
  /** Per account using the pool now: its weight and its jobs admitted and not finished. */
  const active = new Map<string, { weight: number; jobs: number }>()
  const averageMs = new Map<string, number>()
  let totalWeight = 0
  let nextId = 1
  let closed = false

  const enter = (accountId: string, weight: number) => {
    const a = active.get(accountId)
    if (a) {
      totalWeight += weight - a.weight
      a.weight = weight
      a.jobs++
    } else {
      active.set(accountId, { weight, jobs: 1 })
      totalWeight += weight
    }
  }
  const leave = (accountId: string) => {
    const a = active.get(accountId)
    if (!a) return
    if (--a.jobs === 0) {
      active.delete(accountId)
      totalWeight -= a.weight
    }
  }
  const timed = (accountId: string, ms: number) => {
    const before = averageMs.get(accountId)
    averageMs.delete(accountId)
    if (averageMs.size >= MAX_REMEMBERED) averageMs.delete(averageMs.keys().next().value as string)
    averageMs.set(accountId, before === undefined ? ms : before + SMOOTHING * (ms - before))
  }

  function startSlot(slot: Slot<P, R>): void {
    const worker = opts.start()
    slot.worker = worker
    worker.unref()
    worker.on('message', (reply: WorkerReply<R>) => {
      const job = slot.job
      if (!job || job.id !== reply.id) return
      slot.job = null
      worker.unref()
      finish(job, opts.monotonic() - job.startedAt)
      if (reply.ok) job.resolve(reply.result)
      else job.reject(rebuild(reply.error))
      dispatch()
    })
    const failed = (error: unknown) => {
      if (slot.worker !== worker || closed) return
      const job = slot.job
      slot.job = null
      // The next job starts a new worker.
      slot.worker = undefined
      opts.onWorkerFailure?.(error)
      if (job) {
        finish(job, opts.monotonic() - job.startedAt)
        job.reject(new ApiError('INTERNAL_ERROR', 'The search could not be completed; nothing was charged. It is safe to retry.'))
      }
      if (!closed) dispatch()
    }
    worker.on('error', failed)
    worker.on('exit', (code) => failed(new Error(`search worker exited (${code})`)))
  }

  function finish(job: Job<P, R>, ms: number): void {
    timed(job.accountId, ms)
    leave(job.accountId)
  }

  function dispatch(): void {
    for (const slot of slots) {
      if (slot.job) continue
      const next = queue.take()
      if (!next) break
      if (!slot.worker) startSlot(slot)
      const worker = slot.worker as Worker
      const job = next.item
      const now = opts.monotonic()
      const id = nextId++
      slot.job = { ...job, id, startedAt: now }
      opts.observer?.started?.(job.accountId, now - job.enqueuedAt, next.passedBy)
      worker.ref()
      worker.postMessage({ id, payload: job.payload })
    }
    opts.observer?.depth?.(queue.size)
  }

  for (let i = 0; i < opts.size; i++) slots.push({ worker: undefined, job: null })

  return {
    async run(accountId, weight, payload) {
      if (closed) throw nodeClosing()
      const w = weight > 0 ? weight : 1
      const mine = active.get(accountId)
      // Milliseconds of pool time a second the account gets while every account using the pool now does.
      const share = (opts.size * 1000 * w) / (totalWeight - (mine?.weight ?? 0) + w)
      const avg = averageMs.get(accountId) ?? FIRST_GUESS_MS
      const allowed = Math.max(MIN_QUEUED, Math.floor((QUEUE_SECONDS * share) / avg))
      const queued = mine?.jobs ?? 0
      if (queued >= allowed) {
        opts.observer?.refused?.(accountId)
        const drainS = Math.max(1, Math.ceil(((queued - allowed + 1) * avg) / share))
        throw new ApiError(
          'RATE_LIMITED',
          "This account's searches fill its share of this node's search capacity; retry after the Retry-After delay.",
          { queuedSearches: queued },
          { 'retry-after': String(drainS) },
        )
      }
      enter(accountId, w)
      return new Promise<R>((resolve, reject) => {
        queue.push(accountId, w, { accountId, payload, enqueuedAt: opts.monotonic(), resolve, reject })
        dispatch()
      })
    },
    async close() {
      closed = true
      for (let t = queue.take(); t; t = queue.take()) t.item.reject(nodeClosing())
      // Each worker is asked to close its connections first (a database is dropped only once nobody is
      // connected); one that does not within a few seconds is stopped.
      await Promise.all(
        slots.map(async (s) => {
          const worker = s.worker
          if (!worker) return
          const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
          worker.postMessage({ close: true })
          const timer = setTimeout(() => void worker.terminate(), CLOSE_WAIT_MS)
          await exited
          clearTimeout(timer)
        }),
      )
    },
  }
}

function rebuild(error: WireError): Error {
  if (error.code) return new ApiError(error.code, error.message, error.details, error.headers)
  return new Error(error.message)
}
