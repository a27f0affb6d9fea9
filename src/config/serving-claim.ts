/**
 * One process serves an embedded store. Its ledger keeps each account's balance in memory and learns
 * of another writer only between batches, which suits the CLI's occasional changes but not a second
 * server: two servers on one data dir each let calls spend the same credits (an operator probe: 20
 * calls on an account holding 5 got 10 answered 200, and a 500). So `serve` claims the data dir in a
 * file holding its process id, created exclusively; a claim whose process is gone (a crash, a kill)
 * is taken over. The CLI does not claim: it works beside a serving node, as the README says.
 */
import { openSync, readFileSync, unlinkSync, writeSync, closeSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { StartupError } from './startup-failure.ts'

export const CLAIM_FILE = 'server.pid'

/** Whether a process with this id runs (on this machine: the data dir is a local directory). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: it runs, under another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Claims `dataDir` for this process; returns the release. Throws a StartupError while another serves it. */
export function claimDataDir(dataDir: string): () => void {
  const path = join(dataDir, CLAIM_FILE)
  for (let attempt = 0; ; attempt++) {
    let fd: number
    try {
      fd = openSync(path, 'wx', 0o600)
    } catch (e) {
      // A claim taken over by two starting servers at once: the one that finds it again refuses below.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 2) throw e
      const text = readText(path)
      const pid = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN
      if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && running(pid)) {
        throw new StartupError(
          `PRONET_DATA_DIR ${resolve(dataDir)} is served already, by process ${pid}: one process serves an embedded store ` +
            `(several nodes share PostgreSQL and Redis instead; see "Running several nodes"). Stop that one first, or, if ${pid} is no pronet, remove ${path}`,
        )
      }
      // Left by a process that is gone: taken over.
      unlinkSync(path)
      continue
    }
    writeSync(fd, `${process.pid}\n`)
    closeSync(fd)
    return () => {
      // Only our own claim: never one a later server took over after this one was thought gone.
      if (readText(path).trim() === String(process.pid)) unlinkSync(path)
    }
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}
