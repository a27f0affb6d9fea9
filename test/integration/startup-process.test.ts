/**
 * `npm start` as an operator runs it (the compiled src/main.ts in a child process): a first start killed with
 * SIGKILL mid-seed is finished by the next start; the banner's example call names a profile of this
 * store; and startup failures the operator can fix end in one line that names the setting, no stack.
 */
import Database from 'better-sqlite3'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openSqlite } from '../../src/adapters/sqlite/database.ts'
import { createSqliteContentStore } from '../../src/adapters/sqlite/sqlite-content-store.ts'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { createContentWriter } from '../../src/domain/content/content-writer.ts'
import { DEFAULT_NETWORK_SEED } from '../../src/seed.ts'
import { seedNetwork } from '../../src/synth/index.ts'
import { serverMain, startServer, type ServerProcess } from '../helpers/server-process.ts'

const dirs: string[] = []
const servers: ServerProcess[] = []
afterAll(async () => {
  await Promise.all(servers.map((s) => s.kill()))
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }))
})

const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'pronet-proc-'))
  dirs.push(dir)
  return dir
}

const baseEnv = (dataDir: string): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', PRONET_DATA_DIR: dataDir, PRONET_SEED: 'none', LOG_LEVEL: 'warn' }
  delete env.DATABASE_URL
  delete env.REDIS_URL
  return env
}

/** Runs the server's program to its exit (it must fail to start); its output and status. */
function runToExit(env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [serverMain()], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s))
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`still running after ${timeoutMs} ms\n${stdout}\n${stderr}`))
    }, timeoutMs)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

const count = (dbFile: string, table: string): number => {
  try {
    const db = new Database(dbFile, { readonly: true, fileMustExist: true })
    try {
      return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n
    } finally {
      db.close()
    }
  } catch {
    return 0 // not created (or not migrated) yet
  }
}

