/**
 * Counters, gauges and histograms kept as plain numbers, and rendered by prom-client's registry only
 * when it is scraped. prom-client's own metrics, labelled children included, validate and hash their
 * labels into a string on every increment and observation; on the data path that work is done for
 * every call. Here the caller resolves a series once (`cell(...)`, cached where it is used) and then
 * only adds to a number.
 *
 * The registry reads a metric through `get()` and its name, help and type, whatever its class: these
 * classes give it exactly what prom-client's own Counter, Gauge and Histogram give.
 */
import type { Metric, Registry } from 'prom-client'

type Labels = Record<string, string>

/** One series of a counter or a gauge: its value is changed in place. */
export interface ValueCell {
  value: number
}

/** One series of a histogram. */
export class HistogramCell {
  /** Observations per bucket, not cumulative; the last counts those above every bound. */
  readonly counts: Float64Array
  sum = 0
  count = 0

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1)
  }

  observe(value: number): void {
    const bounds = this.bounds
    let i = 0
    while (i < bounds.length && value > (bounds[i] as number)) i++
    ;(this.counts[i] as number)++
    this.sum += value
    this.count++
  }
}

interface MetricValue {
  labels: Labels
  value: number
  metricName?: string
}

interface FamilyOptions {
  name: string
  help: string
  labelNames?: readonly string[]
}

/** The series of one metric by their label values; a series is made the first time it is asked for. */
abstract class Family<C> {
  readonly name: string
  readonly help: string
  readonly aggregator = 'sum'
  protected readonly labelNames: readonly string[]
  protected readonly series = new Map<string, { labels: Labels; cell: C }>()

  constructor(opts: FamilyOptions) {
    this.name = opts.name
    this.help = opts.help
    this.labelNames = opts.labelNames ?? []
  }

  /** The series of these label values, in the order of `labelNames`. Callers keep it rather than ask per event. */
  cell(...values: string[]): C {
    if (values.length !== this.labelNames.length) throw new Error(`${this.name} takes ${this.labelNames.length} label values, not ${values.length}`)
    const key = values.join('\u0000')
    let entry = this.series.get(key)
    if (entry === undefined) {
      const labels: Labels = {}
      this.labelNames.forEach((name, i) => (labels[name] = values[i] as string))
      entry = { labels, cell: this.newCell() }
      this.series.set(key, entry)
    }
    return entry.cell
  }

  protected abstract newCell(): C
  abstract get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: MetricValue[] }>
  abstract reset(): void
}

/** A counter (`type: 'counter'`) or a gauge: each series one number. */
export class PlainValues extends Family<ValueCell> {
  readonly type: 'counter' | 'gauge'
  private readonly collect: (() => void) | undefined

  /** `collect` runs before each scrape: for values read from elsewhere rather than counted here. */
  constructor(opts: FamilyOptions & { type: 'counter' | 'gauge'; collect?: () => void }) {
    super(opts)
    this.type = opts.type
    this.collect = opts.collect
  }

  protected newCell(): ValueCell {
    return { value: 0 }
  }

  async get() {
    this.collect?.()
    const values = [...this.series.values()].map(({ labels, cell }) => ({ labels, value: cell.value }))
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }

  reset(): void {
    for (const { cell } of this.series.values()) cell.value = 0
  }
}

export class PlainHistogram extends Family<HistogramCell> {
  readonly type = 'histogram'
  readonly buckets: readonly number[]

  constructor(opts: FamilyOptions & { buckets: readonly number[] }) {
    super(opts)
    this.buckets = [...opts.buckets].sort((a, b) => a - b)
  }

  protected newCell(): HistogramCell {
    return new HistogramCell(this.buckets)
  }

  async get() {
    const values: MetricValue[] = []
    for (const { labels, cell } of this.series.values()) {
      let cumulative = 0
      this.buckets.forEach((bound, i) => {
        cumulative += cell.counts[i] as number
        values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: String(bound) }, value: cumulative })
      })
      values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: cell.count })
      values.push({ metricName: `${this.name}_sum`, labels, value: cell.sum })
      values.push({ metricName: `${this.name}_count`, labels, value: cell.count })
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }

  reset(): void {
    for (const { cell } of this.series.values()) {
      cell.counts.fill(0)
      cell.sum = 0
      cell.count = 0
    }
  }
}

/**
 * `metric` registered on `registry`, or the one already registered there under its name (a second
 * app built on one container shares the first one's series rather than failing on the name).
 */
export function registered<T extends PlainValues | PlainHistogram>(registry: Registry, metric: T): T {
  const existing = registry.getSingleMetric(metric.name) as unknown
  if (existing instanceof PlainValues || existing instanceof PlainHistogram) {
    if (existing.type !== metric.type) throw new Error(`${metric.name} is already registered as a ${existing.type}`)
    return existing as T
  }
  registry.registerMetric(metric as unknown as Metric)
  return metric
}
