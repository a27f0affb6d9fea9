/**
 * The request time limit as an operator sets it, on the server as `npm start` runs it: a value that
 * is no time stops the start in one line naming it (exit 2), and a value given is the one the
 * listening server keeps to.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { serverMain, startServer, type ServerProcess } from '../helpers/server-process.ts'

const dirs: string[] = []
const servers: ServerProcess[] = []
afterAll(async () => {
  await Promise.all(servers.map((s) => s.kill()))
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'pronet-hardening-'))
  dirs.push(dir)
  return dir
}

/** The embedded store in a fresh directory: no database or Redis of the test run's own. */
const env = (extra: Record<string, string>): NodeJS.ProcessEnv => {
  const e: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', PRONET_DATA_DIR: tempDir(), PRONET_SEED: 'none', LOG_LEVEL: 'warn', ...extra }
  delete e.DATABASE_URL
  delete e.REDIS_URL
  return e
}

function runToExit(environment: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [serverMain()], { env: environment, timeout: 30_000 }, (err, _stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stderr })
    })
  })
}

describe('PRONET_REQUEST_TIMEOUT_MS and the throttle settings on the server', () => {
  it('a value that is not a time stops the start: exit 2, one line naming the setting', async () => {
    for (const [name, value, rule] of [
      ['PRONET_REQUEST_TIMEOUT_MS', 'soon', 'a whole number of milliseconds from 100 to 3600000'],
      ['PRONET_AUTH_FAILURE_LIMIT', '-1', 'a whole number from 0 to 1000000'],
      ['PRONET_AUTH_FAILURE_WINDOW_MS', '10s', 'a whole number of milliseconds from 1000 to 86400000'],
    ] as const) {
      const r = await runToExit(env({ [name]: value }))
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toBe(`pronet: invalid environment: ${name} must be ${rule} (got "${value}")\n`)
    }
  })

  it('the listening server cuts a request that has not arrived within the time set', async () => {
    const server = await startServer({ dataDir: tempDir(), env: { PRONET_REQUEST_TIMEOUT_MS: '400' } })
    servers.push(server)
    const text = await new Promise<string>((resolve) => {
      const socket = connect(server.port, '127.0.0.1')
      let received = ''
      socket.on('data', (d) => (received += d.toString('utf8')))
      socket.on('error', () => {})
      socket.on('close', () => resolve(received))
      // Headers that never end.
      socket.write('GET /healthz HTTP/1.1\r\nhost: x\r\n')
    })
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))
    expect(body).toEqual({ error: 'The request did not arrive in time (all of it within 0.4 seconds); send it again.', code: 'INVALID_PARAMETER' })
  })
})
