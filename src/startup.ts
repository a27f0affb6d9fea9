/**
 * First start of an empty store: build the synthetic network of size PRONET_SEED and a demo
 * account on the free plan, print the demo key once and keep it (mode 0600) in the data dir.
 *
 * The first start is resumable. Its progress is a record in the store itself, written before the
 * work and marked done only after the network and the demo account are complete, so a start killed
 * half-way leaves "building", and the next start (this node's or another's) finishes the same work:
 * the seed is deterministic from (size, anchor), both recorded, and re-writing it upserts.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SeedSize } from './config/config.ts'
import { makeDirs } from './config/make-dirs.ts'
import { dataDirFailure } from './config/startup-failure.ts'
import type { Container } from './container.ts'
import { defaultAnchor } from './seed.ts'
import { profileCountProblem } from './synth/network-plan.ts'

/** Builds the synthetic network into the container's store; returns how many records were written. */
export type Seeder = (
  c: Container,
  size: Exclude<SeedSize, 'none'>,
  log: (line: string) => void,
  /** The network's anchor, fixed by the first start's record so that a resumed seed rebuilds the same network. */
  opts: { anchorMs: number },
) => Promise<number>

export interface StartupReport {
  /** This start built (or finished building) the synthetic network. */
  seeded: boolean
  records: number
  demoKey: string | undefined
  demoKeyFile: string | undefined
  /** With a demo key: the slug of a profile that exists in this store, for the banner's example call. */
  exampleProfile: string | undefined
  /** The demo user's console sign-in, shown once with the demo key. */
  demoUser: { email: string; password: string } | undefined
  demoUserFile: string | undefined
}

/** The first start's record (FirstStartStore), as JSON. */
type FirstStartRecord =
  | {
      state: 'building'
      size: SeedSize
      anchorMs: number
      /** Whether this first start owes a demo account (not when the store already has accounts). */
      demo: boolean
      networkBuilt?: boolean
      /** Set as soon as the demo account exists: a resumed start gives it a key, never a second account. */
      demoAccountId?: string
    }
  | { state: 'done' }

const DEMO_KEY_FILE = 'demo-key.txt'
const DEMO_USER_FILE = 'demo-user.txt'

export function prepareStore(c: Container, seeder: Seeder, log: (line: string) => void): Promise<StartupReport> {
  // Nodes starting together on one empty database: the first seeds, the others wait, then find it
  // done. A node killed while seeding releases the lock with its session; the next one resumes.
  return c.exclusive(() => prepare(c, seeder, log))
}

