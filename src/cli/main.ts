#!/usr/bin/env node
/**
 * `pronet`, the operator CLI, a stable interface that documentation, tests and tools rely on. It
 * works directly against the data store named by the same environment as the server. Every command
 * prints JSON with --json.
 *
 * Exit status: 0 done; 1 refused by the service's rules (unknown account, invalid value, failed
 * ingest lines) or an unexpected failure; 2 a usage error (unknown option, unparsable argument, bad
 * environment). With --json a failure is one JSON object on stderr, the HTTP API's envelope
 * `{error, code, details?}`: the catalogue's code for the service's refusals, INVALID_PARAMETER for a
 * usage error, INTERNAL_ERROR for anything unexpected.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander'
import { ConfigError, loadConfig, type SeedSize } from '../config/config.ts'
import { isProgrammingError, StartupError } from '../config/startup-failure.ts'
import { embeddedStorePath, openContainer, type Container } from '../container.ts'
import { isApiError, type ErrorCode } from '../domain/errors.ts'
import { MAX_CREDITS_LIMIT, MAX_RPS_LIMIT } from '../domain/billing/billing-rules.ts'
import { INSTANT_FORMS, parseInstant } from '../domain/billing/calendar.ts'
import { accountView, keyView } from '../http/routes/admin.routes.ts'
import { intIn, registerBillingCommands, subscriptionText } from './billing.command.ts'
import { keyText, registerKeyCommands } from './keys.command.ts'
import { registerUserCommands } from './users.command.ts'
import { registerOrderCommands } from './orders.command.ts'
import { registerUpstreamCommands } from './upstream.command.ts'
import { registerWebhookCommands } from './webhooks.command.ts'
import type { SubscriptionView } from '../domain/billing/metering.service.ts'
import { IngestAborted, runIngest } from './ingest.command.ts'
import { BackupRefused, backupSqlite } from './backup.command.ts'
import { PROFILE_COUNT_RULE, profileCountProblem } from '../synth/network-plan.ts'

const int = (name: string, min: number) => (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < min) throw new InvalidArgumentError(`${name} must be an integer ≥ ${min}.`)
  return Number(value)
}

/**
 * Whether the command asked for --json. Once commander has parsed the command, its own option says
 * (set by the preAction hook). A usage error can come before that, even before --json is read
 * (`--plan gold --json` fails at --plan), so until then the raw arguments decide, up to a `--`.
 */
let jsonOption: boolean | undefined
/** The arguments of this run (process.argv, or what runCli was given). */
let runArgv: readonly string[] = process.argv
function jsonRequested(): boolean {
  if (jsonOption !== undefined) return jsonOption
  const args = runArgv.slice(2)
  const end = args.indexOf('--')
  return (end < 0 ? args : args.slice(0, end)).includes('--json')
}

/** A failure on stderr: `pronet: <message>`, or with --json the HTTP API's error envelope on one line. */
function reportError(body: { error: string; code: ErrorCode; details?: Record<string, unknown> }): void {
  process.stderr.write(jsonRequested() ? `${JSON.stringify(body)}\n` : `pronet: ${body.error}\n`)
}

/** Runs a command against a fresh container and closes it, mapping domain errors to exit code 1. */
async function withContainer(fn: (c: Container) => Promise<number | void>): Promise<void> {
  // Notices about the store (a rebuild after an upgrade, a file open to other users) go to stderr, as
  // failures do, and in their form: stdout keeps the command's output alone.
  const notice = (line: string) => process.stderr.write(jsonRequested() ? `${JSON.stringify({ notice: line })}\n` : `pronet: ${line}\n`)
  const c = await openContainer(loadConfig(), { commitInWorker: false, notice, logToStderr: true })
  try {
    process.exitCode = (await fn(c)) ?? 0
  } catch (e) {
    // A store out of reach is said as the API says it (SERVICE_UNAVAILABLE), in the command's own
    // words when it has them (an ingest names where it stopped).
    const failure = isApiError(e) ? e : c.classifyError(e instanceof IngestAborted ? e.cause : e)
    if (failure) reportError(e instanceof IngestAborted ? { ...failure.toBody(), error: e.message } : failure.toBody())
    // An ingest the store stopped for another reason says where in one line (the lines before it are
    // written, and running it again is safe); a bug keeps its stack.
    else if (e instanceof IngestAborted && !isProgrammingError(e.cause)) reportError({ error: e.message, code: 'INTERNAL_ERROR' })
    else throw e
    process.exitCode = 1
  } finally {
    await c.close()
  }
}

