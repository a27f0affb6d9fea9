/**
 * `pronet users create|reset-password`: console users made by the operator. A password not given is
 * generated and printed once (the store keeps only its hash); so is the key of an account made for
 * the user.
 */
import { InvalidArgumentError, Option, type Command } from 'commander'
import type { IdentityService } from '../identity/identity.service.ts'
import type { Role } from '../ports/identity-store.ts'

export interface UserCommandHelpers {
  /** Runs `fn` with the identity service of a fresh container, closed after; domain errors become exit code 1. */
  withIdentity(fn: (identity: IdentityService) => Promise<number | void>): Promise<void>
  /** JSON with --json, else the human text. */
  print(json: boolean | undefined, value: unknown, human: string): void
}

/** An option's value that is another option (`--password --json`) is the value left out. */
function valueArg(value: string): string {
  if (value.startsWith('--')) throw new InvalidArgumentError(`a value is missing: '${value}' is an option.`)
  return value
}

export function registerUserCommands(program: Command, { withIdentity, print }: UserCommandHelpers): void {
  const users = program.command('users').description('manage console users (people who sign in at /console/)')
  users
    .command('create')
    .description('create a console user: joins --account, or gets a new free account as its owner (password and key shown only now)')
    .argument('<email>', 'the user’s email address (their sign-in name)')
    .option('--password <password>', 'the password (10 to 200 characters); default: a generated one, printed once', valueArg)
    .option('--account <id>', 'an existing account for the user to join', valueArg)
    .addOption(new Option('--role <role>', 'role in --account (default: owner if it has none yet, else member)').choices(['owner', 'member']))
    .option('--json', 'print JSON')
    .action(async (email: string, opts: { password?: string; account?: string; role?: Role; json?: boolean }) =>
      withIdentity(async (identity) => {
        const created = await identity.createUser({
          email,
          ...(opts.password !== undefined ? { password: opts.password } : {}),
          ...(opts.account !== undefined ? { accountId: opts.account } : {}),
          ...(opts.role !== undefined ? { role: opts.role } : {}),
        })
        const lines = [`user ${created.user.id} ${created.user.email}: ${created.role} of account ${created.accountId}`]
        if (created.password !== undefined) lines.push(`password (shown once): ${created.password}`)
        if (created.apiKey !== undefined) lines.push(`API key (shown once): ${created.apiKey.key}`)
        print(
          opts.json,
          {
            user: created.user,
            accountId: created.accountId,
            role: created.role,
            ...(created.password !== undefined ? { password: created.password } : {}),
            ...(created.apiKey !== undefined ? { apiKey: created.apiKey } : {}),
          },
          lines.join('\n'),
        )
      }),
    )
  users
    .command('reset-password')
    .description("give a user a new generated password (printed once) and end all of the user's console sessions")
    .argument('<email>', 'the user’s email address')
    .option('--json', 'print JSON')
    .action(async (email: string, opts: { json?: boolean }) =>
      withIdentity(async (identity) => {
        const reset = await identity.resetPasswordByOperator(email)
        print(
          opts.json,
          reset,
          `user ${reset.user.id} ${reset.user.email}\nnew password (shown once): ${reset.password}\n${reset.sessionsEnded} session(s) ended`,
        )
      }),
    )
}
