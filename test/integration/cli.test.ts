/** The operator CLI (D12), run as a process against a data directory, as an operator would. */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fixtureRecords, toNdjson } from '../helpers/ingest-fixtures.ts'

const run = promisify(execFile)
const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts')
let dir: string

async function pronet(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', CLI, ...args], {
      env: { ...process.env, PRONET_DATA_DIR: dir, PRONET_SEED: 'none', LOG_LEVEL: 'silent' },
      timeout: 60_000,
    })
    return { code: 0, stdout, stderr }
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string }
    return { code: err.code, stdout: err.stdout, stderr: err.stderr }
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pronet-cli-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('pronet CLI', () => {
  it('accounts and keys: create, show, keys create/revoke, suspend/resume, all as JSON', async () => {
    const created = await pronet('accounts', 'create', '--name', 'acme', '--plan', 'custom', '--credits-limit', '5000', '--rps-limit', '20', '--json')
    expect(created.code).toBe(0)
    const { account, apiKey } = JSON.parse(created.stdout)
    expect(account.name).toBe('acme')
    expect(apiKey.key).toMatch(/^pk_/)

    const key2 = JSON.parse((await pronet('keys', 'create', account.id, '--json')).stdout)
    expect(key2.key).toMatch(/^pk_/)
    expect((await pronet('keys', 'revoke', account.id, key2.id, '--json')).code).toBe(0)

    const shown = JSON.parse((await pronet('accounts', 'show', account.id, '--json')).stdout)
    expect(shown.keys).toHaveLength(2)
    expect(shown.keys[1].revokedAt).not.toBeNull()
    expect(created.stdout.includes(apiKey.key) && !JSON.stringify(shown).includes(apiKey.key)).toBe(true)

    expect(JSON.parse((await pronet('accounts', 'suspend', account.id, '--json')).stdout).suspended).toBe(true)
    expect(JSON.parse((await pronet('accounts', 'resume', account.id, '--json')).stdout).suspended).toBe(false)
  }, 120_000)

  it('refuses bad input with a message and a non-zero exit', async () => {
    const missing = await pronet('accounts', 'show', 'acc_missing')
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/No account/)
    const badPlan = await pronet('accounts', 'create', '--plan', 'gold')
    expect(badPlan.code).not.toBe(0)
    expect(badPlan.stderr).toMatch(/gold/)
  }, 60_000)

  it('ingest and seed write into the store', async () => {
    const file = join(dir, 'records.ndjson')
    writeFileSync(file, toNdjson(fixtureRecords()))
    const ingested = await pronet('ingest', file, '--json')
    expect(ingested.code).toBe(0)
    expect(JSON.parse(ingested.stdout)).toMatchObject({ failed: 0, ok: fixtureRecords().length })

    const seeded = await pronet('seed', '--size', '40', '--anchor', '2026-01-01T00:00:00Z', '--json')
    expect(seeded.code).toBe(0)
    const out = JSON.parse(seeded.stdout)
    expect(out.records).toBeGreaterThan(1000)
    expect(out.counts.profiles).toBe(40 + 2)

    const future = await pronet('seed', '--size', '40', '--anchor', '2999-01-01T00:00:00Z')
    expect(future.code).not.toBe(0)
    expect(future.stderr).toMatch(/future/)
  }, 120_000)
})
