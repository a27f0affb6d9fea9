/**
 * How long a ledger batch waits for more calls after its first (PRONET_LEDGER_BATCH_MS=auto): not at
 * all while this node alone serves the accounts waiting and the machine has processor time to spare,
 * where waiting would only add latency; AUTO_WAIT_MS otherwise:
 *  - while one of the accounts waiting is served by other nodes too (`contended`: a batch found it
 *    changed by another node lately). Nodes serving one account take turns at its lock, a batch at a
 *    time, so that account's calls go only as fast as its batches are large;
 *  - while the machine's processors are nearly all busy. There, what limits a node is the processor
 *    time each call costs, and a batch costs about the same however many calls it carries: larger
 *    batches serve more calls with the same processors. The share of busy time is read from the
 *    machine's processor counters (os.cpus()) every `sampleMs`, with a gap between the two thresholds
 *    so the wait does not flap.
 */
import { cpus } from 'node:os'

/**
 * The wait. With one millisecond, batches of an account several nodes serve stayed small; two served
 * more of its calls for less processor time each.
 */
export const AUTO_WAIT_MS = 2

/** Busy and total processor time of the machine since it started, in ms, summed over its processors. */
export type ProcessorTimes = () => { busy: number; total: number }

export interface AdaptiveWaitOptions {
  /** The wait, when batches wait, ms (default AUTO_WAIT_MS). */
  waitMs?: number
  /** The share of busy time at or above which batches wait (default 0.85). */
  busyAbove?: number
  /** The share of busy time at or below which they stop waiting (default 0.7). */
  idleBelow?: number
  /** How often the counters are read, ms (default 250). */
  sampleMs?: number
  /** The machine's counters (default: os.cpus()). */
  times?: ProcessorTimes
  /** Whether other nodes serve the account too: its batches wait however busy the machine is (default: none does). */
  contended?: (accountId: string) => boolean
}

/** The wait for a batch of the accounts waiting, ms. */
export type BatchWait = (accounts: Iterable<string>) => number

export interface AdaptiveWait extends BatchWait {
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
  const waitMs = opts.waitMs ?? AUTO_WAIT_MS
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
  const contended = opts.contended
  const wait = ((accounts: Iterable<string>) => {
    if (waiting) return waitMs
    if (contended) for (const accountId of accounts) if (contended(accountId)) return waitMs
    return 0
  }) as AdaptiveWait
  wait.stop = () => clearInterval(timer)
  return wait
}
