/**
 * `pronet subscription set`, `pronet packs add|quote` and `pronet usage`: the CLI side
 * of the admin API's subscription, pack and quote calls and of GET /api/v1/usage. With --json each
 * prints the very JSON the admin API (or the usage endpoint) returns for the same thing.
 */
import { InvalidArgumentError, Option, type Command } from 'commander'
import type { Container } from '../container.ts'
import { loadConfig } from '../config/config.ts'
import { quotePack } from '../domain/billing/pack-pricing.ts'
import { MAX_CREDITS_LIMIT, MAX_RPS_LIMIT, type SubscriptionPatch } from '../domain/billing/billing-rules.ts'
import { INSTANT_FORMS, parseDay, parseInstant } from '../domain/billing/calendar.ts'
import type { SubscriptionView } from '../domain/billing/metering.service.ts'
import type { UsageReport } from '../domain/usage/usage-report.ts'
import type { PlanName, SubscriptionStatus } from '../ports/account-store.ts'

export interface CliHelpers {
  /** Runs a command against a fresh container and closes it; domain errors become exit code 1. */
  withContainer(fn: (c: Container) => Promise<number | void>): Promise<void>
  /** JSON with --json, else the human text. */
  print(json: boolean | undefined, value: unknown, human: string): void
}

const PLANS: readonly PlanName[] = ['free', 'custom', 'none']
const STATUSES: readonly SubscriptionStatus[] = ['active', 'free', 'trialing', 'past_due', 'incomplete', 'unpaid', 'canceled']

/** An integer in [min, max] (the admin API's bounds), or a usage error (exit 2). */
export const intIn = (name: string, min: number, max = Number.MAX_SAFE_INTEGER) => (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    // Without a bound of its own, the highest number JavaScript counts exactly is no rule to tell anyone.
    throw new InvalidArgumentError(max === Number.MAX_SAFE_INTEGER ? `${name} must be an integer of at least ${min}.` : `${name} must be an integer from ${min} to ${max}.`)
  }
  return Number(value)
}

/** An ISO 8601 instant or epoch milliseconds, as the admin API reads them. */
const instantArg = (name: string) => (value: string) => {
  const ms = parseInstant(value)
  if (ms === undefined) {
    throw new InvalidArgumentError(`${name} must be ${INSTANT_FORMS}.`)
  }
  return ms
}

/** A real calendar day in YYYY-MM-DD form (range rules are the usage report's own). */
const dayArg = (name: string) => (value: string) => {
  if (parseDay(value) === undefined) throw new InvalidArgumentError(`${name} must be a date in YYYY-MM-DD form.`)
  return value
}

const boolArg = (name: string) => (value: string) => {
  if (value !== 'true' && value !== 'false') throw new InvalidArgumentError(`${name} must be true or false.`)
  return value === 'true'
}

const money = (price: number) => price.toFixed(2)

export function subscriptionText(s: SubscriptionView): string {
  return [
    `plan ${s.plan}, status ${s.status} (${s.active ? 'active' : 'not active'}), ${s.rpsLimit} requests per second`,
    `credits remaining ${s.creditsRemaining}: plan ${s.subscriptionCreditsRemaining} of ${s.creditsLimit} (used ${s.creditsUsed}), ` +
      `packs ${s.paygCreditsRemaining}${s.paygExpiresAt ? ` (soonest expiry ${s.paygExpiresAt})` : ''}`,
    s.renewalDate === null
      ? 'no billing period (no plan)'
      : `${s.cancelAtPeriodEnd ? 'plan ends' : 'renews'} ${s.renewalDate}${s.cancelAtPeriodEnd ? ' (cancel at period end)' : ''}`,
  ].join('\n')
}

export function usageText(accountId: string, r: UsageReport): string {
  const row = (cells: (string | number)[], widths: number[]) =>
    cells.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i] as number) : String(cell).padStart(widths[i] as number))).join('  ')
  const endpointWidth = Math.max(8, ...r.endpoints.map((e) => e.endpoint.length))
  const lines = [
    `usage of ${accountId} from ${r.from} to ${r.to}`,
    `requests ${r.requests}, billable ${r.billableRequests}, credits used ${r.creditsUsed}`,
    `credits remaining ${r.creditsRemaining} (plan ${r.subscriptionCreditsRemaining}, packs ${r.paygCreditsRemaining})`,
  ]
  if (r.endpoints.length > 0) {
    lines.push('', row(['endpoint', 'requests', 'billable', 'credits', ''], [endpointWidth, 8, 8, 8, 0]) + 'statuses')
    for (const e of r.endpoints) {
      const statuses = Object.entries(e.statusCodes)
        .map(([status, n]) => `${status}:${n}`)
        .join(' ')
      lines.push(row([e.endpoint, e.requests, e.billableRequests, e.creditsUsed, ''], [endpointWidth, 8, 8, 8, 0]) + statuses)
    }
  }
  lines.push('', row(['day', 'requests', 'billable', 'credits'], [10, 8, 8, 8]))
  for (const d of r.days) lines.push(row([d.date, d.requests, d.billableRequests, d.creditsUsed], [10, 8, 8, 8]))
  return lines.join('\n')
}

