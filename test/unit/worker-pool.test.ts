import { Worker } from 'node:worker_threads'
import { afterEach, describe, expect, it } from 'vitest'
import { ApiError } from '../../src/domain/errors.ts'
import { createWorkerPool, MIN_QUEUED, type WorkerPool } from '../../src/search-pool/worker-pool.ts'

/** A worker that keeps its thread busy for `ms` of each job, then answers the job's tag; `crash` ends it. */
const WORKER = `
const { parentPort } = require('node:worker_threads')
parentPort.on('message', ({ id, payload }) => {
  if (payload.crash) process.exit(3)
  if (payload.fail) return parentPort.postMessage({ id, ok: false, error: { code: 'INVALID_PARAMETER', message: 'bad', details: { parameter: 'q' } } })
  const end = Date.now() + payload.ms
  while (Date.now() < end) {}
  parentPort.postMessage({ id, ok: true, result: payload.tag })
})
`

type Payload = { ms: number; tag: string; crash?: boolean; fail?: boolean }
let pool: WorkerPool<Payload, string> | undefined

afterEach(async () => {
  await pool?.close()
  pool = undefined
})

function make(observed: { account: string; passedBy: number }[] = [], failures: unknown[] = []) {
  pool = createWorkerPool<Payload, string>({
    size: 1,
    start: () => new Worker(WORKER, { eval: true }),
    monotonic: () => performance.now(),
    observer: { started: (account, _ms, passedBy) => observed.push({ account, passedBy }) },
    onWorkerFailure: (e) => failures.push(e),
  })
  return pool
}

describe('worker pool with fair admission', () => {
  it('runs jobs on a worker and returns their results', async () => {
    const p = make()
    const results = await Promise.all([1, 2, 3].map((i) => p.run('a', 5, { ms: 1, tag: `t${i}` })))
    expect(results).toEqual(['t1', 't2', 't3'])
  })

  it('rebuilds an API error raised in the worker', async () => {
    const p = make()
    const error = await p
      .run('a', 5, { ms: 0, tag: 'x', fail: true })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).code).toBe('INVALID_PARAMETER')
    expect((error as ApiError).details).toEqual({ parameter: 'q' })
  })

  it('refuses an account past its queue with 429 and a Retry-After of whole seconds, and admits it again once drained', async () => {
    const p = make()
    // Teach the pool this account's jobs are slow (400 ms): its one-second share then holds two.
    await p.run('slow', 5, { ms: 400, tag: 'warm' })
    const running = [p.run('slow', 5, { ms: 400, tag: 'a' }), p.run('slow', 5, { ms: 400, tag: 'b' })]
    const refusal = await p.run('slow', 5, { ms: 1, tag: 'refused' }).catch((e: unknown) => e)
    expect(refusal).toBeInstanceOf(ApiError)
    expect((refusal as ApiError).code).toBe('RATE_LIMITED')
    const retryAfter = Number((refusal as ApiError).headers?.['retry-after'])
    expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true)
    // Another account is not refused for this one's queue.
    const other = p.run('other', 5, { ms: 1, tag: 'o' })
    // A client that waits as told finds a place.
    await new Promise((r) => setTimeout(r, retryAfter * 1000))
    expect(await p.run('slow', 5, { ms: 1, tag: 'later' })).toBe('later')
    expect(await Promise.all([...running, other])).toEqual(['a', 'b', 'o'])
  })

  it('always admits MIN_QUEUED jobs of an account', async () => {
    const p = make()
    // Jobs of 600 ms: a second of the pool holds one, yet two are admitted.
    await p.run('a', 1, { ms: 600, tag: 'warm' })
    const admitted = Array.from({ length: MIN_QUEUED }, (_, i) => p.run('a', 1, { ms: 1, tag: `m${i}` }))
    await expect(p.run('a', 1, { ms: 1, tag: 'over' })).rejects.toBeInstanceOf(ApiError)
    expect(await Promise.all(admitted)).toEqual(Array.from({ length: MIN_QUEUED }, (_, i) => `m${i}`))
  })

  it('serves a quiet account next, behind no backlog of a busy one', async () => {
    const observed: { account: string; passedBy: number }[] = []
    const p = make(observed)
    const busy = Array.from({ length: 8 }, (_, i) => p.run('busy', 100, { ms: 20, tag: `b${i}` }))
    await new Promise((r) => setTimeout(r, 30))
    const quiet = await p.run('quiet', 5, { ms: 1, tag: 'q' })
    await Promise.all(busy)
    expect(quiet).toBe('q')
    const q = observed.find((o) => o.account === 'quiet')
    expect(q?.passedBy).toBeLessThanOrEqual(1)
    const qIndex = observed.findIndex((o) => o.account === 'quiet')
    // Several busy jobs were still waiting when the quiet one was taken.
    expect(observed.slice(qIndex + 1).filter((o) => o.account === 'busy').length).toBeGreaterThanOrEqual(3)
  })

  it('replaces a worker that dies, failing only the job it held, as a free 500', async () => {
    const failures: unknown[] = []
    const p = make([], failures)
    const error = await p
      .run('a', 5, { ms: 0, tag: 'x', crash: true })
      .catch((e: unknown) => e)
    expect((error as ApiError).code).toBe('INTERNAL_ERROR')
    expect(failures).toHaveLength(1)
    expect(await p.run('a', 5, { ms: 0, tag: 'after' })).toBe('after')
  })
})
