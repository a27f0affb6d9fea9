/**
 * Failed sign-ins counted per email and per client address in the store (so that every node sees
 * them), in windows that start at their first failure. The keys are hashes: the store keeps no
 * address that someone merely tried.
 */
import { createHash } from 'node:crypto'
import { ApiError } from '../domain/errors.ts'
import type { IdentityStore } from '../ports/identity-store.ts'

export const FAILURE_WINDOW_MS = 15 * 60_000
/** Wrong passwords one email may take per window: guessing one user's password stays slow. */
export const MAX_FAILURES_PER_EMAIL = 5
/** Failures one client address may make per window, over every email it tries. */
export const MAX_FAILURES_PER_ADDRESS = 20

export type FailureKind = 'email' | 'address' | 'operator' | 'reset' | 'invite-account' | 'invite-email'

export const failureKey = (kind: FailureKind, value: string): string => createHash('sha256').update(`${kind}:${value}`).digest('hex')

/** 429 RATE_LIMITED with the seconds to wait, in the message, the details and Retry-After. */
export function throttledError(seconds: number, what = 'failed attempts'): ApiError {
  const wait = seconds >= 120 ? `${Math.ceil(seconds / 60)} minutes` : `${seconds} second${seconds === 1 ? '' : 's'}`
  return new ApiError(
    'RATE_LIMITED',
    `Too many ${what}; try again in ${wait}.`,
    { retryAfterSeconds: seconds },
    { 'retry-after': String(seconds) },
  )
}

/** The seconds until the window that began at `since` closes (at least 1). */
export const secondsLeft = (since: number, now: number): number => Math.max(1, Math.ceil((since + FAILURE_WINDOW_MS - now) / 1000))

/** Throws throttledError when `key` has `limit` failures or more in its open window. */
export async function refuseIfThrottled(store: IdentityStore, key: string, limit: number, now: number): Promise<void> {
  const window = await store.failures(key, now, FAILURE_WINDOW_MS)
  if (window.failures >= limit) throw throttledError(secondsLeft(window.since, now))
}

/**
 * Counts an attempt under `key` before it is checked, and refuses it past `limit`: attempts made in
 * parallel are counted as they arrive, so a burst cannot slip past the limit while the first ones are
 * still being checked. A success clears the key.
 */
export async function countAttempt(store: IdentityStore, key: string, limit: number, now: number, what?: string): Promise<void> {
  const window = await store.addFailure(key, now, FAILURE_WINDOW_MS)
  if (window.failures > limit) throw throttledError(secondsLeft(window.since, now), what)
}

/** Invitations one account may send per window, and one address may receive: no mail cannon. */
export const MAX_INVITES_PER_ACCOUNT = 20
export const MAX_INVITES_PER_EMAIL = 3