/**
 * An option's value that is another option (`--name --json`) is the value left out: commander would
 * take `--json` as the name, and an account named so was created.
 */
function nameValue(value: string): string {
  if (value.startsWith('--')) throw new InvalidArgumentError(`a value is missing: '${value}' is an option.`)
  return value
}

const print = (json: boolean | undefined, value: unknown, human: string) =>
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human}\n`)

export function buildCli(): Command {
  const program = new Command('pronet')
    .description('pronet operator CLI: serve, seed, ingest, backup, accounts, keys, subscription, packs and usage')
    .showHelpAfterError()
    // Set before the subcommands are added, which inherit them. Commander's own usage errors are
    // thrown (already reported) so that they exit 2 like every other argument error, not 1; with
    // --json its text (message and usage) is held back and the error is reported as JSON instead.
    .exitOverride()
    .configureOutput({
      writeErr: (text) => {
        if (!jsonRequested()) process.stderr.write(text)
      },
      outputError: (text, write) => {
        if (!jsonRequested()) write(text)
      },
    })
    .hook('preAction', (_program, command) => {
      jsonOption = command.opts().json === true
    })

  program
    .command('serve')
    .description('start the HTTP service (same as npm start)')
    .action(async () => (await import('../serve.ts')).serve(loadConfig()))

  program
    .command('seed')
    .description('build the deterministic synthetic network into the store (records upsert by id)')
    .addOption(new Option('--size <size>', 'small, medium, large or a profile count').default(undefined))
    .option('--seed <n>', 'network seed', int('--seed', 0))
    .option('--anchor <instant>', "the network's now (ISO 8601); default: the current hour")
    .option('--json', 'print JSON')
    .action(async (opts: { size?: string; seed?: number; anchor?: string; json?: boolean }) => {
      // The options are checked before the store is opened: a refused seed leaves no data dir behind.
      const config = loadConfig()
      const rawSize = opts.size ?? (config.seed === 'none' ? 'small' : String(config.seed))
      const named = rawSize === 'small' || rawSize === 'medium' || rawSize === 'large'
      const counted = /^\d+$/.test(rawSize) && profileCountProblem(Number(rawSize)) === undefined
      if (!named && !counted) fail(`--size must be small, medium, large or ${PROFILE_COUNT_RULE}`)
      const size: Exclude<SeedSize, 'none'> = named ? rawSize : Number(rawSize)
      // Read as every other instant of the CLI and the admin API: 2025-02-30 is refused, not rolled over.
      const anchorMs = opts.anchor === undefined ? undefined : parseInstant(opts.anchor)
      if (anchorMs === undefined && opts.anchor !== undefined) fail(`--anchor must be ${INSTANT_FORMS}`)
      // Loaded here: the HTTP stack and the synthetic network are heavy, and other commands need neither.
      const { anchorInFuture, anchorTooEarly, seedSynthetic } = await import('../seed.ts')
      const early = anchorMs === undefined ? undefined : anchorTooEarly(anchorMs)
      if (early !== undefined) fail(early)
      // Without the test clock, "now" is this machine's: an anchor after it is refused here too. With
      // it, the store's clock decides, once the store is open.
      if (anchorMs !== undefined && !config.testClock && anchorMs > Date.now()) fail(anchorInFuture(anchorMs))
      return withContainer(async (c) => {
        const lines: string[] = []
        const records = await seedSynthetic(c, size, (l) => (opts.json ? lines.push(l) : process.stdout.write(`${l}\n`)), {
          ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
          ...(anchorMs !== undefined ? { anchorMs } : {}),
        })
        const counts = await c.contentStore.counts()
        print(opts.json, { records, counts }, `Wrote ${records} records. Store now holds ${JSON.stringify(counts)}.`)
      })
    })

  program
    .command('ingest')
    .description('upsert NDJSON records ({"kind", "data"} per line) into the store')
    .argument('<files...>', 'NDJSON files')
    .option('--json', 'print the summary as JSON')
    .option('--batch-size <n>', 'records per transaction', int('--batch-size', 1))
    .action(async (files: string[], opts: { json?: boolean; batchSize?: number }) =>
      withContainer(async (c) => {
        const { exitCode, summary } = await runIngest(
          { writer: c.writer },
          files,
          { stdout: process.stdout, stderr: process.stderr, isTTY: process.stderr.isTTY === true },
          { ...(opts.json ? { json: true } : {}), ...(opts.batchSize ? { batchSize: opts.batchSize } : {}) },
        )
        if (summary.ok > 0) await c.contentStore.analyze()
        return exitCode
      }),
    )

  program
    .command('backup')
    .description('copy the embedded store consistently, also while the server runs (PostgreSQL: use pg_dump)')
    .argument('<file>', 'a new file for the copy (created 0600)')
    .option('--json', 'print JSON')
    .action((file: string, opts: { json?: boolean }) => {
      const config = loadConfig()
      if (config.databaseUrl) fail('the store is PostgreSQL (DATABASE_URL): back it up with pg_dump.')
      try {
        const copy = backupSqlite(embeddedStorePath(config), file)
        print(opts.json, copy, `Backed up the embedded store to ${copy.path} (${copy.bytes} bytes).`)
      } catch (e) {
        if (!(e instanceof BackupRefused)) throw e
        reportError({ error: e.message, code: e.code, ...(e.code === 'INVALID_PARAMETER' ? { details: { parameter: 'file' } } : {}) })
        process.exitCode = 1
      }
    })

  const accounts = program.command('accounts').description('manage accounts')
  accounts
    .command('create')
    .description('create an account and its first API key (the key is shown only now)')
    .option('--name <name>', 'display name', nameValue)
    .addOption(new Option('--plan <plan>', 'plan').choices(['free', 'custom', 'none']))
    .option('--credits-limit <n>', 'plan allowance per period', intIn('--credits-limit', 0, MAX_CREDITS_LIMIT))
    .option('--rps-limit <n>', 'requests per second', intIn('--rps-limit', 1, MAX_RPS_LIMIT))
    .addOption(
      new Option('--status <status>', 'subscription status').choices(['active', 'free', 'trialing', 'past_due', 'incomplete', 'unpaid', 'canceled']),
    )
    .option('--json', 'print JSON')
    .action(async (opts: { name?: string; plan?: 'free'; creditsLimit?: number; rpsLimit?: number; status?: 'free'; json?: boolean }) =>
      withContainer(async (c) => {
        const { json, ...input } = opts
        const created = await c.accounts.create(input)
        print(json, { account: accountView(created.account), apiKey: created.apiKey }, `account ${created.account.id}\nAPI key (shown once): ${created.apiKey.key}`)
      }),
    )
  accounts
    .command('show')
    .description('show an account, its subscription and its keys (as GET /admin/v1/accounts/:id)')
    .argument('<id>', 'account id')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }) =>
      withContainer(async (c) => {
        const shown = await c.accounts.show(id)
        // As GET /admin/v1/accounts/:id.
        const view = { account: accountView(shown.account), subscription: await c.metering.subscription(id), keys: shown.keys.map(keyView) }
        print(opts.json, view, accountText(view))
      }),
    )
  for (const action of ['suspend', 'resume'] as const) {
    accounts
      .command(action)
      .description(action === 'suspend' ? "suspend an account: its keys answer 403 until it is resumed" : 'resume a suspended account')
      .argument('<id>', 'account id')
      .option('--json', 'print JSON')
      .action(async (id: string, opts: { json?: boolean }) =>
        withContainer(async (c) => {
          const account = await c.accounts[action](id)
          print(opts.json, accountView(account), `account ${id} ${action === 'suspend' ? 'suspended' : 'resumed'}`)
        }),
      )
  }

  registerKeyCommands(program, { withContainer, print })
  registerBillingCommands(program, { withContainer, print })
  registerUserCommands(program, { withIdentity: (fn) => withContainer((c) => fn(c.identity)), print })
  registerOrderCommands(program, { withOrders: (fn) => withContainer((c) => fn(c.orders)), print })
  registerUpstreamCommands(program, { withContainer, print })
  registerWebhookCommands(program, { withContainer, print })
  return program
}

function fail(message: string): never {
  throw new InvalidArgumentError(message)
}

/**
 * Runs the CLI on `argv` (node's argv: the program's arguments from argv[2]). Resolves to the exit
 * status a failure calls for, with which the process exits at once; to undefined when the command ran
 * (its status is in process.exitCode, the process exits once its work is done). An unexpected failure
 * without --json is thrown, to end the process with its stack.
 */
export async function runCli(argv: readonly string[]): Promise<number | undefined> {
  runArgv = jsonLast(argv)
  jsonOption = undefined
  try {
    await buildCli().parseAsync(runArgv as string[])
    return undefined
  } catch (e) {
    // The environment parsed but the world around it did not cooperate (a data dir, database or
    // address that cannot be used): one line, exit 1 as `npm start` does.
    if (e instanceof StartupError) {
      reportError({ error: e.message, code: 'INTERNAL_ERROR' })
      return 1
    }
    if (e instanceof ConfigError || e instanceof InvalidArgumentError) {
      reportError({ error: e.message, code: 'INVALID_PARAMETER' })
      return 2
    }
    if (e instanceof CommanderError) {
      // Without --json commander has printed its message (or the help) already.
      if (e.exitCode !== 0 && jsonRequested()) {
        // Commander's messages start "error: "; a missing subcommand has only the help as its message.
        const error = e.code === 'commander.help' ? 'A subcommand is missing; see pronet --help.' : e.message.replace(/^error: /, '')
        process.stderr.write(`${JSON.stringify({ error, code: 'INVALID_PARAMETER' })}\n`)
      }
      return e.exitCode === 0 ? 0 : 2
    }
    if (isApiError(e)) {
      reportError(e.toBody())
      return 1
    }
    if (!jsonRequested()) throw e
    // Unexpected: the operator's own machine, so the cause is shown (the HTTP API hides it from clients).
    reportError({ error: e instanceof Error ? e.message : String(e), code: 'INTERNAL_ERROR' })
    return 1
  }
}

/**
 * `pronet --json keys list` as `pronet keys list --json`: each command takes --json as its own
 * option, and one written before the command is meant for it, as with the global flags of other
 * tools. Options after a `--` are left where they are.
 */
function jsonLast(argv: readonly string[]): readonly string[] {
  let lead = 2
  while (argv[lead] === '--json') lead++
  if (lead === 2) return argv
  const rest = argv.slice(lead)
  const end = rest.indexOf('--')
  const flags = Array<string>(lead - 2).fill('--json')
  return end < 0 ? [...argv.slice(0, 2), ...rest, ...flags] : [...argv.slice(0, 2), ...rest.slice(0, end), ...flags, ...rest.slice(end)]
}

/**
 * A test that drives runCli in its own process sets this (globalThis[Symbol.for('pronet.cli.embedded')]
 * = true) before importing this module; otherwise importing it runs the program on process.argv.
 */
if ((globalThis as Record<symbol, unknown>)[Symbol.for('pronet.cli.embedded')] !== true) {
  const status = await runCli(process.argv)
  if (status !== undefined) process.exit(status)
}

/** `accounts show` for a person: the account, its subscription as `subscription set` prints it, and its keys with their controls. */
function accountText(view: {
  account: ReturnType<typeof accountView>
  subscription: SubscriptionView
  keys: ReturnType<typeof keyView>[]
}): string {
  const a = view.account
  return [
    `account ${a.id} "${a.name}", created ${a.createdAt}${a.suspended ? `, suspended since ${a.suspendedAt}` : ''}`,
    subscriptionText(view.subscription),
    view.keys.length === 0 ? 'no API keys' : `API keys (${view.keys.length}):`,
    ...view.keys.flatMap(keyText),
  ].join('\n')
}
