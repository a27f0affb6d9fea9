import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { openSqlite } from '../../src/adapters/sqlite/database.ts'

const dir = mkdtempSync(join(tmpdir(), 'pronet-mode-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

it('creates the embedded database, and its WAL, readable by their owner only', () => {
  const path = join(dir, 'pronet.db')
  const db = openSqlite(path)
  db.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)')
  for (const file of [path, `${path}-wal`, `${path}-shm`]) expect((statSync(file).mode & 0o777).toString(8), file).toBe('600')
  db.close()
})
