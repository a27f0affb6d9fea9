/** Where the console's own stylesheet and script live: src/console/assets, found from here or from dist/. */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export function assetsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 6; i++) {
    for (const candidate of [join(dir, 'assets'), join(dir, 'src', 'console', 'assets')]) {
      if (existsSync(join(candidate, 'console.css'))) return candidate
    }
    dir = dirname(dir)
  }
  throw new Error('src/console/assets not found')
}
