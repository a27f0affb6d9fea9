/**
 * `pronet backup FILE`: a consistent copy of the embedded store, taken while the server runs. A copy
 * of pronet.db made with cp while the service writes can miss what its -wal file holds and catch
 * pages half written. VACUUM INTO reads one snapshot (one read transaction, so the server's writes go
 * on meanwhile) and writes a compact file that needs no -wal beside it: stopped server or not, the
 * copy is the store as of one instant, and `PRONET_DATA_DIR/pronet.db` can be replaced by it.
 * The copy holds the API keys' hashes and every account's ledger: it is created 0600. It is written
 * under a temporary name beside FILE and linked to FILE only once complete, which fails if FILE
 * exists: a failed backup (a full disk) leaves no file that looks like one (an empty database would
 * pass integrity_check), and two backups to one name cannot both write it.
 * PostgreSQL stores are backed up with pg_dump.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, linkSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve, sep } from 'node:path'
import Database from 'better-sqlite3'

/** A backup refused or failed, said in the operator's terms: the CLI prints it without a stack. */
export class BackupRefused extends Error {
  constructor(
    message: string,
    readonly code: 'INVALID_PARAMETER' | 'INTERNAL_ERROR' = 'INVALID_PARAMETER',
  ) {
    super(message)
  }
}

export function backupSqlite(source: string, target: string): { path: string; bytes: number } {
  if (target.trim() === '') throw new BackupRefused('name the file to write the backup to.')
  if (target.endsWith('/') || target.endsWith(sep)) throw new BackupRefused(`${target} names a directory; name a new file.`)
  const path = resolve(target)
  if (!existsSync(source)) throw new BackupRefused(`there is no embedded store at ${source} (PRONET_DATA_DIR) to back up.`)
  if (existsSync(path)) throw new BackupRefused(`${path} exists; name a new file.`)
  if (!existsSync(dirname(path))) throw new BackupRefused(`the directory ${dirname(path)} does not exist.`)
  const partial = join(dirname(path), `.${basename(path)}.partial-${randomBytes(6).toString('hex')}`)
  const discard = () => {
    for (const f of [partial, `${partial}-journal`]) rmSync(f, { force: true })
  }
  let db: Database.Database | undefined
  const umask = process.umask(0o077)
  try {
    // Read-only: a backup never migrates, seeds or rebuilds the store it reads.
    db = new Database(source, { readonly: true, fileMustExist: true })
    // The server's group commits hold the write lock for milliseconds; a read waits for none in WAL
    // mode, but opening may meet a checkpoint.
    db.pragma('busy_timeout = 5000')
    db.prepare('VACUUM INTO ?').run(partial)
  } catch (e) {
    discard()
    throw new BackupRefused(`the copy could not be written to ${path}: ${e instanceof Error ? e.message : String(e)}.`, 'INTERNAL_ERROR')
  } finally {
    process.umask(umask)
    db?.close()
  }
  try {
    // link(2) never replaces an existing name: of two backups to one file, one gets it.
    linkSync(partial, path)
  } catch (e) {
    const exists = (e as { code?: unknown }).code === 'EEXIST'
    throw new BackupRefused(exists ? `${path} exists; name a new file.` : `the copy could not be put at ${path}: ${e instanceof Error ? e.message : String(e)}.`, exists ? 'INVALID_PARAMETER' : 'INTERNAL_ERROR')
  } finally {
    discard()
  }
  return { path, bytes: statSync(path).size }
}
