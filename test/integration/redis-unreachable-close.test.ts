/**
 * Shutting down while Redis is away. A node with REDIS_URL on a Redis it cannot reach serves from its
 * local budgets (by design), and it must also stop: the audit found `SIGTERM: closing…` followed by a
 * process that never ended, because the bus's subscriber queued its QUIT behind a SUBSCRIBE waiting
 * for a connection that never came. Covered here:
 * - the rate limiter and the bus close on a port nothing listens on, on a Redis that went away after
 *   they connected, and on one that stopped answering (SIGSTOP: connected, silent);
 * - a process that only creates and closes them ends by itself (no socket or timer left behind);
 * - the real server on PostgreSQL with an unreachable REDIS_URL exits 0 after SIGTERM.
 * The time limits are not performance claims: they tell a close that finishes (about a second here)
 * from one that never does, with a wide margin.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createRedisInvalidationBus } from '../../src/adapters/redis/redis-invalidation-bus.ts'
import { createRedisRateLimiter } from '../../src/adapters/redis/redis-rate-limiter.ts'
import { createTestDatabase, postgresAvailable } from '../helpers/postgres.ts'
import { redisServerBinaryAvailable, startRedisServer } from '../helpers/redis-server.ts'
import { builtPath } from '../helpers/built.ts'
import { startServer, type ServerProcess } from '../helpers/server-process.ts'

/** Port 1 on loopback: nothing listens there, so every connection attempt is refused. */
const UNREACHABLE = 'redis://127.0.0.1:1'
const CLOSE_LIMIT_MS = 3_000
const EXIT_LIMIT_MS = 10_000

/** 'settled' if `p` settles within `ms`, else 'hung'; the watchdog timer never outlives the answer. */
async function settles(p: Promise<unknown>, ms: number): Promise<'settled' | 'hung'> {
  let timer: NodeJS.Timeout | undefined
  const watchdog = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), ms)
  })
  try {
    return await Promise.race([p.then(() => 'settled' as const), watchdog])
  } finally {
    clearTimeout(timer)
  }
}

describe('closing the Redis adapters while Redis is unreachable', () => {
  it('the rate limiter, having fallen back to its local share, closes', async () => {
    const limiter = await createRedisRateLimiter({ url: UNREACHABLE, connectTimeoutMs: 300 })
    expect(limiter.status().fallback).toBe(true)
    expect((await limiter.take('k', 5, 1, Date.now())).ok).toBe(true)
    expect(await settles(limiter.close(), CLOSE_LIMIT_MS)).toBe('settled')
  })

  it('the invalidation bus, whose subscriber is still waiting to subscribe, closes', async () => {
    const bus = await createRedisInvalidationBus({ url: UNREACHABLE, connectTimeoutMs: 300 })
    await bus.publish({ kind: 'resync' })
    expect(await settles(bus.close(), CLOSE_LIMIT_MS)).toBe('settled')
  })

  it('a process that creates and closes both ends by itself, exit code 0', async () => {
    const child = spawn(process.execPath, [builtPath('test/helpers/redis-close-child.ts'), UNREACHABLE], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s))
    child.stderr.setEncoding('utf8').on('data', (s: string) => (out += s))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    // Creation waits up to 300 ms per adapter and node needs its start-up; closing adds next to nothing.
    const outcome = await settles(exited, EXIT_LIMIT_MS)
    if (outcome === 'hung') {
      child.kill('SIGKILL')
      await exited
    }
    expect({ outcome, out }).toEqual({ outcome: 'settled', out: 'closed\n' })
    expect(await exited).toBe(0)
  }, 30_000)
})

describe.skipIf(!redisServerBinaryAvailable())('closing the Redis adapters after Redis went away', () => {
  it('closes both when the server was killed after they connected (they are between retries)', async () => {
    const server = await startRedisServer()
    try {
      const limiter = await createRedisRateLimiter({ url: server.url })
      const bus = await createRedisInvalidationBus({ url: server.url })
      expect(limiter.status().fallback).toBe(false)
      await server.stop()
      await limiter.heartbeat()
      expect(limiter.status().fallback).toBe(true)
      expect(await settles(Promise.all([limiter.close(), bus.close()]), CLOSE_LIMIT_MS)).toBe('settled')
    } finally {
      await server.stop()
    }
  })

  it('closes both when the server is connected but answers nothing (SIGSTOP)', async () => {
    const server = await startRedisServer()
    try {
      const limiter = await createRedisRateLimiter({ url: server.url })
      const bus = await createRedisInvalidationBus({ url: server.url })
      server.pause()
      // QUIT gets no reply; the subscriber has no command timeout, so only a bounded wait ends it.
      expect(await settles(Promise.all([limiter.close(), bus.close()]), CLOSE_LIMIT_MS)).toBe('settled')
    } finally {
      server.resume()
      await server.stop()
    }
  })
})

const hasPostgres = await postgresAvailable()

describe.skipIf(!hasPostgres)('the server on PostgreSQL with an unreachable REDIS_URL', () => {
  const dirs: string[] = []
  let db: { url: string; drop(): Promise<void> } | undefined
  let node: ServerProcess | undefined

  afterAll(async () => {
    await node?.kill()
    await db?.drop()
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  }, 60_000)

  it('serves from its local budgets, and exits 0 soon after SIGTERM', async () => {
    db = await createTestDatabase('pronet_redisdown')
    const dir = mkdtempSync(join(tmpdir(), 'pronet-redisdown-'))
    dirs.push(dir)
    node = await startServer({
      dataDir: dir,
      env: { DATABASE_URL: db.url, REDIS_URL: UNREACHABLE, PRONET_SEED: 'none', LOG_LEVEL: 'warn' },
      timeoutMs: 60_000,
    })
    expect((await fetch(`${node.baseUrl}/openapi.json`)).status).toBe(200)

    node.child.kill('SIGTERM')
    const outcome = await settles(node.exited(), EXIT_LIMIT_MS)
    const printed = `\n--- stdout ---\n${node.stdout()}\n--- stderr ---\n${node.stderr()}`
    expect(outcome, `the server did not exit after SIGTERM${printed}`).toBe('settled')
    expect(await node.exited(), printed).toEqual({ code: 0, signal: null })
    expect(node.stdout()).toContain('SIGTERM: closing…')
  }, 90_000)
})
