/** Accounts and their API keys. Keys are stored only as SHA-256 hashes. */
export type PlanName = 'free' | 'custom' | 'none'
export type SubscriptionStatus = 'active' | 'free' | 'trialing' | 'past_due' | 'incomplete' | 'unpaid' | 'canceled'

export interface AccountRecord {
  id: string
  name: string
  createdAt: number
  suspendedAt: number | null
  plan: PlanName
  status: SubscriptionStatus
  creditsLimit: number
  rpsLimit: number
}

export interface ApiKeyRecord {
  id: string
  accountId: string
  prefix: string
  createdAt: number
  revokedAt: number | null
  /** What its owner calls it ('' for keys made before keys had names). */
  name: string
  /** The console user who made it; null for keys made by the operator. */
  createdBy: string | null
  /** The last call made with it, as last recorded (recordKeyUses). */
  lastUsedAt: number | null
  /** Credits its calls may be billed per UTC calendar month; null: no limit but the account's. */
  monthlyCreditLimit: number | null
  /** The endpoints it may call, as the paths after /api/v1/ (`profile`, `search/posts`); null: every one. */
  endpoints: string[] | null
}

/** A change to a key's name or spend controls: a field left out stays; null removes a limit. */
export interface KeyPatch {
  name?: string
  monthlyCreditLimit?: number | null
  endpoints?: string[] | null
}

export interface KeyLookup {
  keyId: string
  accountId: string
  suspended: boolean
  monthlyCreditLimit: number | null
  endpoints: string[] | null
}

export interface AccountStore {
  /** Creates an account together with its first key in one transaction. */
  createAccount(account: AccountRecord, key: ApiKeyRecord & { hash: string }): Promise<void>
  getAccount(id: string): Promise<AccountRecord | undefined>
  addKey(key: ApiKeyRecord & { hash: string }): Promise<void>
  /** Marks a key revoked; false when the account has no such live key. */
  revokeKey(accountId: string, keyId: string, at: number): Promise<boolean>
  listKeys(accountId: string): Promise<ApiKeyRecord[]>
  /** Changes a live key of the account; false when it has no such live key. */
  updateKey(accountId: string, keyId: string, patch: KeyPatch): Promise<boolean>
  /** Credits billed to each of the account's keys in the UTC month `month` ('2026-12'); keys that spent nothing are left out. */
  keySpend(accountId: string, month: string): Promise<Map<string, number>>
  /** The live (not revoked) key with this hash. */
  findKeyByHash(hash: string): Promise<KeyLookup | undefined>
  /** The account a revoked key with this hash belonged to: its calls still count in that account's usage. */
  findRevokedKeyAccount(hash: string): Promise<string | undefined>
  setSuspended(accountId: string, at: number | null): Promise<boolean>
  /**
   * Accounts whose id is `query`, whose name holds it (any case), or with a key starting with it;
   * the newest first. An empty query lists the newest accounts.
   */
  searchAccounts(query: string, limit: number): Promise<AccountRecord[]>
  /** Records when keys were last used; an earlier instant never replaces a later one. */
  recordKeyUses(uses: readonly { keyId: string; at: number }[]): Promise<void>
  /** Whether any account exists (first start creates a demo account otherwise). */
  hasAccounts(): Promise<boolean>
  close(): Promise<void>
}
