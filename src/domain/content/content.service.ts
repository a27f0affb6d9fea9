/**
 * The data endpoints' domain, in two steps a route runs on either side of the gateway's hold:
 * - `requests` parses a validated query into a typed request, or refuses it with a free 400; its
 *   parsers are built without the store, so they cannot read it;
 * - the resource services (profiles, feeds, companies, engagement) answer a parsed request from the
 *   store, assembling responses from stored, ready-to-send JSON by concatenation.
 * Each resource's parse and serve functions live together in its *.service.ts; this file only joins
 * them. Expected refusals are thrown as ApiError; the HTTP layer renders them.
 */
import type { Clock } from '../../ports/clock.ts'
import type { ContentStore } from '../../ports/content-store.ts'
import type { TokenSigner } from '../tokens.ts'
import { companyRequests, createCompaniesService } from './companies.service.ts'
import { createContentLookups } from './content-lookups.ts'
import { createEngagementService, engagementRequests } from './engagement.service.ts'
import { createFeedsService, feedRequests } from './feeds.service.ts'
import { createProfilesService, profileRequests } from './profiles.service.ts'
import type { ParseDeps } from './request-params.ts'
import type { ResponseCache } from './response-cache.ts'

export { countryOf, firstSentence } from './organization-profile.ts'

export interface ContentServiceDeps {
  store: ContentStore
  clock: Clock
  tokens: TokenSigner
  platformHost: string
  /** Hot response bodies; routes that declare themselves cached are kept here under their parsed request. */
  cache: ResponseCache
}

/** A delivered response: the JSON bytes, plus what its price rule counts after delivery. */
export interface Delivered {
  /** The JSON bytes, whole or as parts to send in order (search pages: see http/gathered-body.ts). */
  body: Buffer | readonly Buffer[]
  /** company/batch: entries returned with a company (what a per-found price bills). */
  found?: number
  /** Headers of this answer (a live source's Age and X-Data-Source). */
  headers?: Record<string, string>
}

/**
 * Admission where a service validates its own input (search): called once the input is valid and
 * before anything is read; the gateway holds the call's price there (402 when it cannot).
 */
export type Admit = () => Promise<void>

/** A delivered body as one buffer (for callers that read it rather than send it). */
export const bodyBytes = (d: Delivered): Buffer => (Buffer.isBuffer(d.body) ? d.body : Buffer.concat(d.body))

/** Every content parser, by endpoint. */
export type ContentRequests = ContentService['requests']

export type ContentService = ReturnType<typeof createContentService>

export function createContentService(deps: ContentServiceDeps) {
  const { store, tokens } = deps
  // The parse step's dependencies: no store among them.
  const parsing: ParseDeps = { host: deps.platformHost, clock: deps.clock, tokens }
  const lookups = createContentLookups(store)
  const reading = { store, tokens, lookups }
  return {
    requests: { ...profileRequests(parsing), ...feedRequests(parsing), ...companyRequests(parsing), ...engagementRequests(parsing) },
    profiles: createProfilesService(reading),
    feeds: createFeedsService(reading),
    companies: createCompaniesService({ lookups, host: deps.platformHost }),
    engagement: createEngagementService(reading),
    cache: deps.cache,
  }
}
