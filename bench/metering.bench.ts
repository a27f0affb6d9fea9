/**
 * What metering costs on GET /api/v1/profile, measured in one run against two baselines:
 *   - the same server with metering off (buildApp(c, { metering: false }): authentication only), and
 *   - a bare node:http server sending the same bytes.
 *
 * (a) Throughput: wrk (one thread, 50 connections) rotating over ~200 members, every case run
 *     BENCH_ROUNDS times in alternating order; medians are compared.
 * (b) Latency: p50/p99 of metered and unmetered at a constant request rate of half the metered
 *     peak. The rate is kept by an open-loop generator in this file (requests leave at fixed
 *     instants whatever the server does; latency counts from the instant a request was due, so a
 *     stall is not hidden). autocannon's `overallRate` is not used: it sends each second's quota as
 *     fast as it can and then waits (a burst per second, not a constant rate), and records latency
 *     in whole milliseconds, too coarse for a 0.5 ms goal.
 * Every settle is fsynced (SQLite WAL, synchronous=FULL, group commit) before its response leaves,
 * so the run also measures the data dir's fdatasync latency.
 * Beside (a), the server processes' CPU per response is read from /proc (event-loop thread, and all
 * other threads: the commit worker); beside (b), the metered server's own group-commit histogram
 * (pronet_ledger_commit_seconds) over the latency runs.
 *
 * Each server runs in its own child process (this file with `--serve <kind>`) on its own copy of
 * one seeded data dir. The metered account is a custom plan that never meets a 402 or a 429; after
 * the run its balance must have dropped by the number of 200 responses (a check of the bench).
 * When a goal is missed, both servers are CPU-profiled under wrk (inspector sampling) and the hint
 * of where the metered time goes is printed. Goals are reported, not asserted: the exit code is 0.
 *
 *   npm run bench:metering
 *   BENCH_SECONDS=8 BENCH_ROUNDS=3 BENCH_LATENCY_SECONDS=8 BENCH_CONNECTIONS=50 npm run bench:metering
 *   BENCH_PROFILE=1 (always profile) | 0 (never) | auto (default: when a goal is missed)
 *   BENCH_FLOOR_WORK_US=5,10,15,20 (default): (c) runs bare node:http spinning each of these µs per
 *   request, and plain Fastify, beside bare: how much own work per request this machine allows at
 *   half of bare (machine-floor.ts; empty or 0 skips it)
 *   BENCH_SATURATION_CONNECTIONS=256 (default): (a′) runs every case again at this many connections,
 *   enough to keep each event loop busy, and reports what each server serves at most (0 skips it)
 *   BENCH_COMMIT_IN_WORKER=1 | 0: the metered server commits on the commit worker thread | on its
 *   event-loop thread (to compare the two); unset: where the server would (PRONET_COMMIT_WORKER=auto:
 *   the worker only with more than two CPUs)
 */
import autocannon from 'autocannon'
import { median, membersWithPosts, runWrk, startScriptNodeFlags, wrkFigures } from './bench-helpers.ts'
import { floorWork, runFloor, serveFloor, type FloorKind } from './machine-floor.ts'
import { keepTickObjectShape } from '../src/runtime/tick-object-shape.ts'
import { execFileSync, fork, type ChildProcess } from 'node:child_process'
import { closeSync, copyFileSync, existsSync, fdatasyncSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const LATENCY_SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 8)
const LATENCY_WARMUP_SECONDS = 1
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
/** (a′): the same cases at this many connections, enough to keep each server's event loop busy; 0 skips it. */
const SATURATION_CONNECTIONS = Number(process.env.BENCH_SATURATION_CONNECTIONS ?? 256)
const SIZE = process.env.BENCH_SEED ?? 'small'
const PROFILE = process.env.BENCH_PROFILE ?? 'auto'
const PROFILE_SECONDS = 5
const FSYNC_SAMPLES = 200
const ANCHOR = Date.UTC(2026, 10, 1)
const PATH = '/api/v1/profile'
const GOALS = { vsUnmetered: 0.85, vsBare: 0.5, addedP99Ms: 0.5 }
const self = fileURLToPath(import.meta.url)
/** The folder holding src/ and bench/ as they run (dist/ when built). */
const runRoot = join(dirname(self), '..')
/** The project folder (package.json, .git) whether the bench runs from dist/ or from source. */
const projectRoot = join(runRoot, runRoot.endsWith('dist') ? '..' : '.')

type Kind = 'seed' | 'metered' | 'unmetered' | FloorKind

/** BENCH_COMMIT_IN_WORKER=1 | 0 as the container's override (unset: none, the server's own rule). */
function commitOverride(): { commitInWorker?: boolean } {
  const forced = process.env.BENCH_COMMIT_IN_WORKER
  return forced === '0' || forced === '1' ? { commitInWorker: forced === '1' } : {}
}

/** Where the metered server commits, by the container's own rule (commitsInWorker) and why. */
async function commitPlacement(): Promise<string> {
  const { loadConfig } = await import('../src/config/config.ts')
  const { commitsInWorker } = await import('../src/container.ts')
  const config = loadConfig(process.env)
  const overrides = commitOverride()
  const where = commitsInWorker(config, overrides) ? 'worker thread' : 'event-loop thread'
  const why =
    overrides.commitInWorker !== undefined
      ? `BENCH_COMMIT_IN_WORKER=${process.env.BENCH_COMMIT_IN_WORKER}`
      : `PRONET_COMMIT_WORKER=${config.commitWorker}, ${availableParallelism()} CPUs`
  return `${where} (${why})`
}

interface Ready {
  port: number
  key?: string
  accountId?: string
  creditsRemaining?: number
  /** Seed child only: slugs of members who author posts (the subjects of the rotation). */
  slugs?: string[]
}

interface ProfileSummary {
  /** Sampled main-thread milliseconds, idle included. */
  totalMs: number
  idleMs: number
  areas: { area: string; ms: number }[]
  self: { fn: string; ms: number }[]
  inclusive: { fn: string; ms: number }[]
  /** Self time with library, Node and native frames folded into their nearest pronet caller. */
  folded: { fn: string; ms: number }[]
}

// ---------------------------------------------------------------------------------------------
// Children
// ---------------------------------------------------------------------------------------------

