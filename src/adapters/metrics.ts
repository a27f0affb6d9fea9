/** Adapters' Prometheus metrics, registered once per registry. */
import type { Metric, Registry } from 'prom-client'

/**
 * The registry's metric of that name, or `make()`'s registered there (unregistered without a
 * registry). Two adapters of one kind on one registry (a test's second ledger) share the metric
 * instead of failing on a duplicate name.
 */
export function metric<T extends Metric>(registry: Registry | undefined, name: string, make: () => T): T {
  const existing = registry?.getSingleMetric(name)
  if (existing) return existing as T
  const m = make()
  registry?.registerMetric(m)
  return m
}
