/**
 * What every content parse step shares: its dependencies (none of them a store: a parse step cannot
 * read one, so whatever a call costs is held before anything is read) and the parameter rules
 * common to the feeds.
 */
import type { Clock } from '../../ports/clock.ts'
import { invalidParameter } from '../errors.ts'
import type { TokenSigner } from '../tokens.ts'
import type { ProfileInput } from './input-resolution.ts'

/** What a parse step may use. */
export interface ParseDeps {
  /** The platform host inputs' URLs are read against. */
  host: string
  clock: Clock
  /** Token verification only: whether a token belongs to a feed needs its subject, read while serving. */
  tokens: Pick<TokenSigner, 'verify'>
}

/** A profile input that names a member (never a company page). */
export type MemberInput = Exclude<ProfileInput, { type: 'company' }>

/** Feeds paged by cursor refuse offsets. */
export function requireZeroStart(start: number | undefined): void {
  if (start !== undefined && start !== 0) {
    throw invalidParameter('start', 'offsets are not supported on this feed; use paginationToken.')
  }
}

/** The single non-empty value of a parameter (empty or blank counts as missing). */
export function present(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value
}

/**
 * A pagination token as a request holds it: null when none was sent (an empty one is none: a
 * client's `paginationToken=` on its first call). A token this service never issued is bad input,
 * refused free like the rest of it: checked before admission and before the subject is looked up (a
 * made-up token with a missing subject was a 404 billed 1).
 */
export function sentToken(deps: ParseDeps, value: string | undefined, param: string): string | null {
  if (value === undefined || value === '') return null
  deps.tokens.verify(value, param)
  return value
}
