import { createMemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.ts'
import { runRateLimiterContract } from './rate-limiter.contract.ts'

// One process: a lease cannot outlive its holder, so the memory adapter's leases need not lapse.
runRateLimiterContract(
  'memory',
  async () => {
    const limiter = createMemoryRateLimiter()
    return { limiter, dispose: () => limiter.close() }
  },
  { leasesLapse: false, propertyRuns: 300 },
)
