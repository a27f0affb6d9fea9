/**
 * Time-based ids (`id >> 22` is the creation time in Unix ms) for the synthetic network. The 22 low bits carry a per-kind counter pushed
 * through a bijection (odd multiplier mod 2^22, then a salt), so ids of one kind never collide within
 * a millisecond (up to 4M ids of a kind) and do not look sequential.
 */
import { idFromTime } from '../domain/content/ids.ts'

export type TimeIdKind = 'activity' | 'share' | 'comment' | 'article'

const SALT: Record<TimeIdKind, number> = { activity: 0x1a2b3c, share: 0x2c3d4e, comment: 0x0f1e2d, article: 0x35a7c1 }
const LOW_MASK = 0x3fffff

export interface TimeIdAllocator {
  /** A fresh id of the kind whose `id >> 22` is `ms`. */
  next(kind: TimeIdKind, ms: number): string
  /** An article id that does not decode to a plausible instant (its publishedAt is null). */
  undecodableArticleId(): string
}

export function createTimeIdAllocator(): TimeIdAllocator {
  const counters: Record<TimeIdKind, number> = { activity: 0, share: 0, comment: 0, article: 0 }
  let undecodable = 0
  return {
    next(kind, ms) {
      const c = counters[kind]++
      const low = (Math.imul(c, 0x9e3779b1) & LOW_MASK) ^ SALT[kind]
      return idFromTime(ms, low)
    },
    undecodableArticleId() {
      // Small legacy-looking numbers: `id >> 22` lands in January 1970, before the 2003 floor.
      return String(6_512_345 + 7 * undecodable++)
    },
  }
}
