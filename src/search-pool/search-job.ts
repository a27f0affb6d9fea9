/** What passes between the event-loop thread and a search worker. */
import type { PreparedSearch } from '../domain/search/search.service.ts'

export interface SearchWorkerData {
  store: { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string }
  /** The server secret cursors are signed with. */
  secret: string | Buffer
  platformHost: string
  /** The worker's own cache of ready result items. */
  cacheMb: number
}

export interface SearchJob {
  prepared: PreparedSearch
  /** The billing clock's instant when the search was validated. */
  now: number
  /** The content store's version as the event-loop thread sees it: the worker's cache follows it. */
  version: string
}

/** A page's body as parts (structured clone delivers them as Uint8Arrays). */
export interface SearchResult {
  parts: readonly Uint8Array[]
}
