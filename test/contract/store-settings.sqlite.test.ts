import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSqlite } from '../../src/adapters/sqlite/database.ts'
import { createSqliteStoreSettings } from '../../src/adapters/sqlite/sqlite-store-settings.ts'
import { runStoreSettingsContract } from './store-settings.contract.ts'

runStoreSettingsContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pronet-settings-'))
  const a = openSqlite(join(dir, 'pronet.db'))
  const b = openSqlite(join(dir, 'pronet.db'))
  return {
    settings: createSqliteStoreSettings(a),
    other: createSqliteStoreSettings(b),
    async dispose() {
      a.close()
      b.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
})
