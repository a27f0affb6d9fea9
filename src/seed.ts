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
/** The store setting naming the synthetic network seeded into it (seed, size, anchor), as JSON. */
export const SEEDED_NETWORK = 'synthetic_network'
/** The earliest anchor a network may have (the platform began in 2003; see seedSynthetic). */
export const MIN_ANCHOR_MS = Date.UTC(2004, 0, 1)
const HOUR = 3_600_000

/** The default anchor: the current hour. The first start records it, so a resumed seed rebuilds the same network. */
export const defaultAnchor = (clock: Clock): number => Math.floor(clock.now() / HOUR) * HOUR

/**
 * Why an anchor is too early for a network, or undefined. The network reaches about 8 years back from
 * its anchor, and a 19-digit time-based id encodes no time before mid-1977: an earlier date would stop
 * seeding part-way with a "generator bug".
 */
export function anchorTooEarly(anchorMs: number): string | undefined {
  if (anchorMs >= MIN_ANCHOR_MS) return undefined
  return `the anchor ${new Date(anchorMs).toISOString()} is before ${new Date(MIN_ANCHOR_MS).toISOString()}: the network's 19-digit ids encode no earlier time for what it dates years back.`
}

export const anchorInFuture = (anchorMs: number): string => `the anchor ${new Date(anchorMs).toISOString()} is in the future.`

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
  // Article dates are decoded from their ids and must not be after "now": a network anchored in the future would hold articles
  // whose ids do not decode yet, and the writer would refuse them.
  if (options.anchorMs > c.clock.now()) throw new ApiError('INVALID_PARAMETER', anchorInFuture(options.anchorMs), { parameter: 'anchor' })
  const early = anchorTooEarly(options.anchorMs)
  if (early !== undefined) throw new ApiError('INVALID_PARAMETER', early, { parameter: 'anchor' })
  // A second, different network would clash with the first's slugs part-way through, leaving a
  // half-written network behind: refused before anything is written. The same network again upserts, as before.
  const network = JSON.stringify({ seed: options.seed, size: options.size, anchor: new Date(options.anchorMs).toISOString() })
  const recorded = await c.settings.get(SEEDED_NETWORK)
  if (recorded !== undefined && recorded !== network) {
    const was = JSON.parse(recorded) as { seed: number; size: string | number; anchor: string }
    throw new ApiError(
      'INVALID_PARAMETER',
      `this store holds the synthetic network of seed ${was.seed}, size ${was.size}, anchor ${was.anchor}; another network's records ` +
        'would clash with its names part-way through. Seed an empty data dir, or give that seed, size and anchor again.',
      { parameter: 'seed' },
    )
  }
  if (recorded === undefined) await c.settings.set(SEEDED_NETWORK, network)
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