async function serveChild(kind: Kind): Promise<void> {
  // As serve() does for `npm start`; every server here, bare ones included, so they compare like for
  // like. BENCH_TICK_SHAPE=0 leaves it out, to measure what it saves.
  if (process.env.BENCH_TICK_SHAPE !== '0') await keepTickObjectShape()
  if (kind === 'bare' || kind === 'framework' || kind === 'headers') return serveBare(kind)
  const { loadConfig } = await import('../src/config/config.ts')
  const { createContainer } = await import('../src/container.ts')
  const { prepareStore } = await import('../src/startup.ts')
  const { seedSynthetic } = await import('../src/seed.ts')
  const dataDir = process.env.BENCH_DATA_DIR as string
  const config = loadConfig({ ...process.env, PRONET_DATA_DIR: dataDir, PRONET_SEED: SIZE, LOG_LEVEL: 'warn', PORT: '0' })
  const c = await createContainer(config, commitOverride())
  await prepareStore(c, (cc, size, log) => seedSynthetic(cc, size, log, { anchorMs: ANCHOR }), () => {})

  if (kind === 'seed') {
    const slugs = membersWithPosts(SIZE, ANCHOR, 200)
    // Closing the last connection checkpoints the WAL into pronet.db, so the file can be copied.
    await c.close()
    process.send?.({ port: 0, slugs } satisfies Ready, () => process.exit(0))
    return
  }

  const { buildApp } = await import('../src/app.ts')
  // Never a 402 nor a 429 during the run: a billion credits and a million calls per second.
  const created = await c.accounts.create({ name: 'bench', plan: 'custom', creditsLimit: 1_000_000_000, rpsLimit: 1_000_000 })
  const accountId = created.account.id
  const { creditsRemaining } = await c.metering.subscription(accountId)
  servingMetrics = c.metrics
  const app = await buildApp(c, { metering: kind === 'metered' })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  process.on('message', (msg: { cmd: string }) => void onCommand(msg.cmd))
  process.send?.({
    port: typeof address === 'object' && address ? address.port : 0,
    key: created.apiKey.key,
    accountId,
    creditsRemaining,
  } satisfies Ready)
}

/**
 * Bare node:http with the bodies the parent fetched from pronet: the ceiling of this machine. The
 * floor section's servers (bare spinning BENCH_WORK_US per request, bare with the API's headers,
 * plain Fastify) serve the same way.
 */
async function serveBare(kind: FloorKind): Promise<void> {
  const given = JSON.parse(readFileSync(process.env.BENCH_BODIES as string, 'utf8')) as Record<string, string>
  const bodies = new Map(Object.entries(given).map(([path, body]) => [path, Buffer.from(body)]))
  const headers = process.env.BENCH_HEADERS ? (JSON.parse(readFileSync(process.env.BENCH_HEADERS, 'utf8')) as Record<string, string>) : {}
  const port = await serveFloor(kind, { bodies, workUs: Number(process.env.BENCH_WORK_US ?? 0), path: PATH, headers })
  process.on('message', (msg: { cmd: string }) => void onCommand(msg.cmd))
  process.send?.({ port } satisfies Ready)
}

// --- CPU profile of a server child, driven by the parent over IPC -----------------------------

let profiler: import('node:inspector/promises').Session | undefined

/** The serving container's metrics, for the group-commit figures (metered and unmetered servers). */
let servingMetrics: { getSingleMetric(name: string): unknown } | undefined

/** A cumulative snapshot of a prom-client histogram: count, sum and the count at or below each bucket bound. */
interface HistogramSnapshot {
  count: number
  sum: number
  buckets: { le: number; n: number }[]
}

async function histogram(name: string): Promise<HistogramSnapshot | null> {
  const metric = servingMetrics?.getSingleMetric(name) as { get(): Promise<{ values: { metricName?: string; labels: { le?: number | string }; value: number }[] }> } | undefined
  if (!metric) return null
  const { values } = await metric.get()
  const of = (suffix: string) => values.filter((v) => v.metricName === `${name}${suffix}`)
  return {
    count: of('_count')[0]?.value ?? 0,
    sum: of('_sum')[0]?.value ?? 0,
    buckets: of('_bucket').map((v) => ({ le: v.labels.le === '+Inf' ? Infinity : Number(v.labels.le), n: v.value })),
  }
}

/** The serving event loop's delays (1 ms resolution), read and restarted around each latency run. */
const loopDelay = monitorEventLoopDelay({ resolution: 1 })

async function onCommand(cmd: string): Promise<void> {
  const { Session } = await import('node:inspector/promises')
  if (cmd === 'loop-delay-reset') {
    loopDelay.reset()
    loopDelay.enable()
    process.send?.({ reply: cmd })
  } else if (cmd === 'loop-delay') {
    loopDelay.disable()
    const msOf = (ns: number) => ns / 1e6
    process.send?.({ reply: cmd, p50: msOf(loopDelay.percentile(50)), p99: msOf(loopDelay.percentile(99)), max: msOf(loopDelay.max) })
  } else if (cmd === 'commits') {
    process.send?.({ reply: 'commits', seconds: await histogram('pronet_ledger_commit_seconds'), jobs: await histogram('pronet_ledger_commit_jobs') })
  } else if (cmd === 'profile-start') {
    profiler = new Session()
    profiler.connect()
    await profiler.post('Profiler.enable')
    await profiler.post('Profiler.setSamplingInterval', { interval: 100 })
    await profiler.post('Profiler.start')
    process.send?.({ reply: 'profile-start' })
  } else if (cmd === 'profile-stop' && profiler) {
    const { profile } = (await profiler.post('Profiler.stop')) as { profile: CpuProfile }
    profiler.disconnect()
    profiler = undefined
    process.send?.({ reply: 'profile-stop', summary: summariseProfile(profile) })
  }
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[]
  samples: number[]
  timeDeltas: number[]
}

