/**
 * HTTP throughput of GET /api/v1/profile and GET /api/v1/posts against a bare node:http server that
 * sends the very same bytes, measured in one run (issue: goal ≥ 0.6 of bare before metering).
 *
 * Each server runs in its own child process (this file with `--serve`), so the load generator
 * (autocannon, in this process) does not share the server's event loop. Ratios, not absolute figures,
 * are the result: autocannon saturates near 12k req/s on this machine, compressing ratios toward 1.
 *
 *   npm run bench                       # defaults: 10 s per case, 50 connections, small network
 *   BENCH_SECONDS=5 BENCH_CONNECTIONS=20 npm run bench
 */
import autocannon from 'autocannon'
import { execFileSync, fork, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { membersWithPosts } from './bench-helpers.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const SIZE = process.env.BENCH_SEED ?? 'small'
const self = fileURLToPath(import.meta.url)
const ANCHOR = Date.UTC(2026, 10, 1)

interface Ready {
  port: number
  key?: string
  /** Slugs of members who have posts (the cases' subjects). */
  slugs?: string[]
}

/** Child: the real pronet server on a seeded store, or a bare node:http server with fixed bodies. */
async function serveChild(kind: string): Promise<void> {
  if (kind === 'bare') {
    {
      const given = JSON.parse(readFileSync(process.env.BENCH_BODIES as string, 'utf8')) as Record<string, string>
      const bodies = new Map(Object.entries(given).map(([path, body]) => [path, Buffer.from(body)]))
      const server = createServer((req, res) => {
        const body = bodies.get(req.url ?? '')
        if (!body) {
          res.writeHead(404).end()
          return
        }
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length })
        res.end(body)
      })
      server.listen(0, '127.0.0.1', () => {
        const address = server.address()
        process.send?.({ port: typeof address === 'object' && address ? address.port : 0 } satisfies Ready)
      })
    }
    return
  }
  const { loadConfig } = await import('../src/config/config.ts')
  const { createContainer } = await import('../src/container.ts')
  const { buildApp } = await import('../src/app.ts')
  const { prepareStore } = await import('../src/startup.ts')
  const { seedSynthetic } = await import('../src/seed.ts')
  const dataDir = process.env.BENCH_DATA_DIR as string
  const config = loadConfig({ ...process.env, PRONET_DATA_DIR: dataDir, PRONET_SEED: SIZE, LOG_LEVEL: 'warn', PORT: '0' })
  const c = await createContainer(config)
  await prepareStore(c, (cc, size, log) => seedSynthetic(cc, size, log, { anchorMs: ANCHOR }), () => {})
  // Not the demo account (5 per second, 1,000 credits): the load would meet 429 and 402 at once.
  const created = await c.accounts.create({ name: 'bench', plan: 'custom', creditsLimit: 1_000_000_000, rpsLimit: 1_000_000 })
  const app = await buildApp(c)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  process.send?.({
    port: typeof address === 'object' && address ? address.port : 0,
    key: created.apiKey.key,
    slugs: membersWithPosts(SIZE, ANCHOR, 200),
  } satisfies Ready)
}

function start(kind: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; ready: Ready }> {
  const child = fork(self, ['--serve', kind], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  return new Promise((resolve, reject) => {
    child.once('message', (ready: Ready) => resolve({ child, ready }))
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)))
  })
}

const TOOL = process.env.BENCH_TOOL ?? (hasWrk() ? 'wrk' : 'autocannon')

function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' })
    return true
  } catch (e) {
    // wrk prints its version and exits 1; only a missing binary is ENOENT.
    return (e as { code?: string }).code !== 'ENOENT'
  }
}

/** wrk (one thread, leaving the other core to the server) rotating over `paths`; see the performance notes. */
function loadWithWrk(port: number, paths: string[], headers: Record<string, string>): { rps: number; p99: number; errors: number } {
  const script = join(tmpdir(), `pronet-bench-${process.pid}.lua`)
  const lua = [
    `local paths = {${paths.map((p) => JSON.stringify(p)).join(',')}}`,
    'local i = 0',
    ...Object.entries(headers).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`),
    'request = function() i = i % #paths + 1; return wrk.format("GET", paths[i]) end',
  ].join('\n')
  writeFileSync(script, lua)
  const out = execFileSync('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${SECONDS}s`, '--latency', '-s', script, `http://127.0.0.1:${port}`], {
    encoding: 'utf8',
  })
  rmSync(script, { force: true })
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0)
  const p99m = /\s99%\s+([\d.]+)(us|ms|s)/.exec(out)
  const p99 = p99m ? Number(p99m[1]) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[p99m[2] as string]! : NaN
  const errors = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0) + Number(/Socket errors:.*?timeout (\d+)/.exec(out)?.[1] ?? 0)
  return { rps, p99, errors }
}

