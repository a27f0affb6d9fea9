/**
 * What @pronet/client adds to a call. Sequential GET /api/v1/profile calls over one keep-alive
 * connection against the built server (`npm start`'s flags, a process of its own), made three ways
 * in alternating blocks, so that a slow moment of the machine weighs on all alike:
 *
 * - by hand with the global fetch, sending what the client sends (the key, Accept and a fresh
 *   Idempotency-Key) and reading the JSON body and the credits header: the baseline;
 * - with the client's getProfile, from the built package (packages/client/dist);
 * - by hand without an Idempotency-Key, to show what keeping a key's answer costs the server (the
 *   client sends one on every billed call).
 *
 * Goal: the client's p50 within 5 % of the baseline's. Goals are reported, not asserted.
 *
 *   npm run bench:sdk
 *   BENCH_BLOCKS=40 BENCH_BLOCK=100 BENCH_WARMUP=500 npm run bench:sdk
 */
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { MAX_CREDITS_LIMIT, MAX_RPS_LIMIT } from '../src/domain/billing/billing-rules.ts'
import { profileSlugs, quantile, startScriptNodeFlags, startServerProcess } from './bench-helpers.ts'

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 40)
const BLOCK = Number(process.env.BENCH_BLOCK ?? 100)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 500)
const PROFILES = 200
const SUBJECTS = 50
const ADMIN = 'sdk-bench'
const GOAL_P50_OVERHEAD = 0.05
const self = fileURLToPath(import.meta.url)
const runRoot = join(dirname(self), '..')
/** The project folder (package.json) whether the bench runs from dist/ or from source. */
const projectRoot = join(runRoot, runRoot.endsWith('dist') ? '..' : '.')
const MAIN = join(runRoot, 'src', 'main.js')
const CLIENT = join(projectRoot, 'packages', 'client', 'dist', 'index.js')

/** The part of the client's surface the bench uses; the package is loaded from its build at run time. */
interface ClientPackage {
  createClient(options: { apiKey: string; baseUrl: string }): {
    getProfile(input: { profileUrlOrUrn: string }): Promise<{ data: { publicIdentifier?: string }; meta: { status: number; creditsCharged: number } }>
  }
}

type Call = (slug: string) => Promise<number>

async function account(base: string): Promise<string> {
  const res = await fetch(`${base}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'sdk bench', plan: 'custom', creditsLimit: MAX_CREDITS_LIMIT, rpsLimit: MAX_RPS_LIMIT }),
  })
  if (res.status !== 201 && res.status !== 200) throw new Error(`creating the account answered ${res.status}: ${await res.text()}`)
  return ((await res.json()) as { apiKey: { key: string } }).apiKey.key
}

/** A call by hand: the request the client makes, its body parsed and its credits header read. */
function byHand(base: string, key: string, withIdempotencyKey: boolean): Call {
  return async (slug) => {
    const headers: Record<string, string> = { accept: 'application/json', 'x-api-key': key }
    if (withIdempotencyKey) headers['idempotency-key'] = crypto.randomUUID()
    const res = await fetch(`${base}/api/v1/profile?profileUrlOrUrn=${encodeURIComponent(slug)}`, { headers })
    const data = (await res.json()) as { publicIdentifier?: string }
    if (res.status !== 200 || data.publicIdentifier !== slug) throw new Error(`GET profile ${slug} answered ${res.status}`)
    return Number(res.headers.get('x-credits-charged'))
  }
}

function withClient(pkg: ClientPackage, base: string, key: string): Call {
  const client = pkg.createClient({ apiKey: key, baseUrl: base })
  return async (slug) => {
    const { data, meta } = await client.getProfile({ profileUrlOrUrn: slug })
    if (meta.status !== 200 || data.publicIdentifier !== slug) throw new Error(`getProfile ${slug} answered ${meta.status}`)
    return meta.creditsCharged
  }
}

interface Arm {
  name: string
  call: Call
  times: number[]
  credits: number
}

async function block(arm: Arm, slugs: string[], n: number, record: boolean): Promise<void> {
  for (let i = 0; i < n; i++) {
    const slug = slugs[i % slugs.length] as string
    const t0 = performance.now()
    const credits = await arm.call(slug)
    const elapsed = performance.now() - t0
    if (record) {
      arm.times.push(elapsed)
      arm.credits += credits
    }
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
  await exited
  clearTimeout(timer)
}

async function main(): Promise<void> {
  const pkg = (await import(pathToFileURL(CLIENT).href)) as ClientPackage
  const dataDir = mkdtempSync(join(tmpdir(), 'pronet-bench-sdk-'))
  const { child, port } = await startServerProcess(
    MAIN,
    { PORT: '0', HOST: '127.0.0.1', PRONET_DATA_DIR: dataDir, PRONET_SEED: String(PROFILES), PRONET_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn' },
    startScriptNodeFlags(projectRoot),
  )
  try {
    const base = `http://127.0.0.1:${port}`
    const key = await account(base)
    const slugs = profileSlugs(PROFILES, SUBJECTS)
    const arms: Arm[] = [
      { name: 'fetch by hand (baseline)', call: byHand(base, key, true), times: [], credits: 0 },
      { name: '@pronet/client getProfile', call: withClient(pkg, base, key), times: [], credits: 0 },
      { name: 'fetch, no Idempotency-Key', call: byHand(base, key, false), times: [], credits: 0 },
    ]
    for (const arm of arms) await block(arm, slugs, WARMUP, false)
    // Each block's order turns, so no way of calling always follows the same one.
    for (let b = 0; b < BLOCKS; b++) {
      for (let i = 0; i < arms.length; i++) await block(arms[(b + i) % arms.length] as Arm, slugs, BLOCK, true)
    }

    const us = (ms: number) => `${(ms * 1000).toFixed(0).padStart(5)} µs`
    const qs = [0.5, 0.9, 0.99] as const
    console.log(`${BLOCKS} blocks × ${BLOCK} sequential calls each way (after ${WARMUP} each to warm up), GET /api/v1/profile over ${SUBJECTS} members, one keep-alive connection`)
    for (const arm of arms) {
      const figures = qs.map((q) => `p${q * 100} ${us(quantile(arm.times, q))}`).join('   ')
      console.log(`${arm.name.padEnd(28)} ${figures}   credits ${arm.credits} for ${arm.times.length} calls`)
    }
    const [baseline, client, unkeyed] = arms as [Arm, Arm, Arm]
    for (const q of qs) {
      const added = quantile(client.times, q) - quantile(baseline.times, q)
      console.log(`client over baseline at p${q * 100}: ${added >= 0 ? '+' : ''}${(added * 1000).toFixed(0)} µs (${((added / quantile(baseline.times, q)) * 100).toFixed(1)} %)`)
    }
    const keyCost = quantile(baseline.times, 0.5) - quantile(unkeyed.times, 0.5)
    console.log(`the Idempotency-Key's cost at the server, at p50: ${(keyCost * 1000).toFixed(0)} µs`)
    const overhead = quantile(client.times, 0.5) / quantile(baseline.times, 0.5) - 1
    console.log(`goal: the client's p50 within ${GOAL_P50_OVERHEAD * 100} % of the baseline's: ${overhead <= GOAL_P50_OVERHEAD ? 'met' : 'MISSED'} (${(overhead * 100).toFixed(1)} %)`)
  } finally {
    await stop(child)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
