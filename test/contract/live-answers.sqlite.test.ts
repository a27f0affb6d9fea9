import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSqlite } from '../../src/adapters/sqlite/database.ts'
import { createSqliteLiveAnswers } from '../../src/adapters/sqlite/sqlite-live-answers.ts'
import { runLiveAnswerStoreContract } from './live-answers.contract.ts'

runLiveAnswerStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pronet-live-answers-'))
  // Two connections to one file: the CLI, or the next start, reads what the server wrote.
  const a = openSqlite(join(dir, 'pronet.db'))
  const b = openSqlite(join(dir, 'pronet.db'))
  return {
    store: createSqliteLiveAnswers(a, { pruneBatch: 3 }),
    other: createSqliteLiveAnswers(b),
    async dispose() {
      a.close()
      b.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
})
