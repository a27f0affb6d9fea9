/** First start on an empty data directory: synthetic network, demo account, key shown once. */
import Database from 'better-sqlite3'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { loadConfig } from '../../src/config/config.ts'
import { createContainer, type Container } from '../../src/container.ts'
import { seedSynthetic } from '../../src/seed.ts'
import { prepareStore, type Seeder } from '../../src/startup.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'

const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

const T0 = Date.UTC(2026, 10, 1, 12)
const realSeeder: Seeder = (cc, size, log, opts) => seedSynthetic(cc, size, log, { ...opts, progress: false })

async function start(dataDir: string, seed: string, opts: { seeder?: Seeder; now?: number; wrap?: (c: Container) => Container } = {}) {
  const config = loadConfig({ PRONET_DATA_DIR: dataDir, PRONET_SEED: seed, LOG_LEVEL: 'silent' })
  const c = await createContainer(config, { clock: createManualClock(opts.now ?? T0) })
  const lines: string[] = []
  const report = await prepareStore(opts.wrap?.(c) ?? c, opts.seeder ?? realSeeder, (l) => lines.push(l))
  return { c, report, lines }
}

/** A seeder that dies part-way, as a process killed mid-seed would: some batches written, then nothing. */
const dyingSeeder =
  (batches: number): Seeder =>
  (cc, size, log, opts) => {
    let left = batches
    const writer = {
      write: async (rows: Parameters<Container['writer']['write']>[0]) => {
        if (left-- <= 0) throw new Error('killed mid-seed')
        return cc.writer.write(rows)
      },
    }
    return realSeeder({ ...cc, writer: writer as Container['writer'] }, size, log, opts)
  }

const accountNames = (dir: string) => {
  const db = new Database(join(dir, 'pronet.db'), { readonly: true })
  try {
    return (db.prepare('SELECT name FROM accounts').all() as { name: string }[]).map((r) => r.name)
  } finally {
    db.close()
  }
}

const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'pronet-start-'))
  dirs.push(dir)
  return dir
}

describe('first start', () => {
  it('seeds the network and a demo account once; the key is printed once and kept with mode 0600', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pronet-start-'))
    dirs.push(dir)
    const first = await start(dir, '30')
    expect(first.report.seeded).toBe(true)
    expect(first.report.records).toBeGreaterThan(500)
    expect(first.report.demoKey).toMatch(/^pk_/)
    const file = join(dir, 'demo-key.txt')
    expect(readFileSync(file, 'utf8').trim()).toBe(first.report.demoKey)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(join(dir, 'secret')).mode & 0o777).toBe(0o600)
    expect(await first.c.accounts.authenticate(first.report.demoKey)).toMatchObject({ accountId: expect.any(String) })
    const counts = await first.c.contentStore.counts()
    await first.c.close()

    const second = await start(dir, '30')
    expect(second.report).toMatchObject({ seeded: false, records: 0, demoKey: undefined, demoKeyFile: file, exampleProfile: undefined })
    expect(await second.c.contentStore.counts()).toEqual(counts)
    await second.c.close()
  }, 120_000)

  it('a store given accounts before its first start (the CLI) gets the network, no demo account, and is told so', async () => {
    const dir = tempDir()
    const config = loadConfig({ PRONET_DATA_DIR: dir, PRONET_SEED: 'none', LOG_LEVEL: 'silent' })
    const cli = await createContainer(config, { clock: createManualClock(T0) })
    await cli.accounts.create({ name: 'made first', plan: 'free' })
    await cli.close()
    const { c, report, lines } = await start(dir, '20')
    expect(report).toMatchObject({ seeded: true, demoKey: undefined, demoKeyFile: undefined })
    expect(lines).toContain('The store already has accounts (made with the CLI before this first start): no demo account is created.')
    expect(accountNames(dir)).toEqual(['made first'])
    await c.close()
  }, 120_000)

  it('PRONET_SEED=none starts with an empty store (and a demo account to call it with)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pronet-start-'))
    dirs.push(dir)
    const { c, report } = await start(dir, 'none')
    expect(report.seeded).toBe(false)
    expect(await c.contentStore.isEmpty()).toBe(true)
    expect(report.demoKey).toMatch(/^pk_/)
    // No profile to suggest: the banner's example call would be a billed 404.
    expect(report.exampleProfile).toBeUndefined()
    await c.close()
  })
})

