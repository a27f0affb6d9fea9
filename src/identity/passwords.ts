/**
 * Console passwords: scrypt (memory-hard, so a stolen table costs an attacker memory as well as time
 * per guess) with a random salt per password. The stored string names its parameters,
 * `scrypt$<N>$<r>$<p>$<salt>$<hash>` (base64url), so they can be raised later: a hash made with
 * weaker ones still verifies, and needsRehash says to store a new one at the next sign-in.
 */
import { scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import { codePointLength } from '../domain/code-points.ts'

export interface ScryptParams {
  N: number
  r: number
  p: number
}

/** Today's cost: 2^15 × 8 × 128 bytes = 32 MiB and some tens of milliseconds per hash. */
export const SCRYPT_PARAMS: Readonly<ScryptParams> = { N: 2 ** 15, r: 8, p: 1 }
export const SALT_BYTES = 16
const KEY_BYTES = 32
/** The most memory a stored hash may ask for (1 GiB, N=2^20 with r=8): a corrupt row must not exhaust the node. */
const MAX_MEMORY = 2 ** 30
const MAX_P = 16

/** Bytes scrypt works in: 128·r·(N + p + 2) (OpenSSL's count, which node's maxmem is checked against). */
const memoryOf = ({ N, r, p }: ScryptParams): number => 128 * r * (N + p + 2)

export const MIN_PASSWORD = 10
export const MAX_PASSWORD = 200

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  // Node refuses past maxmem, 32 MiB by default, which N=2^15 with r=8 already passes.
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: memoryOf(params) + 1024 * 1024 }
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key)))
  })
}

/** The stored form of `password` under a fresh `salt` (SALT_BYTES of the caller's randomness). */
export async function hashPassword(password: string, salt: Buffer, params: ScryptParams = SCRYPT_PARAMS): Promise<string> {
  const key = await derive(password, salt, params)
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

function parse(stored: string): { params: ScryptParams; salt: Buffer; key: Buffer } | undefined {
  const parts = stored.split('$')
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined
  const [N, r, p] = parts.slice(1, 4).map((n) => (/^\d{1,8}$/.test(n ?? '') ? Number(n) : NaN)) as [number, number, number]
  const powerOfTwo = N >= 2 && (N & (N - 1)) === 0
  if (!powerOfTwo || r < 1 || p < 1 || p > MAX_P || memoryOf({ N, r, p }) > MAX_MEMORY) return undefined
  const salt = Buffer.from(parts[4] ?? '', 'base64url')
  const key = Buffer.from(parts[5] ?? '', 'base64url')
  if (salt.length === 0 || key.length === 0) return undefined
  return { params: { N, r, p }, salt, key }
}

/** Whether `password` is the one `stored` was made from; compared in constant time. A malformed `stored` never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored)
  if (parsed === undefined) return false
  const key = await derive(password, parsed.salt, parsed.params)
  return key.length === parsed.key.length && timingSafeEqual(key, parsed.key)
}

/** Whether `stored` was made with weaker parameters than `params` (then the next sign-in stores a new hash). */
export function needsRehash(stored: string, params: ScryptParams = SCRYPT_PARAMS): boolean {
  const parsed = parse(stored)
  return parsed === undefined || parsed.params.N < params.N || parsed.params.r < params.r || parsed.params.p < params.p
}

/** Why a new password is refused, in words for the person choosing it; undefined when it is fine. */
export function passwordProblem(password: string): string | undefined {
  const length = codePointLength(password.normalize('NFC'))
  if (length < MIN_PASSWORD) return `must be at least ${MIN_PASSWORD} characters long (it has ${length}).`
  if (length > MAX_PASSWORD) return `must be at most ${MAX_PASSWORD} characters long.`
  if (new Set(password.normalize('NFC')).size === 1) return 'must not be one character repeated.'
  return undefined
}
