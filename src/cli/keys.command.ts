/**
 * `pronet keys create|update|revoke`: an account's API keys and their spend controls (a monthly
 * credit limit, the endpoints a key may call). With --json each prints what the admin API answers for
 * the same call. Values are checked by the accounts service, so a bad one is refused as the admin API
 * refuses it (exit 1, INVALID_PARAMETER naming the field); `none` and `all` are the CLI's words for
 * the API's null.
 */
import { InvalidArgumentError, type Command } from 'commander'
import { keyView } from '../http/routes/admin.routes.ts'
import type { KeyPatch } from '../ports/account-store.ts'
import type { CliHelpers } from './billing.command.ts'
import { inCliWords, type CliWording } from './cli-words.ts'

type KeyView = ReturnType<typeof keyView>

/** An option's value that is another option (`--name --json`) is the value left out. */
function valueArg(value: string): string {
  if (value.startsWith('--')) throw new InvalidArgumentError(`a value is missing: '${value}' is an option.`)
  return value
}

/**
 * `--monthly-credit-limit`: `none` (no limit), else a number of credits. Anything but digits is handed
 * on as NaN, for the service to refuse with the admin API's words (range included). (`none` stays a
 * word here: commander takes a parser's null for a value left out.)
 */
function creditLimitArg(value: string): number | 'none' {
  valueArg(value)
  if (value === 'none') return 'none'
  return /^\d+$/.test(value) ? Number(value) : Number.NaN
}

/** `--endpoints`: `all` (every endpoint), else the paths after /api/v1/, comma-separated; the service checks each. */
function endpointsArg(value: string): string[] | 'all' {
  valueArg(value)
  if (value === 'all') return 'all'
  return value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')
}

const credits = (n: number) => `${n} credit${n === 1 ? '' : 's'}`

/** A key's spend controls for a person: its monthly limit with what it was billed this month (UTC), and its endpoints. */
export function keyControlLines(k: KeyView): string[] {
  return [
    `monthly credit limit: ${k.monthlyCreditLimit === null ? 'none' : k.monthlyCreditLimit} (${credits(k.creditsThisMonth)} billed this month)`,
    `endpoints: ${k.endpoints === null ? 'all' : k.endpoints.join(', ')}`,
  ]
}

/** `key <id> "<name>"`, the name left out when the key has none. */
const keyTitle = (k: KeyView) => `key ${k.id}${k.name === '' ? '' : ` "${k.name}"`}`

/** A key among an account's keys (`accounts show`): id, prefix, name and dates, then its controls indented. */
export function keyText(k: KeyView): string[] {
  return [
    `  ${k.id}  ${k.prefix}…  ${k.name === '' ? '' : `"${k.name}"  `}created ${k.createdAt}${k.revokedAt ? `, revoked ${k.revokedAt}` : ''}`,
    ...keyControlLines(k).map((l) => `    ${l}`),
  ]
}

/** The key controls' refusals in the CLI's words. */
const KEY_WORDING: CliWording = {
  monthlyCreditLimit: { name: '--monthly-credit-limit', phrases: [[', or null for no limit.', ', or none for no limit.']] },
  endpoints: {
    name: '--endpoints',
    phrases: [['such as ["profile", "search/posts"], or be null to allow every endpoint.', 'such as profile,search/posts, or be all to allow every endpoint.']],
  },
}

interface KeyOptions {
  name?: string
  monthlyCreditLimit?: number | 'none'
  endpoints?: string[] | 'all'
  json?: boolean
}

/** The options given, as the service (and the admin API's body) takes them: `none` and `all` are null. */
function keyFields(opts: KeyOptions): KeyPatch {
  const fields: KeyPatch = {}
  if (opts.name !== undefined) fields.name = opts.name
  if (opts.monthlyCreditLimit !== undefined) fields.monthlyCreditLimit = opts.monthlyCreditLimit === 'none' ? null : opts.monthlyCreditLimit
  if (opts.endpoints !== undefined) fields.endpoints = opts.endpoints === 'all' ? null : opts.endpoints
  return fields
}

export function registerKeyCommands(program: Command, { withContainer, print }: CliHelpers): void {
  const keys = program.command('keys').description('manage API keys and their spend controls')
  keys
    .command('create')
    .description('create another API key for an account (the key is shown only now), with a monthly credit limit or endpoints if given')
    .argument('<accountId>', 'account id')
    .option('--name <text>', 'what the key is for', valueArg)
    .option('--monthly-credit-limit <n>', 'credits its calls may be billed per calendar month (UTC); default: none', creditLimitArg)
    .option('--endpoints <list>', 'the endpoints it may call, comma-separated paths after /api/v1/ (profile,search/posts); default: all', endpointsArg)
    .option('--json', 'print JSON (as POST /admin/v1/accounts/:id/keys)')
    .action(async (accountId: string, opts: KeyOptions) =>
      withContainer(async (c) => {
        const { record, ...created } = await inCliWords(opts.json, KEY_WORDING, () => c.accounts.createKey(accountId, keyFields(opts)))
        // As the admin API's 201: the key with its view, never the stored record.
        const view = { ...created, ...keyView({ ...record, creditsThisMonth: 0 }) }
        print(opts.json, view, [keyTitle(view), `API key (shown once): ${view.key}`, ...keyControlLines(view)].join('\n'))
      }),
    )
  keys
    .command('update')
    .description("change a key's name, monthly credit limit or endpoints (at once, on every node)")
    .argument('<accountId>', 'account id')
    .argument('<keyId>', 'key id')
    .option('--name <text>', 'what the key is for ("" removes the name)', valueArg)
    .option('--monthly-credit-limit <n>', 'credits its calls may be billed per calendar month (UTC); none: no limit', creditLimitArg)
    .option('--endpoints <list>', 'the endpoints it may call, comma-separated paths after /api/v1/; all: every endpoint', endpointsArg)
    .option('--json', 'print JSON (as PATCH /admin/v1/accounts/:id/keys/:keyId)')
    .action(async (accountId: string, keyId: string, opts: KeyOptions) => {
      const patch = keyFields(opts)
      if (Object.keys(patch).length === 0) {
        throw new InvalidArgumentError('nothing to change: give at least one of --name, --monthly-credit-limit, --endpoints.')
      }
      return withContainer(async (c) => {
        const view = keyView(await inCliWords(opts.json, KEY_WORDING, () => c.accounts.updateKey(accountId, keyId, patch)))
        print(opts.json, view, [`${keyTitle(view)} updated`, ...keyControlLines(view)].join('\n'))
      })
    })
  keys
    .command('revoke')
    .description('revoke an API key: it answers 401 from now on')
    .argument('<accountId>', 'account id')
    .argument('<keyId>', 'key id')
    .option('--json', 'print JSON')
    .action(async (accountId: string, keyId: string, opts: { json?: boolean }) =>
      withContainer(async (c) => {
        await c.accounts.revokeKey(accountId, keyId)
        print(opts.json, { revoked: keyId }, `key ${keyId} revoked`)
      }),
    )
}
