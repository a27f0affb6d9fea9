import { describe } from 'vitest'
import { openPostgres } from '../../src/adapters/postgres/database.ts'
import { createPgLiveAnswers } from '../../src/adapters/postgres/pg-live-answers.ts'
import { openTestDatabase } from '../helpers/pg-content.ts'
import { postgresAvailable } from '../helpers/postgres.ts'
import { runLiveAnswerStoreContract } from './live-answers.contract.ts'

const available = await postgresAvailable()

describe.skipIf(!available)('postgres live answers', () => {
  runLiveAnswerStoreContract('postgres', async () => {
    const db = await openTestDatabase()
    // Another node's pool on the same database.
    const second = openPostgres(db.url, { max: 1, applicationName: 'pronet-test-other' })
    return {
      store: createPgLiveAnswers(db.pool, { pruneBatch: 3 }),
      other: createPgLiveAnswers(second),
      async dispose() {
        await second.end()
        await db.close()
      },
    }
  })
})
