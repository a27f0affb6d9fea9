/**
 * The company batch, with its entries refused for the rate sent again: a batch answers 200 with a
 * RATE_LIMITED entry for each company it ran out of time to fetch (unbilled), and only those are
 * worth another call; a company not found or refused as invalid would answer the same again.
 */
import type { CallOptions, Caller } from './client.ts'
import type { Meta } from './meta.ts'
import type { Output } from './operations.ts'
import { backoffMs } from './retry.ts'

export type BatchEntry = Output<'getCompanyBatch'>['results'][number]

export interface BatchRetryOptions extends Omit<CallOptions, 'idempotencyKey'> {
  /** Calls at most, the first included (default 4). */
  maxRounds?: number
}

export interface BatchOutcome {
  /** One entry per distinct input, in the order of the first answer; a retried entry holds its latest outcome. */
  results: BatchEntry[]
  found: number
  notFound: number
  failed: number
  /** Calls made. */
  rounds: number
  /** Credits billed over every call. */
  creditsCharged: number
  /** The meta of each call, in order. */
  metas: Meta[]
}

const isRateLimited = (e: BatchEntry): boolean => 'error' in e && e.error.code === 'RATE_LIMITED'
const keyOf = (input: string): string => input.trim().toLowerCase()

export async function companyBatchRetrying(caller: Caller, companies: readonly string[], options: BatchRetryOptions = {}): Promise<BatchOutcome> {
  const { maxRounds = 4, ...callOptions } = options
  const entries = new Map<string, BatchEntry>()
  const metas: Meta[] = []
  let pending = [...companies]
  let rounds = 0
  while (pending.length > 0 && rounds < Math.max(1, maxRounds)) {
    if (rounds > 0) await caller.sleep(backoffMs(caller.retry, rounds - 1, caller.random), callOptions.signal)
    // Each round is a call of its own, with a key of its own: a kept answer would hold the same refusals.
    const { data, meta } = await caller.call('getCompanyBatch', { companies: pending }, callOptions)
    rounds++
    metas.push(meta)
    for (const entry of data.results) entries.set(keyOf(entry.input), entry)
    pending = data.results.filter(isRateLimited).map((e) => e.input)
  }
  const results = [...entries.values()]
  const status = (e: BatchEntry): number | undefined => ('error' in e ? e.error.status : undefined)
  return {
    results,
    found: results.filter((e) => 'company' in e).length,
    notFound: results.filter((e) => status(e) === 404).length,
    failed: results.filter((e) => 'error' in e && status(e) !== 404).length,
    rounds,
    creditsCharged: metas.reduce((sum, m) => sum + m.creditsCharged, 0),
    metas,
  }
}
