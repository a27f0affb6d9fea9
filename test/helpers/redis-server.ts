/**
 * A throwaway redis-server of a test's own (no persistence, random free port), for suites that take
 * Redis away and bring it back. Only the processes started here are ever killed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { Redis } from 'ioredis'

const BINARY = process.env.PRONET_TEST_REDIS_SERVER ?? 'redis-server'

/** Whether the redis-server binary can be run here. */
export function redisServerBinaryAvailable(): boolean {
  const r = spawnSync(BINARY, ['--version'], { stdio: 'ignore' })
  return r.status === 0
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

async function waitForPing(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500 })
    client.on('error', () => {})
    try {
      await client.connect()
      await client.ping()
      return
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`redis-server at ${url} did not answer: ${e instanceof Error ? e.message : String(e)}`)
      await new Promise((r) => setTimeout(r, 50))
    } finally {
      client.disconnect()
    }
  }
}

export interface TestRedisServer {
  url: string
  port: number
  /** Kills the server (SIGKILL, as a crash) and waits for it to exit. */
  stop(): Promise<void>
  /** Starts it again on the same port, empty. */
  start(): Promise<void>
  /** Freezes it (SIGSTOP): connections stay open and nothing answers, as in a network partition. */
  pause(): void
  /** Lets a paused server run again (SIGCONT). */
  resume(): void
}

export async function startRedisServer(): Promise<TestRedisServer> {
  const port = await freePort()
  const url = `redis://127.0.0.1:${port}`
  let child: ChildProcess | undefined
  const server: TestRedisServer = {
    url,
    port,
    async start() {
      if (child) return
      child = spawn(BINARY, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', tmpdir()], {
        stdio: 'ignore',
      })
      await waitForPing(url, 10_000)
    },
    pause() {
      child?.kill('SIGSTOP')
    },
    resume() {
      child?.kill('SIGCONT')
    },
    async stop() {
      const c = child
      if (!c) return
      child = undefined
      if (c.exitCode !== null || c.signalCode !== null) return
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve())
        c.kill('SIGKILL')
        // A paused process still dies of SIGKILL; SIGCONT is for good measure.
        c.kill('SIGCONT')
      })
    },
  }
  await server.start()
  return server
}
