import { existsSync, mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'

/**
 * `mkdir -p`: makes `dir` and the directories above it that are missing, one at a time from the top.
 * Node's own `mkdirSync(dir, { recursive: true })` never returns when the system refuses a directory
 * whose parent exists (ENOENT under /proc: PRONET_DATA_DIR=/proc/pronet would spin for ever);
 * here that ENOENT is thrown, and the caller names the setting.
 */
export function makeDirs(dir: string): void {
  const missing: string[] = []
  for (let at = resolve(dir); !existsSync(at); ) {
    missing.push(at)
    const up = dirname(at)
    if (up === at) break
    at = up
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d)
    } catch (e) {
      // Made meanwhile by another process (two starts, a CLI command beside a server): fine.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    }
  }
}
