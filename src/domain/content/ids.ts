/**
 * Identifier scheme, as the platform's own: activity, share, ugcPost, comment and article ids are
 * decimals whose top bits are the creation time (`id >> 22` = Unix ms).
 */
export const URN_PREFIX = 'urn:li:'
const TIME_SHIFT = 22n
/** Earliest instant an article id may decode to; earlier, its publishedAt is null rather than a guess. */
export const ARTICLE_EPOCH_MS = Date.UTC(2003, 0, 1)

export const PROFILE_ID_RE = /^ACoAA[A-Za-z0-9_-]{34}$/
export const DIGITS_RE = /^\d+$/
export const POST_ID_RE = /^\d{19}$/

/** Unix ms encoded in a time-based id. */
export function timeFromId(id: string): number {
  return Number(BigInt(id) >> TIME_SHIFT)
}

/** A time-based id for an instant; `low` (22 bits) separates ids of the same millisecond. */
export function idFromTime(ms: number, low: number): string {
  return ((BigInt(Math.floor(ms)) << TIME_SHIFT) | BigInt(low & 0x3fffff)).toString()
}

/** ISO time of a post id. */
export function isoFromId(id: string): string {
  return new Date(timeFromId(id)).toISOString()
}

/** publishedAt of an article: the decoded instant when it lies in [2003-01-01, now], else null. */
export function articlePublishedAt(articleId: string, nowMs: number): string | null {
  if (!DIGITS_RE.test(articleId)) return null
  const ms = timeFromId(articleId)
  return ms >= ARTICLE_EPOCH_MS && ms <= nowMs ? new Date(ms).toISOString() : null
}

/** Largest id a 64-bit integer column holds (posts, comments and articles are stored as such). */
export const INT64_MAX = '9223372036854775807'

/**
 * A decimal an int64 column holds exactly and gives back unchanged: no leading zero ('0123' would
 * come back as '123'), nothing past 2^63 - 1 (it would become a float).
 */
export function isStorableId(id: string): boolean {
  if (!/^(?:0|[1-9]\d{0,18})$/.test(id)) return false
  return id.length < 19 || id <= INT64_MAX
}

/** Order of decimal ids without leading zeros (time order for time-based ids): longer is larger, else as text. */
export const compareIds = (a: string, b: string): number => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0)
