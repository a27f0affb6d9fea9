import { readFileSync } from 'node:fs'

/** The package's version, from its package.json (one level above src/ and dist/ alike). */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown }
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0'
}
