/**
 * What the live source costs on GET /api/v1/profile, measured in one run against a store-mode node:
 *
 * (1) `upstream` mode answering from kept answers: a live node whose every measured answer is
 *     X-Data-Source: cache, against a store-mode node holding the same network (the upstream node
 *     itself). wrk (one thread, BENCH_CONNECTIONS connections) rotates over BENCH_PATHS profiles,
 *     BENCH_ROUNDS rounds of each in alternating order; medians are compared. Goal: the live node
 *     serves at least 0.9 of the store node's throughput.
 * (2) `upstream-only` mode: sequential GETs through a node that forwards every call, against the same
 *     GETs sent to the upstream directly, from a keep-alive client in this process, in blocks taken
 *     in rotating order. Goal: at most 1 ms added at p50. Beside them, the same GETs through a bare forwarding
 *     hop (node:http server and keep-alive client, no pronet code; this file run as BENCH_ROLE=bare-proxy)
 *     say what one more process on the path costs by itself on this machine, and the CPU each call
 *     took in the hop's process and in the upstream's (/proc) says what of the rest is work.
 *
 * The upstream is a pronet seeded with a numeric network (PRONET_SEED=BENCH_PROFILES); the live nodes
 * reach it with keys of custom plans whose rate is far above what the bench sends, and their own
 * budget (PRONET_UPSTREAM_RPS) is as high, so no call waits for budget. Every customer account is a
 * custom plan that never meets a 402 or a 429. The bench checks itself: no non-2xx from wrk, a sample
 * of each live round still answered from cache, no upstream credit spent by the cached node while it
 * was measured, and one upstream credit spent per call forwarded. Goals are reported, not asserted:
 * the exit code is 0. Every server is the built service (`npm start`'s flags) in its own process.
 *
 *   npm run bench:live-source
 *   BENCH_PROFILES=500 BENCH_PATHS=100 BENCH_SECONDS=8 BENCH_ROUNDS=3 BENCH_CONNECTIONS=50
 *   BENCH_LATENCY_CALLS=2000 BENCH_LATENCY_BLOCK=250 npm run bench:live-source
 *   BENCH_CPU_PROF=<dir>: the two live nodes run with --cpu-prof, their profiles written there at the end
 */
import { execFileSync, type ChildProcess } from 'node:child_process'
import { closeSync, fdatasyncSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { Agent, createServer, request } from 'node:http'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { MAX_CREDITS_LIMIT, MAX_RPS_LIMIT } from '../src/domain/billing/billing-rules.ts'
import { profileSlugs, quantile, runWrk, startScriptNodeFlags, startServerProcess, wrkFigures } from './bench-helpers.ts'
import { processCpuMs } from './cpu-accounts.ts'

const PROFILES = Number(process.env.BENCH_PROFILES ?? 500)
const PATHS = Number(process.env.BENCH_PATHS ?? 100)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const LATENCY_CALLS = Number(process.env.BENCH_LATENCY_CALLS ?? 2000)
const LATENCY_BLOCK = Number(process.env.BENCH_LATENCY_BLOCK ?? 250)
const CPU_PROF = process.env.BENCH_CPU_PROF
const WARMUP_SECONDS = 2
const LATENCY_WARMUP_CALLS = 300
/** Cached answers read back after each live round, to see they still come from cache. */
const SAMPLE = 20
const FSYNC_SAMPLES = 200
/** The highest rate an account takes (and the upstream budget too): nothing the bench sends comes near it. */
const RPS = MAX_RPS_LIMIT
const CREDITS = MAX_CREDITS_LIMIT
const ADMIN = 'live-source-bench'
const PATH = '/api/v1/profile'
const GOALS = { throughputRatio: 0.9, addedP50Ms: 1 }
const self = fileURLToPath(import.meta.url)
const runRoot = join(dirname(self), '..')
/** The project folder (package.json) whether the bench runs from dist/ or from source. */
const projectRoot = join(runRoot, runRoot.endsWith('dist') ? '..' : '.')
const MAIN = join(runRoot, 'src', 'main.js')

interface Server {
  name: string
  child: ChildProcess
  base: string
  port: number
}

const children: ChildProcess[] = []

async function startServer(name: string, dataDir: string, env: Record<string, string>, extraFlags: string[] = []): Promise<Server> {
  const { child, port } = await startServerProcess(
    MAIN,
    { PORT: '0', HOST: '127.0.0.1', PRONET_DATA_DIR: dataDir, PRONET_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', ...env },
    [...startScriptNodeFlags(projectRoot), ...extraFlags],
  )
  children.push(child)
  return { name, child, port, base: `http://127.0.0.1:${port}` }
}

async function startBareProxy(target: Server): Promise<Server> {
  const { child, port } = await startServerProcess(self, { BENCH_ROLE: 'bare-proxy', BENCH_PROXY_TARGET: target.base })
  children.push(child)
  return { name: 'bare proxy', child, port, base: `http://127.0.0.1:${port}` }
}

/** Stops every server started, waiting for each to exit (killed outright if it lingers). */
async function stopAll(): Promise<void> {
  await Promise.all(
    children.splice(0).map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(timer)
    }),
  )
}

