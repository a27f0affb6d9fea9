/**
 * Migration 006 (post search) on a database written before it: migrations 001-005 only, rows with the
 * pre-006 column set exactly as the content writer made them (its output minus docSearch,
 * contentKinds, mentions and jobTitle), then 006. The backfill must produce what the writer now
 * produces for the same record: doc_search, content_kinds, mentions, profiles.job_title, and an FTS
 * index holding every post but reposts.
 */
import Database from 'better-sqlite3'
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureSearchTokenizers, migrate, sqliteMigrationsDir } from '../../src/adapters/sqlite/database.ts'
import { POST_SEARCH_TOKENIZER } from '../../src/adapters/sqlite/fts5-tokenizer.ts'
import { createSqliteSearchIndex } from '../../src/adapters/sqlite/sqlite-search-index.ts'
import type { IngestRecord, ProfileRecord } from '../../src/contract/ingest.schemas.ts'
import { prepareRecord, validateRecord } from '../../src/domain/content/content-writer.ts'
import type { ContentRow, PostRow, ProfileRow } from '../../src/ports/content-store.ts'
import { parseSearchQuery } from '../../src/domain/search/query-grammar.ts'
import { containsRun, matches, toFts5Match, tokenize } from '../../src/domain/search/query-tokens.ts'
import { personPostRecord, profileRecord } from '../helpers/ingest-fixtures.ts'
import { HOST, SEARCH_NOW, newestFirst, searchNetwork } from '../helpers/search-fixtures.ts'

let dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** A directory holding the repository's migrations numbered up to `last`. */
function migrationsUpTo(last: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'pronet-mig-'))
  dirs.push(dir)
  const src = sqliteMigrationsDir()
  for (const f of readdirSync(src)) {
    if (/^\d{3}_[a-z0-9_]+\.sql$/.test(f) && Number(f.slice(0, 3)) <= last) copyFileSync(join(src, f), join(dir, f))
  }
  return dir
}