/** Self time by function and by area, and inclusive time of pronet's own functions. */
function summariseProfile(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id)
  const where = (url: string): string => {
    if (url === '') return ''
    if (url.startsWith('node:')) return 'node:internal'
    const path = url.startsWith('file://') ? fileURLToPath(url) : url
    const nm = path.lastIndexOf('node_modules/')
    if (nm >= 0) {
      const rest = path.slice(nm + 'node_modules/'.length).split('/')
      return `npm:${rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`
    }
    return relative(runRoot, path).replace(/\.(js|ts)$/, '')
  }
  const fnKey = (id: number): string => {
    const f = byId.get(id)?.callFrame
    if (!f) return '?'
    const place = where(f.url)
    return place === '' ? f.functionName || '(anonymous native)' : `${f.functionName || '(anonymous)'} ${place}:${f.lineNumber + 1}`
  }
  /** A node's area; native frames take their caller's, marked native. */
  const areaOf = (id: number): string => {
    const f = byId.get(id)?.callFrame
    if (!f) return '?'
    if (f.url === '' && /^\(.*\)$/.test(f.functionName)) return f.functionName
    if (f.url === '') {
      let p = parent.get(id)
      while (p !== undefined && byId.get(p)?.callFrame.url === '') p = parent.get(p)
      const callerPlace = p === undefined ? '?' : where(byId.get(p)?.callFrame.url ?? '')
      return `native code called from ${callerPlace}`
    }
    const place = where(f.url)
    return place
  }
  const selfMs = new Map<string, number>()
  const areaMs = new Map<string, number>()
  const inclusiveMs = new Map<string, number>()
  const foldedMs = new Map<string, number>()
  let totalMs = 0
  let idleMs = 0
  const n = profile.samples.length
  for (let i = 0; i < n; i++) {
    const id = profile.samples[i] as number
    // The delta before the next sample is the time this sample stands for.
    const ms = (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000
    totalMs += ms
    const f = byId.get(id)?.callFrame
    if (f?.functionName === '(idle)') {
      idleMs += ms
      continue
    }
    const key = fnKey(id)
    selfMs.set(key, (selfMs.get(key) ?? 0) + ms)
    const area = areaOf(id)
    areaMs.set(area, (areaMs.get(area) ?? 0) + ms)
    const seen = new Set<string>()
    let folded: string | undefined
    for (let p: number | undefined = id; p !== undefined; p = parent.get(p)) {
      const frame = byId.get(p)?.callFrame
      if (!frame || !where(frame.url).startsWith('src/')) continue
      const k = fnKey(p)
      folded ??= k
      if (seen.has(k)) continue
      seen.add(k)
      inclusiveMs.set(k, (inclusiveMs.get(k) ?? 0) + ms)
    }
    const foldKey = folded ?? `(no pronet caller) ${area}`
    foldedMs.set(foldKey, (foldedMs.get(foldKey) ?? 0) + ms)
  }
  const top = (m: Map<string, number>, count: number, key: 'fn' | 'area') =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([k, ms]) => ({ [key]: k, ms }))
  return {
    totalMs,
    idleMs,
    areas: top(areaMs, 30, 'area') as ProfileSummary['areas'],
    self: top(selfMs, 60, 'fn') as ProfileSummary['self'],
    inclusive: top(inclusiveMs, 40, 'fn') as ProfileSummary['inclusive'],
    folded: top(foldedMs, 40, 'fn') as ProfileSummary['folded'],
  }
}

// ---------------------------------------------------------------------------------------------
// Parent: process management
// ---------------------------------------------------------------------------------------------

/**
 * The Node flags `npm start` gives the server, so every server here runs as it does in production; the
 * bare node:http server gets them too, for a like-for-like baseline.
 */
const startScriptFlags = () => startScriptNodeFlags(projectRoot)

function start(kind: Kind, env: Record<string, string> = {}): Promise<{ child: ChildProcess; ready: Ready }> {
  const child = fork(self, ['--serve', kind], {
    env: { ...process.env, ...env },
    execArgv: [...process.execArgv, ...startScriptFlags()],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${kind} child exited with ${code} before it was ready`))
    child.once('exit', onExit)
    child.once('message', (ready: Ready) => {
      child.off('exit', onExit)
      resolve({ child, ready })
    })
  })
}

function ask<T>(child: ChildProcess, cmd: string): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (msg: { reply?: string }) => {
      if (msg.reply !== cmd) return
      child.off('message', onMessage)
      resolve(msg as T)
    }
    child.on('message', onMessage)
    child.send({ cmd })
  })
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())))
}

// ---------------------------------------------------------------------------------------------
// Parent: load
// ---------------------------------------------------------------------------------------------

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

interface Saturated {
  rps: number
  /** CPU of the server's threads per response (µs): its event-loop thread, and all its other threads together. */
  cpu?: { mainUs: number; othersUs: number; mainBusy: number; faults: number }
  p99: number
  /** Responses read by the load generator, and how many of them were not 2xx/3xx. */
  responses: number
  non2xx: number
  socketErrors: number
}

/** wrk, one thread (the other core is the server's), requests prebuilt and taken in turn. */
function loadWithWrk(port: number, paths: string[], headers: Record<string, string>, seconds: number, connections: number): Saturated {
  const { rps, p99Ms, responses, non2xx, socketErrors } = wrkFigures(runWrk({ url: `http://127.0.0.1:${port}`, paths, headers, seconds, connections }))
  return { rps, p99: p99Ms, responses, non2xx, socketErrors }
}

/**
 * CPU time (ms) a process's threads have used, from /proc (Linux): its event-loop thread (the task
 * whose id is the pid) and every other thread together (the commit worker, libuv's pool, V8's GC
 * helpers). null where /proc is not there.
 */
function threadCpuMs(pid: number): { main: number; others: number; faults: number } | null {
  const TICK_MS = 10 // USER_HZ = 100 on Linux
  try {
    let main = 0
    let others = 0
    let faults = 0
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      // Fields after the command (which may hold spaces) start after its closing parenthesis.
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const ms = (Number(fields[11]) + Number(fields[12])) * TICK_MS // utime, stime
      faults += Number(fields[7]) // minflt: first touches of fresh memory, each costly on a VM
      if (tid === String(pid)) main += ms
      else others += ms
    }
    return { main, others, faults }
  } catch {
    return null
  }
}

async function saturate(port: number, paths: string[], headers: Record<string, string>, seconds = SECONDS, pid?: number, connections = CONNECTIONS): Promise<Saturated> {
  const before = pid === undefined ? null : threadCpuMs(pid)
  const started = performance.now()
  const result = await saturateOnce(port, paths, headers, seconds, connections)
  const after = pid === undefined ? null : threadCpuMs(pid)
  if (before && after && result.responses > 0) {
    result.cpu = {
      mainUs: ((after.main - before.main) * 1000) / result.responses,
      othersUs: ((after.others - before.others) * 1000) / result.responses,
      mainBusy: (after.main - before.main) / (performance.now() - started),
      faults: (after.faults - before.faults) / result.responses,
    }
  }
  return result
}

async function saturateOnce(port: number, paths: string[], headers: Record<string, string>, seconds: number, connections: number): Promise<Saturated> {
  if (TOOL === 'wrk') return loadWithWrk(port, paths, headers, seconds, connections)
  let next = 0
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: seconds,
    requests: [{ method: 'GET', headers, setupRequest: (req: { path: string }) => ({ ...req, path: paths[next++ % paths.length] as string }) }],
  } as autocannon.Options)
  return { rps: result.requests.average, p99: result.latency.p99, responses: result.requests.total, non2xx: result.non2xx, socketErrors: result.errors }
}

interface Paced {
  rate: number
  /** Requests whose due instant fell in the measured window (after the warm-up). */
  measured: number
  achievedRps: number
  /** From the instant each request was due (open loop). */
  latencyMs: Float64Array
  /** From the instant each request was written (service time as the client saw it). */
  serviceMs: Float64Array
  responses: number
  non2xx: number
  errors: number
  /** Requests written more than 0.1 ms after they were due (generator or all connections busy). */
  late: number
}

/** Response bytes are read into this one buffer (net's `onread`), consumed before the next read. */
const READ_BUFFER = Buffer.allocUnsafe(256 * 1024)
const HEADER_END = Buffer.from('\r\n\r\n')
const EMPTY = Buffer.alloc(0)
const CONTENT_LENGTH = [Buffer.from('\r\ncontent-length:'), Buffer.from('\r\nContent-Length:')]
/** V8's collector, to start each measured run from a clean heap (the generator's own pauses count as latency). */
const collectGarbage = (() => {
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc') as () => void
})()

