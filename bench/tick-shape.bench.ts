/**
 * What keeping a tick object alive (src/runtime/tick-object-shape.ts) saves: the time of one
 * process.nextTick, queued and run, in a process whose full collections find no tick object alive
 * (as a server's do in its idle moments), against the same process keeping one.
 *
 * Each case runs in a fresh process with --expose-gc, alternating, BENCH_ROUNDS times (default 5).
 * In each, ROUNDS_IN_PROCESS passes of bursts of nextTicks are timed, two full collections between
 * passes; the figure is the median of the later passes, once the collections have had their effect.
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { median } from './bench-helpers.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const ROUNDS_IN_PROCESS = 10
const BURSTS = 500
const BURST = 200

async function child(keep: boolean): Promise<void> {
  if (keep) {
    const { keepTickObjectShape } = await import('../src/runtime/tick-object-shape.ts')
    await keepTickObjectShape()
  }
  let left = 0
  let done = () => {}
  const cb = () => {
    if (--left === 0) done()
  }
  const burst = () =>
    new Promise<void>((resolve) => {
      left = BURST
      done = resolve
      for (let i = 0; i < BURST; i++) process.nextTick(cb)
    })
  const ns: number[] = []
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('run with --expose-gc')
  for (let pass = 0; pass < ROUNDS_IN_PROCESS; pass++) {
    const t0 = process.hrtime.bigint()
    for (let b = 0; b < BURSTS; b++) await burst()
    ns.push(Number(process.hrtime.bigint() - t0) / (BURSTS * BURST))
    await new Promise((resolve) => setTimeout(resolve, 5))
    gc()
    gc()
  }
  process.stdout.write(String(median(ns.slice(2))))
}

function run(keep: boolean): number {
  const self = fileURLToPath(import.meta.url)
  return Number(execFileSync(process.execPath, ['--expose-gc', self, '--child', keep ? 'keep' : 'plain'], { encoding: 'utf8' }))
}

if (process.argv[2] === '--child') await child(process.argv[3] === 'keep')
else {
  const plain: number[] = []
  const kept: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    plain.push(run(false))
    kept.push(run(true))
  }
  const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(' / ')
  console.log(`process.nextTick, queued and run, after full collections with no tick object alive (ns; ${ROUNDS} processes each):`)
  console.log(`  nothing kept        ${fmt(plain)}   median ${median(plain).toFixed(0)}`)
  console.log(`  a tick object kept  ${fmt(kept)}   median ${median(kept).toFixed(0)}`)
  console.log(`  kept ÷ nothing kept ${(median(kept) / median(plain)).toFixed(2)}`)
}
