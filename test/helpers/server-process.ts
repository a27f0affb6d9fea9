/**
 * The real server as a child process (`node src/main.js` of the compiled app, as `npm start` runs
 * dist/src/main.js), the way an operator runs it: started on a data directory with PORT=0, its address
 * parsed from the "pronet listening on" line. And the CLI the same way (runCliProcess).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { builtPath } from './built.ts'

/** The server's entry point, compiled (test/helpers/built.ts). */
export const serverMain = (): string => builtPath('src/main.ts')
/** The CLI's entry point, compiled: `pronet` as the package's bin runs it. */
export const cliMain = (): string => builtPath('src/cli/main.ts')

export interface CliOutcome {
  code: number
  stdout: string
  stderr: string
}

/**
 * Runs `pronet ARGS…` as a process of its own to its exit, with env over this process's environment.
 * Its exit status, stdout and stderr.
 */
export function runCliProcess(args: readonly string[], env: Record<string, string>, timeoutMs = 60_000): Promise<CliOutcome> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cliMain(), ...args], { env: { ...process.env, ...env }, timeout: timeoutMs }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0
      resolve({ code, stdout, stderr })
    })
  })
}

const LISTENING = /pronet listening on (http:\/\/[^\s:]+:(\d+))/

export interface ExitStatus {
  code: number | null
  signal: NodeJS.Signals | null
}

export interface ServerProcess {
  readonly child: ChildProcess
  readonly pid: number
  readonly port: number
  readonly baseUrl: string
  /** Everything the process printed so far. */
  stdout(): string
  stderr(): string
  /** Resolves when the process has exited (at once if it already has). */
  exited(): Promise<ExitStatus>
  /** Sends SIGKILL (if still running) and waits for the exit. */
  kill(): Promise<ExitStatus>
  readonly alive: boolean
}

export interface StartOptions {
  dataDir: string
  env?: Record<string, string>
  /** How long the process may take to print its address (default 30 s). */
  timeoutMs?: number
}

export function startServer(opts: StartOptions): Promise<ServerProcess> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    PRONET_DATA_DIR: opts.dataDir,
    PRONET_SEED: 'none',
    LOG_LEVEL: 'warn',
    ...opts.env,
  }
  const child = spawn(process.execPath, [serverMain()], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  let exit: ExitStatus | undefined
  const exitWaiters: ((e: ExitStatus) => void)[] = []
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s))
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s))
  // A spawn or kill failure must not become an unhandled 'error' event; it is reported below or in stderr().
  child.on('error', (e) => (err += `\n[spawn error] ${e.message}\n`))
  child.on('exit', (code, signal) => {
    exit = { code, signal }
    for (const w of exitWaiters.splice(0)) w(exit)
  })
  const exited = (): Promise<ExitStatus> => (exit ? Promise.resolve(exit) : new Promise<ExitStatus>((r) => exitWaiters.push(r)))
  const timeoutMs = opts.timeoutMs ?? 30_000

  return new Promise<ServerProcess>((resolve, reject) => {
    const describe = () => `\n--- stdout ---\n${out}\n--- stderr ---\n${err}`
    const timer = setTimeout(() => {
      cleanup()
      child.kill('SIGKILL')
      reject(new Error(`the server did not start within ${timeoutMs} ms${describe()}`))
    }, timeoutMs)
    const onData = () => {
      const m = LISTENING.exec(out)
      if (!m) return
      cleanup()
      const port = Number(m[2])
      resolve({
        child,
        pid: child.pid!,
        port,
        baseUrl: m[1]!,
        stdout: () => out,
        stderr: () => err,
        exited,
        get alive() {
          return exit === undefined
        },
        async kill() {
          if (exit === undefined) child.kill('SIGKILL')
          return exited()
        },
      })
    }
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      cleanup()
      reject(new Error(`the server exited before listening (code ${code}, signal ${signal})${describe()}`))
    }
    const onError = (e: Error) => {
      cleanup()
      reject(new Error(`the server could not be spawned: ${e.message}${describe()}`))
    }
    function cleanup() {
      clearTimeout(timer)
      child.stdout!.off('data', onData)
      child.off('exit', onExit)
      child.off('error', onError)
    }
    child.stdout!.on('data', onData)
    child.on('exit', onExit)
    child.on('error', onError)
  })
}
