/**
 * One process serves an embedded store. Its ledger keeps each account's balance in memory and learns
 * of another writer only between batches, which suits the CLI's occasional changes but not a second
 * server: two servers on one data dir would each let calls spend the same credits, answering more
 * calls than the balance holds. So `serve` claims the data dir.
 *
 * The claim is an exclusive lock on a small SQLite file, `server.lock`, held for the server's life:
 * the operating system drops it when the process ends, however it ends, so a server that was killed
 * leaves nothing to take over. (A pid file taken over when its process is gone can let two servers
 * in: one reads a stale claim, another takes it over, and the first's unlink removes the live claim.)
 * `server.pid` beside it names the holder, for the refusal's message and for the operator. The CLI
 * does not claim: it works beside a serving node, as the README says.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { StartupError } from './startup-failure.ts'

export const CLAIM_FILE = 'server.lock'
export const PID_FILE = 'server.pid'

/** Claims `dataDir` for this process; returns the release. Throws a StartupError while another serves it. */
export function claimDataDir(dataDir: string): () => void {
  const pidFile = join(dataDir, PID_FILE)
  const lock = new Database(join(dataDir, CLAIM_FILE))
  try {
    lock.pragma('busy_timeout = 0')
    lock.pragma('locking_mode = EXCLUSIVE')
    // In rollback-journal mode (this file's), BEGIN EXCLUSIVE takes the file's exclusive lock at once.
    lock.exec('BEGIN EXCLUSIVE')
  } catch (e) {
    lock.close()
    if ((e as { code?: unknown }).code !== 'SQLITE_BUSY') throw e
    const holder = readPid(pidFile)
    throw new StartupError(
      `PRONET_DATA_DIR ${resolve(dataDir)} is served already${holder ? `, by process ${holder}` : ''}: one process serves an embedded store ` +
        '(several nodes share PostgreSQL and Redis instead; see "Running several nodes"). Stop that one first',
    )
  }
  writeFileSync(pidFile, `${process.pid}\n`, { mode: 0o600 })
  return () => {
    if (!lock.open) return
    if (readPid(pidFile) === String(process.pid)) rmSync(pidFile, { force: true })
    lock.exec('COMMIT')
    lock.close()
  }
}

function readPid(path: string): string | undefined {
  try {
    const text = readFileSync(path, 'utf8').trim()
    return /^\d+$/.test(text) ? text : undefined
  } catch {
    return undefined
  }
}
