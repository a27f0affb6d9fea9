/**
 * Run-time startup failures the operator can fix (a data dir that cannot be used, a database that
 * cannot be reached, an address that cannot be bound), told in one line that names the setting, its
 * value and the reason, instead of a driver's stack trace.
 */
import { resolve } from 'node:path'
import { ConfigError } from './config.ts'

/**
 * A ConfigError, so every entry that already reports bad environment cleanly (`npm start`,
 * `pronet serve`) reports these the same way; `npm start` exits 1 for them rather than 2, since
 * the environment parsed and the world around it did not cooperate.
 */
export class StartupError extends ConfigError {}

/** Errno and driver codes in words; anything else keeps the error's own message. */
const REASONS: Readonly<Record<string, string>> = {
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EISDIR: 'is a directory',
  ENOENT: 'no such file or directory',
  SQLITE_CANTOPEN: 'unable to open the database file (is the directory writable?)',
  SQLITE_READONLY: 'the database is read-only',
  SQLITE_NOTADB: 'pronet.db is not an SQLite database',
  SQLITE_CORRUPT: 'the database file is corrupt',
  SQLITE_FULL: 'the disk is full',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed (temporary)',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRINUSE: 'address already in use',
  EADDRNOTAVAIL: 'address not available on this machine',
}

const codeOf = (e: unknown): string | undefined => {
  const code = (e as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

/** The reason in words, with the code where there is one. */
export function reasonOf(e: unknown): string {
  const code = codeOf(e)
  const known = code === undefined ? undefined : (REASONS[code] ?? (code.startsWith('SQLITE_IOERR') ? 'disk I/O error' : undefined))
  if (known) return `${known} (${code})`
  const message = e instanceof Error ? e.message : String(e)
  return message.split('\n')[0] || code || 'unknown error'
}

/** A bug (not the environment) keeps its stack: a TypeError from our own code is not the operator's to fix. */
export function isProgrammingError(e: unknown): boolean {
  return (e instanceof TypeError || e instanceof ReferenceError || e instanceof SyntaxError || e instanceof RangeError) && codeOf(e) === undefined
}

export function dataDirFailure(dataDir: string, e: unknown): StartupError {
  return new StartupError(`PRONET_DATA_DIR ${resolve(dataDir)} cannot be used: ${reasonOf(e)}`, { cause: e })
}

/**
 * The URL without its password, which must not end up in a log. The driver also takes a password
 * from the query string (`?password=…`, `?sslpassword=…`), so those are hidden too.
 */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw)
    if (url.password) url.password = '***'
    for (const name of [...url.searchParams.keys()]) {
      if (/password/i.test(name)) url.searchParams.set(name, '***')
    }
    return url.toString()
  } catch {
    return '(unparsable URL)'
  }
}

export function databaseFailure(url: string, e: unknown): StartupError {
  return new StartupError(`DATABASE_URL ${redactUrl(url)} cannot be used: ${reasonOf(e)}`, { cause: e })
}

export function listenFailure(host: string, port: number, e: unknown): StartupError {
  return new StartupError(`HOST:PORT ${host}:${port} cannot be listened on: ${reasonOf(e)}`, { cause: e })
}
