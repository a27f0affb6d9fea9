/**
 * `pronet backup FILE` (src/cli/backup.command.ts), run as a process while a node serves from the same
 * data directory, as an operator would (its refusals, with no node about, run in this process): the copy is the store as of one instant, needs no -wal beside
 * it, is its owner's alone (0600), and serves the same accounts and balances when put in place of
 * pronet.db. An existing file is never overwritten; a PostgreSQL store is pointed to pg_dump.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config/config.ts'
import { createContainer } from '../../src/container.ts'
import { runCliHere } from '../helpers/cli-here.ts'
import { fixtureRecords } from '../helpers/ingest-fixtures.ts'
import { runCliProcess, type CliOutcome } from '../helpers/server-process.ts'

const ADMIN = 'backup-admin'
let dir: string

const envFor = (dataDir: string) => ({ PRONET_DATA_DIR: dataDir, PRONET_SEED: 'none', LOG_LEVEL: 'silent', PRONET_SECRET: 'backup-secret', PRONET_ADMIN_TOKEN: ADMIN })

/** `pronet backup` as a process of its own, beside a node of this process serving from the same file. */
const pronetProcess = (env: Record<string, string>, ...args: string[]): Promise<CliOutcome> => runCliProcess(args, env)

/** `pronet` run in this process (test/helpers/cli-here.ts): no node serves, nothing shares the file. */
const pronet = (env: Record<string, string>, ...args: string[]): Promise<CliOutcome> => runCliHere(args, env)

async function serve(dataDir: string) {
  const c = await createContainer(loadConfig(envFor(dataDir)), { commitInWorker: false })
  const app = await buildApp(c)
  return { c, app, close: async () => (await app.close(), await c.close()) }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pronet-backup-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('pronet backup', () => {
  it('copies the store consistently while a node serves from it; the copy serves the same balances and is 0600', async () => {
    const live = join(dir, 'live')
    mkdirSync(live)
    const node = await serve(live)
    let key: string
    let used: number
    try {
      await node.c.writer.write(fixtureRecords())
      const created = (
        await node.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: { authorization: `Bearer ${ADMIN}` }, payload: { plan: 'custom', creditsLimit: 100, rpsLimit: 1000 } })
      ).json() as { apiKey: { key: string } }
      key = created.apiKey.key
      for (let i = 0; i < 5; i++) {
        const res = await node.app.inject({ method: 'GET', url: '/api/v1/profile?profileUrlOrUrn=member-1', headers: { 'x-api-key': key } })
        expect(res.statusCode, res.body).toBe(200)
      }
      used = ((await node.app.inject({ method: 'GET', url: '/api/v1/subscription', headers: { 'x-api-key': key } })).json() as { creditsUsed: number }).creditsUsed
      expect(used).toBe(5)
      // The node still runs: what it wrote may sit in the -wal file, which a plain copy of pronet.db would miss.
      expect(existsSync(join(live, 'pronet.db-wal'))).toBe(true)

      const target = join(dir, 'copy.db')
      const done = await pronetProcess(envFor(live), 'backup', target, '--json')
      expect(done.code, done.stderr).toBe(0)
      expect(JSON.parse(done.stdout)).toEqual({ path: target, bytes: statSync(target).size })
      expect(statSync(target).mode & 0o777).toBe(0o600)
      expect(existsSync(`${target}-wal`)).toBe(false)
      const copy = new Database(target, { readonly: true })
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok')
      copy.close()

      // Never over an existing file, whose bytes stay as they were.
      const before = readFileSync(target)
      const again = await pronetProcess(envFor(live), 'backup', target, '--json')
      expect(again.code).toBe(1)
      expect(JSON.parse(again.stderr)).toMatchObject({ code: 'INVALID_PARAMETER', error: expect.stringContaining('exists') })
      expect(readFileSync(target).equals(before)).toBe(true)
    } finally {
      await node.close()
    }

    // Put in place of pronet.db, the copy serves the same account, key and balance.
    const restored = join(dir, 'restored')
    mkdirSync(restored)
    copyFileSync(join(dir, 'copy.db'), join(restored, 'pronet.db'))
    const back = await serve(restored)
    try {
      const sub = await back.app.inject({ method: 'GET', url: '/api/v1/subscription', headers: { 'x-api-key': key } })
      expect(sub.statusCode, sub.body).toBe(200)
      expect(sub.json()).toMatchObject({ creditsUsed: used })
      expect((await back.app.inject({ method: 'GET', url: '/api/v1/profile?profileUrlOrUrn=member-1', headers: { 'x-api-key': key } })).statusCode).toBe(200)
    } finally {
      await back.close()
    }
  }, 60_000)

  it('refuses without a store, into a missing directory, and on PostgreSQL (pointing to pg_dump)', async () => {
    const empty = join(dir, 'empty')
    mkdirSync(empty)
    const none = await pronet(envFor(empty), 'backup', join(dir, 'none.db'))
    expect(none.code).toBe(1)
    expect(none.stderr).toContain('no embedded store')
    expect(existsSync(join(dir, 'none.db'))).toBe(false)
    expect(existsSync(join(empty, 'pronet.db'))).toBe(false)

    const live = join(dir, 'live')
    const nowhere = await pronet(envFor(live), 'backup', join(dir, 'no-such-dir', 'x.db'))
    expect(nowhere.code).toBe(1)
    expect(nowhere.stderr).toContain('does not exist')

    const pg = await pronet({ ...envFor(live), DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }, 'backup', join(dir, 'pg.db'))
    expect(pg.code).toBe(2)
    expect(pg.stderr).toContain('pg_dump')

    // A name ending in a slash names a directory, not a file to create under that name.
    const slash = await pronet(envFor(live), 'backup', `${join(dir, 'new-dir')}/`)
    expect(slash.code).toBe(1)
    expect(slash.stderr).toContain('names a directory')
    expect(existsSync(join(dir, 'new-dir'))).toBe(false)

    // An empty name is no file (it read as the working directory: "… exists; name a new file").
    const unnamed = await pronet(envFor(live), 'backup', '')
    expect([unnamed.code, unnamed.stderr]).toEqual([1, 'pronet: name the file to write the backup to.\n'])
  }, 60_000)

  it('a copy that fails part-way leaves nothing behind, and says why without a stack', async () => {
    // A store that is not a database: the copy fails once SQLite reads it (as a full disk fails it
    // once SQLite writes). Before, whatever had been written stayed under the backup's name.
    const broken = join(dir, 'broken')
    mkdirSync(broken)
    writeFileSync(join(broken, 'pronet.db'), 'not a database, '.repeat(512))
    const target = join(dir, 'from-broken.db')
    const failed = await pronet(envFor(broken), 'backup', target)
    expect(failed.code).toBe(1)
    expect(failed.stderr).toMatch(/^pronet: the copy could not be written to .*from-broken\.db: file is not a database\.\n$/)
    expect(failed.stderr).not.toContain('    at ')
    expect(readdirSync(dir).filter((f) => f.includes('from-broken'))).toEqual([])
    const json = await pronet(envFor(broken), 'backup', target, '--json')
    expect(json.code).toBe(1)
    expect(JSON.parse(json.stderr)).toMatchObject({ code: 'INTERNAL_ERROR', error: expect.stringContaining('file is not a database') })
  }, 60_000)
})
