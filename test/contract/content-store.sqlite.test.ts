import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openSqlite } from '../../src/adapters/sqlite/database.ts'
import { VERSION_CHECK_MS, createSqliteContentStore } from '../../src/adapters/sqlite/sqlite-content-store.ts'
import { postIdAt, postRow, profileRow, personRef } from '../helpers/content-fixtures.ts'
import { runContentStoreContract } from './content-store.contract.ts'

runContentStoreContract('sqlite', async () => {
  const db = openSqlite(':memory:')
  const store = createSqliteContentStore(db)
  return {
    store,
    async dispose() {
      await store.close()
      db.close()
    },
  }
})

describe('sqlite content store', () => {
  it('close() leaves the shared handle open for its owner', async () => {
    const db = openSqlite(':memory:')
    const store = createSqliteContentStore(db)
    await store.write([profileRow(1), postRow(postIdAt(1), personRef(1))])
    await store.close()
    expect(db.open).toBe(true)
    expect(db.prepare('SELECT count(*) FROM posts').pluck().get()).toBe(1)
    db.close()
  })

  it('joins the batch to a transaction the caller already holds', async () => {
    const db = openSqlite(':memory:')
    const store = createSqliteContentStore(db)
    db.exec('BEGIN')
    const out = await store.write([profileRow(1), postRow(postIdAt(1), personRef(9), { shareKind: 'bad' as 'share' })])
    expect(out[0]).toEqual({ ok: true })
    expect(out[1]).toMatchObject({ ok: false })
    db.exec('ROLLBACK')
    expect((await store.counts()).profiles).toBe(0)
    db.close()
  })
})

describe('sqlite content store version', () => {
  it('moves within VERSION_CHECK_MS when another connection (another process) commits to the same file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pronet-version-'))
    const file = join(dir, 'pronet.db')
    const server = createSqliteContentStore(openSqlite(file))
    const ingest = createSqliteContentStore(openSqlite(file))
    try {
      const before = server.version()
      expect(server.version()).toBe(before)
      await ingest.write([profileRow(1)])
      await new Promise((resolve) => setTimeout(resolve, VERSION_CHECK_MS + 10))
      expect(server.version()).not.toBe(before)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