/** Writes rows with the pre-006 column set, as the store did before migration 006. */
function writePre006(db: Database.Database, rows: readonly ContentRow[]): void {
  const profile = db.prepare(
    'INSERT INTO profiles (profile_id, member_id, slug, name, headline, picture_url, url, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  )
  const company = db.prepare(
    'INSERT INTO companies (company_id, slug, page_type, name, headline, logo_url, url, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  )
  const post = db.prepare(
    'INSERT INTO posts (id, share_kind, share_id, author_kind, author_id, is_repost, meta) VALUES (CAST(? AS INTEGER), ?, ?, ?, ?, ?, ?)',
  )
  const docs = db.prepare('INSERT INTO post_docs (id, doc, doc_trimmed, doc_older, text) VALUES (CAST(? AS INTEGER), ?, ?, ?, ?)')
  db.transaction(() => {
    for (const r of rows) {
      if (r.kind === 'profile') {
        const p = r.row
        profile.run(p.profileId, p.memberId, p.slug, p.name, p.headline, p.pictureUrl, p.url, p.doc)
      } else if (r.kind === 'company') {
        const c = r.row
        company.run(c.companyId, c.slug, c.pageType, c.name, c.headline, c.logoUrl, c.url, c.doc)
      } else if (r.kind === 'post') {
        const p = r.row
        post.run(p.id, p.shareKind, p.shareId, p.author.kind, p.author.id, p.isRepost ? 1 : 0, p.meta)
        docs.run(p.id, p.doc, p.docTrimmed, p.docOlder, p.text)
      }
    }
  })()
}

function prepared(records: readonly IngestRecord[]): ContentRow[] {
  return records.map((r) => {
    const v = validateRecord(r)
    if ('reason' in v) throw new Error(`fixture record refused: ${v.reason}`)
    return prepareRecord(v.record, SEARCH_NOW, HOST)
  })
}

/**
 * A profile whose stored document is plain JSON (no experience with a start date; the dated case is
 * below). Without experiences it displays no current position either (its positionUrn names one of the experiences).
 */
const undated = (p: ProfileRecord): ProfileRecord => ({ ...p, experiences: [], currentPosition: null })

describe('migration 006 backfills a database written before it', () => {
  let db: Database.Database
  let rows: ContentRow[]
  let posts: PostRow[]
  let profiles: ProfileRow[]

  beforeAll(() => {
    const network = searchNetwork(30)
    // A repost carrying text of its own (reposts are never indexed, whatever they hold), and a member
    // without a current title.
    const firstPost = network.find((r) => r.kind === 'post') as Extract<IngestRecord, { kind: 'post' }>
    const noTitle = network.find((r) => r.kind === 'profile' && r.data.jobTitle === '')
    const records: IngestRecord[] = network.map((r) => (r.kind === 'profile' ? { kind: 'profile', data: undated(r.data) } : r))
    const author = firstPost.data.authorProfileId as string
    expect(firstPost.data.authorType).toBe('Person')
    const companyIds = network.filter((r) => r.kind === 'company').map((r) => r.data.companyId)
    const video = {
      url: 'https://media.example/v.mp4',
      duration: 5000,
      thumbnail: 'https://media.example/v.jpg',
      progressiveStreams: [],
    }
    records.push(
      {
        kind: 'post',
        data: personPostRecord(author, SEARCH_NOW - 3_600_000, 77, { content: 'zebrafish repost words', repostOf: firstPost.data.id, reactionsByType: {} }),
      },
      {
        kind: 'post',
        data: personPostRecord(author, SEARCH_NOW - 7_200_000, 78, { content: 'two companies mentioned', mentionsCompanies: companyIds.slice(0, 2), jobPost: true }),
      },
      {
        kind: 'post',
        data: personPostRecord(author, SEARCH_NOW - 10_800_000, 79, {
          content: 'a live video without renditions',
          postType: 'linkedinVideo',
          video,
          videoUrl: video.url,
          liveVideo: true,
          isEdited: true,
          reactionsByType: {},
        }),
      },
    )
    rows = prepared(records)
    posts = rows.filter((r): r is Extract<ContentRow, { kind: 'post' }> => r.kind === 'post').map((r) => r.row)
    profiles = rows.filter((r): r is Extract<ContentRow, { kind: 'profile' }> => r.kind === 'profile').map((r) => r.row)
    expect(noTitle, 'the network has a member without a current title').toBeDefined()
    expect(posts.some((p) => p.isRepost && p.text !== '')).toBe(true)

    db = new Database(':memory:')
    expect(migrate(db, migrationsUpTo(5))).toEqual(readdirSync(migrationsUpTo(5)).sort())
    writePre006(db, rows)
    expect(migrate(db, migrationsUpTo(6))).toEqual(['006_search.sql'])
  })
  afterAll(() => db?.close())

  it('the network exercises every backfilled fact', () => {
    expect(posts.length).toBeGreaterThan(100)
    expect(posts.some((p) => p.contentKinds & 1)).toBe(true)
    expect(posts.some((p) => p.contentKinds & 2)).toBe(true)
    expect(posts.some((p) => p.contentKinds & 4)).toBe(true)
    expect(posts.some((p) => p.contentKinds & 8)).toBe(true)
    expect(posts.some((p) => p.contentKinds & 16)).toBe(true)
    expect(posts.some((p) => p.mentions.length > 1)).toBe(true)
    expect(posts.some((p) => JSON.parse(p.meta).isEdited === true)).toBe(true)
    expect(posts.some((p) => JSON.parse(p.doc).video !== null && JSON.parse(p.doc).video.progressiveStreams.length > 0)).toBe(true)
    expect(posts.some((p) => JSON.parse(p.doc).video?.progressiveStreams.length === 0)).toBe(true)
    expect(posts.some((p) => JSON.stringify(JSON.parse(p.doc).reactionsByType) === '{}')).toBe(true)
  })

  it('doc_search equals what the content writer produces', () => {
    const read = db.prepare('SELECT doc_search FROM post_docs WHERE id = CAST(? AS INTEGER)').pluck()
    for (const p of posts) {
      const stored = read.get(p.id) as string | null
      expect(stored, p.id).not.toBeNull()
      expect(JSON.parse(stored as string), p.id).toEqual(JSON.parse(p.docSearch))
    }
  })

  it('content_kinds and mentions equal what the writer and store produce', () => {
    const read = db.prepare('SELECT content_kinds AS kinds, mentions FROM posts WHERE id = CAST(? AS INTEGER)')
    for (const p of posts) {
      const row = read.get(p.id) as { kinds: number; mentions: string | null }
      expect(row.kinds, p.id).toBe(p.contentKinds)
      // The store keeps mentions as ",id,id," (null when none).
      expect(row.mentions, p.id).toBe(p.mentions.length > 0 ? `,${p.mentions.join(',')},` : null)
    }
  })

  it("profiles.job_title is the member's current title", () => {
    const read = db.prepare('SELECT job_title FROM profiles WHERE profile_id = ?').pluck()
    let titled = 0
    for (const p of profiles) {
      const stored = read.get(p.profileId) as string | null
      if (p.jobTitle === null) {
        // The writer stores null for an empty title; the backfill copies the document's '' (both are
        // "no title" to the authorJobTitle filter, which never matches either).
        expect([null, ''], p.profileId).toContain(stored)
      } else {
        titled++
        expect(stored, p.profileId).toBe(p.jobTitle)
      }
    }
    expect(titled).toBeGreaterThan(10)
  })

  it('the FTS index holds every post but reposts, and finds them as the reference evaluator does', () => {
    const indexed = (db.prepare('SELECT CAST(rowid AS TEXT) FROM post_search ORDER BY rowid').pluck().all() as string[]).sort(newestFirst)
    const originals = posts.filter((p) => !p.isRepost).map((p) => p.id).sort(newestFirst)
    expect(indexed).toEqual(originals)
    const match = db.prepare('SELECT CAST(rowid AS TEXT) FROM post_search WHERE post_search MATCH ? ORDER BY rowid DESC').pluck()
    expect(match.all('"zebrafish"')).toEqual([])
    const queries = ['team', 'ai OR data', '"thanks to"', '#hiring', 'team NOT ai', '(customers OR people) AND work']
    for (const q of queries) {
      const tree = parseSearchQuery(q).tree
      const expected = posts.filter((p) => !p.isRepost && matches(tree, tokenize(p.text))).map((p) => p.id).sort(newestFirst)
      expect(match.all(toFts5Match(tree)), q).toEqual(expected)
    }
  })

  it('migration 008 then indexes the mentions of every post but reposts', () => {
    expect(migrate(db, migrationsUpTo(8))).toEqual(['007_settings.sql', '008_post_mentions.sql'])
    const stored = db.prepare('SELECT company_id AS company, CAST(post_id AS TEXT) AS post FROM post_mentions').all() as { company: string; post: string }[]
    const expected = posts.filter((p) => !p.isRepost).flatMap((p) => [...new Set(p.mentions)].map((company) => ({ company, post: p.id })))
    const key = (m: { company: string; post: string }) => `${m.company}|${m.post}`
    expect(stored.map(key).sort()).toEqual(expected.map(key).sort())
    expect(expected.length).toBeGreaterThan(5)
  })

  it("migration 009 then indexes every member's current title, and the adapter finds each title's holders as the facts filter does", async () => {
    expect(migrate(db, migrationsUpTo(9))).toEqual(['009_profile_titles.sql'])
    const definition = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'profile_title_search'").pluck()
    expect(definition.get()).not.toContain(POST_SEARCH_TOKENIZER)
    ensureSearchTokenizers(db)
    expect(definition.get()).toContain(POST_SEARCH_TOKENIZER)
    const index = createSqliteSearchIndex(db)
    const titled = profiles.filter((p) => p.jobTitle !== null)
    // Each title's first two words, and each title whole: the holders are exactly those whose title holds it.
    const phrases = new Set(titled.flatMap((p) => [tokenize(p.jobTitle as string).slice(0, 2).join(' '), p.jobTitle as string]))
    let several = 0
    for (const phrase of phrases) {
      const tokens = tokenize(phrase)
      const want = titled.filter((p) => containsRun(tokenize(p.jobTitle as string), tokens)).map((p) => p.profileId).sort()
      if (want.length > 1) several++
      expect((await index.titleHolders(tokens, 1_000))?.sort(), phrase).toEqual(want)
    }
    expect(several).toBeGreaterThan(0)
    // A later write keeps the index in step (the triggers of migration 009).
    const member = titled[0] as ProfileRow
    db.prepare('UPDATE profiles SET job_title = ? WHERE profile_id = ?').run('Chief Zebrafish Officer', member.profileId)
    expect(await index.titleHolders(['zebrafish', 'officer'], 10)).toEqual([member.profileId])
    expect(await index.titleHolders(tokenize(member.jobTitle as string), 1_000)).not.toContain(member.profileId)
  })

  it('the search index adapter reads the backfilled facts, items and mentions', async () => {
    migrate(db, sqliteMigrationsDir())
    const index = createSqliteSearchIndex(db)
    const mentioned = posts.filter((p) => !p.isRepost).flatMap((p) => [...new Set(p.mentions)].map((company) => ({ company, post: p.id })))
    for (const company of new Set(mentioned.map((m) => m.company))) {
      const want = mentioned.filter((m) => m.company === company).map((m) => m.post).sort(newestFirst)
      expect(await index.mentionPosts([company], {}, 1_000), company).toEqual(want)
    }
    const sample = posts.filter((p) => !p.isRepost).slice(0, 40)
    const facts = await index.facts(sample.map((p) => p.id))
    const items = await index.items(sample.map((p) => p.id))
    for (const p of sample) {
      const f = facts.get(p.id)
      expect(f?.contentKinds).toBe(p.contentKinds)
      expect(f?.mentions).toEqual(p.mentions)
      expect(f?.authorKind).toBe(p.author.kind)
      expect(JSON.parse((items.get(p.id) as Buffer).toString('utf8'))).toEqual(JSON.parse(p.docSearch))
    }
  })
})

describe('migration 006 on profiles as the writer has always stored them', () => {
  // profiles.doc is not JSON but a template (profile-doc.ts) in which each experience with a start
  // date has its totalDuration between raw U+0001 marks; json_extract alone fails with "malformed JSON"
  // and would roll the whole migration back, so no data directory written before 006 could be opened.
  it('applies to a database holding a profile with a dated experience', () => {
    const rows = prepared([{ kind: 'profile', data: profileWithDatedExperience() }])
    const profile = rows[0] as Extract<ContentRow, { kind: 'profile' }>
    expect(profile.row.doc).toContain('\u0001')
    const db = new Database(':memory:')
    try {
      migrate(db, migrationsUpTo(5))
      writePre006(db, rows)
      expect(() => migrate(db, sqliteMigrationsDir())).not.toThrow()
      expect(db.prepare('SELECT job_title FROM profiles').pluck().get()).toBe('Data engineer')
    } finally {
      db.close()
    }
  })

  it('(the same database without the dated experience migrates)', () => {
    const rows = prepared([{ kind: 'profile', data: undated(profileWithDatedExperience()) }])
    const db = new Database(':memory:')
    try {
      migrate(db, migrationsUpTo(5))
      writePre006(db, rows)
      expect(migrate(db, migrationsUpTo(6))).toEqual(['006_search.sql'])
      expect(db.prepare('SELECT job_title FROM profiles').pluck().get()).toBe('Data engineer')
    } finally {
      db.close()
    }
  })
})

/** The ingest fixture's member: one ongoing position started in January 2021. */
function profileWithDatedExperience(): ProfileRecord {
  const p = profileRecord(1)
  const period = p.experiences[0]?.timePeriod
  expect(period !== undefined && 'startDate' in period).toBe(true)
  return p
}
