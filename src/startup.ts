/**
 * First start of an empty store (D12): build the synthetic network of size PRONET_SEED and a demo
 * account on the free plan, print the demo key once and keep it (mode 0600) in the data dir.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SeedSize } from './config/config.ts'
import type { Container } from './container.ts'

/** Builds the synthetic network into the container's store; returns how many records were written. */
export type Seeder = (c: Container, size: Exclude<SeedSize, 'none'>, log: (line: string) => void) => Promise<number>

export interface StartupReport {
  seeded: boolean
  records: number
  demoKey: string | undefined
  demoKeyFile: string | undefined
}

export function prepareStore(c: Container, seeder: Seeder, log: (line: string) => void): Promise<StartupReport> {
  // Nodes starting together on one empty database: the first seeds, the others wait, then find it full.
  return c.exclusive(() => prepare(c, seeder, log))
}

async function prepare(c: Container, seeder: Seeder, log: (line: string) => void): Promise<StartupReport> {
  const empty = await c.contentStore.isEmpty()
  let records = 0
  if (empty && c.config.seed !== 'none') {
    log(`Empty store: building the synthetic network (size ${String(c.config.seed)})…`)
    records = await seeder(c, c.config.seed, log)
    log(`Synthetic network ready: ${records} records.`)
  }
  let demoKey: string | undefined
  let demoKeyFile: string | undefined
  if (empty && !(await c.accountStore.hasAccounts())) {
    const demo = await c.accounts.create({ name: 'demo', plan: 'free' })
    demoKey = demo.apiKey.key
    mkdirSync(c.config.dataDir, { recursive: true })
    demoKeyFile = join(c.config.dataDir, 'demo-key.txt')
    writeFileSync(demoKeyFile, `${demoKey}\n`, { mode: 0o600 })
    chmodSync(demoKeyFile, 0o600)
  } else if (existsSync(join(c.config.dataDir, 'demo-key.txt'))) {
    demoKeyFile = join(c.config.dataDir, 'demo-key.txt')
  }
  return { seeded: empty && c.config.seed !== 'none', records, demoKey, demoKeyFile }
}
