/**
 * The live source's series, for the operator: upstream calls by endpoint and outcome, the upstream
 * credits they cost, where answers came from (the hit ratio), and calls that joined another's fetch.
 * The same figures are read back for `pronet upstream status`.
 */
import { Counter, type Registry } from 'prom-client'

export type UpstreamOutcome = 'ok' | 'not_found' | 'refused_input' | 'error' | 'timeout' | 'refused' | 'busy' | 'budget'
export type AnswerSource = 'cache' | 'upstream' | 'stale'

export interface LiveMetrics {
  call(endpoint: string, outcome: UpstreamOutcome): void
  credits(n: number): void
  answered(source: AnswerSource): void
  coalesced(where: 'node' | 'cluster'): void
  snapshot(): LiveFigures
}

export interface LiveFigures {
  calls: Record<string, Record<string, number>>
  creditsSpent: number
  answers: Record<AnswerSource, number>
  /** Answers served without an upstream call, of all answers given (null before the first). */
  hitRatio: number | null
  coalesced: { node: number; cluster: number }
}

export function createLiveMetrics(registry: Registry): LiveMetrics {
  const calls = new Counter({
    name: 'pronet_upstream_calls_total',
    help: 'Calls made to the upstream data source, by endpoint and outcome',
    labelNames: ['endpoint', 'outcome'],
    registers: [registry],
  })
  const credits = new Counter({ name: 'pronet_upstream_credits_total', help: "Upstream credits spent (its X-Credits-Charged, else our price table's)", registers: [registry] })
  const answers = new Counter({
    name: 'pronet_live_answers_total',
    help: 'Live-source answers by where they came from (cache, upstream, stale)',
    labelNames: ['source'],
    registers: [registry],
  })
  const coalesced = new Counter({
    name: 'pronet_upstream_coalesced_total',
    help: "Calls that shared another call's upstream fetch, on this node or another",
    labelNames: ['where'],
    registers: [registry],
  })
  const figures: LiveFigures = { calls: {}, creditsSpent: 0, answers: { cache: 0, upstream: 0, stale: 0 }, hitRatio: null, coalesced: { node: 0, cluster: 0 } }
  return {
    call(endpoint, outcome) {
      calls.inc({ endpoint, outcome })
      const byOutcome = (figures.calls[endpoint] ??= {})
      byOutcome[outcome] = (byOutcome[outcome] ?? 0) + 1
    },
    credits(n) {
      if (n <= 0) return
      credits.inc(n)
      figures.creditsSpent += n
    },
    answered(source) {
      answers.inc({ source })
      figures.answers[source]++
    },
    coalesced(where) {
      coalesced.inc({ where })
      figures.coalesced[where]++
    },
    snapshot() {
      const { cache, upstream, stale } = figures.answers
      const total = cache + upstream + stale
      return structuredClone({ ...figures, hitRatio: total === 0 ? null : cache / total })
    },
  }
}
