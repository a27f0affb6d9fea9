/** Where a store's numbered migrations live: migrations/<dialect> at the package root. */
import { readdirSync } from 'node:fs'
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
