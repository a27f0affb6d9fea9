import { createMemoryRateLimiter } from '../../src/adapters/memory/memory-rate-limiter.ts'
import { runRateLimiterContract } from './rate-limiter.contract.ts'

runRateLimiterContract(
  'memory',
  async () => {
    const limiter = createMemoryRateLimiter()
    return { limiter, dispose: () => limiter.close() }
  },
  { propertyRuns: 300 },
)