/**
 * Open-loop constant rate over keep-alive connections: request i is due at t0 + i/rate and leaves on
 * an idle connection as soon as it is due (the loop spins on setImmediate, so "as soon" is a few
 * microseconds); responses are framed by Content-Length. Only requests due after the warm-up count.
 *
 * The generator allocates next to nothing per response, so that its own garbage collection does not
 * add to the latencies it measures: every socket reads into one reused buffer (net's `onread`; a
 * 'data' event would allocate a fresh ~10 KB Buffer per response) and the status and Content-Length
 * are read from the bytes. With 'data' events and a string parse per response, the generator's
 * pauses over one short bench (--trace-gc) had a p99 of 1.55 ms and reached 22 ms (memory-reducing
 * mark-compacts driven by those buffers), delaying whichever server's run they fell in; reading this
 * way, p99 0.27 ms, and no mark-compact inside a run but the one forced before it.
 */
export async function paced(port: number, paths: string[], headers: Record<string, string>, rate: number, seconds: number, warmup: number): Promise<Paced> {
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')
  const requests = paths.map((p) => Buffer.from(`GET ${p} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${extra}\r\n`, 'latin1'))
  const total = Math.round(rate * (seconds + warmup))
  const interval = 1000 / rate
  const latency = new Float64Array(total)
  const service = new Float64Array(total)
  const measuredFrom = Math.round(rate * warmup)
  let responses = 0
  let non2xx = 0
  let errors = 0
  let late = 0

  interface Conn {
    socket: Socket
    busy: boolean
    index: number
    due: number
    sent: number
    /** Head bytes of a response whose header block spans reads (rare); empty otherwise. */
    partial: Buffer
    /** Body bytes still to come of the response being read; -1 while its header block is incomplete. */
    left: number
    status: number
  }
  const idle: Conn[] = []
  const conns: Conn[] = []

  function finished(conn: Conn, now: number): void {
    // One response complete (no pipelining, so nothing may follow it).
    responses++
    if (conn.status < 200 || conn.status > 399) non2xx++
    latency[conn.index] = now - conn.due
    service[conn.index] = now - conn.sent
    conn.left = -1
    conn.busy = false
    inflight--
    idle.push(conn)
  }

  /** Reads a decimal number from `b` at `at`, skipping spaces. */
  function decimalAt(b: Buffer, at: number, end: number): number {
    while (at < end && b[at] === 0x20) at++
    let n = 0
    for (; at < end; at++) {
      const c = b[at] as number
      if (c < 0x30 || c > 0x39) break
      n = n * 10 + (c - 0x30)
    }
    return n
  }

  function onBytes(conn: Conn, buf: Buffer, n: number): void {
    const now = performance.now()
    if (conn.left >= 0) {
      conn.left -= n
      if (conn.left <= 0) finished(conn, now)
      return
    }
    let head = buf
    let length = n
    if (conn.partial.length > 0) {
      head = Buffer.concat([conn.partial, buf.subarray(0, n)])
      length = head.length
    }
    const end = head.indexOf(HEADER_END)
    if (end < 0 || end >= length) {
      conn.partial = Buffer.from(head.subarray(0, length))
      return
    }
    conn.partial = EMPTY
    conn.status = decimalAt(head, 9, 12)
    let bodyLength = 0
    for (const name of CONTENT_LENGTH) {
      const at = head.indexOf(name)
      if (at >= 0 && at < end) {
        bodyLength = decimalAt(head, at + name.length, end)
        break
      }
    }
    conn.left = bodyLength - (length - (end + 4))
    if (conn.left <= 0) finished(conn, now)
  }

  const connectOne = () =>
    new Promise<Conn>((resolve, reject) => {
      const conn = { busy: false, index: -1, due: 0, sent: 0, partial: EMPTY, left: -1, status: 0 } as Conn
      conn.socket = connect({
        port,
        host: '127.0.0.1',
        noDelay: true,
        onread: {
          buffer: READ_BUFFER,
          callback: (n: number, buf: Uint8Array) => {
            onBytes(conn, buf as Buffer, n)
            return true
          },
        },
      })
      conn.socket.once('connect', () => resolve(conn))
      conn.socket.once('error', reject)
    })
  for (let i = 0; i < Math.min(CONNECTIONS, total); i++) conns.push(await connectOne())

  let inflight = 0
  let next = 0
  let finish: () => void = () => {}
  const done = new Promise<void>((resolve) => (finish = resolve))

  for (const conn of conns) {
    idle.push(conn)
    conn.socket.on('error', () => {})
    conn.socket.on('close', () => {
      if (conn.busy) {
        errors++
        conn.busy = false
        inflight--
      }
      const at = idle.indexOf(conn)
      if (at >= 0) idle.splice(at, 1)
    })
  }

  collectGarbage()
  const t0 = performance.now() + 5
  const tick = () => {
    const now = performance.now()
    while (next < total) {
      const due = t0 + next * interval
      if (due > now) break
      const conn = idle.pop()
      if (!conn) break
      conn.busy = true
      conn.index = next
      conn.due = due
      conn.sent = performance.now()
      if (conn.sent - due > 0.1) late++
      inflight++
      conn.socket.write(requests[next % requests.length] as Buffer)
      next++
    }
    if (next >= total && inflight === 0) finish()
    else if (now - t0 > (seconds + warmup) * 1000 + 30_000) {
      errors += total - next + inflight
      finish()
    } else setImmediate(tick)
  }
  setImmediate(tick)
  await done
  const elapsed = performance.now() - t0
  for (const conn of conns) conn.socket.destroy()
  const measured = latency.subarray(measuredFrom, next).slice().sort()
  const measuredService = service.subarray(measuredFrom, next).slice().sort()
  return {
    rate,
    measured: measured.length,
    achievedRps: (responses * 1000) / elapsed,
    latencyMs: measured,
    serviceMs: measuredService,
    responses,
    non2xx,
    errors,
    late,
  }
}

// ---------------------------------------------------------------------------------------------
// Parent: figures
// ---------------------------------------------------------------------------------------------

const percentile = (sorted: Float64Array, q: number): number => (sorted.length === 0 ? NaN : (sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number))
const int = (x: number): string => Math.round(x).toLocaleString('en-US')
const ms = (x: number, digits = 2): string => `${x.toFixed(digits)} ms`
const pad = (s: string, n: number): string => s.padStart(n)
const padEnd = (s: string, n: number): string => s.padEnd(n)

