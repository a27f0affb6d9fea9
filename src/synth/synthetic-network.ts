/**
 * The deterministic synthetic network: companies, members (each followed by their articles), then
 * posts with their engagement in time order. Same seed, size, anchor and host give a byte-identical
 * stream; records arrive in dependency order so a store can enforce its links while writing them.
 */
import type { IngestRecord } from '../contract/ingest.schemas.ts'
import { generateActivity } from './activity-stream.ts'
import { companyRecord, planCompanies } from './company-factory.ts'
import { createMediaUrls } from './media.ts'
import { buildNamePools } from './name-pools.ts'
import { planNetwork, type NetworkSize } from './network-plan.ts'
import { buildProfile, createWorkforce, planProfiles } from './profile-factory.ts'
import type { SynthContext } from './synth-context.ts'
import { createTimeIdAllocator } from './time-ids.ts'

export interface SynthOptions {
  seed: number
  size: NetworkSize
  /** "Now" for the network (Unix ms): every instant of the network lies before it. */
  anchorMs: number
  /** Public host of URLs (PRONET_PLATFORM_HOST), e.g. www.linkedin.com. */
  platformHost: string
}

/** Streams the network's ingest records; memory stays O(profiles) whatever the number of posts. */
export function* generateNetwork(opts: SynthOptions): Generator<IngestRecord> {
  if (!Number.isFinite(opts.seed)) throw new Error('seed must be a finite number')
  if (!Number.isFinite(opts.anchorMs)) throw new Error('anchorMs must be a finite number')
  const plan = planNetwork(opts.size)
  const host = opts.platformHost.trim().toLowerCase()
  const ctx: SynthContext = {
    seed: Math.floor(opts.seed),
    anchorMs: Math.floor(opts.anchorMs),
    platformHost: host,
    media: createMediaUrls(host, opts.anchorMs),
    pools: buildNamePools(Math.floor(opts.seed)),
  }
  const pages = planCompanies(ctx, plan.companies)
  for (const page of pages) yield { kind: 'company', data: companyRecord(ctx, page) }

  const workforce = createWorkforce(pages)
  const cores = planProfiles(ctx, plan.profiles, workforce)
  const ids = createTimeIdAllocator()
  for (const core of cores) {
    const { profile, articles } = buildProfile(ctx, core, { workforce, cores, ids })
    yield { kind: 'profile', data: profile }
    for (const article of articles) yield { kind: 'article', data: article }
  }

  yield* generateActivity(ctx, plan, { pages, cores, ids })
}
