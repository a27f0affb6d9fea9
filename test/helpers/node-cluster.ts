/**
 * Server processes sharing one PostgreSQL database and the test Redis, as operators run scale-out:
 * each with a data dir of its own, the small seed of 20 profiles, and an admin token.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REDIS_URL } from './redis.ts'
import { startServer, type ServerProcess } from './server-process.ts'

export interface NodeCluster {
  nodes: ServerProcess[]
  /** A call of the admin API on `node`, with a JSON body if given. */
  admin(node: ServerProcess, method: string, path: string, body?: unknown): Promise<Response>
  /** Kills every node and deletes their data dirs. */
  stop(): Promise<void>
}

export async function startNodeCluster(opts: { databaseUrl: string; count: number; adminToken: string; env?: Record<string, string> }): Promise<NodeCluster> {
  const dirs: string[] = []
  const started = await Promise.allSettled(
    Array.from({ length: opts.count }, () => {
      const dir = mkdtempSync(join(tmpdir(), 'pronet-node-'))
      dirs.push(dir)
      return startServer({
        dataDir: dir,
        env: { DATABASE_URL: opts.databaseUrl, REDIS_URL, PRONET_SEED: '20', PRONET_ADMIN_TOKEN: opts.adminToken, LOG_LEVEL: 'warn', ...opts.env },
        timeoutMs: 120_000,
      })
    }),
  )
  const nodes = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []))
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.kill()))
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  }
  const failed = started.find((s) => s.status === 'rejected')
  if (failed) {
    await stop()
    throw failed.reason
  }
  return {
    nodes,
    admin: (node, method, path, body) =>
      fetch(`${node.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${opts.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    stop,
  }
}
