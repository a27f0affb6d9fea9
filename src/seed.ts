/**
 * Builds the synthetic network into a container's store, with a progress bar on a terminal.
 * The network is deterministic from (seed, size, anchor); the anchor defaults to the current hour so
 * a fresh network has recent posts.
 */
import cliProgress from 'cli-progress'
import type { SeedSize } from './config/config.ts'
import type { Container } from './container.ts'
import { ApiError } from './domain/errors.ts'
import type { Clock } from './ports/clock.ts'
import { estimateRecords, seedNetwork } from './synth/index.ts'

export const DEFAULT_NETWORK_SEED = 1
const HOUR = 3_600_000

/** The default anchor: the current hour. The first start records it, so a resumed seed rebuilds the same network. */
export const defaultAnchor = (clock: Clock): number => Math.floor(clock.now() / HOUR) * HOUR

export interface SeedOptions {
  seed?: number
  anchorMs?: number
  /** Show a progress bar (default: when stderr is a terminal). */
  progress?: boolean
}

export async function seedSynthetic(
  c: Container,
  size: Exclude<SeedSize, 'none'>,
  log: (line: string) => void,
  opts: SeedOptions = {},
): Promise<number> {
  const options = {
    seed: opts.seed ?? DEFAULT_NETWORK_SEED,
    size,
    anchorMs: opts.anchorMs ?? defaultAnchor(c.clock),
    platformHost: c.config.platformHost,
  }
  // Article dates decode against "now" (D2): a network anchored in the future would hold articles
  // whose ids do not decode yet, and the writer would refuse them.
  if (options.anchorMs > c.clock.now()) {
    throw new ApiError('INVALID_PARAMETER', `the anchor ${new Date(options.anchorMs).toISOString()} is in the future.`, { parameter: 'anchor' })
  }
  log(`seed ${options.seed}, anchor ${new Date(options.anchorMs).toISOString()}`)
  const showBar = opts.progress ?? process.stderr.isTTY === true
  const bar = showBar
    ? new cliProgress.SingleBar(
        { stream: process.stderr, format: 'seeding [{bar}] {percentage}% | {value}/{total} records | ETA {eta_formatted}' },
        cliProgress.Presets.shades_classic,
      )
    : undefined
  bar?.start(estimateRecords(options), 0)
  try {
    const result = await seedNetwork(
      { writer: c.writer },
      { ...options, onProgress: (done: number, total: number) => bar?.update(done, { total }) },
    )
    await c.contentStore.analyze()
    return result.records
  } finally {
    bar?.stop()
  }
}
