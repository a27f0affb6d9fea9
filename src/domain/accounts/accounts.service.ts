/**
 * Accounts and API keys. A key is `pk_` plus 32 random base62-ish characters; only its
 * SHA-256 is stored, so the plaintext exists only in the creation response.
 */
import { createHash } from 'node:crypto'
import type { AccountRecord, AccountStore, ApiKeyRecord, KeyPatch, PlanName, SubscriptionStatus } from '../../ports/account-store.ts'
import { monthOf } from '../../ports/key-caps.ts'
import { checkCreditLimit, checkEndpoints } from '../../key-caps/key-settings.ts'
import type { Clock } from '../../ports/clock.ts'
import type { InvalidationBus, InvalidationMessage } from '../../ports/invalidation-bus.ts'
import { DEFAULT_RPS, FREE_CREDITS, planLimitsProblem, planWithStatus } from '../billing/billing-rules.ts'
import { codePointLength } from '../code-points.ts'
import { ApiError, invalidParameter } from '../errors.ts'


export interface AccountsDeps {
  store: AccountStore
  clock: Clock
  /** Source of randomness (crypto.randomBytes in production). */
  randomBytes: (n: number) => Buffer
  /** Tells the other nodes to drop their key caches on revoke, suspend and resume (scale-out). */
  bus?: InvalidationBus
}

export interface NewAccount {
  name?: string
  plan?: PlanName
  creditsLimit?: number
  rpsLimit?: number
  status?: SubscriptionStatus
  /** The name (and maker) of the account's first key, made with it. */
  firstKey?: KeyDetails
}

export interface KeyDetails {
  name?: string
  /** The console user making it. */
  createdBy?: string
  /** Credits its calls may be billed per UTC month (absent or null: no limit but the account's). */
  monthlyCreditLimit?: number | null
  /** The endpoints it may call, as the paths after /api/v1/ (absent or null: every one). */
  endpoints?: string[] | null
}

/** A key as its owner and the operator see it: its record and the credits its calls were billed this month. */
export type KeyShown = ApiKeyRecord & { creditsThisMonth: number }

/** A key name's longest. */
export const MAX_KEY_NAME = 100

/**
 * What no name may hold: control characters, line and paragraph separators, and the controls that
 * turn the direction of the text around them (a name could read as another, or reorder the line of
 * a page or a mail it is quoted in).
 */
const HIDDEN_CONTROLS = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u
const HIDDEN_CONTROLS_TEXT = 'must not hold control characters (line breaks, tabs, NUL, text-direction controls…).'

function keyNameProblem(name: string): void {
  const length = codePointLength(name)
  if (length > MAX_KEY_NAME) throw invalidParameter('name', `must be at most ${MAX_KEY_NAME} characters.`)
  if (HIDDEN_CONTROLS.test(name)) throw invalidParameter('name', HIDDEN_CONTROLS_TEXT)
  if (!/[^\p{White_Space}\p{Cf}]/u.test(name)) throw invalidParameter('name', 'must hold a visible character, not only spaces.')
}

export interface CreatedKey {
  id: string
  key: string
  prefix: string
}

/**
 * 401 INVALID_API_KEY for a key that was revoked, naming (for the gateway only) the account it was
 * issued to: usage counts every request made with an account's keys, whatever its outcome.
 */
export class RevokedKeyError extends ApiError {
  constructor(readonly accountId: string) {
    super('INVALID_API_KEY', 'The API key is not valid.')
  }
}

export const suspendedError = (headers?: Record<string, string>): ApiError =>
  new ApiError('FORBIDDEN', 'This account is suspended; contact the operator.', undefined, headers)

export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex')

/**
 * How long an authenticated key is trusted without asking the store again. Changes made through this
 * service (revoke, suspend, resume) take effect at once, on every node sharing its invalidation
 * bus; changes made by another process without the bus (the CLI) within this bound.
 */
/** An account name's longest (admin API and CLI alike). */
export const MAX_ACCOUNT_NAME = 200

export const KEY_CACHE_MS = 1000
const KEY_CACHE_MAX = 10_000

export type AccountsService = ReturnType<typeof createAccountsService>

/** Who a key belongs to, as identify() finds it. */
export interface Identity {
  accountId: string
  keyId: string
  suspended: boolean
  /** The key's monthly credit limit, if it has one: its calls then reserve against it (key-caps). */
  monthlyCreditLimit: number | null
  /** The endpoints the key may call (null: every one). */
  endpoints: string[] | null
}

