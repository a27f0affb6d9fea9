/**
 * The live source's kept answers: what the upstream said for a request, stored in the service's own
 * store so every node (and the next start) serves it without asking the upstream again.
 */

/** An upstream's answer kept by the live source: a record's 200 body, or a known absence (404). */
export interface LiveAnswer {
  /** Hash naming the request (operation and canonical request), at most 64 chars. */
  key: string
  /** The operation (price-table row) it answers, e.g. 'profile', 'post.comments'. */
  operation: string
  status: 200 | 404
  /** The upstream's JSON body bytes (for a 404, our own error body bytes). */
  body: Buffer
  /** Unix ms when it was fetched from the upstream. */
  fetchedAt: number
}

/** Longest key a store keeps (the stores refuse a longer one). */
export const LIVE_ANSWER_KEY_MAX = 64

export interface LiveAnswerStore {
  get(key: string): Promise<LiveAnswer | undefined>
  /** Upserts; a row never goes back in time: an older fetchedAt than the kept row's is ignored. */
  put(answer: LiveAnswer): Promise<void>
  /** Deletes answers fetched before `beforeMs`; returns how many. */
  prune(beforeMs: number): Promise<number>
  /** How many answers are kept, by operation. */
  counts(): Promise<Record<string, number>>
}
