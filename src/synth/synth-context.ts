/** What every factory of the synthetic network receives: the seed, "now", the host and shared pools. */
import type { MediaUrls } from './media.ts'
import type { NamePools } from './name-pools.ts'

export interface SynthContext {
  readonly seed: number
  /** "Now" for the network: every instant lies before it. */
  readonly anchorMs: number
  readonly platformHost: string
  readonly media: MediaUrls
  readonly pools: NamePools
}

export const DAY_MS = 86_400_000
