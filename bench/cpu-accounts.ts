/**
 * Where a machine's processor time went during a run, from /proc (Linux): the machine's busy share,
 * and the CPU time of named groups of processes (the nodes under test, PostgreSQL, Redis), so a bench
 * can say per call what each part cost and whether the machine was saturated. Elsewhere (no /proc),
 * `measure` returns null and benches print no such figures.
 */
import { readdirSync, readFileSync } from 'node:fs'

/** USER_HZ: /proc counts processor time in ticks of 10 ms on Linux. */
const TICK_MS = 10

/** A process's CPU time so far (ms), all its threads; undefined when it is gone or /proc is not there. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command (which may hold spaces) start after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS // utime + stime
  } catch {
    return undefined
  }
}

/** The pids of the processes whose command name is `name` (postgres, redis-server); none without /proc. */
export function processesNamed(name: string): number[] {
  const pids: number[] = []
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return pids
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) pids.push(Number(entry))
    } catch {
      // Gone meanwhile.
    }
  }
  return pids
}

/** The machine's busy and total processor time so far (ms, summed over its processors). */
function machineMs(): { busy: number; total: number } {
  const [, ...ticks] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] as string).trim().split(/\s+/)
  // user nice system idle iowait irq softirq steal (guest time is already counted in user).
  const t = ticks.slice(0, 8).map(Number)
  const total = t.reduce((a, b) => a + b, 0)
  return { busy: (total - (t[3] as number) - (t[4] as number)) * TICK_MS, total: total * TICK_MS }
}

export interface CpuAccount {
  /** The machine's busy share over the run (0..1), all processors. */
  busy: number
  /** CPU time (ms) of each group over the run. */
  groups: Record<string, number>
  /** The machine's busy time (ms) not in any group: the load generators, the kernel, anything else. */
  rest: number
}

/**
 * A group's processes: fixed pids, or how to find them (processesNamed), asked again when the run
 * ends so that processes started during it are counted too: PostgreSQL starts a backend for each
 * connection a pool opens, and pools close idle connections between runs.
 */
export type ProcessGroup = readonly number[] | (() => number[])

const pidsOf = (group: ProcessGroup): readonly number[] => (typeof group === 'function' ? group() : group)

function cpuOf(pids: readonly number[]): Map<number, number> {
  return new Map(
    pids.flatMap((pid) => {
      const ms = processCpuMs(pid)
      return ms === undefined ? [] : [[pid, ms] as [number, number]]
    }),
  )
}

/**
 * Runs `run` and accounts the processor time of the machine and of each group of processes during it.
 * A process that ended during the run is left out (its time falls to `rest`); one that started
 * during it is counted in full. Null where /proc is not there.
 */
export async function measure<T>(groups: Record<string, ProcessGroup>, run: () => Promise<T>): Promise<{ result: T; cpu: CpuAccount | null }> {
  let before: { machine: { busy: number; total: number }; groups: Record<string, Map<number, number>> } | undefined
  try {
    before = { machine: machineMs(), groups: Object.fromEntries(Object.entries(groups).map(([name, g]) => [name, cpuOf(pidsOf(g))])) }
  } catch {
    before = undefined
  }
  const result = await run()
  if (!before) return { result, cpu: null }
  const machine = machineMs()
  const spent: Record<string, number> = {}
  for (const [name, group] of Object.entries(groups)) {
    const was = before.groups[name] as Map<number, number>
    const now = cpuOf([...new Set([...was.keys(), ...pidsOf(group)])])
    spent[name] = [...now].reduce((sum, [pid, ms]) => sum + Math.max(0, ms - (was.get(pid) ?? 0)), 0)
  }
  const busy = machine.busy - before.machine.busy
  const total = machine.total - before.machine.total
  const inGroups = Object.values(spent).reduce((a, b) => a + b, 0)
  return { result, cpu: { busy: total > 0 ? busy / total : 0, groups: spent, rest: Math.max(0, busy - inGroups) } }
}
