/** First start on an empty data directory (D12): synthetic network, demo account, key shown once. */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { loadConfig } from '../../src/config/config.ts'
import { createContainer } from '../../src/container.ts'
import { seedSynthetic } from '../../src/seed.ts'
import { prepareStore } from '../../src/startup.ts'

const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

async function start(dataDir: string, seed: string) {
  const config = loadConfig({ PRONET_DATA_DIR: dataDir, PRONET_SEED: seed, LOG_LEVEL: 'silent' })
  const c = await createContainer(config, { clock: createManualClock(Date.UTC(2026, 10, 1, 12)) })
  const lines: string[] = []
  const report = await prepareStore(c, (cc, size, log) => seedSynthetic(cc, size, log, { progress: false }), (l) => lines.push(l))
  return { c, report, lines }
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
    expect(second.report).toMatchObject({ seeded: false, records: 0, demoKey: undefined, demoKeyFile: file })
    expect(await second.c.contentStore.counts()).toEqual(counts)
    await second.c.close()
  }, 120_000)

  it('PRONET_SEED=none starts with an empty store (and a demo account to call it with)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pronet-start-'))
    dirs.push(dir)
    const { c, report } = await start(dir, 'none')
    expect(report.seeded).toBe(false)
    expect(await c.contentStore.isEmpty()).toBe(true)
    expect(report.demoKey).toMatch(/^pk_/)
    await c.close()
  })
})
