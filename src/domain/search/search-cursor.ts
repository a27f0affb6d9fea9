/**
 * The search cursor: where a walk stands, signed by the token signer and bound to the interpreted
 * query and filters. The code reads named fields; the cursor itself keeps the short keys of `Wire`,
 * written in a fixed order, so that every cursor already handed out still decodes and a position is
 * written as the same text it always was. Only this module knows those keys.
 */
import type { RankingPlan } from '../../ports/search-index.ts'
import { invalidParameter } from '../errors.ts'
import type { TokenSigner } from '../tokens.ts'
import { MAX_DEPTH } from './search-limits.ts'

/**
 * What a relevance walk ranks: the query's matches, the posts mentioning the filter's companies that
 * match, or the posts of the title's holders that match. The walk keeps its first page's choice.
 */
export type Driver = 'query' | 'mentions' | 'title'

interface WalkCommon {
  /** Results the walk has shown so far, counted against MAX_DEPTH. */
  shown: number
  /** The lowest id the walk covers, fixed by its first page's postedWithin; null when unbounded. */
  since: string | null
}

/** A walk newest first. */
export interface DatePosition extends WalkCommon {
  order: 'date'
  /** The next page holds ids below this one; null on a first page. */
  below: string | null
}

/** A walk down a relevance ranking, fixed by its first page. */
export interface RelevancePosition extends WalkCommon {
  order: 'relevance'
  /** Where the next page starts in the ranking. */
  offset: number
  /** The ranking covers ids below this one (its first page's newest match, plus one); null on a first page. */
  top: string | null
  /** The first page's plan; absent in a cursor older than plans, which ranks the newest matches. */
  plan?: RankingPlan
  /** The first page's candidates when they were not the query's matches. */
  driver?: 'mentions' | 'title'
}

export type WalkPosition = DatePosition | RelevancePosition

/**
 * What a relevance cursor keeps of the ranking around where the walk stands, so that a later page
 * skips no post whatever left the ranking since (pageAfter).
 */
export interface WalkMarks {
  /** The ranks just above `offset` as they were, up to MARKS; undefined when the cursor kept none. */
  ranksAbove: readonly string[] | undefined
  /** Posts already shown that ranked below `offset` (a page that ended among them). */
  shownBelow: readonly string[]
}

/** The marks as an opened cursor carries them, read by readMarks once the call is admitted. */
export interface CarriedMarks {
  readonly packedRanks?: unknown
  readonly packedShown?: unknown
  /** Older cursors carry the page before's last three results, or its last one, instead of packed ranks. */
  readonly lastShown?: unknown
}

/**
 * The cursor's payload. `m`: 'd' date or 'r' relevance; `n` shown; `s` since; `b` below; `o` offset;
 * `t` top; `k` plan; `v` driver ('m' mentions, 't' title); `a` ranks above and `x` shown below, packed
 * (packIds); `l` what older cursors carry instead of `a`.
 */
type Wire = { n: number; s: string | null } & (
  | { m: 'd'; b: string | null }
  | { m: 'r'; o: number; t: string | null; k?: RankingPlan; v?: 'm' | 't'; a?: string; x?: string; l?: string | string[] }
)

const DRIVER_KEYS = { mentions: 'm', title: 't' } as const
const DRIVERS = { m: 'mentions', t: 'title' } as const

const notIssued = () => invalidParameter('cursor', 'the cursor was not issued by this service for this search.')

/** A first page's position. */
export function startPosition(relevance: boolean, since: string | null): WalkPosition {
  return relevance ? { order: 'relevance', shown: 0, since, offset: 0, top: null } : { order: 'date', shown: 0, since, below: null }
}

/**
 * The position inside `token`, which must have been issued for `scope` and for a walk of this order
 * (`relevance`); throws INVALID_PARAMETER naming the cursor otherwise.
 */
export function openCursor(tokens: TokenSigner, token: string, walk: { scope: string; relevance: boolean }): { position: WalkPosition; carried: CarriedMarks } {
  const opened = tokens.open(token, walk.scope, 'cursor') as Wire | null
  if (
    typeof opened !== 'object' ||
    opened === null ||
    opened.m !== (walk.relevance ? 'r' : 'd') ||
    typeof opened.n !== 'number' ||
    (opened.m === 'r' && opened.k !== undefined && opened.k !== 'all' && opened.k !== 'newest') ||
    (opened.m === 'r' && opened.v !== undefined && opened.v !== 'm' && opened.v !== 't')
  ) {
    throw notIssued()
  }
  if (opened.m === 'd') return { position: { order: 'date', shown: opened.n, since: opened.s, below: opened.b }, carried: {} }
  const position: RelevancePosition = { order: 'relevance', shown: opened.n, since: opened.s, offset: opened.o, top: opened.t }
  if (opened.k !== undefined) position.plan = opened.k
  if (opened.v !== undefined) position.driver = DRIVERS[opened.v]
  return { position, carried: { packedRanks: opened.a, packedShown: opened.x, lastShown: opened.l } }
}

/** The marks a cursor carried; throws INVALID_PARAMETER naming the cursor when they are not a list of ids. */
export function readMarks(carried: CarriedMarks): WalkMarks {
  const { packedRanks, packedShown, lastShown } = carried
  const ranksAbove =
    packedRanks !== undefined
      ? unpackIds(packedRanks)
      : lastShown === undefined || Array.isArray(lastShown)
        ? (lastShown as string[] | undefined)
        : [lastShown as string]
  const shownBelow = packedShown !== undefined ? unpackIds(packedShown) : []
  if ((packedRanks !== undefined && ranksAbove === undefined) || shownBelow === undefined) throw notIssued()
  return { ranksAbove, shownBelow }
}

/** A cursor for `position` (and, for a relevance walk, the marks of where its next page starts) within `scope`. */
export function issueCursor(tokens: TokenSigner, next: { scope: string; position: WalkPosition; marks?: Partial<WalkMarks> }): string {
  return tokens.issue(next.scope, toWire(next.position, next.marks))
}

/** The payload of `position`, its keys in the order cursors have always been written in. */
function toWire(position: WalkPosition, marks: Partial<WalkMarks> = {}): Wire {
  if (position.order === 'date') return { m: 'd', n: position.shown, s: position.since, b: position.below }
  const { ranksAbove = [], shownBelow = [] } = marks
  return {
    m: 'r',
    n: position.shown,
    s: position.since,
    o: position.offset,
    t: position.top,
    ...(position.plan !== undefined ? { k: position.plan } : {}),
    ...(position.driver !== undefined ? { v: DRIVER_KEYS[position.driver] } : {}),
    ...(ranksAbove.length > 0 ? { a: packIds(ranksAbove) } : {}),
    ...(shownBelow.length > 0 ? { x: packIds(shownBelow) } : {}),
  }
}

/** Ids for a cursor: 8 bytes each, big-endian, base64url, so that MARKS of them fit in one. */
export function packIds(ids: readonly string[]): string {
  const b = Buffer.alloc(ids.length * 8)
  ids.forEach((id, i) => b.writeBigUInt64BE(BigInt(id), i * 8))
  return b.toString('base64url')
}

/** packIds undone; undefined when `packed` is not such a list. */
export function unpackIds(packed: unknown): string[] | undefined {
  if (typeof packed !== 'string' || !/^[A-Za-z0-9_-]*$/.test(packed)) return undefined
  const b = Buffer.from(packed, 'base64url')
  if (b.length === 0 || b.length % 8 !== 0 || b.length > MAX_DEPTH * 8) return undefined
  return Array.from({ length: b.length / 8 }, (_, i) => b.readBigUInt64BE(i * 8).toString())
}
