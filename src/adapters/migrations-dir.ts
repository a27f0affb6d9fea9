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

/** The numbered migrations (NNN_name.sql) of `dir` not in `done`, in order, with their SQL. */
export function pendingMigrations(dir: string, done: ReadonlySet<number>): { version: number; file: string; sql: string }[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 3)), file }))
    .filter((m) => !done.has(m.version))
    .map((m) => ({ ...m, sql: readFileSync(join(dir, m.file), 'utf8') }))
}
