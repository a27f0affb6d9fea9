/** What the console's pages are built from: the services the API uses, and the console's own. */
import type { Logger } from 'pino'
import type { AccountsService } from '../domain/accounts/accounts.service.ts'
import type { MeteringService } from '../domain/billing/metering.service.ts'
import type { PriceTier } from '../domain/billing/pack-pricing.ts'
import type { PriceTable } from '../domain/billing/prices.ts'
import type { UsageReporter } from '../domain/usage/usage-report.ts'
import type { IdentityService } from '../identity/identity.service.ts'
import type { OrdersService } from '../payments/orders.service.ts'
import type { AccountStore } from '../ports/account-store.ts'
import type { Clock } from '../ports/clock.ts'
import type { AccountSearch } from '../domain/accounts/account-search.ts'
import type { Ledger } from '../ports/ledger.ts'
import type { WebhooksService } from '../webhooks/webhooks.service.ts'

export interface ConsoleDeps {
  identity: IdentityService
  /** The operator's search for accounts (name, id, key prefix, a user's address). */
  searchAccounts: AccountSearch
  accounts: AccountsService
  accountStore: AccountStore
  metering: MeteringService
  usage: UsageReporter
  ledger: Ledger
  orders: OrdersService
  /** The account's webhook endpoints, deliveries and low-balance alert (the admin API's service). */
  webhooks: WebhooksService
  clock: Clock
  logger: Logger
  publicUrl: string
  signup: 'open' | 'invite' | 'closed'
  payments: 'manual' | 'stripe' | 'test'
  packTiers: readonly PriceTier[]
  /** The credits each call costs: the API's own table, operators' overrides included. */
  prices: PriceTable
  adminToken: string | undefined
}
