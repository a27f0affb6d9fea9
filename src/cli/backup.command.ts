/**
 * `pronet backup FILE`: a consistent copy of the embedded store, taken while the server runs. A copy
 * of pronet.db made with cp while the service writes can miss what its -wal file holds and catch
 * pages half written. VACUUM INTO reads one snapshot (one read transaction, so the server's writes go
 * on meanwhile) and writes a compact file that needs no -wal beside it: stopped server or not, the
 * copy is the store as of one instant, and `PRONET_DATA_DIR/pronet.db` can be replaced by it.
 * The copy holds the API keys' hashes and every account's ledger: it is created 0600, and an
 * existing file is never overwritten. PostgreSQL stores are backed up with pg_dump.
 */
import { existsSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import Database from 'better-sqlite3'

export class BackupRefused extends Error {}

export function backupSqlite(source: string, target: string): { path: string; bytes: number } {
  const path = resolve(target)
  if (!existsSync(source)) throw new BackupRefused(`there is no embedded store at ${source} (PRONET_DATA_DIR) to back up.`)
  if (existsSync(path)) throw new BackupRefused(`${path} exists; name a new file.`)
  if (!existsSync(dirname(path))) throw new BackupRefused(`the directory ${dirname(path)} does not exist.`)
  // Read-only: a backup never migrates, seeds or rebuilds the store it reads.
  const db = new Database(source, { readonly: true, fileMustExist: true })
  // The server's group commits hold the write lock for milliseconds; a read waits for none in WAL
  // mode, but opening may meet a checkpoint.
  db.pragma('busy_timeout = 5000')
  const umask = process.umask(0o077)
  try {
    db.prepare('VACUUM INTO ?').run(path)
  } finally {
    process.umask(umask)
    db.close()
  }
  return { path, bytes: statSync(path).size }
}
