/**
 * The credit ledger and usage records of one store. Adapters keep the billing rules of
 * domain/billing/billing-rules.ts; this port says what is durable when.
 */
import type { Balance, BillingState, Lot, NewPack, SubscriptionPatch } from '../domain/billing/billing-rules.ts'

/** One request's line in the usage records: counted on the UTC day of `at`. */
export interface UsageLine {
  accountId: string
  at: number
  /** The route (`/api/v1/profile`) or `unknown`. */
  endpoint: string
  status: number
  credits: number
  requestId: string
  /** The API key the call was made with: its credits count in that key's monthly spend (key-caps.ts). */
  keyId?: string
}

/** Credits reserved for a request on admission, at its arrival instant. */
export interface Hold {
  /** The stored hold's key, for adapters that keep holds in the database (PostgreSQL). */
  id?: string
  accountId: string
  credits: number
  at: number
}

/** A refusal carries the balance and the credits other requests of the account hold in flight (the balance less those is what admits). */
export type HoldResult = { ok: true; hold: Hold } | { ok: false; balance: Balance; held: number }

export type SettleResult = { ok: true; charged: number } | { ok: false; reason: 'insufficient' }

export interface UsageRow {
  day: string
  endpoint: string
  status: number
  requests: number
  billable: number
  credits: number
}

/** How long an Idempotency-Key's answer is kept, from its first call's arrival (the requests' clock). */
export const KEY_RETENTION_MS = 24 * 3_600_000
/**
 * The longest a claim of a holder that died keeps its key, past the holder's last sign of life (the
 * requests' clock): a shared store's claims lapse then unless renewed; an embedded store's end with
 * their process.
 */
export const KEY_LEASE_MS = 30_000

/** One call's use of an Idempotency-Key. */
export interface KeyUse {
  accountId: string
  /** The key as the client sent it. */
  key: string
  /** Hash of the request the key names (method, route, sorted query, body): a repeat must match it. */
  fingerprint: string
  /** Now, in the requests' clock: when the key's answer expires and a dead holder's claim lapses are judged by it. */
  at: number
}

/** A call's hold on a key while it runs: its settle stores the answer, or releaseKey lets the key go. */
export interface KeyClaim extends KeyUse {
  /** Names this claim, so only its holder's settle or release ends it. */
  token: string
}

/** An answer as kept for its key: what a repeat is sent. */
export interface KeptAnswer {
  status: number
  /** The answer's own headers (content-type), lower-case names; per-call ones are not kept. */
  headers: Record<string, string>
  body: Buffer
}

/** What a claim finds. */
export type KeyState =
  /** No live call or answer under the key: this call runs, holding `claim`. */
  | { state: 'claimed'; claim: KeyClaim }
  /** The same request was answered within the retention: its answer, to repeat. */
  | { state: 'answered'; answer: KeptAnswer }
  /** The same request is running now (on this node or another): wait and claim again. */
  | { state: 'running' }
  /** The key names another request, answered or running. */
  | { state: 'mismatch' }

/** An answer to keep under its claim, written by the settle with the call's debit and usage line. */
export interface AnswerToKeep {
  claim: KeyClaim
  answer: KeptAnswer
}

export interface LedgerEntry {
  id: number
  lotId: string
  at: number
  kind: 'grant' | 'debit' | 'adjust'
  delta: number
  requestId: string | null
  endpoint: string | null
}

export interface Ledger {
  /** The account's billing state brought to `at` (renewals applied); undefined for an unknown account. */
  state(accountId: string, at: number): Promise<BillingState | undefined>
  /** Reserves `credits` at `at` if the live balance less other holds covers them. */
  hold(accountId: string, credits: number, at: number): Promise<HoldResult>
  /**
   * Releases the hold, debits `line.credits` (at most the hold) at the hold's instant and records the
   * usage line, all in one transaction. Resolves once that transaction is durable (group commit).
   * A rejection means the request is not billed: an adapter whose COMMIT can be lost in flight
   * (PostgreSQL) retries until it knows the outcome, and gives back a debit that turns out to have
   * committed after it rejected (see pg-ledger.ts). With `keep`, the call's answer is stored under
   * its key in that same transaction: a debit that committed has its answer kept, one that did not
   * (or was given back) has none. Once it resolves the key is answered; if it rejects or is refused,
   * the caller releases the claim. A hold is settled through the ledger that granted it (the node that
   * admitted the call): a node keeps its own holds.
   */
  settle(hold: Hold | null, line: UsageLine, keep?: AnswerToKeep): Promise<SettleResult>
  /**
   * Claims an Idempotency-Key for one call, or says what holds it. A claim is exclusive across every
   * node on the store; one whose holder died is taken over (at the latest KEY_LEASE_MS after it was
   * last renewed, judged by `use.at`). An answer older than KEY_RETENTION_MS counts as none.
   */
  claimKey(use: KeyUse): Promise<KeyState>
  /** Lets go of a claim whose call stores no answer (a refusal worth retrying): the key is free again. */
  releaseKey(claim: KeyClaim): Promise<void>
  /**
   * Adds a pack (durable when resolved). With `lotId` (a paid order's) the pack is granted at most
   * once under that id, across every process on the store: a later call adds nothing and resolves to
   * the lot as stored, so a redelivered payment or two nodes confirming one order never grant twice.
   */
  addPack(accountId: string, pack: NewPack, lotId?: string): Promise<Lot>
  /** Applies an operator's subscription change at `at` (durable when resolved); the caller validated it. */
  changeSubscription(accountId: string, patch: SubscriptionPatch, at: number): Promise<BillingState>
  /** Usage rows of the account for UTC days in [fromDay, toDay], including every settled line. */
  usage(accountId: string, fromDay: string, toDay: string): Promise<UsageRow[]>
  /** The account's ledger, oldest first (audit and tests). */
  entries(accountId: string): Promise<LedgerEntry[]>
  /** Commits everything pending and stops accepting work. */
  close(): Promise<void>
}
