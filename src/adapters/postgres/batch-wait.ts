/**
 * How long a ledger batch waits for more calls after its first (PRONET_LEDGER_BATCH_MS=auto): not at
 * all while the machine has processor time to spare, where waiting would only add latency;
 * BUSY_WAIT_MS while its processors are nearly all busy. There, what limits a node is the processor
 * time each call costs, and a batch costs about the same however many calls it carries: larger
 * batches serve more calls with the same processors. The share of busy time is read from the
 * machine's processor counters (os.cpus()) every `sampleMs`, with a gap between the two thresholds
 * so the wait does not flap.
 */
import { cpus } from 'node:os'

/**
 * The wait while busy. Nodes serving one account together take turns at its lock, a batch at a time,
 * so that account's calls go as fast as their batches are large; with one millisecond its batches
 * stayed small, and two served more of its calls for less processor time each.
 */
export const BUSY_WAIT_MS = 2

/** Busy and total processor time of the machine since it started, in ms, summed over its processors. */
export type ProcessorTimes = () => { busy: number; total: number }

export interface AdaptiveWaitOptions {
  /** The wait while busy, ms (default BUSY_WAIT_MS). */
  waitMs?: number
  /** The share of busy time at or above which batches wait (default 0.85). */
  busyAbove?: number
  /** The share of busy time at or below which they stop waiting (default 0.7). */
  idleBelow?: number
  /** How often the counters are read, ms (default 250). */
  sampleMs?: number
  /** The machine's counters (default: os.cpus()). */
  times?: ProcessorTimes
}

export interface AdaptiveWait {
  /** The wait now, ms. */
  (): number
  /** Stops reading the counters. */
  stop(): void
}

export const machineTimes: ProcessorTimes = () => {
  let busy = 0
  let total = 0
  for (const { times: t } of cpus()) {
    const all = t.user + t.nice + t.sys + t.idle + t.irq
    total += all
    busy += all - t.idle
  }
  return { busy, total }
}

export function adaptiveBatchWait(opts: AdaptiveWaitOptions = {}): AdaptiveWait {
  const waitMs = opts.waitMs ?? BUSY_WAIT_MS
  const busyAbove = opts.busyAbove ?? 0.85
  const idleBelow = opts.idleBelow ?? 0.7
  const times = opts.times ?? machineTimes
  let last = times()
  let waiting = false
  const timer = setInterval(() => {
    const now = times()
    const total = now.total - last.total
    if (total > 0) {
      const share = (now.busy - last.busy) / total
      if (!waiting && share >= busyAbove) waiting = true
      else if (waiting && share <= idleBelow) waiting = false
    }
    last = now
  }, opts.sampleMs ?? 250)
  timer.unref()
  const wait = (() => (waiting ? waitMs : 0)) as AdaptiveWait
  wait.stop = () => clearInterval(timer)
  return wait
}
