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
   * committed after it rejected (see pg-ledger.ts).
   */
  settle(hold: Hold | null, line: UsageLine): Promise<SettleResult>
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
