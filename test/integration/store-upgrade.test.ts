/**
 * Opening a store across builds (an upgrade probe): a store a newer build has migrated is refused in
 * one line, before anything is written (an older build's ingest on a store a newer one had re-indexed
 * failed half-way with a driver's error); a store file other users may read, as earlier builds created
 * it, is said at every open; the CLI says such things on stderr, its stdout left to the command.
 */
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { NewerStoreError, pendingMigrations } from '../../src/adapters/migrations-dir.ts'
import { sqliteMigrationsDir } from '../../src/adapters/sqlite/database.ts'
import { loadConfig } from '../../src/config/config.ts'
import { StartupError } from '../../src/config/startup-failure.ts'
import { openContainer } from '../../src/container.ts'
import { runCliProcess, type CliOutcome } from '../helpers/server-process.ts'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pronet-upgrade-'))
  dirs.push(dir)
  return dir
}

const env = (dir: string) => ({ PRONET_DATA_DIR: dir, PRONET_SEED: 'none', LOG_LEVEL: 'silent' })

/** `pronet ARGS…` as a process of its own on the data dir. */
function pronet(dir: string, ...args: string[]): Promise<CliOutcome> {
  return runCliProcess(args, env(dir))
}

/** A data dir whose store this build made, with one account; the store's path. */
async function builtStore(dir: string): Promise<string> {
  const c = await openContainer(loadConfig(env(dir)), { commitInWorker: false, notice: () => {} })
  await c.accounts.create({ name: 'kept', plan: 'free' })
  await c.close()
  return join(dir, 'pronet.db')
}

describe('a store a newer build has migrated', () => {
  it('pendingMigrations refuses a done set holding a version it has no file for, naming it', () => {
    const dir = sqliteMigrationsDir()
    const all = new Set(pendingMigrations(dir, new Set()).map((m) => m.version))
    expect(pendingMigrations(dir, all)).toEqual([])
    expect(() => pendingMigrations(dir, new Set([...all, 999, 998]))).toThrow(NewerStoreError)
    expect(() => pendingMigrations(dir, new Set([1, 999]))).toThrow(/it records migration 999, which this build does not have/)
  })

  it('is refused at open in one line naming the data dir, and is left as it was; the CLI says the same line, exit 1', async () => {
    const dir = dataDir()
    const path = await builtStore(dir)
    const raw = new Database(path)
    raw.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, ?, 0)').run('999_from_a_newer_build.sql')
    const before = raw.prepare('SELECT count(*) FROM schema_migrations').pluck().get()
    raw.close()

    const opening = openContainer(loadConfig(env(dir)), { commitInWorker: false, notice: () => {} })
    await expect(opening).rejects.toBeInstanceOf(StartupError)
    await expect(opening).rejects.toThrow(
      `PRONET_DATA_DIR ${dir} cannot be used: the store was opened by a newer pronet (it records migration 999, which this build does not have): ` +
        'run that build or a newer one, or restore a backup taken before the upgrade',
    )
    const cli = await pronet(dir, 'accounts', 'create', '--name', 'x')
    expect([cli.code, cli.stdout]).toEqual([1, ''])
    expect(cli.stderr).toMatch(/^pronet: PRONET_DATA_DIR .* cannot be used: the store was opened by a newer pronet .*\n$/)

    const after = new Database(path, { readonly: true })
    expect(after.prepare('SELECT count(*) FROM schema_migrations').pluck().get()).toBe(before)
    expect(after.prepare("SELECT count(*) FROM accounts WHERE name = 'x'").pluck().get()).toBe(0)
    after.close()
  }, 60_000)
})

describe('a store file open to other users', () => {
  it('is said at each open while it is (not once chmod 600), and the CLI says it on stderr, --json output intact', async () => {
    const dir = dataDir()
    const path = await builtStore(dir)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    chmodSync(path, 0o644)
    const notices: string[] = []
    await (await openContainer(loadConfig(env(dir)), { commitInWorker: false, notice: (l) => notices.push(l) })).close()
    expect(notices).toEqual([
      `${path} is open to other users (mode 0644): it holds API key hashes and every account's ledger; chmod 600 it, with its -wal and -shm`,
    ])

    const cli = await pronet(dir, 'accounts', 'create', '--name', 'y', '--json')
    expect(cli.code, cli.stderr).toBe(0)
    expect(JSON.parse(cli.stdout)).toMatchObject({ account: { name: 'y' } })
    expect(cli.stderr.trim().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual([{ notice: notices[0] }])

    // A group's read is the operator's call; a private file is said nothing of.
    for (const mode of [0o640, 0o600]) {
      chmodSync(path, mode)
      const quiet: string[] = []
      await (await openContainer(loadConfig(env(dir)), { commitInWorker: false, notice: (l) => quiet.push(l) })).close()
      expect(quiet).toEqual([])
    }
  }, 60_000)
})