describe('an interrupted first start', () => {
  // What an uninterrupted first start of the same size and anchor builds.
  let reference: Awaited<ReturnType<Container['contentStore']['counts']>>
  beforeAll(async () => {
    const r = await start(tempDir(), '30')
    reference = await r.c.contentStore.counts()
    await r.c.close()
  }, 120_000)

  it('is finished by the next start: the same network, one demo account, the key shown and kept', async () => {
    const dir = tempDir()
    const killed = await start(dir, '30', { seeder: dyingSeeder(1) }).catch((e: unknown) => e)
    expect(killed).toMatchObject({ message: 'killed mid-seed' })
    // Half a network and no account: what a SIGKILL during the seed leaves.
    const halfBuilt = await createContainer(loadConfig({ PRONET_DATA_DIR: dir, LOG_LEVEL: 'silent' }))
    expect(await halfBuilt.contentStore.isEmpty()).toBe(false)
    expect(await halfBuilt.accountStore.hasAccounts()).toBe(false)
    await halfBuilt.close()

    // Restarted three hours later: the recorded anchor, not the new hour, decides the network.
    const resumed = await start(dir, '30', { now: T0 + 3 * 3_600_000 })
    expect(resumed.lines.some((l) => /Resuming the first start/.test(l))).toBe(true)
    expect(resumed.report).toMatchObject({ seeded: true, demoKey: expect.stringMatching(/^pk_/), demoKeyFile: join(dir, 'demo-key.txt') })
    expect(await resumed.c.contentStore.counts()).toEqual(reference)
    expect(readFileSync(join(dir, 'demo-key.txt'), 'utf8').trim()).toBe(resumed.report.demoKey)
    expect(statSync(join(dir, 'demo-key.txt')).mode & 0o777).toBe(0o600)
    expect(await resumed.c.accounts.authenticate(resumed.report.demoKey)).toMatchObject({ accountId: expect.any(String) })
    expect(resumed.report.exampleProfile).toMatch(/^[a-z0-9-]+$/)
    expect(await resumed.c.contentStore.findProfileIdBySlug(resumed.report.exampleProfile!)).toEqual(expect.any(String))
    await resumed.c.close()

    // A finished first start is never redone.
    let seederCalls = 0
    const again = await start(dir, '30', { seeder: async () => ++seederCalls })
    expect(again.report).toMatchObject({ seeded: false, records: 0, demoKey: undefined })
    expect(seederCalls).toBe(0)
    await again.c.close()
    expect(accountNames(dir)).toEqual(['demo'])
  }, 120_000)

  it('killed after the demo account was made: the next start gives that account a key, not a second account', async () => {
    const dir = tempDir()
    // The process dies between creating the account and recording the first start as done.
    const dieBeforeDone = (c: Container): Container => ({
      ...c,
      firstStart: {
        ...c.firstStart,
        write: async (record) => {
          if (JSON.parse(record).state === 'done') throw new Error('killed before done')
          return c.firstStart.write(record)
        },
      },
    })
    const killed = await start(dir, 'none', { wrap: dieBeforeDone }).catch((e: unknown) => e)
    expect(killed).toMatchObject({ message: 'killed before done' })
    rmSync(join(dir, 'demo-key.txt'), { force: true })

    const resumed = await start(dir, 'none')
    expect(resumed.report.demoKey).toMatch(/^pk_/)
    expect(existsSync(join(dir, 'demo-key.txt'))).toBe(true)
    expect(await resumed.c.accounts.authenticate(resumed.report.demoKey)).toMatchObject({ accountId: expect.any(String) })
    await resumed.c.close()
    expect(accountNames(dir)).toEqual(['demo'])
  })

  it('a first start recorded with a size that cannot be built (before sizes were bounded) builds PRONET_SEED instead', async () => {
    const dir = tempDir()
    // What a first start with PRONET_SEED=99999999999 left: the record, and nothing else (planning failed).
    const poisoned = await createContainer(loadConfig({ PRONET_DATA_DIR: dir, PRONET_SEED: 'none', LOG_LEVEL: 'silent' }), { clock: createManualClock(T0) })
    await poisoned.firstStart.write(JSON.stringify({ state: 'building', size: 99_999_999_999, anchorMs: T0, demo: true }))
    await poisoned.close()

    const resumed = await start(dir, '30')
    expect(resumed.lines).toContain("(the interrupted first start asked for 99999999999 profiles, which cannot be built; building PRONET_SEED's network, 30, instead)")
    expect(resumed.report).toMatchObject({ seeded: true, demoKey: expect.stringMatching(/^pk_/) })
    expect(await resumed.c.contentStore.counts()).toEqual(reference)
    await resumed.c.close()
    expect(accountNames(dir)).toEqual(['demo'])
  }, 120_000)

  it('a store whose data was put there before its first serve (pronet seed/ingest) is left as it is', async () => {
    const dir = tempDir()
    const config = loadConfig({ PRONET_DATA_DIR: dir, LOG_LEVEL: 'silent' })
    const cli = await createContainer(config, { clock: createManualClock(T0) })
    await seedSynthetic(cli, 20, () => {}, { progress: false })
    const counts = await cli.contentStore.counts()
    await cli.close()
    let seederCalls = 0
    const served = await start(dir, '30', { seeder: async () => ++seederCalls })
    expect(served.report).toMatchObject({ seeded: false, demoKey: undefined })
    expect(served.lines.some((l) => /no accounts/.test(l))).toBe(true)
    expect(seederCalls).toBe(0)
    expect(await served.c.contentStore.counts()).toEqual(counts)
    await served.c.close()
  })
})

describe.skipIf(!(await postgresAvailable()))('an interrupted first start on PostgreSQL (several nodes)', () => {
  it('the next nodes to start wait for one of them to finish it; exactly one demo account', async () => {
    const db = await createTestDatabase('pronet_firststart')
    const node = async (seeder: Seeder) => {
      const dir = tempDir()
      const config = loadConfig({ DATABASE_URL: db.url, PRONET_DATA_DIR: dir, PRONET_SEED: '20', LOG_LEVEL: 'silent' })
      const c = await createContainer(config, { clock: createManualClock(T0) })
      try {
        return await prepareStore(c, seeder, () => {})
      } finally {
        await c.close()
      }
    }
    try {
      await expect(node(dyingSeeder(0))).rejects.toThrow('killed mid-seed')
      const reports = await Promise.all([node(realSeeder), node(realSeeder), node(realSeeder)])
      expect(reports.filter((r) => r.demoKey !== undefined)).toHaveLength(1)
      expect(reports.filter((r) => r.seeded)).toHaveLength(1)
      const check = await createContainer(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', PRONET_DATA_DIR: tempDir() }))
      expect((await check.contentStore.counts()).profiles).toBe(20)
      expect(await check.firstStart.read()).toBe(JSON.stringify({ state: 'done' }))
      await check.close()
    } finally {
      await db.drop()
    }
  }, 120_000)
})
