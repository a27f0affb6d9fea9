/**
 * Log lines for failures of a store that cannot be reached (answered 503). Logging each such call at
 * error level with its stack would flood the log during an outage, growing with traffic. The outage
 * is one event: the first failure of a kind (what was being done and the cause's message) is logged
 * at warn without a stack, then at most one line per interval, saying how many more there were since
 * the last.
 */
import type { Logger } from 'pino'

export type OutageLog = (cause: unknown, context: Record<string, unknown>, message: string) => void

/** Kinds remembered at most (a cause's message may name a host or a port). */
const MAX_KINDS = 100

export function createOutageLog(logger: Pick<Logger, 'warn'>, monotonic: () => number = () => performance.now(), intervalMs = 10_000): OutageLog {
  const kinds = new Map<string, { loggedAt: number; folded: number }>()
  return (cause, context, message) => {
    const text = cause instanceof Error ? cause.message : String(cause)
    const code = (cause as { code?: unknown } | null)?.code
    const key = `${message}\u0000${text}`
    const now = monotonic()
    const seen = kinds.get(key)
    if (seen !== undefined && now - seen.loggedAt < intervalMs) {
      seen.folded++
      return
    }
    if (seen === undefined && kinds.size >= MAX_KINDS) kinds.clear()
    kinds.set(key, { loggedAt: now, folded: 0 })
    logger.warn(
      { cause: text, ...(typeof code === 'string' ? { causeCode: code } : {}), ...context, ...(seen && seen.folded > 0 ? { moreSinceLastLine: seen.folded } : {}) },
      message,
    )
  }
}
