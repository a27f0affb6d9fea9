/**
 * What this machine leaves for a server's own work, beside the metering bench's bare baseline.
 *
 * The bare node:http server answers in so little time that the load generator is always busy, so
 * each response's socket write finds it awake. A server that spends longer per request lets the
 * generator fall asleep between responses, and each write then also pays for waking it: on a VM,
 * a cross-CPU wake-up is dear. So a microsecond of a server's own work costs more than a microsecond
 * of throughput, and "÷ bare" falls faster than the work alone would say.
 *
 * This section measures that directly, with the same bodies and load as the bench's cases:
 *   - bare node:http spinning W µs per request before it answers, for a few W (BENCH_FLOOR_WORK_US,
 *     default 5,10,15,20; empty or 0 skips the section), and
 *   - bare node:http sending a data answer's own headers too (rate, credits, request id, security),
 *   - Fastify with one route and no hooks sending the same bytes (the framework's own cost),
 * interleaved with the bench's bare server, and reports the work per request at which a server
 * falls to half of bare: the budget a metered server has for routing, the key check, the budget,
 * the hold, the commit and its headers.
 */
import { createServer, type Server } from 'node:http'
import { median } from './bench-helpers.ts'

/** A child's answer to being started: the port it listens on. */
export interface FloorReady {
  port: number
}

export type FloorKind = 'bare' | 'framework' | 'headers'

const JSON_TYPE = 'application/json; charset=utf-8'

/** The W values to measure, from BENCH_FLOOR_WORK_US ("5,10,15"); none when empty or 0. */
export function floorWork(setting = process.env.BENCH_FLOOR_WORK_US ?? '5,10,15,20'): number[] {
  return setting
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((w) => Number.isFinite(w) && w > 0)
}

/** Busy for `us` microseconds: work the event loop cannot overlap with anything. */
function spin(us: number): void {
  if (us <= 0) return
  const end = performance.now() + us / 1000
  while (performance.now() < end);
}

/**
 * Serves `bodies` (by request URL) the bare way, spinning `workUs` first; the same with the API's
 * own response headers (`headers`: what a data answer carries, all but what Node adds itself); or
 * through Fastify with one route and no hooks. Resolves with the listening port.
 */
export async function serveFloor(
  kind: FloorKind,
  options: { bodies: Map<string, Buffer>; workUs: number; path: string; headers: Record<string, string> },
): Promise<number> {
  const { bodies, workUs } = options
  if (kind === 'framework') {
    const { default: Fastify } = await import('fastify')
    const app = Fastify({ logger: false })
    app.get(options.path, async (request, reply) => {
      const body = bodies.get(request.url)
      if (!body) return reply.code(404).send()
      reply.type(JSON_TYPE)
      return body
    })
    await app.listen({ port: 0, host: '127.0.0.1' })
    return portOf(app.server)
  }
  const api = options.headers
  // The baseline's headers as a literal, built per answer as before: nothing of the others' is added to it.
  const headersOf: (body: Buffer) => Record<string, string | number> =
    kind === 'headers' ? (body) => ({ ...api, 'content-length': body.length }) : (body) => ({ 'content-type': JSON_TYPE, 'content-length': body.length })
  const server = createServer((req, res) => {
    const body = bodies.get(req.url ?? '')
    if (!body) {
      res.writeHead(404).end()
      return
    }
    spin(workUs)
    res.writeHead(200, headersOf(body))
    res.end(body)
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return portOf(server)
}

function portOf(server: Server): number {
  const address = server.address()
  return typeof address === 'object' && address ? address.port : 0
}

/** What the section needs of the bench: its load, its children and its printing. */
export interface FloorDeps<S extends { rps: number; cpu?: { mainUs: number } }> {
  /** Starts a floor child (kind, W) and resolves with its port and pid; the bench stops it at the end. */
  start(kind: FloorKind, workUs: number): Promise<{ port: number; pid: number | undefined }>
  /** One wrk run against a port, with the server's CPU per response when pid is given. */
  saturate(port: number, pid: number | undefined): Promise<S>
  /** The bench's own bare server, measured again in this section's rounds. */
  bare: { port: number; pid: number | undefined }
  rounds: number
  work: number[]
  out(s?: string): void
  /** The metered server's event-loop CPU per response in (a), to place it among the spinning servers. */
  metered: { mainUs: number | undefined }
}

interface FloorCase {
  name: string
  /** µs spun per request; the bare server (0) and the spinning ones are the points the figures are read from. */
  work: number
  spins: boolean
  port: number
  pid: number | undefined
  runs: { rps: number; cpu?: { mainUs: number } }[]
}

const int = (x: number): string => Math.round(x).toLocaleString('en-US')

/** x at which y, falling through the points (sorted by x), crosses `target`; null when it never does. */
export function crossing(points: { x: number; y: number }[], target: number): number | null {
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1] as { x: number; y: number }
    const b = points[i] as { x: number; y: number }
    if (a.y >= target && b.y < target) return a.x + ((a.y - target) / (a.y - b.y)) * (b.x - a.x)
  }
  return null
}

