import { createMemoryFetchLocks } from '../../src/adapters/memory/memory-fetch-locks.ts'
import { runFetchLocksContract } from './fetch-locks.contract.ts'

runFetchLocksContract('memory', async () => {
  // A clock the test moves: lapses are checked without waiting.
  let now = 1_800_000_000_000
  const locks = createMemoryFetchLocks({ now: () => now })
  return {
    locks,
    other: locks,
    async pass(ms) {
      now += ms
    },
    dispose: () => locks.close(),
  }
})
