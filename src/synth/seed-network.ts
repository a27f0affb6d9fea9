/**
 * Writes the synthetic network through the one content write path (the same validation and rules as
 * `pronet ingest`). A refused record is a generator bug, so seeding stops loudly instead of skipping.
 */
import type { ContentWriter } from '../domain/content/content-writer.ts'
import type { IngestRecord } from '../contract/ingest.schemas.ts'
import { estimateRecords } from './network-plan.ts'
import { generateNetwork, type SynthOptions } from './synthetic-network.ts'

export interface SeedOptions extends SynthOptions {
  /** Records per writer call (one store transaction each); default 5000. */
  batchSize?: number
  /** Called after every batch; `total` is an estimate until the last call, which reports done = total. */
  onProgress?: (done: number, total: number) => void
}

export interface SeedResult {
  records: number
  byKind: Record<string, number>
}

export async function seedNetwork(deps: { writer: ContentWriter }, opts: SeedOptions): Promise<SeedResult> {
  const batchSize = Math.max(1, Math.floor(opts.batchSize ?? 5000))
  const estimate = estimateRecords(opts)
  const byKind: Record<string, number> = {}
  let done = 0
  let batch: IngestRecord[] = []
  const flush = async () => {
    if (batch.length === 0) return
    const outcomes = await deps.writer.write(batch)
    outcomes.forEach((outcome, i) => {
      if (!outcome.ok) {
        const record = batch[i] as IngestRecord
        throw new Error(
          `synthetic network record #${done + i + 1} (${record.kind}) was refused: ${outcome.reason}. The ${done} records before ` +
            'its batch were written. Records the store held already (ingested, or another network) can clash with the ' +
            "network's; seed an empty data dir (on an empty store, this is a generator bug)",
        )
      }
    })
    done += batch.length
    batch = []
    opts.onProgress?.(done, Math.max(estimate, done))
  }
  for (const record of generateNetwork(opts)) {
    batch.push(record)
    byKind[record.kind] = (byKind[record.kind] ?? 0) + 1
    if (batch.length >= batchSize) await flush()
  }
  await flush()
  opts.onProgress?.(done, done)
  return { records: done, byKind }
}