async function load(port: number, paths: string[], headers: Record<string, string>): Promise<{ rps: number; p99: number; errors: number }> {
  if (TOOL === 'wrk') return loadWithWrk(port, paths, headers)
  // Each request takes the next path, so a single hot document cannot flatter the result.
  let next = 0
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [
      {
        method: 'GET',
        headers,
        setupRequest: (req: { path: string }) => ({ ...req, path: paths[next++ % paths.length] as string }),
      },
    ],
  } as autocannon.Options)
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pronet-bench-'))
  const children: ChildProcess[] = []
  try {
    process.stdout.write(`seeding a ${SIZE} synthetic network in ${dataDir}…\n`)
    const pronet = await start('pronet', { BENCH_DATA_DIR: dataDir })
    children.push(pronet.child)
    const base = `http://127.0.0.1:${pronet.ready.port}`
    const headers = { 'x-api-key': pronet.ready.key as string }
    const get = async (path: string) => {
      const res = await fetch(base + path, { headers })
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`)
      return res.text()
    }

    const slugs = pronet.ready.slugs ?? []
    if (slugs.length === 0) throw new Error('the server found no members with posts to measure')

    const profilePaths = slugs.map((s) => `/api/v1/profile?profileUrlOrUrn=${encodeURIComponent(s)}`)
    const postsPaths = slugs.map((s) => `/api/v1/posts?profileUrlOrUrn=${encodeURIComponent(s)}&count=10`)
    const bodies: Record<string, string> = {}
    for (const p of [...profilePaths, ...postsPaths]) bodies[p] = await get(p)

    const bodiesFile = join(dataDir, 'bodies.json')
    writeFileSync(bodiesFile, JSON.stringify(bodies))
    const bare = await start('bare', { BENCH_BODIES: bodiesFile })
    children.push(bare.child)
    const barePort = bare.ready.port

    // The same server with its response cache off, on the same data: what a cold read costs.
    const uncached = await start('pronet', { BENCH_DATA_DIR: dataDir, PRONET_CACHE_MB: '0' })
    children.push(uncached.child)

    for (const [name, paths] of [
      [`GET profile (rotating over ${profilePaths.length} members)`, profilePaths],
      [`GET posts count=10 (rotating over ${postsPaths.length} members)`, postsPaths],
    ] as const) {
      const bareRun = await load(barePort, [...paths], {})
      const hot = await load(pronet.ready.port, [...paths], headers)
      const cold = await load(uncached.ready.port, [...paths], headers)
      const errors = bareRun.errors + hot.errors + cold.errors
      process.stdout.write(
        `${name}\n` +
          `  bare node:http        ${bareRun.rps.toFixed(0).padStart(6)} req/s   p99 ${bareRun.p99.toFixed(2)} ms\n` +
          `  pronet                ${hot.rps.toFixed(0).padStart(6)} req/s   p99 ${hot.p99.toFixed(2)} ms   ratio ${(hot.rps / bareRun.rps).toFixed(2)}\n` +
          `  pronet, cache off     ${cold.rps.toFixed(0).padStart(6)} req/s   p99 ${cold.p99.toFixed(2)} ms   ratio ${(cold.rps / bareRun.rps).toFixed(2)}\n` +
          (errors > 0 ? `  errors: ${errors}\n` : ''),
      )
    }
    process.stdout.write(`\n${SECONDS}s per case, ${CONNECTIONS} connections, load from ${TOOL} (BENCH_TOOL=wrk|autocannon).\n`)
  } finally {
    for (const child of children) child.kill('SIGTERM')
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (process.argv[2] === '--serve') await serveChild(process.argv[3] ?? 'pronet')
else await main()
