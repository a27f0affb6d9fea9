/** Small pieces several benchmarks share. */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_NETWORK_SEED } from '../src/seed.ts'
import { generateNetwork } from '../src/synth/index.ts'

/** The public ids of the first `n` profiles of a seeded network of `size` (its names do not depend on the anchor). */
export function profileSlugs(size: number, n: number): string[] {
  const slugs: string[] = []
  for (const record of generateNetwork({ seed: DEFAULT_NETWORK_SEED, size, anchorMs: Date.UTC(2026, 0, 1), platformHost: 'www.linkedin.com' })) {
    if (record.kind === 'profile') slugs.push(record.data.publicIdentifier)
    if (slugs.length >= n) break
  }
  return slugs
}

/**
 * The first `n` members who author a post, read from the same deterministic stream the default seed
 * writes (so a seeded server knows them all).
 */
export function membersWithPosts(size: string, anchorMs: number, n: number): string[] {
  const slugById = new Map<string, string>()
  const picked = new Set<string>()
  for (const record of generateNetwork({ seed: DEFAULT_NETWORK_SEED, size: size as 'small', anchorMs, platformHost: 'www.linkedin.com' })) {
    if (record.kind === 'profile') slugById.set(record.data.profileId, record.data.publicIdentifier)
    if (record.kind === 'post' && record.data.authorProfileId && record.data.repostOf === undefined) {
      const slug = slugById.get(record.data.authorProfileId)
      if (slug) picked.add(slug)
      if (picked.size >= n) break
    }
  }
  return [...picked]
}

/** The value at share `q` of the samples (nearest rank, from below). */
export const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] as number
}

/** The middle sample, or the mean of the two middle ones. */
export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2
}

/** A deterministic pick (the same queries every run on the same file). */
export function picker(seed: number) {
  let x = seed >>> 0
  return <T>(xs: readonly T[]): T => {
    x = (Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0
    return xs[x % xs.length] as T
  }
}

/**
 * The Node flags `npm start` gives the server (package.json's start script in `projectRoot`), so that
 * what a benchmark runs of the service runs as it does in production.
 */
export function startScriptNodeFlags(projectRoot: string): string[] {
  const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { scripts?: { start?: string } }
  const words = (pkg.scripts?.start ?? '').split(/\s+/)
  return words[0] === 'node' ? words.slice(1).filter((w) => w.startsWith('--')) : []
}

/**
 * Starts the built server (`main`) as a process with `env` on top of this one's, and resolves once it
 * says where it listens; rejects with its output if it exits first. Its stderr goes to this one's.
 */
export async function startServerProcess(main: string, env: Record<string, string>, nodeFlags: string[] = []): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [...nodeFlags, main], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (s: string) => {
      out += s
      const m = /pronet listening on http:\/\/[^\s:]+:(\d+)/.exec(out)
      if (m) resolve(Number(m[1]))
    })
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening:\n${out}`)))
  })
  return { child, port }
}

export interface WrkOptions {
  /** The server's base URL. */
  url: string
  /** GET paths, requested in turn. */
  paths: readonly string[]
  headers: Record<string, string>
  seconds: number
  connections: number
  /** Every request carries an Idempotency-Key of its own (this run's prefix and a counter). */
  keyed?: boolean
}

/** Writes the wrk script that sends `o`'s requests in turn; its path (the caller removes it). */
function wrkScript(o: WrkOptions): string {
  const script = join(tmpdir(), `pronet-bench-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.lua`)
  const lua = [
    `local paths = {${o.paths.map((p) => JSON.stringify(p)).join(',')}}`,
    ...Object.entries(o.headers).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`),
    'local reqs = {}',
    // Built in init: wrk sets the Host header only once the script is loaded.
    'init = function(args) for k, p in ipairs(paths) do reqs[k] = wrk.format("GET", p) end end',
    'local i = 0',
    o.keyed
      ? [
          `local prefix, n = ${JSON.stringify(randomBytes(6).toString('hex'))}, 0`,
          'request = function() i = i % #paths + 1; n = n + 1; wrk.headers["Idempotency-Key"] = prefix .. "-" .. n; return wrk.format("GET", paths[i]) end',
        ].join('\n')
      : 'request = function() i = i % #reqs + 1; return reqs[i] end',
  ].join('\n')
  writeFileSync(script, lua)
  return script
}

const wrkArgs = (o: WrkOptions, script: string) => ['-t1', `-c${o.connections}`, `-d${o.seconds}s`, '--latency', '-s', script, o.url]

/**
 * Runs wrk with one thread (the other cores are the servers'), its requests prebuilt in the script's
 * init and taken in turn; returns wrk's report (with --latency).
 */
export function runWrk(o: WrkOptions): string {
  const script = wrkScript(o)
  try {
    return execFileSync('wrk', wrkArgs(o, script), { encoding: 'utf8' })
  } finally {
    rmSync(script, { force: true })
  }
}

/** runWrk without blocking, so that several run at once (several nodes driven together). */
export async function runWrkAsync(o: WrkOptions): Promise<string> {
  const script = wrkScript(o)
  try {
    return await new Promise<string>((resolve, reject) =>
      execFile('wrk', wrkArgs(o, script), { encoding: 'utf8' }, (e, stdout) => (e ? reject(e) : resolve(stdout))),
    )
  } finally {
    rmSync(script, { force: true })
  }
}

/** A latency percentile of wrk's --latency report, in ms (NaN when absent). */
export function wrkDurationMs(out: string, label: string): number {
  const m = new RegExp(`\\s${label}\\s+([\\d.]+)(us|ms|s)`).exec(out)
  return m ? Number(m[1]) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[m[2] as string]! : NaN
}

/** What every bench reads from wrk's report. */
export function wrkFigures(out: string): { rps: number; responses: number; non2xx: number; socketErrors: number; p50Ms: number; p99Ms: number } {
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    responses: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
    socketErrors: socket ? socket.slice(1).reduce((sum, x) => sum + Number(x), 0) : 0,
    p50Ms: wrkDurationMs(out, '50%'),
    p99Ms: wrkDurationMs(out, '99%'),
  }
}