/**
 * Refuses a name the operator could not tell apart or store alike everywhere: counted in characters
 * (code points, as the admin API's schema counts them, so an emoji counts once), at least one of
 * them visible, none a control character (PostgreSQL cannot store a NUL, SQLite can). Kept as given otherwise, spaces included.
 */
function nameProblem(name: string): void {
  const length = codePointLength(name)
  if (length < 1 || length > MAX_ACCOUNT_NAME) throw invalidParameter('name', `must be 1 to ${MAX_ACCOUNT_NAME} characters.`)
  if (HIDDEN_CONTROLS.test(name)) throw invalidParameter('name', HIDDEN_CONTROLS_TEXT)
  if (!/[^\p{White_Space}\p{Cf}]/u.test(name)) throw invalidParameter('name', 'must hold a visible character, not only spaces.')
}

export function createAccountsService(deps: AccountsDeps) {
  const { store, clock } = deps
  const token = (n: number) => deps.randomBytes(n).toString('base64url')
  // Raw key -> lookup result and when it stops being trusted.
  const keyCache = new Map<string, { result: Identity; until: number }>()
  // Bumped on every clear, so a lookup that read the store before the change does not cache it after.
  let generation = 0
  const clearCache = () => {
    keyCache.clear()
    generation++
  }
  deps.bus?.subscribe(clearCache)
  const changed = async (message: InvalidationMessage) => {
    clearCache()
    await deps.bus?.publish(message)
  }

  function newKey(accountId: string, details: KeyDetails = {}): { record: ApiKeyRecord & { hash: string }; created: CreatedKey } {
    const key = `pk_${token(24)}`
    const id = `key_${token(9)}`
    const prefix = key.slice(0, 10)
    const name = details.name ?? ''
    if (name !== '') keyNameProblem(name)
    const monthlyCreditLimit = details.monthlyCreditLimit === undefined ? null : checkCreditLimit(details.monthlyCreditLimit)
    const endpoints = details.endpoints === undefined ? null : checkEndpoints(details.endpoints)
    return {
      record: {
        id,
        accountId,
        hash: hashKey(key),
        prefix,
        createdAt: clock.now(),
        revokedAt: null,
        name,
        createdBy: details.createdBy ?? null,
        lastUsedAt: null,
        monthlyCreditLimit,
        endpoints,
      },
      created: { id, key, prefix },
    }
  }

  // Last uses are gathered here and written in bulk (flushKeyUses), never on a call's own path.
  let uses = new Map<string, number>()
  const used = (keyId: string, at: number) => {
    if ((uses.get(keyId) ?? 0) < at) uses.set(keyId, at)
  }

  /** identify's lookup in the store, for a key not authenticated lately. */
  async function lookUp(apiKey: string, now: number): Promise<Identity> {
    const seen = generation
    const hash = hashKey(apiKey)
    const found = await store.findKeyByHash(hash)
    if (!found) {
      const owner = await store.findRevokedKeyAccount(hash)
      throw owner === undefined ? new ApiError('INVALID_API_KEY', 'The API key is not valid.') : new RevokedKeyError(owner)
    }
    used(found.keyId, now)
    if (seen !== generation) return found
    if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear()
    keyCache.set(apiKey, { result: found, until: now + KEY_CACHE_MS })
    return found
  }

  async function mustGet(id: string): Promise<AccountRecord> {
    const account = await store.getAccount(id)
    if (!account) throw new ApiError('NOT_FOUND', `No account '${id}'.`)
    return account
  }

  return {
    /** Creates an account with its first key; a new account starts on the free plan. */
    async create(input: NewAccount = {}): Promise<{ account: AccountRecord; apiKey: CreatedKey }> {
      // The same rules as a subscription change, from the free plan a new account starts on.
      const resulting = planWithStatus(input.plan, input.status, 'free')
      if (resulting.problem) throw invalidParameter(resulting.problem.field, resulting.problem.why)
      const plan = resulting.plan
      const status = input.status ?? (plan === 'custom' ? 'active' : 'free')
      const limits = planLimitsProblem(plan, input)
      if (limits) throw invalidParameter(limits.field, limits.why)
      // The admin API's schema says the same; the CLI reaches here without it (it stored "" and 100,000 characters).
      if (input.name !== undefined) nameProblem(input.name)
      const account: AccountRecord = {
        id: `acc_${token(9)}`,
        name: input.name ?? 'unnamed',
        createdAt: clock.now(),
        suspendedAt: null,
        plan,
        status,
        creditsLimit: plan === 'none' ? 0 : (input.creditsLimit ?? (plan === 'free' ? FREE_CREDITS : 0)),
        rpsLimit: input.rpsLimit ?? DEFAULT_RPS,
      }
      const key = newKey(account.id, input.firstKey)
      await store.createAccount(account, key.record)
      return { account, apiKey: key.created }
    },

    get: mustGet,

    async show(id: string): Promise<{ account: AccountRecord; keys: KeyShown[] }> {
      const account = await mustGet(id)
      return { account, keys: await this.keys(id) }
    },

    /** The account's keys, oldest first, each with the credits its calls were billed this UTC month. */
    async keys(accountId: string): Promise<KeyShown[]> {
      const [keys, spend] = await Promise.all([store.listKeys(accountId), store.keySpend(accountId, monthOf(clock.now()))])
      return keys.map((k) => ({ ...k, creditsThisMonth: spend.get(k.id) ?? 0 }))
    },

    /** Changes a live key's name or spend controls; takes effect at once on every node. */
    async updateKey(accountId: string, keyId: string, patch: KeyPatch): Promise<KeyShown> {
      await mustGet(accountId)
      const checked: KeyPatch = {}
      if (patch.name !== undefined) {
        if (patch.name !== '') keyNameProblem(patch.name)
        checked.name = patch.name
      }
      if (patch.monthlyCreditLimit !== undefined) checked.monthlyCreditLimit = checkCreditLimit(patch.monthlyCreditLimit)
      if (patch.endpoints !== undefined) checked.endpoints = checkEndpoints(patch.endpoints)
      if (!(await store.updateKey(accountId, keyId, checked))) {
        throw new ApiError('NOT_FOUND', `No live key '${keyId}' on account '${accountId}'.`)
      }
      await changed({ kind: 'key-changed', accountId, keyId })
      const shown = (await this.keys(accountId)).find((k) => k.id === keyId)
      if (!shown) throw new ApiError('NOT_FOUND', `No live key '${keyId}' on account '${accountId}'.`)
      return shown
    },

    async createKey(accountId: string, details: KeyDetails = {}): Promise<CreatedKey & { record: ApiKeyRecord }> {
      await mustGet(accountId)
      const key = newKey(accountId, details)
      await store.addKey(key.record)
      const { hash: _hash, ...record } = key.record
      return { ...key.created, record }
    },

    async revokeKey(accountId: string, keyId: string): Promise<void> {
      await mustGet(accountId)
      if (!(await store.revokeKey(accountId, keyId, clock.now()))) {
        throw new ApiError('NOT_FOUND', `No live key '${keyId}' on account '${accountId}'.`)
      }
      await changed({ kind: 'key-revoked', accountId, keyId })
    },

    async suspend(id: string): Promise<AccountRecord> {
      // Suspending a suspended account keeps the time it was first suspended.
      if ((await mustGet(id)).suspendedAt === null) await store.setSuspended(id, clock.now())
      await changed({ kind: 'account-suspended', accountId: id })
      return mustGet(id)
    },

    async resume(id: string): Promise<AccountRecord> {
      await mustGet(id)
      await store.setSuspended(id, null)
      await changed({ kind: 'account-resumed', accountId: id })
      return mustGet(id)
    },

    /**
     * The account behind an X-API-Key value, suspended or not: 401 for a missing or unknown key. The
     * gateway records a suspended account's calls before refusing them with 403. A key authenticated
     * within KEY_CACHE_MS is answered at once, not as a promise: the gateway has nothing to wait for.
     */
    identify(apiKey: string | undefined): Identity | Promise<Identity> {
      if (apiKey === undefined || apiKey === '') {
        return Promise.reject(new ApiError('UNAUTHENTICATED', 'Missing X-API-Key header.'))
      }
      const now = clock.now()
      const cached = keyCache.get(apiKey)
      if (cached !== undefined && cached.until > now) {
        used(cached.result.keyId, now)
        return cached.result
      }
      return lookUp(apiKey, now)
    },

    /** Writes the last uses gathered since the previous flush (the container calls it every few seconds and at close). */
    async flushKeyUses(): Promise<void> {
      if (uses.size === 0) return
      const batch = [...uses].map(([keyId, at]) => ({ keyId, at }))
      uses = new Map()
      await store.recordKeyUses(batch)
    },

    /** As identify(), refusing a suspended account with 403 FORBIDDEN. */
    async authenticate(apiKey: string | undefined): Promise<{ accountId: string; keyId: string }> {
      const found = await this.identify(apiKey)
      if (found.suspended) throw suspendedError()
      return { accountId: found.accountId, keyId: found.keyId }
    },
  }
}