/** 4 KiB appended and fdatasync'ed, as the WAL is at every commit under synchronous=FULL. */
function measureFsync(dir: string): { median: number; p99: number; max: number } {
  const file = join(dir, 'fsync-probe.bin')
  const fd = openSync(file, 'w')
  const block = Buffer.alloc(4096, 7)
  const times = new Float64Array(FSYNC_SAMPLES)
  try {
    for (let i = 0; i < FSYNC_SAMPLES; i++) {
      writeSync(fd, block)
      const t = performance.now()
      fdatasyncSync(fd)
      times[i] = performance.now() - t
    }
  } finally {
    closeSync(fd)
    rmSync(file, { force: true })
  }
  times.sort()
  return { median: percentile(times, 0.5), p99: percentile(times, 0.99), max: times[times.length - 1] as number }
}

/** HEAD and whether src/ or migrations/ differ from it: the figures are of the tree as built. */
function codeState(): string {
  try {
    const cwd = projectRoot
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd, encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'migrations'], { cwd, encoding: 'utf8' }).split('\n').filter(Boolean).length
    return `${head}${dirty > 0 ? ` + ${dirty} uncommitted change(s) in src/ or migrations/` : ' (clean src/ and migrations/)'}`
  } catch {
    return 'unknown (no git)'
  }
}

async function getJson(base: string, path: string, headers: Record<string, string>): Promise<Record<string, unknown>> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(base + path, { headers })
    // The account endpoints answer once per second per account.
    if (res.status === 429 && attempt < 5) {
      await new Promise((r) => setTimeout(r, 1100))
      continue
    }
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as Record<string, unknown>
  }
}