/** The banner goes on after the "listening" line startServer waits for. */
async function banner(server: ServerProcess): Promise<string> {
  const deadline = Date.now() + 10_000
  while (!/five-minute tour|Demo API key: see/.test(server.stdout()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  return server.stdout()
}

const tipSlug = (stdout: string) => /Try: curl .*profileUrlOrUrn=([^"\s]+)"/.exec(stdout)?.[1]

describe('a first start killed mid-seed', () => {
  it('is finished by the next start: whole network, demo account, key printed and saved', async () => {
    const dir = tempDir()
    const dbFile = join(dir, 'pronet.db')
    const env = { ...baseEnv(dir), PRONET_SEED: '400' }
    const child = spawn(process.execPath, [serverMain()], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s))
    child.stderr.resume()
    const exited = new Promise((resolve) => child.on('exit', resolve))
    // Killed once posts are being written: profiles and companies are in, the network is not.
    const deadline = Date.now() + 60_000
    while (count(dbFile, 'posts') === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    child.kill('SIGKILL')
    await exited
    expect(out).not.toMatch(/listening/)
    expect(count(dbFile, 'profiles')).toBeGreaterThan(0)
    expect(count(dbFile, 'accounts')).toBe(0)

    const db = new Database(dbFile, { readonly: true })
    const record = JSON.parse((db.prepare("SELECT value FROM settings WHERE name = 'first_start'").get() as { value: string }).value)
    db.close()
    expect(record).toMatchObject({ state: 'building', size: 400 })

    const server = await startServer({ dataDir: dir, env: { PRONET_SEED: '400' }, timeoutMs: 120_000 })
    servers.push(server)
    const out1 = await banner(server)
    expect(out1).toMatch(/Resuming the first start/)
    const key = /Demo API key \(shown once.*\n\s+(pk_\S+)/.exec(out1)?.[1]
    expect(key).toMatch(/^pk_/)
    expect(readFileSync(join(dir, 'demo-key.txt'), 'utf8').trim()).toBe(key)
    const res = await fetch(`${server.baseUrl}/api/v1/profile?profileUrlOrUrn=${tipSlug(out1)}`, { headers: { 'x-api-key': key! } })
    expect(res.status).toBe(200)

    // The same network an uninterrupted first start builds (same size, the recorded anchor).
    const ref = openSqlite(':memory:')
    const store = createSqliteContentStore(ref)
    const writer = createContentWriter({ store, clock: createManualClock(Date.now()), platformHost: 'www.linkedin.com' })
    await seedNetwork({ writer }, { seed: DEFAULT_NETWORK_SEED, size: 400, anchorMs: record.anchorMs, platformHost: 'www.linkedin.com' })
    for (const table of ['profiles', 'companies', 'posts', 'comments', 'post_reactions']) {
      expect([table, count(dbFile, table)]).toEqual([table, (ref.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n])
    }
    await store.close()
    ref.close()
    await server.kill()

    // Finished: the next start neither seeds nor makes another account.
    const again = await startServer({ dataDir: dir, env: { PRONET_SEED: '400' } })
    servers.push(again)
    expect(await banner(again)).not.toMatch(/building|Resuming|pk_/)
    await again.kill()
    expect(count(dbFile, 'accounts')).toBe(1)
  }, 240_000)
})

describe("the banner's example call", () => {
  it('names a profile of this store (another seed size and platform host)', async () => {
    const server = await startServer({ dataDir: tempDir(), env: { PRONET_SEED: '50', PRONET_PLATFORM_HOST: 'people.example.org' }, timeoutMs: 60_000 })
    servers.push(server)
    const out = await banner(server)
    const slug = tipSlug(out)
    expect(slug).toBeDefined()
    const key = /\s(pk_\S+)/.exec(out)![1]!
    const res = await fetch(`${server.baseUrl}/api/v1/profile?profileUrlOrUrn=${slug}`, { headers: { 'x-api-key': key } })
    expect(res.status).toBe(200)
    await server.kill()
  }, 90_000)

  it('is left out when the store has no profiles (PRONET_SEED=none)', async () => {
    const server = await startServer({ dataDir: tempDir(), env: { PRONET_SEED: 'none' } })
    servers.push(server)
    const out = await banner(server)
    expect(out).toMatch(/Demo API key/)
    expect(out).not.toMatch(/Try: curl/)
    await server.kill()
  })
})

describe('startup failures the operator can fix: one line naming the setting, no stack', () => {
  const expectOneLine = (r: { code: number | null; stderr: string }, pattern: RegExp) => {
    expect(r.code, r.stderr).not.toBe(0)
    expect(r.stderr).not.toMatch(/^\s+at /m)
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1)
    expect(r.stderr.trim()).toMatch(pattern)
  }

  it('DATABASE_URL that is not postgres:// is invalid environment (exit 2)', async () => {
    const r = await runToExit({ ...baseEnv(tempDir()), DATABASE_URL: 'mysql://x/y' })
    expectOneLine(r, /^pronet: invalid environment: DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/)
    expect(r.code).toBe(2)
  })

  it('a live source with a bad setting stops the start (exit 2) naming the setting, never the key', async () => {
    const r = await runToExit({
      ...baseEnv(tempDir()),
      PRONET_SOURCE: 'upstream',
      PRONET_UPSTREAM_URL: 'https://upstream.example',
      PRONET_UPSTREAM_KEY: 'pk_upstream-secret-value',
      PRONET_UPSTREAM_RPS: 'lots',
    })
    expectOneLine(r, /^pronet: invalid environment: PRONET_UPSTREAM_RPS /)
    expect(r.code).toBe(2)
    expect(r.stderr).not.toContain('pk_upstream-secret-value')
  })

  it('a PRONET_DATA_DIR under a regular file', async () => {
    const file = join(tempDir(), 'a-file')
    writeFileSync(file, 'not a directory')
    const r = await runToExit(baseEnv(join(file, 'data')))
    expectOneLine(r, new RegExp(`^pronet: PRONET_DATA_DIR ${join(file, 'data')} cannot be used: .*ENOTDIR`))
  })

  // Node's own recursive mkdir spun at 100% CPU for ever on this one.
  it.runIf(existsSync('/proc/self'))('a PRONET_DATA_DIR the system will not make (under /proc)', async () => {
    const r = await runToExit(baseEnv('/proc/pronet-no-such-dir'))
    expectOneLine(r, /^pronet: PRONET_DATA_DIR \/proc\/pronet-no-such-dir cannot be used: .*ENOENT/)
  })

  // (A read-only data dir cannot be tested here: CI runs as root, who may write anywhere.)
  it('a PRONET_DATA_DIR whose pronet.db is not an SQLite database', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'pronet.db'), 'x'.repeat(8192))
    const r = await runToExit(baseEnv(dir))
    expectOneLine(r, new RegExp(`^pronet: PRONET_DATA_DIR ${dir} cannot be used: .*(SQLITE_NOTADB|not an SQLite database)`))
  })

  it('a database that cannot be reached, without its password in the line', async () => {
    const r = await runToExit({ ...baseEnv(tempDir()), DATABASE_URL: 'postgres://pronet:hunter2@127.0.0.1:1/pronet' })
    expectOneLine(r, /^pronet: DATABASE_URL postgres:\/\/pronet:\*\*\*@127\.0\.0\.1:1\/pronet cannot be used: .*ECONNREFUSED/)
    expect(r.stderr).not.toMatch(/hunter2/)
  })

  it('a HOST that is not on this machine', async () => {
    const r = await runToExit({ ...baseEnv(tempDir()), HOST: '192.0.2.77' })
    expectOneLine(r, /^pronet: HOST:PORT 192\.0\.2\.77:0 cannot be listened on: .*EADDRNOTAVAIL/)
  })

  it('a PRONET_DATA_DIR another server serves (both would spend the same credits); a killed server leaves no claim', async () => {
    const dir = tempDir()
    // A pid file naming this test's own (live) process claims nothing: the lock is the claim.
    writeFileSync(join(dir, 'server.pid'), `${process.pid}\n`)
    const first = await startServer({ dataDir: dir, env: { PRONET_SEED: 'none' } })
    servers.push(first)
    expect(readFileSync(join(dir, 'server.pid'), 'utf8')).toBe(`${first.pid}\n`)
    const r = await runToExit(baseEnv(dir))
    expectOneLine(r, new RegExp(`^pronet: PRONET_DATA_DIR ${dir} is served already, by process ${first.pid}: one process serves an embedded store`))
    expect(r.code).toBe(1)
    // Two started at once while it serves: both refused (the claim is a lock held, not a file read then written).
    const both = await Promise.all([runToExit(baseEnv(dir)), runToExit(baseEnv(dir))])
    for (const b of both) expectOneLine(b, /is served already, by process/)
    // Killed, it holds nothing any more (its pid file stays, naming it); the next server starts, and a stopped one removes its pid file.
    await first.kill()
    const next = await startServer({ dataDir: dir, env: { PRONET_SEED: 'none' } })
    servers.push(next)
    expect(readFileSync(join(dir, 'server.pid'), 'utf8')).toBe(`${next.pid}\n`)
    next.child.kill('SIGTERM')
    await new Promise((resolve) => next.child.once('exit', resolve))
    expect(existsSync(join(dir, 'server.pid'))).toBe(false)
  })

  it('a PORT already taken', async () => {
    const taken: Server = createServer()
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r))
    const port = (taken.address() as { port: number }).port
    const r = await runToExit({ ...baseEnv(tempDir()), PORT: String(port) })
    await new Promise((r) => taken.close(r))
    expectOneLine(r, new RegExp(`^pronet: HOST:PORT 127\\.0\\.0\\.1:${port} cannot be listened on: .*EADDRINUSE`))
  })
})