/** A customer (or a live node's upstream key) on a custom plan that never meets a 402 or a 429. */
async function account(s: Server, name: string): Promise<string> {
  const res = await fetch(`${s.base}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, plan: 'custom', creditsLimit: CREDITS, rpsLimit: RPS }),
  })
  if (res.status !== 201 && res.status !== 200) throw new Error(`${s.name}: creating account ${name} answered ${res.status}: ${await res.text()}`)
  return ((await res.json()) as { apiKey: { key: string } }).apiKey.key
}

/** The account's balance; the account routes take one call a second, so a 429 is waited out. */
async function creditsRemaining(s: Server, key: string): Promise<number> {
  for (;;) {
    const res = await fetch(`${s.base}/api/v1/subscription`, { headers: { 'x-api-key': key } })
    if (res.status === 429) {
      await res.arrayBuffer()
      await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000))
      continue
    }
    if (res.status !== 200) throw new Error(`${s.name}: GET /api/v1/subscription answered ${res.status}`)
    return ((await res.json()) as { creditsRemaining: number }).creditsRemaining
  }
}

/**
 * The reference hop: a node:http server forwarding each GET, with the caller's key, to
 * BENCH_PROXY_TARGET over a keep-alive agent, and the answer back. It says it listens as pronet does,
 * so startServerProcess can start it.
 */
function serveBareProxy(): void {
  const target = new URL(process.env.BENCH_PROXY_TARGET as string)
  const agent = new Agent({ keepAlive: true })
  const server = createServer((req, res) => {
    const key = req.headers['x-api-key']
    const forward = request({ host: target.hostname, port: target.port, path: req.url, agent, headers: typeof key === 'string' ? { 'x-api-key': key } : {} }, (answer) => {
      const chunks: Buffer[] = []
      answer.on('data', (c: Buffer) => chunks.push(c))
      answer.on('end', () => {
        const body = Buffer.concat(chunks)
        res.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length }).end(body)
      })
    })
    forward.on('error', () => res.writeHead(502).end())
    forward.end()
  })
  server.keepAliveTimeout = 60_000
  server.listen(0, '127.0.0.1', () => {
    const address = server.address()
    process.stdout.write(`pronet listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`)
  })
  process.once('SIGTERM', () => server.close(() => process.exit(0)))
}

// --- a keep-alive client, one request at a time ---------------------------------------------

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

function get(agent: Agent, port: number, path: string, key: string): Promise<Answer> {
  return new Promise((resolvePromise, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent, headers: { 'x-api-key': key } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

// --- wrk -----------------------------------------------------------------------------------

interface WrkRun {
  rps: number
  responses: number
  non2xx: number
  socketErrors: number
  p50Ms: number
  p99Ms: number
  /** CPU the server process used per response (µs), all its threads, from /proc. */
  cpuUs: number | undefined
}

/** wrk, one thread (the other core is the server's), requests prebuilt and taken in turn. */
function wrk(s: Server, paths: string[], key: string, seconds: number): WrkRun {
  const cpuBefore = processCpuMs(s.child.pid)
  const out = runWrk({ url: s.base, paths, headers: { 'x-api-key': key }, seconds, connections: CONNECTIONS })
  const cpuAfter = processCpuMs(s.child.pid)
  const figures = wrkFigures(out)
  return {
    ...figures,
    cpuUs: cpuBefore !== undefined && cpuAfter !== undefined && figures.responses > 0 ? ((cpuAfter - cpuBefore) * 1000) / figures.responses : undefined,
  }
}

/** A 4 KiB append and fdatasync in `dir`, as each billing commit does before its response leaves. */
function measureFsync(dir: string): { median: number; p99: number } {
  const file = join(dir, 'bench-fsync.tmp')
  const fd = openSync(file, 'w')
  const block = Buffer.alloc(4096, 1)
  const samples: number[] = []
  try {
    for (let i = 0; i < FSYNC_SAMPLES; i++) {
      const t0 = performance.now()
      writeSync(fd, block)
      fdatasyncSync(fd)
      samples.push(performance.now() - t0)
    }
  } finally {
    closeSync(fd)
    rmSync(file, { force: true })
  }
  return { median: quantile(samples, 0.5), p99: quantile(samples, 0.99) }
}

// --- output ----------------------------------------------------------------------------------

const out = (line = '') => process.stdout.write(`${line}\n`)
const pad = (s: string, n: number) => s.padStart(n)
const padEnd = (s: string, n: number) => s.padEnd(n)
const int = (x: number) => Math.round(x).toLocaleString('en-US')
const median = (xs: number[]) => quantile(xs, 0.5)
const goal = (ok: boolean) => (ok ? 'MET ' : 'MISSED')

function codeState(): string {
  try {
    const head = execFileSync('git', ['-C', projectRoot, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['-C', projectRoot, 'status', '--porcelain', '--', 'src', 'bench'], { encoding: 'utf8' }).trim() !== ''
    return `${head}${dirty ? ' with uncommitted changes in src/ or bench/' : ''}`
  } catch {
    return 'unknown (no git)'
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'pronet-bench-live-'))
  const dirs = { upstream: join(work, 'upstream'), live: join(work, 'live'), only: join(work, 'only') }
  const liveFlags = CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${resolve(CPU_PROF)}`] : []
  if (CPU_PROF) mkdirSync(resolve(CPU_PROF), { recursive: true })
  const agents: Agent[] = []
  try {
    // --- the servers ---------------------------------------------------------------------------
    const t0 = performance.now()
    const upstream = await startServer('upstream (store mode)', dirs.upstream, { PRONET_SEED: String(PROFILES) })
    out(`upstream (store mode, PRONET_SEED=${PROFILES}) seeded and listening in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    const [storeKey, liveNodeKey, onlyNodeKey] = await Promise.all(['store-customer', 'live-node', 'only-node'].map((n) => account(upstream, n)))
    const liveEnv = (mode: string, key: string) => ({
      PRONET_SOURCE: mode,
      PRONET_SEED: 'none',
      PRONET_UPSTREAM_URL: upstream.base,
      PRONET_UPSTREAM_KEY: key,
      PRONET_UPSTREAM_RPS: String(RPS),
    })
    const [live, only] = await Promise.all([
      startServer('upstream mode', dirs.live, liveEnv('upstream', liveNodeKey as string), liveFlags),
      startServer('upstream-only mode', dirs.only, liveEnv('upstream-only', onlyNodeKey as string), liveFlags),
    ])
    const bareProxy = await startBareProxy(upstream)
    const liveKey = await account(live, 'customer')
    const onlyKey = await account(only, 'customer')
    const slugs = profileSlugs(PROFILES, PATHS)
    const paths = slugs.map((s) => `${PATH}?profileUrlOrUrn=${encodeURIComponent(s)}`)
    const agent = () => {
      const a = new Agent({ keepAlive: true, maxSockets: 1 })
      agents.push(a)
      return a
    }
    const upstreamAgent = agent()
    const liveAgent = agent()
    const onlyAgent = agent()
    const proxyAgent = agent()

    // --- the answers are the same everywhere; warm the cached node -------------------------------
    const bodies = new Map<string, string>()
    for (const p of paths) {
      const r = await get(upstreamAgent, upstream.port, p, storeKey as string)
      if (r.status !== 200) throw new Error(`upstream ${p}: ${r.status} ${r.body}`)
      bodies.set(p, r.body)
    }
    const liveCreditsAtStart = await creditsRemaining(upstream, liveNodeKey as string)
    for (const pass of ['upstream', 'cache'] as const) {
      for (const p of paths) {
        const r = await get(liveAgent, live.port, p, liveKey)
        if (r.status !== 200) throw new Error(`upstream-mode node ${p}: ${r.status} ${r.body}`)
        if (r.headers['x-data-source'] !== pass) throw new Error(`upstream-mode node ${p}: X-Data-Source ${String(r.headers['x-data-source'])}, expected ${pass}`)
        if (r.body !== bodies.get(p)) throw new Error(`upstream-mode node ${p}: the body differs from the upstream's`)
      }
    }
    const liveCreditsWarm = await creditsRemaining(upstream, liveNodeKey as string)
    const warmFetches = liveCreditsAtStart - liveCreditsWarm
    {
      const r = await get(onlyAgent, only.port, paths[0] as string, onlyKey)
      if (r.status !== 200 || r.headers['x-data-source'] !== 'upstream' || r.body !== bodies.get(paths[0] as string)) {
        throw new Error(`upstream-only node: ${r.status}, X-Data-Source ${String(r.headers['x-data-source'])}, body ${r.body === bodies.get(paths[0] as string) ? 'same' : 'different'}`)
      }
    }

    const fsync = measureFsync(dirs.live)
    out()
    out(`pronet live-source benchmark: GET ${PATH}, rotating over ${paths.length} profiles of a ${PROFILES}-profile network`)
    out(`machine: ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? '?'}), Node ${process.version}; code: ${codeState()}`)
    out(`servers' Node flags (npm start's): ${startScriptNodeFlags(projectRoot).join(' ') || 'none'}${CPU_PROF ? `; live nodes also ${liveFlags.join(' ')}` : ''}`)
    out(`load average before measuring: ${loadavg().map((x) => x.toFixed(2)).join(' ')} (other processes on this machine make every figure noisier)`)
    out(`fsync context: 4 KiB append + fdatasync in a data dir, ${FSYNC_SAMPLES}×: median ${fsync.median.toFixed(3)} ms, p99 ${fsync.p99.toFixed(3)} ms (each billed call waits for a commit's sync)`)
    out(
      `checked: every profile answers 200 upstream; the upstream-mode node fetched ${paths.length} (X-Data-Source: upstream, ${warmFetches} upstream credits)` +
        ` then answered each from cache, with the upstream's bytes; the upstream-only node answers X-Data-Source: upstream with the same bytes`,
    )

    // --- (1) throughput: cached upstream mode vs store mode -----------------------------------------
    const cases = [
      { name: 'store mode (the upstream)', server: upstream, key: storeKey as string, runs: [] as WrkRun[] },
      { name: 'upstream mode, cached', server: live, key: liveKey, runs: [] as WrkRun[] },
    ]
    let sampleChecks = 0
    const checkCached = async () => {
      for (let i = 0; i < SAMPLE; i++) {
        const p = paths[(i * 7) % paths.length] as string
        const r = await get(liveAgent, live.port, p, liveKey)
        if (r.status !== 200 || r.headers['x-data-source'] !== 'cache') throw new Error(`after a round, ${p} answered ${r.status} X-Data-Source ${String(r.headers['x-data-source'])}`)
        sampleChecks++
      }
    }
    // Warm-up (JIT, page cache, first WAL growth); not reported.
    for (const c of cases) wrk(c.server, paths, c.key, WARMUP_SECONDS)
    const order: string[] = []
    for (let round = 0; round < ROUNDS; round++) {
      // The order alternates each round, so drift of the machine does not favour one case.
      for (let k = 0; k < cases.length; k++) {
        const c = cases[(k + round) % cases.length]!
        c.runs.push(wrk(c.server, paths, c.key, SECONDS))
        order.push(c.name)
        if (c.server === live) await checkCached()
      }
    }
    const liveCreditsAfter = await creditsRemaining(upstream, liveNodeKey as string)
    const fetchedWhileMeasured = liveCreditsWarm - liveCreditsAfter

    out()
    out(`(1) Throughput: wrk -t1 -c${CONNECTIONS}, ${SECONDS} s per run after a ${WARMUP_SECONDS} s warm-up each, ${ROUNDS} rounds in alternating order (run order: ${order.map((n) => (n.startsWith('store') ? 'store' : 'cached')).join(', ')})`)
    out(`  ${padEnd('case', 28)}${cases[0]!.runs.map((_, i) => pad(`round ${i + 1}`, 10)).join('')}${pad('median', 10)}${pad('p50 (wrk)', 11)}${pad('p99 (wrk)', 11)}${pad('CPU/resp', 10)}${pad('non-2xx', 9)}${pad('sock err', 10)}`)
    for (const c of cases) {
      const cpu = c.runs.every((r) => r.cpuUs !== undefined) ? `${median(c.runs.map((r) => r.cpuUs as number)).toFixed(0)} µs` : '?'
      out(
        `  ${padEnd(c.name, 28)}${c.runs.map((r) => pad(int(r.rps), 10)).join('')}${pad(int(median(c.runs.map((r) => r.rps))), 10)}` +
          `${pad(`${median(c.runs.map((r) => r.p50Ms)).toFixed(2)} ms`, 11)}${pad(`${median(c.runs.map((r) => r.p99Ms)).toFixed(2)} ms`, 11)}${pad(cpu, 10)}` +
          `${pad(String(c.runs.reduce((s, r) => s + r.non2xx, 0)), 9)}${pad(String(c.runs.reduce((s, r) => s + r.socketErrors, 0)), 10)}`,
      )
    }
    const [store, cached] = cases as [(typeof cases)[0], (typeof cases)[0]]
    const perRound = store.runs.map((s, i) => (cached.runs[i] as WrkRun).rps / s.rps)
    out(`  ratio cached ÷ store per round: ${perRound.map((x) => x.toFixed(3)).join(' / ')}`)
    out(
      `  bench checks: ${sampleChecks} sampled calls after the cached rounds all answered 200 X-Data-Source: cache;` +
        ` upstream credits the cached node spent while measured: ${fetchedWhileMeasured} (0: every measured answer came from its cache)`,
    )
    const storeRps = median(store.runs.map((r) => r.rps))
    const cachedRps = median(cached.runs.map((r) => r.rps))
    const ratio = cachedRps / storeRps
    const non2xx = cases.reduce((s, c) => s + c.runs.reduce((t, r) => t + r.non2xx + r.socketErrors, 0), 0)

    // --- (2) latency: through an upstream-only node vs the upstream directly ---------------------
    const onlyCreditsBefore = await creditsRemaining(upstream, onlyNodeKey as string)
    interface Leg {
      name: string
      hop: Server | undefined
      agent: Agent
      key: string
      ms: number[]
      errors: number
      /** CPU (ms) over the measured blocks: the hop's process, and the upstream's. */
      hopCpuMs: number
      upstreamCpuMs: number
    }
    const leg = (name: string, hop: Server | undefined, legAgent: Agent, key: string): Leg => ({ name, hop, agent: legAgent, key, ms: [], errors: 0, hopCpuMs: 0, upstreamCpuMs: 0 })
    const direct = leg('upstream directly', undefined, upstreamAgent, storeKey as string)
    const bare = leg('through a bare node:http hop', bareProxy, proxyAgent, storeKey as string)
    const through = leg('through upstream-only node', only, onlyAgent, onlyKey)
    const legs = [direct, bare, through]
    let forwarded = 0
    const block = async (l: Leg, calls: number, from: number, record: boolean) => {
      const hopBefore = processCpuMs(l.hop?.child.pid)
      const upBefore = processCpuMs(upstream.child.pid)
      for (let i = 0; i < calls; i++) {
        const p = paths[(from + i) % paths.length] as string
        const t = performance.now()
        const r = await get(l.agent, (l.hop ?? upstream).port, p, l.key)
        const took = performance.now() - t
        if (l === through) forwarded++
        if (r.status !== 200 || (l === through && r.headers['x-data-source'] !== 'upstream')) l.errors++
        if (record) l.ms.push(took)
      }
      const hopAfter = processCpuMs(l.hop?.child.pid)
      const upAfter = processCpuMs(upstream.child.pid)
      if (record && hopBefore !== undefined && hopAfter !== undefined) l.hopCpuMs += hopAfter - hopBefore
      if (record && upBefore !== undefined && upAfter !== undefined) l.upstreamCpuMs += upAfter - upBefore
    }
    for (let i = 0; i < LATENCY_WARMUP_CALLS; i += 50) for (const l of legs) await block(l, 50, i, false)
    const blocks = Math.ceil(LATENCY_CALLS / LATENCY_BLOCK)
    for (let b = 0; b < blocks; b++) {
      const calls = Math.min(LATENCY_BLOCK, LATENCY_CALLS - b * LATENCY_BLOCK)
      // The order rotates each block, so drift of the machine does not favour one leg.
      for (let k = 0; k < legs.length; k++) await block(legs[(k + b) % legs.length]!, calls, b * LATENCY_BLOCK, true)
    }
    const onlyCreditsAfter = await creditsRemaining(upstream, onlyNodeKey as string)
    const ms3 = (x: number) => `${x.toFixed(3)} ms`
    const perCallUs = (cpuMs: number, l: Leg) => `${((cpuMs * 1000) / l.ms.length).toFixed(0)} µs`
    out()
    out(`(2) Latency, sequential keep-alive GETs from this process: ${LATENCY_CALLS} each in ${blocks} blocks of ${LATENCY_BLOCK} in rotating order, after ${LATENCY_WARMUP_CALLS} warm-up calls each`)
    out(`  ${padEnd('case', 30)}${pad('p50', 10)}${pad('p90', 10)}${pad('p99', 11)}${pad('max', 10)}${pad('mean', 10)}${pad('+p50', 10)}${pad('errors', 8)}${pad('CPU/call: hop', 15)}${pad('upstream', 10)}`)
    const p50Direct = quantile(direct.ms, 0.5)
    for (const l of legs) {
      const mean = l.ms.reduce((sum, x) => sum + x, 0) / l.ms.length
      out(
        `  ${padEnd(l.name, 30)}${pad(ms3(quantile(l.ms, 0.5)), 10)}${pad(ms3(quantile(l.ms, 0.9)), 10)}${pad(ms3(quantile(l.ms, 0.99)), 11)}` +
          `${pad(`${Math.max(...l.ms).toFixed(2)} ms`, 10)}${pad(ms3(mean), 10)}${pad(ms3(quantile(l.ms, 0.5) - p50Direct), 10)}${pad(String(l.errors), 8)}` +
          `${pad(l.hop ? perCallUs(l.hopCpuMs, l) : '–', 15)}${pad(perCallUs(l.upstreamCpuMs, l), 10)}`,
      )
    }
    const addedP50 = quantile(through.ms, 0.5) - p50Direct
    const hopP50 = quantile(bare.ms, 0.5) - p50Direct
    out(
      `  added by the upstream-only node: p50 ${ms3(addedP50)}, p90 ${ms3(quantile(through.ms, 0.9) - quantile(direct.ms, 0.9))}, p99 ${ms3(quantile(through.ms, 0.99) - quantile(direct.ms, 0.99))};` +
        ` at p50 a bare forwarding hop accounts for ${ms3(hopP50)} of it, the node's own work for ${ms3(addedP50 - hopP50)}`,
    )
    out(`  bench check: calls forwarded ${int(forwarded)}, upstream credits the upstream-only node spent ${int(onlyCreditsBefore - onlyCreditsAfter)} (one each: every call went upstream)`)

    // --- goals -------------------------------------------------------------------------------------
    out()
    out('Goals')
    out(`  ${goal(ratio >= GOALS.throughputRatio)}  cached upstream-mode ÷ store-mode throughput ≥ ${GOALS.throughputRatio}: ${ratio.toFixed(3)} (${int(cachedRps)} / ${int(storeRps)} req/s, medians)`)
    out(`  ${goal(addedP50 <= GOALS.addedP50Ms)}  p50 added by an upstream-only node ≤ ${GOALS.addedP50Ms} ms: ${addedP50.toFixed(3)} ms (${quantile(through.ms, 0.5).toFixed(3)} − ${quantile(direct.ms, 0.5).toFixed(3)} ms)`)
    const latencyErrors = legs.reduce((sum, l) => sum + l.errors, 0)
    const clean = non2xx === 0 && fetchedWhileMeasured === 0 && latencyErrors === 0 && onlyCreditsBefore - onlyCreditsAfter === forwarded
    out(`  bench checks ${clean ? 'OK' : 'FAILED'}: non-2xx and socket errors under wrk ${non2xx}; upstream fetches while cached ${fetchedWhileMeasured}; latency errors ${latencyErrors}`)
    out(`load average after measuring: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`)
  } finally {
    for (const a of agents) a.destroy()
    await stopAll()
    rmSync(work, { recursive: true, force: true })
    if (CPU_PROF) out(`CPU profiles of the live nodes: ${resolve(CPU_PROF)}`)
  }
}

if (process.env.BENCH_ROLE === 'bare-proxy') serveBareProxy()
else {
  // An interrupted run still stops its servers.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const child of children) child.kill('SIGTERM')
      process.exit(130)
    })
  }
  await main()
  process.exit(0)
}
