/**
 * `pronet ARGS…` run in the test's own process, through the binary's own entry (runCli of
 * src/cli/main.ts): for the run, the command has this process's environment (with `env` over it),
 * its stdout, stderr and exit status, and what it writes there is the run's outcome. A run costs what
 * the command costs, not a process's start (the CLI suite started 65).
 *
 * What only a process shows stays with runCliProcess (test/helpers/server-process.ts): the log, which
 * is written to file descriptor 2, past process.stderr; a process.exit cutting work short. The CLI
 * suite checks that the compiled binary answers exactly as these runs do.
 */
import type { CliOutcome } from './server-process.ts'

// Imported to be driven from here: the module then leaves process.argv alone.
;(globalThis as Record<symbol, unknown>)[Symbol.for('pronet.cli.embedded')] = true
const { runCli } = await import('../../src/cli/main.ts')

/** Runs wait for each other: a run has the process's environment, stdout, stderr and exit status to itself. */
let turn: Promise<unknown> = Promise.resolve()

export function runCliHere(args: readonly string[], env: Record<string, string>): Promise<CliOutcome> {
  const run = turn.then(() => inProcess(args, env))
  turn = run.catch(() => {})
  return run
}

async function inProcess(args: readonly string[], env: Record<string, string>): Promise<CliOutcome> {
  const saved = Object.keys(env).map((k) => [k, process.env[k]] as const)
  Object.assign(process.env, env)
  let stdout = ''
  let stderr = ''
  const capture = (append: (s: string) => void) =>
    ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown) => {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'))
      const done = typeof encoding === 'function' ? encoding : callback
      if (typeof done === 'function') process.nextTick(done as () => void)
      return true
    }) as typeof process.stdout.write
  const writes = { out: process.stdout.write, err: process.stderr.write }
  process.stdout.write = capture((s) => (stdout += s))
  process.stderr.write = capture((s) => (stderr += s))
  process.exitCode = undefined
  let code: number
  try {
    // A status returned is the binary's process.exit(status); otherwise it ends with process.exitCode.
    const status = await runCli([process.execPath, 'pronet', ...args])
    code = status ?? Number(process.exitCode ?? 0)
  } catch (e) {
    // What the binary lets escape ends it as node ends on an uncaught error: the stack, status 1.
    stderr += `${e instanceof Error ? e.stack : String(e)}\n`
    code = 1
  } finally {
    process.stdout.write = writes.out
    process.stderr.write = writes.err
    process.exitCode = undefined
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  }
  return { code, stdout, stderr }
}