export async function runFloor<S extends { rps: number; cpu?: { mainUs: number } }>(deps: FloorDeps<S>): Promise<void> {
  const { out } = deps
  const cases: FloorCase[] = [{ name: 'bare node:http', work: 0, spins: true, ...deps.bare, runs: [] }]
  cases.push({ name: 'Fastify, one route', work: 0, spins: false, ...(await deps.start('framework', 0)), runs: [] })
  cases.push({ name: "bare + the API's headers", work: 0, spins: false, ...(await deps.start('headers', 0)), runs: [] })
  for (const w of deps.work) cases.push({ name: `bare + ${w} µs of work`, work: w, spins: true, ...(await deps.start('bare', w)), runs: [] })

  for (const c of cases) await deps.saturate(c.port, undefined)
  for (let round = 0; round < deps.rounds; round++) {
    for (let k = 0; k < cases.length; k++) {
      const c = cases[(k + round) % cases.length] as FloorCase
      c.runs.push(await deps.saturate(c.port, c.pid))
    }
  }

  const bareRps = median((cases[0] as FloorCase).runs.map((r) => r.rps))
  const figures = cases.map((c) => {
    const rps = median(c.runs.map((r) => r.rps))
    const cpu = c.runs.every((r) => r.cpu) ? median(c.runs.map((r) => (r.cpu as { mainUs: number }).mainUs)) : undefined
    return { ...c, rps, ratio: rps / bareRps, cpu }
  })
  const bareCpu = (figures[0] as (typeof figures)[0]).cpu
  out()
  out(`(c) What this machine leaves for a server's own work: the same load against bare node:http spinning W µs per request, and plain Fastify`)
  out(`  ${'case'.padEnd(26)}${cases[0]!.runs.map((_, i) => `run ${i + 1}`.padStart(9)).join('')}${'median'.padStart(9)}${'÷ bare'.padStart(8)}${'CPU/response'.padStart(14)}${'CPU added per µs spun'.padStart(23)}`)
  for (const f of figures) {
    const perWork = f.work > 0 && f.cpu !== undefined && bareCpu !== undefined ? ((f.cpu - bareCpu) / f.work).toFixed(2) : ''
    out(
      `  ${f.name.padEnd(26)}${f.runs.map((r) => int(r.rps).padStart(9)).join('')}${int(f.rps).padStart(9)}${f.ratio.toFixed(2).padStart(8)}` +
        `${(f.cpu === undefined ? '?' : `${f.cpu.toFixed(1)} µs`).padStart(14)}${perWork.padStart(23)}`,
    )
  }

  const spinning = figures.filter((f) => f.spins)
  const half = crossing(spinning.map((f) => ({ x: f.work, y: f.ratio })), 0.5)
  const largest = Math.max(...deps.work)
  out(
    half === null
      ? `  bare node:http stays above half of its rate up to ${largest} µs of work per request`
      : `  bare node:http falls to half of its rate at about ${half.toFixed(1)} µs of its own work per request: what a server may spend per request, beyond writing its answer, to reach 0.5 × bare here`,
  )
  // Where the metered server's CPU per response puts it among the spinning servers.
  const byCpu = spinning
    .flatMap((f) => (f.cpu === undefined ? [] : [{ cpu: f.cpu, work: f.work, ratio: f.ratio }]))
    .sort((a, b) => a.cpu - b.cpu)
  const meteredCpu = deps.metered.mainUs
  if (meteredCpu !== undefined && byCpu.length > 1) {
    let placed: { work: number; ratio: number } | null = null
    for (let i = 1; i < byCpu.length; i++) {
      const a = byCpu[i - 1] as (typeof byCpu)[0]
      const b = byCpu[i] as (typeof byCpu)[0]
      if (meteredCpu < a.cpu || meteredCpu > b.cpu) continue
      const f = (meteredCpu - a.cpu) / (b.cpu - a.cpu)
      placed = { work: a.work + f * (b.work - a.work), ratio: a.ratio + f * (b.ratio - a.ratio) }
    }
    out(
      `  the metered server spent ${meteredCpu.toFixed(1)} µs of event-loop CPU per response in (a)` +
        (placed === null
          ? `, outside the range measured here (${byCpu[0]!.cpu.toFixed(1)}–${byCpu[byCpu.length - 1]!.cpu.toFixed(1)} µs)`
          : `: as much as bare node:http spinning about ${placed.work.toFixed(1)} µs per request, which serves about ${placed.ratio.toFixed(2)} × bare`),
    )
  }
}
