/**
 * The SQLite index's choice for matchingAmong(…, sparse): a seek a post, or one walk of the query's
 * matches between the oldest and newest post asked about, whichever is estimated to cost less (the
 * query's term frequencies times the share of the posts' time the asked posts span). Both give the same
 * answer (the contract suite checks that on every adapter); this checks which one runs, by counting the
 * two statements' runs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openSqlite, type SqliteDb } from '../../src/adapters/sqlite/database.ts'
import { createSqliteContentStore } from '../../src/adapters/sqlite/sqlite-content-store.ts'
import { createSqliteSearchIndex } from '../../src/adapters/sqlite/sqlite-search-index.ts'
import { parseSearchQuery } from '../../src/domain/search/query-grammar.ts'
import type { ContentStore } from '../../src/ports/content-store.ts'
import type { SearchIndex } from '../../src/ports/search-index.ts'
import { personRef, postIdAt, postRow, profileRow } from '../helpers/content-fixtures.ts'

const POSTS = 1_200
/** Every RARE_EVERY-th post holds `rare`; every post holds `common`. */
const RARE_EVERY = 40
const q = (raw: string) => parseSearchQuery(raw).tree

describe('SQLite matchingAmong, sparse: seek each or walk', () => {
  let db: SqliteDb
  let store: ContentStore
  let index: SearchIndex
  const runs = { seek: 0, walk: 0 }

  beforeEach(async () => {
    db = openSqlite(':memory:')
    // Counts the runs of the one-post statement (a seek) and of the walk between two ids.
    const prepare = db.prepare.bind(db)
    db.prepare = ((sql: string) => {
      const stmt = prepare(sql)
      const kind = /rowid = CAST\(\? AS INTEGER\)\s*$/.test(sql) && sql.startsWith('SELECT 1') ? 'seek' : /\+rowid IN/.test(sql) && !/bm25/.test(sql) ? 'walk' : null
      if (kind !== null) {
        for (const method of ['get', 'all'] as const) {
          const run = stmt[method].bind(stmt) as (...args: unknown[]) => unknown
          ;(stmt as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
            runs[kind]++
            return run(...args)
          }
        }
      }
      return stmt
    }) as typeof db.prepare
    store = createSqliteContentStore(db)
    index = createSqliteSearchIndex(db)
    const rows = [profileRow(1)]
    for (let i = 0; i < POSTS; i++) {
      rows.push(postRow(postIdAt(i), personRef(1), { text: i % RARE_EVERY === 0 ? 'common rare words' : 'common words' }) as never)
    }
    expect((await store.write(rows)).every((o) => o.ok)).toBe(true)
    runs.seek = 0
    runs.walk = 0
  })

  afterEach(async () => {
    await store.close()
    db.close()
  })

  /** Every 60th post, newest first: 20 posts across the whole span. */
  const spread = () => Array.from({ length: 20 }, (_, k) => postIdAt(POSTS - 1 - k * 60))
  /** The newest 20 posts: a twentieth of a 60th of the span. */
  const newest = () => Array.from({ length: 20 }, (_, k) => postIdAt(POSTS - 1 - k))
  const minuteOf = (id: string) => Array.from({ length: POSTS }, (_, i) => i).find((i) => postIdAt(i) === id) as number

  it('seeks each of a few posts spread among a word in every post (1,200 matches to walk for 20 posts)', async () => {
    const asked = spread()
    expect(await index.matchingAmong(q('common'), asked, true)).toEqual(asked)
    expect(runs).toEqual({ seek: 20, walk: 0 })
  })

  it('walks when the query has few matches, or the posts lie close together', async () => {
    const asked = spread()
    expect(await index.matchingAmong(q('rare'), asked, true)).toEqual(asked.filter((id) => minuteOf(id) % RARE_EVERY === 0))
    expect(runs).toEqual({ seek: 0, walk: 1 })
    const close = newest()
    expect(await index.matchingAmong(q('common NOT rare'), close, true)).toEqual(close.filter((id) => minuteOf(id) % RARE_EVERY !== 0))
    expect(runs).toEqual({ seek: 0, walk: 2 })
  })

  it('walks when not told the posts are sparse, and seeks a handful (16 or fewer) either way', async () => {
    const asked = spread()
    expect(await index.matchingAmong(q('common'), asked)).toEqual(asked)
    expect(runs).toEqual({ seek: 0, walk: 1 })
    expect(await index.matchingAmong(q('rare'), asked.slice(0, 16), true)).toEqual(asked.slice(0, 16).filter((id) => minuteOf(id) % RARE_EVERY === 0))
    expect(runs).toEqual({ seek: 16, walk: 1 })
  })
})