// ---------------------------------------------------------------------------------------------
// Parent: the run
// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'pronet-metering-bench-'))
  const children: ChildProcess[] = []
  const out = (s = '') => process.stdout.write(`${s}\n`)
  try {
    // --- one seeded store, copied per server --------------------------------------------------
    const seedDir = join(work, 'seed')
    const t = performance.now()
    out(`seeding a ${SIZE} synthetic network once (${seedDir})…`)
    const seed = await start('seed', { BENCH_DATA_DIR: seedDir })
    await exited(seed.child)
    const slugs = seed.ready.slugs ?? []
    if (slugs.length === 0) throw new Error('the seed found no members with posts to measure')
    out(`seeded in ${((performance.now() - t) / 1000).toFixed(1)} s; copying pronet.db to each server's data dir`)
    const dirs = { metered: join(work, 'metered'), unmetered: join(work, 'unmetered') }
    for (const dir of Object.values(dirs)) {
      mkdirSync(dir)
      for (const f of ['pronet.db', 'pronet.db-wal', 'pronet.db-shm', 'secret']) {
        if (existsSync(join(seedDir, f))) copyFileSync(join(seedDir, f), join(dir, f))
      }
    }
    rmSync(seedDir, { recursive: true, force: true })

    const metered = await start('metered', { BENCH_DATA_DIR: dirs.metered })
    children.push(metered.child)
    const unmetered = await start('unmetered', { BENCH_DATA_DIR: dirs.unmetered })
    children.push(unmetered.child)
    const paths = slugs.map((s) => `${PATH}?profileUrlOrUrn=${encodeURIComponent(s)}`)
    const meteredHeaders = { 'x-api-key': metered.ready.key as string }
    const unmeteredHeaders = { 'x-api-key': unmetered.ready.key as string }
    const meteredBase = `http://127.0.0.1:${metered.ready.port}`
    const unmeteredBase = `http://127.0.0.1:${unmetered.ready.port}`

    // The bare server's bodies come from the unmetered server (nothing billed).
    const bodies: Record<string, string> = {}
    for (const p of paths) {
      const res = await fetch(unmeteredBase + p, { headers: unmeteredHeaders })
      if (res.status !== 200) throw new Error(`unmetered ${p}: ${res.status} ${await res.text()}`)
      if (res.headers.has('x-credits-charged')) throw new Error('the unmetered server sent x-credits-charged: it is metering')
      bodies[p] = await res.text()
    }
    const bodiesFile = join(work, 'bodies.json')
    writeFileSync(bodiesFile, JSON.stringify(bodies))
    const bare = await start('bare', { BENCH_BODIES: bodiesFile })
    children.push(bare.child)

    // --- the metered route really meters ------------------------------------------------------
    let clientOk = 0
    /** The metered answer's own headers (what Node adds itself left out), for the floor's bare server that sends them too. */
    const apiHeadersFile = join(work, 'headers.json')
    {
      const p = paths[0] as string
      const res = await fetch(meteredBase + p, { headers: meteredHeaders })
      const body = await res.text()
      if (res.status !== 200) throw new Error(`metered ${p}: ${res.status} ${body}`)
      clientOk++
      const charged = res.headers.get('x-credits-charged')
      if (charged !== '1') throw new Error(`metered ${p}: x-credits-charged is ${String(charged)}, not 1`)
      if (body !== bodies[p]) throw new Error(`metered ${p}: the body differs from the unmetered one`)
      out(`checked: metered ${PATH} answers 200 with x-credits-charged: 1 and the same body as unmetered (${body.length} bytes)`)
      const own = [...res.headers].filter(([name]) => !['date', 'connection', 'keep-alive', 'content-length'].includes(name))
      writeFileSync(apiHeadersFile, JSON.stringify(Object.fromEntries(own)))
    }

    const fsync = measureFsync(dirs.metered)
    out()
    out(`pronet metering benchmark: GET ${PATH}, rotating over ${paths.length} members`)
    out(`machine: ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? '?'}), Node ${process.version}; load: ${TOOL === 'wrk' ? `wrk -t1 -c${CONNECTIONS}` : `autocannon -c${CONNECTIONS}`}, ${SECONDS} s per run, ${ROUNDS} rounds`)
    out(`code: ${codeState()}`)
    out(`servers' Node flags (npm start's): ${startScriptFlags().join(' ') || 'none'}`)
    out(`metered server's billing commits: ${await commitPlacement()}`)
    const loadAtStart = loadavg()
    out(`load average before measuring: ${loadAtStart.map((x) => x.toFixed(2)).join(' ')} (other processes on this machine make every figure noisier)`)
    out(
      `fsync context: 4 KiB append + fdatasync on the data dir, ${FSYNC_SAMPLES}×: median ${ms(fsync.median, 3)}, p99 ${ms(fsync.p99, 3)}, max ${ms(fsync.max, 3)}` +
        ` (every settle waits for one such sync, shared by its group commit)`,
    )

    // --- (a) throughput -----------------------------------------------------------------------
    const cases = [
      { name: 'bare node:http', port: bare.ready.port, pid: bare.child.pid, headers: meteredHeaders, runs: [] as Saturated[] },
      { name: 'unmetered (auth only)', port: unmetered.ready.port, pid: unmetered.child.pid, headers: unmeteredHeaders, runs: [] as Saturated[] },
      { name: 'metered', port: metered.ready.port, pid: metered.child.pid, headers: meteredHeaders, runs: [] as Saturated[] },
    ] as const
    const meteredCase = cases[2]
    let meteredWrkRuns = 0
    /** Responses at most still in flight when the metered wrk runs stopped: one per connection per run. */
    let meteredCutoffConnections = 0
    const meteredRun = async (seconds?: number): Promise<Saturated> => {
      const r = await saturate(metered.ready.port, paths, meteredHeaders, seconds, metered.child.pid)
      clientOk += r.responses - r.non2xx
      meteredWrkRuns++
      meteredCutoffConnections += CONNECTIONS
      return r
    }
    // Warm-up (JIT, response cache, first WAL growth); not reported.
    for (const c of cases) {
      if (c === meteredCase) await meteredRun(2)
      else await saturate(c.port, paths, c.headers, 2)
    }
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate the order each round, so drift of the machine does not favour one case.
      for (let k = 0; k < cases.length; k++) {
        const c = cases[(k + round) % cases.length]!
        c.runs.push(c === meteredCase ? await meteredRun() : await saturate(c.port, paths, c.headers, SECONDS, c.pid))
      }
    }
    const peak = Object.fromEntries(cases.map((c) => [c.name, median(c.runs.map((r) => r.rps))])) as Record<string, number>
    const bareRps = peak['bare node:http'] as number
    const unmeteredRps = peak['unmetered (auth only)'] as number
    const meteredRps = peak.metered as number
    out()
    out(`(a) Throughput, req/s (runs in order of execution; median; ÷ bare from medians)`)
    out(`  ${padEnd('case', 22)}${cases[0].runs.map((_, i) => pad(`run ${i + 1}`, 9)).join('')}${pad('median', 9)}${pad('p99 (wrk)', 12)}${pad('÷ bare', 8)}${pad('non-2xx', 9)}`)
    for (const c of cases) {
      const m = peak[c.name] as number
      const errs = c.runs.reduce((s, r) => s + r.non2xx + r.socketErrors, 0)
      out(
        `  ${padEnd(c.name, 22)}${c.runs.map((r) => pad(int(r.rps), 9)).join('')}${pad(int(m), 9)}${pad(ms(median(c.runs.map((r) => r.p99))), 12)}${pad((m / bareRps).toFixed(2), 8)}${pad(String(errs), 9)}`,
      )
    }

    if (cases.every((c) => c.runs.every((r) => r.cpu))) {
      out()
      out('  CPU per response, server process (from /proc; medians over runs): where the time goes')
      out(`  ${padEnd('case', 22)}${pad('event loop', 12)}${pad('busy', 7)}${pad('other threads', 15)}${pad('page faults', 13)}`)
      for (const c of cases) {
        const cpu = (f: (x: NonNullable<Saturated['cpu']>) => number) => median(c.runs.map((r) => f(r.cpu!)))
        out(`  ${padEnd(c.name, 22)}${pad(`${cpu((x) => x.mainUs).toFixed(1)} µs`, 12)}${pad(`${(cpu((x) => x.mainBusy) * 100).toFixed(0)}%`, 7)}${pad(`${cpu((x) => x.othersUs).toFixed(1)} µs`, 15)}${pad(cpu((x) => x.faults).toFixed(2), 13)}`)
      }
      out(
        '  (a server whose event loop is far from busy is waiting, not computing: with a fixed number of connections its' +
          ' throughput is connections ÷ latency, and a metered response waits for its group commit)',
      )
    }

    // --- (a′) the same at saturation ----------------------------------------------------------
    // At 50 connections the metered event loop is left waiting on group commits (busy well under
    // 100%), so (a) measures connections ÷ latency as much as capacity. Here every case gets enough
    // connections to keep its event loop busy: what each server can serve at most. Reported beside
    // (a); the goals below are (a)'s.
    if (SATURATION_CONNECTIONS > 0) {
      const sat = cases.map((c) => ({ name: c.name, runs: [] as Saturated[] }))
      for (let round = 0; round < ROUNDS; round++) {
        for (let k = 0; k < cases.length; k++) {
          const i = (k + round) % cases.length
          const c = cases[i]!
          const r = await saturate(c.port, paths, c.headers, SECONDS, c.pid, SATURATION_CONNECTIONS)
          if (c === meteredCase) {
            clientOk += r.responses - r.non2xx
            meteredWrkRuns++
            meteredCutoffConnections += SATURATION_CONNECTIONS
          }
          sat[i]!.runs.push(r)
        }
      }
      const satPeak = Object.fromEntries(sat.map((c) => [c.name, median(c.runs.map((r) => r.rps))])) as Record<string, number>
      out()
      out(`(a′) Throughput at saturation: the same, ${SATURATION_CONNECTIONS} connections (req/s; median of ${ROUNDS}; not the goals' figures)`)
      out(`  ${padEnd('case', 22)}${sat[0]!.runs.map((_, i) => pad(`run ${i + 1}`, 9)).join('')}${pad('median', 9)}${pad('busy', 7)}${pad('÷ bare', 8)}${pad('÷ unmetered', 13)}`)
      for (const c of sat) {
        const m = satPeak[c.name] as number
        const busy = c.runs.every((r) => r.cpu) ? `${(median(c.runs.map((r) => r.cpu!.mainBusy)) * 100).toFixed(0)}%` : '?'
        out(
          `  ${padEnd(c.name, 22)}${c.runs.map((r) => pad(int(r.rps), 9)).join('')}${pad(int(m), 9)}${pad(busy, 7)}` +
            `${pad((m / (satPeak['bare node:http'] as number)).toFixed(2), 8)}${pad((m / (satPeak['unmetered (auth only)'] as number)).toFixed(2), 13)}`,
        )
      }
    }

    // --- (c) what the machine leaves for a server's own work -----------------------------------
    const floorUs = floorWork()
    if (floorUs.length > 0 && TOOL === 'wrk') {
      const meteredCpu = meteredCase.runs.every((r) => r.cpu) ? median(meteredCase.runs.map((r) => r.cpu!.mainUs)) : undefined
      await runFloor({
        start: async (kind, workUs) => {
          const floor = await start(kind, { BENCH_BODIES: bodiesFile, BENCH_WORK_US: String(workUs), BENCH_HEADERS: apiHeadersFile })
          children.push(floor.child)
          return { port: floor.ready.port, pid: floor.child.pid }
        },
        saturate: (port, pid) => saturate(port, paths, meteredHeaders, SECONDS, pid),
        bare: { port: bare.ready.port, pid: bare.child.pid },
        rounds: ROUNDS,
        work: floorUs,
        out,
        metered: { mainUs: meteredCpu },
      })
    }

    // --- (b) latency at half the metered peak ----------------------------------------------
    const rate = Math.max(100, Math.round(meteredRps / 2))
    const lat: { name: string; runs: Paced[] }[] = [
      { name: 'unmetered (auth only)', runs: [] },
      { name: 'metered', runs: [] },
    ]
    type Commits = { seconds: HistogramSnapshot | null; jobs: HistogramSnapshot | null }
    type LoopDelay = { p50: number; p99: number; max: number }
    /** Each server's own event-loop delay per run (unmetered, metered): what of a tail is the server's. */
    const loopDelays: [LoopDelay[], LoopDelay[]] = [[], []]
    const commitsBefore = await ask<Commits>(metered.child, 'commits')
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < 2; k++) {
        const which = (k + round) % 2
        const server = which === 1 ? metered : unmetered
        await ask(server.child, 'loop-delay-reset')
        if (which === 1) {
          const r = await paced(metered.ready.port, paths, meteredHeaders, rate, LATENCY_SECONDS, LATENCY_WARMUP_SECONDS)
          clientOk += r.responses - r.non2xx
          lat[1]!.runs.push(r)
        } else lat[0]!.runs.push(await paced(unmetered.ready.port, paths, unmeteredHeaders, rate, LATENCY_SECONDS, LATENCY_WARMUP_SECONDS))
        loopDelays[which]!.push(await ask<LoopDelay>(server.child, 'loop-delay'))
      }
    }
    const latFig = lat.map((l) => ({
      name: l.name,
      achieved: median(l.runs.map((r) => r.achievedRps)),
      p50: median(l.runs.map((r) => percentile(r.latencyMs, 0.5))),
      p99: median(l.runs.map((r) => percentile(r.latencyMs, 0.99))),
      p999: median(l.runs.map((r) => percentile(r.latencyMs, 0.999))),
      max: Math.max(...l.runs.map((r) => r.latencyMs[r.latencyMs.length - 1] ?? NaN)),
      serviceP99: median(l.runs.map((r) => percentile(r.serviceMs, 0.99))),
      p99s: l.runs.map((r) => percentile(r.latencyMs, 0.99)),
      late: l.runs.reduce((s, r) => s + r.late, 0) / l.runs.reduce((s, r) => s + r.responses, 0),
      errors: l.runs.reduce((s, r) => s + r.non2xx + r.errors, 0),
    }))
    out()
    out(
      `(b) Latency at a constant ${int(rate)} req/s (half the metered median peak), open loop, ${CONNECTIONS} connections,` +
        ` ${LATENCY_SECONDS} s measured after ${LATENCY_WARMUP_SECONDS} s warm-up, ${ROUNDS} runs each alternating; medians over runs`,
    )
    out(
      `  ${padEnd('case', 22)}${pad('achieved', 10)}${pad('p50', 10)}${pad('p99', 10)}${pad('p99.9', 10)}${pad('max', 10)}${pad('p99 from send', 15)}${pad('late>0.1ms', 12)}${pad('errors', 8)}   p99 per run`,
    )
    for (const f of latFig) {
      out(
        `  ${padEnd(f.name, 22)}${pad(int(f.achieved), 10)}${pad(ms(f.p50, 3), 10)}${pad(ms(f.p99, 3), 10)}${pad(ms(f.p999, 3), 10)}${pad(ms(f.max, 1), 10)}${pad(ms(f.serviceP99, 3), 15)}${pad(`${(f.late * 100).toFixed(2)}%`, 12)}${pad(String(f.errors), 8)}   ${f.p99s.map((x) => x.toFixed(3)).join(' / ')}`,
      )
    }
    out(
      `  servers' own event-loop delay during (b) (perf_hooks, 1 ms resolution; p99 / max per run): ` +
        lat.map((l, i) => `${l.name} ${loopDelays[i]!.map((d) => `${d.p99.toFixed(1)} / ${d.max.toFixed(1)}`).join(', ')} ms`).join('; '),
    )
    const commitsAfter = await ask<Commits>(metered.child, 'commits')
    if (commitsBefore.seconds && commitsAfter.seconds && commitsBefore.jobs && commitsAfter.jobs) {
      const d = (a: HistogramSnapshot, b: HistogramSnapshot): HistogramSnapshot => ({
        count: b.count - a.count,
        sum: b.sum - a.sum,
        buckets: b.buckets.map((x, i) => ({ le: x.le, n: x.n - (a.buckets[i]?.n ?? 0) })),
      })
      const secs = d(commitsBefore.seconds, commitsAfter.seconds)
      const jobs = d(commitsBefore.jobs, commitsAfter.jobs)
      // The bucket bound at or below which a share q of the commits fell.
      const bound = (h: HistogramSnapshot, q: number) => h.buckets.find((b) => b.n >= q * h.count)?.le ?? Infinity
      if (secs.count > 0) {
        out(
          `  metered server's group commits during (b) (pronet_ledger_commit_seconds: batch handed over → durable): ${int(secs.count)} commits,` +
            ` ${(jobs.sum / jobs.count).toFixed(1)} requests each on average; mean ${ms((secs.sum / secs.count) * 1000, 3)},` +
            ` p50 ≤ ${ms(bound(secs, 0.5) * 1000, 1)}, p99 ≤ ${ms(bound(secs, 0.99) * 1000, 1)} (histogram bounds). Every metered response waits for one.`,
        )
      }
    }
    const [uLat, mLat] = latFig as [(typeof latFig)[0], (typeof latFig)[0]]
    const addedP99 = mLat.p99 - uLat.p99

    // --- goals -----------------------------------------------------------------------------
    const goal = (ok: boolean) => (ok ? 'PASS' : 'MISS')
    const vsUnmetered = meteredRps / unmeteredRps
    const vsBare = meteredRps / bareRps
    const goals = [
      vsUnmetered >= GOALS.vsUnmetered,
      vsBare >= GOALS.vsBare,
      addedP99 <= GOALS.addedP99Ms,
    ]
    out()
    out('Goals')
    out(`  ${goal(goals[0]!)}  metered / unmetered throughput ≥ ${GOALS.vsUnmetered}: ${vsUnmetered.toFixed(3)} (${int(meteredRps)} / ${int(unmeteredRps)} req/s)`)
    out(`  ${goal(goals[1]!)}  metered / bare throughput ≥ ${GOALS.vsBare}: ${vsBare.toFixed(3)} (${int(meteredRps)} / ${int(bareRps)} req/s)`)
    // The unmetered server is the metered one with metering taken out: the most metering could reach were
    // it free, unless the metered one served more in this run (its answers can leave together, after each
    // group commit), where that reading would be wrong.
    const unmeteredShare = (unmeteredRps / bareRps).toFixed(3)
    out(
      unmeteredRps >= meteredRps
        ? `        (the same server unmetered serves ${unmeteredShare} of bare: the ceiling of this ratio were metering free)`
        : `        (the same server unmetered serves ${unmeteredShare} of bare, less than metered in this run)`,
    )
    out(
      `  ${goal(goals[2]!)}  p99 added by metering ≤ ${GOALS.addedP99Ms} ms at ${int(rate)} req/s: ${addedP99.toFixed(3)} ms` +
        ` (p99 ${mLat.p99.toFixed(3)} − ${uLat.p99.toFixed(3)} ms; fdatasync median ${fsync.median.toFixed(3)} ms, p99 ${fsync.p99.toFixed(3)} ms)`,
    )

    // --- profile hint --------------------------------------------------------------------------
    const profileNow = PROFILE === '1' || (PROFILE === 'auto' && goals.includes(false))
    if (profileNow && TOOL === 'wrk') {
      const profiles: { name: string; summary: ProfileSummary; requests: number }[] = []
      for (const [name, child, port, headers] of [
        ['unmetered', unmetered.child, unmetered.ready.port, unmeteredHeaders],
        ['metered', metered.child, metered.ready.port, meteredHeaders],
      ] as const) {
        await ask(child, 'profile-start')
        const r = name === 'metered' ? await meteredRun(PROFILE_SECONDS) : await saturate(port, paths, headers, PROFILE_SECONDS)
        const { summary } = await ask<{ summary: ProfileSummary }>(child, 'profile-stop')
        profiles.push({ name, summary, requests: r.responses })
      }
      printProfiles(profiles, out)
    } else if (profileNow) out('\n(profile hint skipped: it needs wrk)')

    // --- bench correctness: the balance fell by the 200s ---------------------------------------
    const sub = await getJson(meteredBase, '/api/v1/subscription', meteredHeaders)
    const today = new Date().toISOString().slice(0, 10)
    const usage = await getJson(meteredBase, `/api/v1/usage?from=${today.slice(0, 8)}01&to=${today}`, meteredHeaders)
    const before = metered.ready.creditsRemaining as number
    const after = sub.creditsRemaining as number
    const decrease = before - after
    const endpoints = (usage.endpoints ?? []) as { endpoint: string; statusCodes: Record<string, number> }[]
    const server200 = endpoints.find((e) => e.endpoint === PATH)?.statusCodes['200'] ?? 0
    const serverOther = endpoints.reduce((s, e) => s + Object.entries(e.statusCodes).reduce((t, [code, n]) => t + (code === '200' && e.endpoint === PATH ? 0 : n), 0), 0)
    const cutoff = decrease - clientOk
    const maxCutoff = meteredCutoffConnections
    const balanceOk = decrease === server200 && serverOther === 0 && cutoff >= 0 && cutoff <= maxCutoff
    out()
    out('Bench check: the metered balance fell by the number of 200 responses')
    out(`  creditsRemaining before ${int(before)}, after ${int(after)} (GET /api/v1/subscription): decreased by ${int(decrease)}`)
    out(`  200 responses recorded by the server (GET /api/v1/usage, ${PATH}): ${int(server200)}; other statuses: ${serverOther}`)
    out(
      `  200 responses read by the load generators: ${int(clientOk)}; ${int(cutoff)} more were billed and answered but still in flight when wrk` +
        ` stopped (at most one per connection per wrk run, ${meteredWrkRuns} runs → ≤ ${int(maxCutoff)})`,
    )
    out(`  ${balanceOk ? 'OK' : 'FAILED'}: decrease ${decrease === server200 ? '=' : '≠'} server's 200 count; client count ${cutoff >= 0 && cutoff <= maxCutoff ? 'within' : 'outside'} the in-flight margin`)
    out()
    out(`load average after measuring: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`)
  } finally {
    for (const child of children) child.kill('SIGTERM')
    await Promise.all(children.map(exited))
    rmSync(work, { recursive: true, force: true })
  }
}

