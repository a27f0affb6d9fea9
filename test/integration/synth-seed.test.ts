import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openSqlite, type SqliteDb } from '../../src/adapters/sqlite/database.ts'
import { createSqliteContentStore } from '../../src/adapters/sqlite/sqlite-content-store.ts'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { createContentWriter } from '../../src/domain/content/content-writer.ts'
import type { ContentStore } from '../../src/ports/content-store.ts'
import { estimateRecords, seedNetwork, type SeedResult } from '../../src/synth/index.ts'

const HOST = 'www.linkedin.com'
const ANCHOR = Date.UTC(2026, 10, 1)
const OPTS = { seed: 3, size: 300, anchorMs: ANCHOR, platformHost: HOST }

describe('seeding the synthetic network into SQLite', () => {
  let db: SqliteDb
  let store: ContentStore
  let result: SeedResult
  const progress: [number, number][] = []

  beforeAll(async () => {
    db = openSqlite(':memory:')
    store = createSqliteContentStore(db)
    const writer = createContentWriter({ store, clock: createManualClock(ANCHOR), platformHost: HOST })
    result = await seedNetwork({ writer }, { ...OPTS, batchSize: 2_000, onProgress: (done, total) => progress.push([done, total]) })
  })

  afterAll(async () => {
    await store.close()
    db.close()
  })

  it('stores every record it generated, kind by kind', async () => {
    const counts = await store.counts()
    expect(counts).toEqual({
      profiles: result.byKind.profile,
      companies: result.byKind.company,
      posts: result.byKind.post,
      articles: result.byKind.article,
      comments: result.byKind.comment,
      postReactions: result.byKind.postReaction,
      profileReactions: result.byKind.profileReaction,
    })
    expect(Object.values(result.byKind).reduce((a, b) => a + b, 0)).toBe(result.records)
  })

  it('reports progress per batch and ends at the exact total', () => {
    expect(progress.length).toBeGreaterThan(2)
    for (let i = 1; i < progress.length; i++) expect((progress[i] as [number, number])[0]).toBeGreaterThanOrEqual((progress[i - 1] as [number, number])[0])
    expect(progress.at(-1)).toEqual([result.records, result.records])
    const estimate = estimateRecords(OPTS)
    expect(Math.abs(estimate - result.records) / result.records).toBeLessThan(0.2)
  })

  it('serves what was seeded: feeds, engagement and lookups by slug', async () => {
    const someProfile = db.prepare('SELECT profile_id AS id, slug FROM profiles LIMIT 1').get() as { id: string; slug: string }
    expect(await store.findProfileIdBySlug(someProfile.slug)).toBe(someProfile.id)
    const busiest = db
      .prepare('SELECT CAST(post_id AS TEXT) AS id, count(*) AS n FROM post_reactions GROUP BY post_id ORDER BY n DESC LIMIT 1')
      .get() as { id: string; n: number }
    const reactions = await store.listPostReactions(busiest.id, 0, 100)
    expect(reactions.reactions.length).toBe(Math.min(100, busiest.n))
    const post = await store.getPost(busiest.id)
    expect(JSON.parse(String(post?.doc)).reactionCount).toBe(busiest.n)
  })

  it('refuses to go on when the writer refuses a record', async () => {
    const refusing = { write: async (records: readonly unknown[]) => records.map(() => ({ ok: false as const, reason: 'nope' })) }
    await expect(seedNetwork({ writer: refusing }, { ...OPTS, size: 20 })).rejects.toThrow(/refused: nope/)
  })
})
