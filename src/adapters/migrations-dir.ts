/** Where a store's numbered migrations live: migrations/<dialect> at the package root. */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Found by walking up from this file, so it works from src/ under tsx and from dist/src/ when built. */
export function migrationsDir(dialect: 'sqlite' | 'postgres'): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'migrations', dialect)
    try {
      readdirSync(candidate)
      return candidate
    } catch {
      dir = dirname(dir)
    }
  }
  throw new Error(`migrations/${dialect} not found`)
}

/**
 * The numbered migrations (NNN_name.sql) of `dir` not in `done`, in order, with their SQL. A store
 * that records a migration `dir` lacks was opened by a newer build: refused (NewerStoreError) rather
 * than run by code that does not know what that build changed (an older build's ingest on a store a
 * newer one re-indexed would fail half-way with a driver's error).
 */
export function pendingMigrations(dir: string, done: ReadonlySet<number>): { version: number; file: string; sql: string }[] {
  const known = readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 3)), file }))
  const knownVersions = new Set(known.map((m) => m.version))
  const unknown = [...done].filter((v) => !knownVersions.has(v)).sort((a, b) => a - b)
  if (unknown.length > 0) throw new NewerStoreError(unknown)
  return known.filter((m) => !done.has(m.version)).map((m) => ({ ...m, sql: readFileSync(join(dir, m.file), 'utf8') }))
}

/** The store holds migrations this build does not have: a newer pronet has opened it. */
export class NewerStoreError extends Error {
  constructor(readonly versions: number[]) {
    super(
      `the store was opened by a newer pronet (it records migration ${versions.map((v) => String(v).padStart(3, '0')).join(', ')}, ` +
        'which this build does not have): run that build or a newer one, or restore a backup taken before the upgrade',
    )
    this.name = 'NewerStoreError'
  }
}