function printProfiles(profiles: { name: string; summary: ProfileSummary; requests: number }[], out: (s?: string) => void): void {
  const [u, m] = profiles as [(typeof profiles)[0], (typeof profiles)[0]]
  const perReq = (p: (typeof profiles)[0], msValue: number) => (msValue * 1000) / Math.max(1, p.requests)
  out()
  out(`CPU profile hint: each server's main thread sampled every 100 µs during ${PROFILE_SECONDS} s of wrk (profiler on, so figures are a bit inflated)`)
  for (const p of profiles) {
    const busy = p.summary.totalMs - p.summary.idleMs
    out(
      `  ${padEnd(p.name, 10)} ${int(p.requests)} responses (${int(p.requests / PROFILE_SECONDS)}/s); main thread busy ${((busy / p.summary.totalMs) * 100).toFixed(0)}%:` +
        ` ${perReq(p, busy).toFixed(1)} µs per request, idle ${perReq(p, p.summary.idleMs).toFixed(1)} µs per request`,
    )
  }
  out(`  self time by area, µs per request:`)
  out(`    ${padEnd('area', 64)}${pad('unmetered', 11)}${pad('metered', 11)}${pad('added', 9)}`)
  const areas = new Set([...m.summary.areas.map((a) => a.area), ...u.summary.areas.map((a) => a.area)])
  const rows = [...areas]
    .map((area) => {
      const um = u.summary.areas.find((a) => a.area === area)?.ms ?? 0
      const mm = m.summary.areas.find((a) => a.area === area)?.ms ?? 0
      return { area, u: perReq(u, um), m: perReq(m, mm) }
    })
    .filter((r) => r.u >= 0.5 || r.m >= 0.5)
    .sort((a, b) => b.m - a.m)
  for (const r of rows) out(`    ${padEnd(r.area.slice(0, 63), 64)}${pad(r.u.toFixed(1), 11)}${pad(r.m.toFixed(1), 11)}${pad((r.m - r.u).toFixed(1), 9)}`)
  out(`  top self time, metered (µs per request; unmetered alongside):`)
  for (const f of m.summary.self.slice(0, 15)) {
    const um = u.summary.self.find((x) => x.fn === f.fn)?.ms ?? 0
    out(`    ${pad(perReq(m, f.ms).toFixed(1), 7)}  ${pad(perReq(u, um).toFixed(1), 7)}  ${f.fn}`)
  }
  out(`  self time folded into the nearest pronet function (libraries, Node, SQLite below it), metered (µs per request; unmetered alongside):`)
  for (const f of m.summary.folded.slice(0, 15)) {
    const um = u.summary.folded.find((x) => x.fn === f.fn)?.ms ?? 0
    out(`    ${pad(perReq(m, f.ms).toFixed(1), 7)}  ${pad(perReq(u, um).toFixed(1), 7)}  ${f.fn}`)
  }
  out(`  inclusive time of pronet functions, metered (µs per request; unmetered alongside):`)
  for (const f of m.summary.inclusive.slice(0, 15)) {
    const um = u.summary.inclusive.find((x) => x.fn === f.fn)?.ms ?? 0
    out(`    ${pad(perReq(m, f.ms).toFixed(1), 7)}  ${pad(perReq(u, um).toFixed(1), 7)}  ${f.fn}`)
  }
  out(`  (only the main thread is sampled: work in worker threads shows only as waiting, i.e. idle)`)
}

// Run as a program (not when imported, e.g. to try the paced generator on its own).
if (process.argv[1] !== undefined && resolve(process.argv[1]) === self) {
  if (process.argv[2] === '--serve') await serveChild((process.argv[3] ?? 'metered') as Kind)
  else {
    await main()
    process.exit(0)
  }
}