async function prepare(c: Container, seeder: Seeder, log: (line: string) => void): Promise<StartupReport> {
  const keyFile = join(c.config.dataDir, DEMO_KEY_FILE)
  const notFirst: StartupReport = {
    seeded: false,
    records: 0,
    demoKey: undefined,
    demoKeyFile: existsSync(keyFile) ? keyFile : undefined,
    exampleProfile: undefined,
    demoUser: undefined,
    demoUserFile: existsSync(join(c.config.dataDir, DEMO_USER_FILE)) ? join(c.config.dataDir, DEMO_USER_FILE) : undefined,
  }
  const save = (r: FirstStartRecord) => c.firstStart.write(JSON.stringify(r))

  let record = parseRecord(await c.firstStart.read())
  if (record?.state === 'building') {
    log('Resuming the first start, which was interrupted…')
    if (typeof record.size === 'number' && profileCountProblem(record.size) !== undefined) {
      // Recorded by a release that did not bound sizes: that network can never be built, and finishing
      // it would fail on every start whatever PRONET_SEED says. Nothing of it was written (planning
      // fails first).
      log(`(the interrupted first start asked for ${String(record.size)} profiles, which cannot be built; building PRONET_SEED's network, ${String(c.config.seed)}, instead)`)
      record = { ...record, size: c.config.seed }
      await save(record)
    }
  } else {
    const empty = await c.contentStore.isEmpty()
    const hasAccounts = await c.accountStore.hasAccounts()
    const firstEver = record === undefined && empty && !hasAccounts
    // An empty store gets the network of PRONET_SEED, also one that started with PRONET_SEED=none.
    const wantsNetwork = empty && c.config.seed !== 'none'
    if (!firstEver && !wantsNetwork) {
      if (record === undefined) {
        // Data but no record: a store prepared before the record existed, or by the CLI (`pronet
        // seed`, `ingest`, `accounts`) before its first serve. It is the operator's as it is.
        if (!hasAccounts) log('Note: the store holds data but no accounts: create one with `pronet accounts create` or the admin API.')
        await save({ state: 'done' })
      }
      return notFirst
    }
    record = { state: 'building', size: c.config.seed, anchorMs: defaultAnchor(c.clock), demo: !hasAccounts }
    // Said, as the banner has no demo key then, and its absence would otherwise look like a fault.
    if (hasAccounts) log('The store already has accounts (made with the CLI before this first start): no demo account is created.')
    await save(record)
  }

  let records = 0
  const seeded = record.size !== 'none' && record.networkBuilt !== true
  if (seeded && record.size !== 'none') {
    if (record.size !== c.config.seed) log(`(finishing the interrupted network of size ${String(record.size)}; PRONET_SEED is now ${String(c.config.seed)})`)
    log(`Empty store: building the synthetic network (size ${String(record.size)})…`)
    records = await seeder(c, record.size, log, { anchorMs: record.anchorMs })
    log(`Synthetic network ready: ${records} records.`)
    record = { ...record, networkBuilt: true }
    await save(record)
  }

  let demoKey: string | undefined
  let demoUser: { email: string; password: string } | undefined
  if (record.demo) {
    if (record.demoAccountId === undefined) {
      const demo = await c.accounts.create({ name: 'demo', plan: 'free', firstKey: { name: 'Demo key' } })
      demoKey = demo.apiKey.key
      record = { ...record, demoAccountId: demo.account.id }
      await save(record)
    } else {
      // The interrupted start created the account; its key survives only if it reached the key file
      // (the store keeps hashes), else the account gets a new one.
      demoKey = (await savedKeyOf(c, keyFile, record.demoAccountId)) ?? (await c.accounts.createKey(record.demoAccountId)).key
    }
    writeDemoKey(c.config.dataDir, keyFile, demoKey)
    // The console's demo user signs in at once; a start interrupted before the file is written gives it a new password.
    if (record.demoAccountId !== undefined) {
      demoUser = await c.identity.createDemoUser(record.demoAccountId)
      writeSecretFile(c.config.dataDir, join(c.config.dataDir, DEMO_USER_FILE), `email=${demoUser.email}\npassword=${demoUser.password}\n`)
    }
  }
  await save({ state: 'done' })
  return {
    seeded,
    records,
    demoKey,
    demoKeyFile: demoKey !== undefined ? keyFile : notFirst.demoKeyFile,
    exampleProfile: demoKey !== undefined ? await c.firstStart.sampleProfileSlug() : undefined,
    demoUser,
    demoUserFile: demoUser !== undefined ? join(c.config.dataDir, DEMO_USER_FILE) : notFirst.demoUserFile,
  }
}

function parseRecord(raw: string | undefined): FirstStartRecord | undefined {
  if (raw === undefined) return undefined
  const parsed = JSON.parse(raw) as FirstStartRecord
  if (parsed.state !== 'building' && parsed.state !== 'done') throw new Error(`unknown first-start record: ${raw}`)
  return parsed
}

async function savedKeyOf(c: Container, keyFile: string, accountId: string): Promise<string | undefined> {
  if (!existsSync(keyFile)) return undefined
  const key = readFileSync(keyFile, 'utf8').trim()
  try {
    return (await c.accounts.identify(key)).accountId === accountId ? key : undefined
  } catch {
    return undefined
  }
}

function writeDemoKey(dataDir: string, keyFile: string, key: string): void {
  writeSecretFile(dataDir, keyFile, `${key}\n`)
}

function writeSecretFile(dataDir: string, file: string, text: string): void {
  try {
    makeDirs(dataDir)
    writeFileSync(file, text, { mode: 0o600 })
    // writeFileSync's mode applies only to a new file (and through the umask).
    chmodSync(file, 0o600)
  } catch (e) {
    // The record stays "building": a start with a usable data dir gives the account a key then.
    throw dataDirFailure(dataDir, e)
  }
}