export function registerBillingCommands(program: Command, { withContainer, print }: CliHelpers): void {
  const subscription = program.command('subscription').description("change an account's subscription (plan, status, allowance, rate)")
  subscription
    .command('set')
    .description('change the plan, its status, limits or renewal (prints the subscription as GET /api/v1/subscription)')
    .argument('<accountId>', 'account id')
    .addOption(new Option('--plan <plan>', 'plan ("none" ends the plan now)').choices(PLANS))
    .addOption(new Option('--status <status>', 'subscription status ("canceled" ends the plan now)').choices(STATUSES))
    .option('--credits-limit <n>', 'plan allowance per period', intIn('--credits-limit', 0, MAX_CREDITS_LIMIT))
    .option('--rps-limit <n>', 'requests per second', intIn('--rps-limit', 1, MAX_RPS_LIMIT))
    .option('--renewal-date <instant>', 'end of the current period (ISO 8601); later periods renew on its day of the month', instantArg('--renewal-date'))
    .option('--cancel-at-period-end <bool>', 'true: the plan ends at the renewal date; false: it renews', boolArg('--cancel-at-period-end'))
    .option('--json', 'print JSON')
    .action(
      async (
        accountId: string,
        opts: {
          plan?: PlanName
          status?: SubscriptionStatus
          creditsLimit?: number
          rpsLimit?: number
          renewalDate?: number
          cancelAtPeriodEnd?: boolean
          json?: boolean
        },
      ) => {
        const { json, renewalDate, ...rest } = opts
        const patch: SubscriptionPatch = { ...rest, ...(renewalDate === undefined ? {} : { renewalAt: renewalDate }) }
        if (Object.keys(patch).length === 0) {
          throw new InvalidArgumentError(
            'nothing to change: give at least one of --plan, --status, --credits-limit, --rps-limit, --renewal-date, --cancel-at-period-end.',
          )
        }
        return withContainer(async (c) => {
          await c.accounts.get(accountId)
          const view = await c.metering.changeSubscription(accountId, patch)
          print(json, view, subscriptionText(view))
        })
      },
    )

  const packs = program.command('packs').description('credit packs: add one to an account, or price one')
  packs
    .command('add')
    .description('add a pack of credits (expires 12 calendar months after its purchase)')
    .argument('<accountId>', 'account id')
    .requiredOption('--credits <n>', 'pack size: 50,000 to 50,000,000 in steps of 50,000 (250,000 above 1,000,000)', intIn('--credits', 1))
    .option('--purchased-at <instant>', 'purchase instant (ISO 8601), not in the future; default now', instantArg('--purchased-at'))
    .option('--json', 'print JSON')
    .action(async (accountId: string, opts: { credits: number; purchasedAt?: number; json?: boolean }) =>
      withContainer(async (c) => {
        await c.accounts.get(accountId)
        const pack = await c.metering.addPack(accountId, {
          credits: opts.credits,
          ...(opts.purchasedAt === undefined ? {} : { purchasedAt: opts.purchasedAt }),
        })
        print(
          opts.json,
          pack,
          `pack ${pack.id}: ${pack.credits} credits for ${money(pack.price)}, purchased ${pack.purchasedAt}, expires ${pack.expiresAt}`,
        )
      }),
    )
  packs
    .command('quote')
    .description('the price of a pack, from the pack price tiers')
    .argument('[credits]', 'pack size (or use --credits)', intIn('credits', 1))
    .option('--credits <n>', 'pack size', intIn('--credits', 1))
    .option('--json', 'print JSON')
    .action(async (positional: number | undefined, opts: { credits?: number; json?: boolean }) => {
      if (positional !== undefined && opts.credits !== undefined && positional !== opts.credits) {
        throw new InvalidArgumentError(`two different pack sizes given (${positional} and --credits ${opts.credits}).`)
      }
      const credits = opts.credits ?? positional
      if (credits === undefined) throw new InvalidArgumentError('give the pack size: pronet packs quote --credits N')
      // Arithmetic on the configured tiers: no store to open (it failed with the database unreachable).
      const quote = quotePack(credits, loadConfig().packTiers)
      print(opts.json, quote, `${quote.credits} credits cost ${money(quote.price)}`)
    })

  program
    .command('usage')
    .description("an account's usage report over UTC days, as GET /api/v1/usage")
    .argument('<accountId>', 'account id')
    .option('--from <day>', 'first UTC day, YYYY-MM-DD (default: first day of this month)', dayArg('--from'))
    .option('--to <day>', 'last UTC day, YYYY-MM-DD (default: today)', dayArg('--to'))
    .option('--json', 'print JSON')
    .action(async (accountId: string, opts: { from?: string; to?: string; json?: boolean }) =>
      withContainer(async (c) => {
        await c.accounts.get(accountId)
        const report = await c.usage(accountId, {
          ...(opts.from === undefined ? {} : { from: opts.from }),
          ...(opts.to === undefined ? {} : { to: opts.to }),
        })
        print(opts.json, report, usageText(accountId, report))
      }),
    )
}
