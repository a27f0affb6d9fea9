import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { EMPTY_COUNTS } from '../helpers/content-fixtures.ts'
import { openSqlite, type SqliteDb } from '../../src/adapters/sqlite/database.ts'
import { createSqliteContentStore } from '../../src/adapters/sqlite/sqlite-content-store.ts'
import { createManualClock } from '../../src/adapters/system-clock.ts'
import { IngestAborted, runIngest, type IngestIo, type IngestSummary } from '../../src/cli/ingest.command.ts'
import {
  MAX_POST_CONTENT,
  createContentWriter,
  prepareRecord,
  validateRecord,
  type ContentWriter,
} from '../../src/domain/content/content-writer.ts'
import { renderProfile } from '../../src/domain/content/profile-doc.ts'
import type { Profile } from '../../src/contract/resources.schemas.ts'
import type { ContentStore } from '../../src/ports/content-store.ts'
import { idFromTime } from '../../src/domain/content/ids.ts'
import {
  ARTICLE_ID,
  AUTHOR_ID,
  COMMENT_ID,
  COMPANY_ID,
  COMPANY_POST_ID,
  FIXTURE_NOW,
  PERSON_POST_ID,
  READER_ID,
  REPLY_ID,
  REPOST_ID,
  articleRecord,
  commentRecord,
  companyPostRecord,
  companyRecord,
  fixtureRecords,
  generatedPostRecord,
  personPostRecord,
  profileRecord,
  profileUrn,
  toNdjson,
} from '../helpers/ingest-fixtures.ts'

const HOST = 'www.linkedin.com'

function captureIo(isTTY = false): { io: IngestIo; stdout: () => string; stderr: () => string } {
  const sink = (): { stream: Writable; text: () => string } => {
    const chunks: string[] = []
    const stream = new Writable({
      write(chunk: Buffer | string, _enc, cb) {
        chunks.push(chunk.toString())
        cb()
      },
    })
    return { stream, text: () => chunks.join('') }
  }
  const out = sink()
  const err = sink()
  return { io: { stdout: out.stream, stderr: err.stream, isTTY }, stdout: out.text, stderr: err.text }
}

let dir: string
let db: SqliteDb
let store: ContentStore
let writer: ContentWriter

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pronet-ingest-'))
  db = openSqlite(':memory:')
  store = createSqliteContentStore(db)
  writer = createContentWriter({ store, clock: createManualClock(FIXTURE_NOW), platformHost: HOST })
})

afterEach(async () => {
  db.close()
  await rm(dir, { recursive: true, force: true })
})

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name)
  await writeFile(path, text)
  return path
}

/** Ingests `records`, one NDJSON line each, from a file named `name`; its refusals by line. */
async function ingestRecords(name: string, records: readonly unknown[]) {
  const path = await file(name, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`)
  const result = await runIngest({ writer }, [path], captureIo().io)
  return { ...result, byLine: Object.fromEntries(result.summary.errors.map((e) => [e.line, e.reason])) }
}

const FIXTURE_COUNTS = {
  profiles: 2,
  companies: 1,
  posts: 3,
  articles: 1,
  comments: 2,
  postReactions: 2,
  profileReactions: 1,
}

describe('ingest fixtures', () => {
  it('are valid records that the writer can prepare', () => {
    for (const record of fixtureRecords()) {
      const v = validateRecord(record)
      expect('reason' in v ? `${record.kind}: ${v.reason}` : 'valid').toBe('valid')
      if ('record' in v) expect(() => prepareRecord(v.record, FIXTURE_NOW, HOST)).not.toThrow()
    }
    const kinds = new Set(fixtureRecords().map((r) => r.kind))
    expect([...kinds].sort()).toEqual(['article', 'comment', 'company', 'post', 'postReaction', 'profile', 'profileReaction'])
  })

  it('generated posts are valid and distinct', () => {
    const ids = new Set<string>()
    for (let n = 0; n < 50; n++) {
      const v = validateRecord({ kind: 'post', data: generatedPostRecord(AUTHOR_ID, n) })
      expect('reason' in v ? v.reason : 'valid').toBe('valid')
      ids.add(generatedPostRecord(AUTHOR_ID, n).id)
    }
    expect(ids.size).toBe(50)
  })
})

describe('pronet ingest', () => {
  it('ingests a valid file of every kind, exits 0 and the store has the rows', async () => {
    const path = await file('all.ndjson', toNdjson(fixtureRecords()))
    const { io, stdout, stderr } = captureIo()

    const { exitCode, summary } = await runIngest({ writer }, [path], io)

    expect(exitCode).toBe(0)
    expect(stderr()).toBe('')
    expect(summary).toMatchObject({ files: 1, filesFailed: 0, lines: 12, ok: 12, failed: 0, errors: [], errorsOmitted: 0 })
    expect(summary.byKind).toEqual({
      company: { ok: 1, failed: 0 },
      profile: { ok: 2, failed: 0 },
      post: { ok: 3, failed: 0 },
      article: { ok: 1, failed: 0 },
      comment: { ok: 2, failed: 0 },
      postReaction: { ok: 2, failed: 0 },
      profileReaction: { ok: 1, failed: 0 },
    })
    expect(stdout()).toContain('Records: 12 read, 12 written, 0 failed')
    expect(stdout()).toMatch(/postReaction\s+2\s+0/)

    expect(await store.counts()).toEqual(FIXTURE_COUNTS)
    // The stored profile is a template (durations run to today); render it as a read would.
    const profile = JSON.parse(renderProfile((await store.getProfileDoc(AUTHOR_ID)) ?? 'null', FIXTURE_NOW)) as Profile
    expect(profile).toMatchObject({ profileId: AUTHOR_ID, memberId: '90001' })
    expect(profile.experiences[0]?.company.companyId).toBe(COMPANY_ID)
    expect(profile.experiences[0]?.totalDuration).toBe('4 yrs 6 mos')
    expect((await store.getCompany(COMPANY_ID))?.pageType).toBe('company')
    const feed = await store.listPosts({ kind: 'person', id: AUTHOR_ID }, null, 10)
    expect(feed.rows.map((r) => [r.id, r.isRepost])).toEqual([
      [REPOST_ID, true],
      [PERSON_POST_ID, false],
    ])
    const companyFeed = await store.listPosts({ kind: 'company', id: COMPANY_ID }, null, 10)
    expect(companyFeed.rows.map((r) => r.id)).toEqual([COMPANY_POST_ID])
    const { comments } = await store.listComments(PERSON_POST_ID, 0, 10)
    expect(comments.map((c) => c.commentId)).toEqual([COMMENT_ID])
    expect(comments[0]?.replies.map((r) => r.commentId)).toEqual([REPLY_ID])
    const { reactions } = await store.listPostReactions(PERSON_POST_ID, 0, 10)
    expect(reactions.map((r) => [r.reactionType, r.actor.kind])).toEqual([
      ['PRAISE', 'person'],
      ['LIKE', 'company'],
    ])
    const profileReactions = await store.listProfileReactions(READER_ID, null, 10)
    expect(profileReactions.rows.map((r) => [r.postId, r.reactionType])).toEqual([[COMPANY_POST_ID, 'INTEREST']])
    const articles = await store.listArticles(AUTHOR_ID, 0, 10)
    expect(articles.map((a) => (JSON.parse(a.toString()) as { articleId: string }).articleId)).toEqual([ARTICLE_ID])
  })

  it('reports bad lines with their line numbers and reasons, stores the good lines around them', async () => {
    const goodPost = personPostRecord(AUTHOR_ID, Date.UTC(2025, 1, 1), 10)
    const schemaBad = { ...personPostRecord(AUTHOR_ID, Date.UTC(2025, 1, 2), 11), colour: 'blue' }
    const ruleBad = personPostRecord(AUTHOR_ID, Date.UTC(2025, 1, 3), 12, {
      reactionsByType: { like: 2 },
      reactionCount: 5,
    })
    const unknownPostId = '7000000000000000000'
    const lines = [
      JSON.stringify({ kind: 'company', data: companyRecord() }), // 1
      JSON.stringify({ kind: 'profile', data: profileRecord(1) }), // 2
      '{"kind": "post", "data": {', // 3 malformed JSON
      JSON.stringify({ kind: 'story', data: {} }), // 4 unknown kind
      JSON.stringify({ kind: 'post', data: schemaBad }), // 5 schema violation
      JSON.stringify({ kind: 'post', data: ruleBad }), // 6 rule violation
      JSON.stringify({ kind: 'post', data: goodPost }), // 7
      JSON.stringify({ kind: 'comment', data: commentRecord(unknownPostId, '7000000000000000001', profileUrn(AUTHOR_ID)) }), // 8
      JSON.stringify({ kind: 'comment', data: commentRecord(goodPost.id.slice(16), '7000000000000000002', profileUrn(AUTHOR_ID)) }), // 9
      JSON.stringify({ kind: 'toString', data: {} }), // 10 inherited name, not a kind
      '[1, 2]', // 11 not an object
      JSON.stringify({ kind: 'post', data: goodPost, extra: 1 }), // 12 stray key
    ]
    const path = await file('mixed.ndjson', `${lines.join('\n')}\n`)
    const { io, stderr } = captureIo()

    const { exitCode, summary } = await runIngest({ writer }, [path], io)

    expect(exitCode).toBe(1)
    expect(summary).toMatchObject({ lines: 12, ok: 4, failed: 8, filesFailed: 0 })
    const byLine = Object.fromEntries(summary.errors.map((e) => [e.line, e.reason]))
    expect(Object.keys(byLine).map(Number)).toEqual([3, 4, 5, 6, 8, 10, 11, 12])
    expect(summary.errors.every((e) => e.file === path)).toBe(true)
    expect(byLine[3]).toMatch(/^invalid JSON: /)
    expect(byLine[4]).toMatch(/^kind must be one of profile, company, post/)
    expect(byLine[5]).toMatch(/colour/)
    expect(byLine[6]).toBe('data.reactionsByType sums to 2 but reactionCount is 5')
    expect(byLine[8]).toMatch(new RegExp(unknownPostId))
    expect(byLine[10]).toMatch(/^kind must be one of/)
    expect(byLine[11]).toBe('a record must be a JSON object')
    expect(byLine[12]).toMatch(/unknown key\(s\) extra/)
    expect(summary.byKind).toEqual({
      company: { ok: 1, failed: 0 },
      profile: { ok: 1, failed: 0 },
      post: { ok: 1, failed: 3 },
      comment: { ok: 1, failed: 1 },
      invalid: { ok: 0, failed: 4 },
    })

    // Reported on stderr as `file:line: reason`, in line order.
    const errLines = stderr().trimEnd().split('\n')
    expect(errLines.every((l) => l.startsWith(`${path}:`))).toBe(true)
    expect(errLines.map((l) => Number(/^:(\d+): /.exec(l.slice(path.length))?.[1]))).toEqual([3, 4, 5, 6, 8, 10, 11, 12])
    expect(errLines[3]).toBe(`${path}:6: data.reactionsByType sums to 2 but reactionCount is 5`)

    expect(await store.counts()).toEqual({ ...EMPTY_COUNTS, companies: 1, profiles: 1, posts: 1, comments: 1 })
    expect(await store.getPost(goodPost.id.slice(16))).toBeDefined()
    expect(await store.getPost(schemaBad.id.slice(16))).toBeUndefined()
    expect(await store.getPost(ruleBad.id.slice(16))).toBeUndefined()
    expect((await store.listComments(unknownPostId, 0, 10)).comments).toEqual([])
  })

  it('refuses a line past the longest read (64 MiB) without holding it, and reads the lines after it', async () => {
    // 65 MiB of one JSON string: a line of 600 MiB stopped the whole run at V8's longest string.
    const huge = `{"kind":"post","data":{"content":"${'a'.repeat(65 * 1024 * 1024)}"}}`
    const path = await file('huge.ndjson', [JSON.stringify({ kind: 'company', data: companyRecord() }), huge, JSON.stringify({ kind: 'profile', data: profileRecord(1) })].join('\n'))
    const { io, stderr } = captureIo()
    const { exitCode, summary } = await runIngest({ writer }, [path], io)
    expect(exitCode).toBe(1)
    expect(summary).toMatchObject({ lines: 3, ok: 2, failed: 1, errors: [{ file: path, line: 2, reason: 'the line is longer than 64.0 MiB' }] })
    expect(stderr()).toBe(`${path}:2: the line is longer than 64.0 MiB\n`)
    expect(await store.counts()).toEqual({ ...EMPTY_COUNTS, companies: 1, profiles: 1 })
  })

  it('a line too long is told wherever the reads split it, the last one too (no final newline)', async () => {
    const company = JSON.stringify({ kind: 'company', data: companyRecord() })
    // The file is read in chunks of 1 MiB: the long lines span several of them.
    const long = `{"kind":"post","x":"${'b'.repeat(3 * 1024 * 1024)}"}`
    const path = await file('long.ndjson', [long, company, long, '', long].join('\r\n'))
    const { io } = captureIo()
    const { summary } = await runIngest({ writer }, [path], io, { maxLineBytes: company.length + 1 })
    expect(summary).toMatchObject({ lines: 4, ok: 1, failed: 3 })
    expect(summary.errors.map((e) => [e.line, e.reason])).toEqual([
      [1, `the line is longer than ${company.length + 1} B`],
      [3, `the line is longer than ${company.length + 1} B`],
      [5, `the line is longer than ${company.length + 1} B`],
    ])
    expect(await store.counts()).toEqual({ ...EMPTY_COUNTS, companies: 1 })
  })

  it('refuses records whose links or stated invariants do not hold, naming the rule (a current position among the experiences, one current at most, a domain that is the website host; links like a comment)', async () => {
    const base = profileRecord(1)
    const twoCurrent = profileRecord(2)
    const second = { ...twoCurrent.experiences[0]!, positionUrn: `${twoCurrent.experiences[0]!.positionUrn.slice(0, -1)}9)` }
    const lines = [
      { kind: 'company', data: companyRecord() }, // 1
      { kind: 'profile', data: base }, // 2
      { kind: 'profile', data: { ...profileRecord(3), currentPosition: { ...profileRecord(3).currentPosition!, positionUrn: 'urn:li:fsd_profilePosition:(ACoAAx,999)' } } }, // 3
      { kind: 'profile', data: { ...twoCurrent, experiences: [twoCurrent.experiences[0]!, second] } }, // 4
      { kind: 'company', data: { ...companyRecord('77'), id: 'urn:li:fsd_company:77', publicIdentifier: 'other-co', url: 'https://www.linkedin.com/company/other-co/', domain: 'other.example' } }, // 5
      { kind: 'post', data: personPostRecord(`ACoAA${'Zz'.repeat(17)}`, Date.UTC(2025, 1, 4), 13) }, // 6 author not ingested
      { kind: 'post', data: companyPostRecord('999999999', Date.UTC(2025, 1, 5), 14) }, // 7 company page not ingested
      { kind: 'article', data: articleRecord(`ACoAA${'Zz'.repeat(17)}`, Date.UTC(2024, 5, 1), 15) }, // 8 author not ingested
      { kind: 'post', data: personPostRecord(base.profileId, Date.UTC(2025, 1, 6), 16) }, // 9 fine
      // A member's reaction comes after the post and not after now.
      { kind: 'profileReaction', data: { profileId: base.profileId, postId: personPostRecord(base.profileId, Date.UTC(2025, 1, 6), 16).id, reactionType: 'LIKE', reactedAt: '2099-01-01T00:00:00Z' } }, // 10
      { kind: 'profileReaction', data: { profileId: base.profileId, postId: personPostRecord(base.profileId, Date.UTC(2025, 1, 6), 16).id, reactionType: 'LIKE', reactedAt: '2010-01-01T00:00:00Z' } }, // 11
      { kind: 'profileReaction', data: { profileId: base.profileId, postId: personPostRecord(base.profileId, Date.UTC(2025, 1, 6), 16).id, reactionType: 'LIKE', reactedAt: '2025-02-06T00:00:01Z' } }, // 12 fine
    ]
    const { exitCode, byLine } = await ingestRecords('links.ndjson', lines)
    expect(exitCode).toBe(1)
    expect(Object.keys(byLine).map(Number)).toEqual([3, 4, 5, 6, 7, 8, 10, 11])
    expect(byLine[10]).toBe('data.reactedAt is in the future (2099-01-01T00:00:00.000Z)')
    expect(byLine[11]).toMatch(/^data\.reactedAt is before the post was published \(2025-02-06T00:00:00\.\d{3}Z, from its id\)$/)
    expect(byLine[3]).toBe('data.currentPosition.positionUrn must be the positionUrn of one of data.experiences')
    expect(byLine[4]).toBe('data.experiences: at most one entry is current (the primary ongoing position)')
    expect(byLine[5]).toBe('data.domain must be the host of data.websiteUrl without a leading www. (northwind.example)')
    expect(byLine[6]).toBe(`profile ACoAA${'Zz'.repeat(17)} does not exist`)
    expect(byLine[7]).toBe('company 999999999 does not exist')
    expect(byLine[8]).toBe(`profile ACoAA${'Zz'.repeat(17)} does not exist`)
    expect(await store.counts()).toEqual({ ...EMPTY_COUNTS, companies: 1, profiles: 1, posts: 1, profileReactions: 1 })
  })

  it('positions are ongoing exactly without an end, only an ongoing one is current, and currentPosition is that one; a page URL is canonical', async () => {
    const p = profileRecord(1)
    const job = p.experiences[0]!
    const past = { ...job, current: false, ongoing: false, positionUrn: `${job.positionUrn.slice(0, -1)}8)`, dateRange: 'Jan 2019 - Dec 2020', timePeriod: { startDate: { year: 2019, month: 1 }, endDate: { year: 2020, month: 12 } } }
    const ended = { year: 2024, month: 1 }
    const school = { ...companyRecord('78'), publicIdentifier: 'leeds-uni', url: 'https://www.linkedin.com/school/leeds-uni/', pageType: 'school' as const }
    const lines = [
      { kind: 'profile', data: { ...p, experiences: [{ ...job, timePeriod: { ...job.timePeriod, endDate: ended } }] } }, // 1 ongoing with an end
      { kind: 'profile', data: { ...p, experiences: [{ ...job, current: false, ongoing: false }] , currentPosition: null } }, // 2 not ongoing without an end
      { kind: 'profile', data: { ...p, experiences: [{ ...job, ongoing: false, timePeriod: { ...job.timePeriod, endDate: ended } }] } }, // 3 current, ended
      { kind: 'profile', data: { ...p, experiences: [job, past], currentPosition: { ...p.currentPosition!, positionUrn: past.positionUrn } } }, // 4 names a past one
      { kind: 'profile', data: { ...p, currentPosition: { ...p.currentPosition!, title: 'Totally Different' } } }, // 5 another title
      { kind: 'profile', data: { ...p, currentPosition: { ...p.currentPosition!, companyId: '1' } } }, // 6 another company
      { kind: 'company', data: { ...companyRecord('77'), url: 'https://example.com/whatever' } }, // 7
      { kind: 'company', data: { ...companyRecord('76'), url: 'https://www.linkedin.com/school/northwind-76/' } }, // 8 the wrong section
      { kind: 'company', data: { ...companyRecord('75'), url: 'https://www.linkedin.com/company/75' } }, // 9 by id: fine
      { kind: 'company', data: school }, // 10 fine
      { kind: 'profile', data: { ...p, experiences: [job, past] } }, // 11 fine
    ]
    const { exitCode, byLine } = await ingestRecords('positions.ndjson', lines)
    expect(exitCode).toBe(1)
    expect(byLine).toEqual({
      1: 'data.experiences[0].ongoing must be false: a position is ongoing exactly when it has no timePeriod.endDate',
      2: 'data.experiences[0].ongoing must be true: a position is ongoing exactly when it has no timePeriod.endDate',
      3: 'data.experiences[0].current: a position that has ended (timePeriod.endDate set) cannot be current',
      4: 'data.currentPosition must name the current experience (the one with current: true)',
      5: 'data.currentPosition.title must be that of the experience it names ("Data engineer")',
      6: `data.currentPosition.companyId must be that of the experience it names ("${COMPANY_ID}")`,
      7: 'data.url must be the canonical page URL https://www.linkedin.com/company/northwind-77/ (got "https://example.com/whatever")',
      8: 'data.url must be the canonical page URL https://www.linkedin.com/company/northwind-76/ (got "https://www.linkedin.com/school/northwind-76/")',
    })
    expect(await store.counts()).toEqual({ ...EMPTY_COUNTS, companies: 2, profiles: 1 })
  })

  it('dates are decoded from the ids, in UTC; ids from the future, comment ids not of 19 digits and comments naming a ugcPost are refused', async () => {
    const author = profileRecord(1)
    const at = Date.UTC(2025, 1, 10, 16, 30, 4, 125)
    const offset = personPostRecord(author.profileId, at, 21)
    const offsetDate = '2025-02-10T18:30:04.125+02:00'
    const late = personPostRecord(author.profileId, at + 60_000, 22)
    const future = personPostRecord(author.profileId, FIXTURE_NOW + 86_400_000, 23)
    const postId = offset.id.split(':').at(-1) as string
    const commentId = idFromTime(at + 3_600_000, 5)
    const authorUrn = `urn:li:fsd_profile:${author.profileId}`
    const lines = [
      { kind: 'company', data: companyRecord() }, // 1
      { kind: 'profile', data: author }, // 2
      { kind: 'post', data: { ...offset, date: offsetDate } }, // 3 the same instant with an offset
      { kind: 'post', data: { ...late, date: new Date(at + 60_000 + 500).toISOString() } }, // 4 half a second off
      { kind: 'post', data: future }, // 5 a day after now
      { kind: 'comment', data: commentRecord(postId, commentId, authorUrn, { createdAt: new Date(at + 3_600_000).toISOString().replace('Z', '+00:00') }) }, // 6
      { kind: 'comment', data: commentRecord(postId, '7', authorUrn, { createdAt: offsetDate }) }, // 7 not a 19-digit id
      { kind: 'comment', data: commentRecord(postId, idFromTime(at + 7_200_000, 6), authorUrn, { createdAt: '2020-01-01T10:00:00+05:00' }) }, // 8 not its id's time
      { kind: 'comment', data: commentRecord(postId, idFromTime(FIXTURE_NOW + 60_000, 7), authorUrn) }, // 9 from the future
      // 10 a post named by a ugcPost id, which is not its activity id (the number was read as one)
      { kind: 'comment', data: commentRecord(postId, idFromTime(at + 3_700_000, 8), authorUrn, { urn: `urn:li:comment:(ugcPost:${postId},${idFromTime(at + 3_700_000, 8)})` }) },
    ]
    const { exitCode, byLine } = await ingestRecords('dates.ndjson', lines)
    expect(exitCode).toBe(1)
    expect(Object.keys(byLine).map(Number)).toEqual([5, 7, 8, 9, 10])
    expect(byLine[5]).toMatch(/^data\.id encodes a time in the future \(2025-06-02T12:00:00\.\d{3}Z\)/)
    expect(byLine[7]).toBe('data.urn must name a 19-digit comment id')
    expect(byLine[8]).toBe(`data.createdAt must be the time encoded in the comment id (${new Date(at + 7_200_000).toISOString()})`)
    expect(byLine[9]).toMatch(/^data\.urn encodes a time in the future/)
    expect(byLine[10]).toBe('data.urn must name the post by its activity id, as the API shows a comment: urn:li:comment:(activity:<postId>,<commentId>)')
    // Stored as decoded from the ids, in UTC.
    expect(JSON.parse((await store.getPost(postId))!.doc.toString()).date).toBe(new Date(at).toISOString())
    expect(JSON.parse((await store.getPost(late.id.split(':').at(-1) as string))!.doc.toString()).date).toBe(new Date(at + 60_000).toISOString())
    const { comments } = await store.listComments(postId, 0, 10)
    expect(comments.map((c) => c.createdAt)).toEqual([new Date(at + 3_600_000).toISOString()])
  })

  it('a slug is one that lookups can name (letters, digits, dash, underscore and dot), and a canonical URL may spell it percent-encoded', async () => {
    const spaced = profileRecord(3, { slug: 'has space b' })
    const jose = profileRecord(4, { slug: 'josé-b' })
    const lines = [
      { kind: 'company', data: companyRecord() }, // 1
      { kind: 'profile', data: { ...spaced, url: 'https://www.linkedin.com/in/has space b/' } }, // 2
      { kind: 'profile', data: { ...jose, url: 'https://www.linkedin.com/in/jos%C3%A9-b/' } }, // 3
      { kind: 'company', data: { ...companyRecord('78'), id: 'urn:li:fsd_company:78', publicIdentifier: 'two words', domain: 'northwind.example' } }, // 4
    ]
    const { byLine } = await ingestRecords('slugs.ndjson', lines)
    expect(Object.keys(byLine).map(Number)).toEqual([2, 4])
    expect(byLine[2]).toBe(`data.publicIdentifier must be a slug that lookups can name: letters, digits, '-', '_' and '.' (got "has space b")`)
    expect(byLine[4]).toMatch(/^data\.publicIdentifier must be a slug that lookups can name/)
    expect(await store.findProfileIdBySlug('josé-b')).toBe(jose.profileId)
  })

  it('refuses what the spec rules out in reaction counts, country codes, profile URLs and root shares', async () => {
    const post = (n: number, reactionsByType: Record<string, number>) =>
      personPostRecord(AUTHOR_ID, Date.UTC(2025, 2, n), 30 + n, { reactionsByType, reactionCount: Object.values(reactionsByType).reduce((a, b) => a + b, 0) })
    const member = (n: number, change: Record<string, unknown>) => ({ ...profileRecord(n), ...change })
    const slug = profileRecord(4).publicIdentifier
    const lines = [
      { kind: 'company', data: companyRecord() }, // 1
      { kind: 'profile', data: profileRecord(1) }, // 2 the posts' author
      { kind: 'post', data: post(1, { like: 0, praise: 2 }) }, // 3 a type with no reaction is not "received"
      { kind: 'post', data: post(2, { LIKE: 3 }) }, // 4 keys are lower case
      { kind: 'post', data: post(3, { wow: 1 }) }, // 5 not one of the six reaction types
      { kind: 'post', data: post(4, { like: 1, entertainment: 2 }) }, // 6 fine
      { kind: 'profile', data: member(2, { countryCode: 'gb' }) }, // 7 upper case
      { kind: 'profile', data: member(3, { countryCode: 'GBR' }) }, // 8 alpha-2
      { kind: 'profile', data: member(4, { url: `https://elsewhere.example/in/${slug}/` }) }, // 9 another host
      { kind: 'profile', data: member(5, { url: `https://${HOST}/in/someone-else/` }) }, // 10 another member's slug
      { kind: 'profile', data: member(6, { countryCode: '', url: `https://${HOST}/in/${profileRecord(6).publicIdentifier.toUpperCase()}` }) }, // 11 fine
      { kind: 'post', data: { ...post(5, { like: 1 }), resharedPostUrn: 'urn:li:activity:7000000000000000000', permissions: { ...post(5, { like: 1 }).permissions, rootShare: true } } }, // 12 a reshare is no root share
    ]
    const { exitCode, byLine } = await ingestRecords('spec-rules.ndjson', lines)
    expect(exitCode).toBe(1)
    expect(Object.keys(byLine).map(Number)).toEqual([3, 4, 5, 7, 8, 9, 10, 12])
    expect(byLine[12]).toBe('data.permissions.rootShare must be false on a post that reshares another')
    for (const line of [3, 4, 5]) expect(byLine[line]).toMatch(/reactionsByType/)
    // A key the object does not take is named once, in words (not the validator's "schema is false").
    expect(byLine[4]).toBe('data.reactionsByType has unknown field(s) LIKE')
    for (const line of [7, 8]) expect(byLine[line]).toMatch(/countryCode/)
    expect(byLine[9]).toBe(`data.url must be the canonical profile URL https://${HOST}/in/${slug}/ (got "https://elsewhere.example/in/${slug}/")`)
    expect(byLine[10]).toMatch(/^data\.url must be the canonical profile URL/)
    expect(await store.counts()).toEqual({ ...EMPTY_COUNTS, companies: 1, profiles: 2, posts: 1 })
  })

  it("refuses a post's text over MAX_POST_CONTENT characters, counted as code points, on its line alone", async () => {
    const post = (n: number, content: string) => personPostRecord(AUTHOR_ID, Date.UTC(2025, 2, n), 60 + n, { content })
    const lines = [
      { kind: 'profile', data: profileRecord(1) }, // 1
      { kind: 'post', data: post(1, '😀'.repeat(MAX_POST_CONTENT)) }, // 2 60,000 UTF-16 units, 30,000 characters: fine
      { kind: 'post', data: post(2, `${'word '.repeat(MAX_POST_CONTENT / 5)}x`) }, // 3 one character over
      { kind: 'post', data: post(3, 'short') }, // 4
    ]
    const { exitCode, byLine } = await ingestRecords('long-posts.ndjson', lines)
    expect(exitCode).toBe(1)
    expect(byLine).toEqual({ 3: 'data.content holds 30,001 characters; a post holds at most 30,000' })
    expect(await store.counts()).toMatchObject({ profiles: 1, posts: 2 })
  })

  it('never prints control characters from a file to the terminal', async () => {
    const path = await file('esc.ndjson', `${JSON.stringify({ kind: 'post', data: {}, '\u001b[2J\nx': 1 })}\n`)
    const { io, stderr } = captureIo()
    const { summary } = await runIngest({ writer }, [path], io)
    expect(summary.errors[0]?.reason).toContain('\u001b[2J')
    expect(stderr()).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/)
    expect(stderr()).toContain('\\u001b[2J x')
    expect(stderr().split('\n')).toHaveLength(2)
  })

  it('skips blank lines without counting them and keeps line numbers right (CRLF, BOM, whitespace)', async () => {
    const records = fixtureRecords().slice(0, 4).map((r) => JSON.stringify(r))
    const text = `\uFEFF${records[0]}\r\n\r\n   \r\n${records[1]}\r\n\t\r\n${records[2]}\r\nnot json\r\n\r\n${records[3]}`
    const path = await file('blank.ndjson', text)
    const { io, stderr } = captureIo()

    const { exitCode, summary } = await runIngest({ writer }, [path], io)

    expect(exitCode).toBe(1)
    expect(summary).toMatchObject({ lines: 5, ok: 4, failed: 1 })
    expect(summary.errors).toEqual([{ file: path, line: 7, reason: expect.stringMatching(/^invalid JSON/) }])
    expect(stderr()).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:7: invalid JSON`))
    expect(await store.counts()).toEqual({ ...EMPTY_COUNTS, companies: 1, profiles: 2, posts: 1 })
  })

  it('refuses a line whose bytes are not UTF-8 instead of storing U+FFFD in their place; a real U+FFFD is fine', async () => {
    const [company, author] = fixtureRecords().slice(0, 2).map((r) => JSON.stringify(r))
    const base = personPostRecord(AUTHOR_ID, Date.UTC(2025, 1, 3), 40)
    const good = personPostRecord(AUTHOR_ID, Date.UTC(2025, 1, 4), 41, { content: 'a real replacement character \uFFFD stays' })
    const json = JSON.stringify({ kind: 'post', data: { ...base, content: 'bytes X__DX' } })
    const [before, after] = json.split('__') as [string, string]
    const bad = Buffer.concat([Buffer.from(before), Buffer.from([0xff, 0xfe]), Buffer.from(after)])
    const path = join(dir, 'latin.ndjson')
    await writeFile(path, Buffer.concat([Buffer.from(`${company}\n${author}\r\n`), bad, Buffer.from(`\r\n${JSON.stringify({ kind: 'post', data: good })}`)]))
    const { exitCode, summary } = await runIngest({ writer }, [path], captureIo().io)
    expect(exitCode).toBe(1)
    expect(summary).toMatchObject({ lines: 4, ok: 3, failed: 1 })
    expect(summary.errors).toEqual([{ file: path, line: 3, reason: 'the line is not valid UTF-8; save the file as UTF-8' }])
    expect(await store.getPost(base.id.split(':').at(-1) as string)).toBeUndefined()
    expect(JSON.parse((await store.getPost(good.id.split(':').at(-1) as string))!.doc.toString()).content).toBe('a real replacement character \uFFFD stays')
  })

  it('an empty file and a file of blank lines succeed with nothing written', async () => {
    const a = await file('empty.ndjson', '')
    const b = await file('blank.ndjson', '\n\n  \n')
    const { io } = captureIo()
    const { exitCode, summary } = await runIngest({ writer }, [a, b], io)
    expect(exitCode).toBe(0)
    expect(summary).toMatchObject({ files: 2, lines: 0, ok: 0, failed: 0, byKind: {} })
  })

  it('runs every file in order, reports a missing one and a directory, and still runs the rest', async () => {
    const records = fixtureRecords()
    // b links to what a holds, so the order of the files matters.
    const a = await file('a.ndjson', toNdjson(records.slice(0, 3)))
    const b = await file('b.ndjson', toNdjson(records.slice(3)))
    const missing = join(dir, 'missing.ndjson')
    const sub = join(dir, 'sub')
    await mkdir(sub)
    const { io, stdout, stderr } = captureIo()

    const { exitCode, summary } = await runIngest({ writer }, [a, missing, sub, b], io)

    expect(exitCode).toBe(1)
    expect(summary).toMatchObject({ files: 4, filesFailed: 2, lines: 12, ok: 12, failed: 2 })
    expect(summary.errors).toEqual([
      { file: missing, line: 0, reason: expect.stringMatching(/^cannot read file \(ENOENT/) },
      { file: sub, line: 0, reason: 'cannot read file (it is a directory)' },
    ])
    expect(stderr()).toContain(`${missing}: cannot read file (ENOENT`)
    expect(stderr()).toContain(`${sub}: cannot read file (it is a directory)`)
    expect(stdout()).toContain('Files:   4 (2 could not be read)')
    expect(await store.counts()).toEqual(FIXTURE_COUNTS)
  })

  it('reports a file that disappears after the run started', async () => {
    const records = fixtureRecords()
    const a = await file('a.ndjson', toNdjson(records.slice(0, 3)))
    const b = await file('b.ndjson', toNdjson(records.slice(3)))
    // Removes b while a is being written, after the sizes were taken.
    const racing: ContentWriter = {
      async write(values) {
        await unlink(b).catch(() => {})
        return writer.write(values)
      },
    }
    const { io } = captureIo()
    const { exitCode, summary } = await runIngest({ writer: racing }, [a, b], io)
    expect(exitCode).toBe(1)
    expect(summary).toMatchObject({ files: 2, filesFailed: 1, ok: 3, failed: 1 })
    expect(summary.errors).toEqual([{ file: b, line: 0, reason: expect.stringMatching(/^cannot read file \(ENOENT/) }])
  })

  it('prints one JSON summary with --json, errors collected and capped instead of printed', async () => {
    const good = fixtureRecords().slice(0, 2).map((r) => JSON.stringify(r))
    const path = await file('j.ndjson', [good[0], 'x1', 'x2', good[1], 'x3', '{"kind":"nope"}'].join('\n'))
    const missing = join(dir, 'gone.ndjson')
    const { io, stdout, stderr } = captureIo()

    const { exitCode, summary } = await runIngest({ writer }, [path, missing], io, { json: true, maxErrorsShown: 2 })

    expect(exitCode).toBe(1)
    expect(stderr()).toBe('')
    const out = stdout()
    expect(out.endsWith('\n')).toBe(true)
    expect(out.trimEnd().split('\n')).toHaveLength(1)
    const printed = JSON.parse(out) as IngestSummary
    expect(printed).toEqual(summary)
    expect(Object.keys(printed).sort()).toEqual(
      ['byKind', 'errors', 'errorsOmitted', 'failed', 'files', 'filesFailed', 'lines', 'ok'].sort(),
    )
    expect(printed).toMatchObject({ files: 2, filesFailed: 1, lines: 6, ok: 2, failed: 5, errorsOmitted: 3 })
    expect(printed.errors).toEqual([
      { file: path, line: 2, reason: expect.stringMatching(/^invalid JSON/) },
      { file: path, line: 3, reason: expect.stringMatching(/^invalid JSON/) },
    ])
    expect(printed.byKind).toEqual({
      company: { ok: 1, failed: 0 },
      profile: { ok: 1, failed: 0 },
      invalid: { ok: 0, failed: 4 },
    })
  })

  it('re-ingesting the same file succeeds again and leaves the same rows (upsert by id)', async () => {
    const path = await file('all.ndjson', toNdjson(fixtureRecords()))
    const first = await runIngest({ writer }, [path], captureIo().io)
    const countsAfterFirst = await store.counts()
    const second = await runIngest({ writer }, [path], captureIo().io)

    expect(first.exitCode).toBe(0)
    expect(second.exitCode).toBe(0)
    expect(second.summary).toEqual(first.summary)
    expect(countsAfterFirst).toEqual(FIXTURE_COUNTS)
    expect(await store.counts()).toEqual(FIXTURE_COUNTS)
    const { comments } = await store.listComments(PERSON_POST_ID, 0, 10)
    expect(comments[0]?.replies).toHaveLength(1)
  })

  it("a post shows its author's card as the author's record stands, also after the profile is re-ingested", async () => {
    const author = profileRecord(1)
    // The fixture post carries a card that is not its author's (another name, URL and no picture).
    const path = await file('all.ndjson', toNdjson(fixtureRecords()))
    expect((await runIngest({ writer }, [path], captureIo().io)).exitCode).toBe(0)
    const shown = async () => JSON.parse((await store.getPost(PERSON_POST_ID))!.doc.toString()) as Record<string, unknown>
    const before = await shown()
    expect(before.profile).toEqual({
      urn: profileUrn(AUTHOR_ID),
      name: `${author.firstName} ${author.lastName}`,
      headline: author.title,
      url: author.url,
      imageUrl: author.profilePictureUrl,
    })

    const renamed = { ...author, firstName: 'Adaeze', title: 'Head of data at Northwind', profilePictureUrl: '' }
    const again = await file('renamed.ndjson', toNdjson([{ kind: 'profile', data: renamed }]))
    expect((await runIngest({ writer }, [again], captureIo().io)).exitCode).toBe(0)
    const after = await shown()
    expect(after.profile).toEqual({ urn: profileUrn(AUTHOR_ID), name: 'Adaeze Okafor', headline: 'Head of data at Northwind', url: author.url, imageUrl: null })
    // Nothing else in the post moved.
    expect({ ...after, profile: null }).toEqual({ ...before, profile: null })
    expect(Object.keys(after)).toEqual(Object.keys(before))
    const older = (await store.listRecentPostsOlder({ kind: 'person', id: AUTHOR_ID }, 10)).find((p) => p.id === PERSON_POST_ID)
    expect((JSON.parse(older!.docOlder.toString()) as { profile: unknown }).profile).toEqual(after.profile)
  })

  it('streams a large file in ordered batches; a bad line mid-batch fails alone', async () => {
    const N = 5000
    const BAD_LINE = 1250 // inside the third batch of 500 (lines 1001–1500)
    const lines: string[] = [
      JSON.stringify({ kind: 'company', data: companyRecord() }),
      JSON.stringify({ kind: 'profile', data: profileRecord(1) }),
    ]
    for (let n = 0; n < N; n++) lines.push(JSON.stringify({ kind: 'post', data: generatedPostRecord(AUTHOR_ID, n) }))
    const badIndex = BAD_LINE - 1
    const badPost = JSON.parse(lines[badIndex] as string) as { data: { reactionCount: number } }
    badPost.data.reactionCount += 1
    lines[badIndex] = JSON.stringify(badPost)
    // The first post again, edited, across many batch boundaries: the later line must win.
    const first = generatedPostRecord(AUTHOR_ID, 0)
    lines.push(JSON.stringify({ kind: 'post', data: { ...first, content: 'edited later' } }))
    const path = await file('big.ndjson', `${lines.join('\n')}\n`)

    const batches: number[] = []
    const counting: ContentWriter = {
      write(values) {
        batches.push(values.length)
        return writer.write(values)
      },
    }
    const { io, stderr } = captureIo()
    const { exitCode, summary } = await runIngest({ writer: counting }, [path], io)

    expect(exitCode).toBe(1)
    expect(summary).toMatchObject({ lines: N + 3, ok: N + 2, failed: 1 })
    expect(summary.errors).toEqual([{ file: path, line: BAD_LINE, reason: expect.stringMatching(/^data.reactionsByType sums to/) }])
    expect(stderr()).toBe(`${path}:${BAD_LINE}: ${summary.errors[0]?.reason}\n`)
    expect(batches.slice(0, 10)).toEqual(Array(10).fill(500))
    expect(batches.reduce((a, b) => a + b, 0)).toBe(N + 3)

    expect((await store.counts()).posts).toBe(N - 1)
    const badId = generatedPostRecord(AUTHOR_ID, BAD_LINE - 3).id.slice(16)
    expect(await store.getPost(badId)).toBeUndefined()
    for (const neighbour of [BAD_LINE - 4, BAD_LINE - 2]) {
      expect(await store.getPost(generatedPostRecord(AUTHOR_ID, neighbour).id.slice(16))).toBeDefined()
    }
    const edited = await store.getPost(first.id.slice(16))
    expect((JSON.parse(edited?.doc.toString() ?? '{}') as { content: string }).content).toBe('edited later')
    const feed = await store.listPosts({ kind: 'person', id: AUTHOR_ID }, null, 3)
    expect(feed.rows[0]?.id).toBe(generatedPostRecord(AUTHOR_ID, N - 1).id.slice(16))
  })

  it('honours a small batch size and keeps the order of links across batches', async () => {
    const batches: number[] = []
    const counting: ContentWriter = {
      write(values) {
        batches.push(values.length)
        return writer.write(values)
      },
    }
    const path = await file('all.ndjson', toNdjson(fixtureRecords()))
    const { exitCode } = await runIngest({ writer: counting }, [path], captureIo().io, { batchSize: 1 })
    expect(exitCode).toBe(0)
    expect(batches).toEqual(Array(12).fill(1))
    expect(await store.counts()).toEqual(FIXTURE_COUNTS)
  })

  it('draws a progress bar on stderr only for a terminal, with errors still reported', async () => {
    const path = await file('p.ndjson', `${toNdjson(fixtureRecords())}oops\n`)
    const tty = captureIo(true)
    const r1 = await runIngest({ writer }, [path], tty.io)
    expect(r1.exitCode).toBe(1)
    expect(tty.stderr()).toContain('ingest [')
    expect(tty.stderr()).toContain('100%')
    expect(tty.stderr()).toContain(`${path}:13: invalid JSON`)

    const plain = captureIo(false)
    await runIngest({ writer }, [path], plain.io)
    expect(plain.stderr()).not.toContain('ingest [')
    expect(plain.stderr()).toContain(`${path}:13: invalid JSON`)
  })

  it('a store failure aborts the run instead of being reported as a bad line', async () => {
    const path = await file('all.ndjson', toNdjson(fixtureRecords()))
    const broken: ContentWriter = {
      async write() {
        throw new Error('disk full')
      },
    }
    await expect(runIngest({ writer: broken }, [path], captureIo(true).io)).rejects.toThrow('disk full')
  })

  it('an aborted run says where it stopped and what was written before it, with the store error as its cause', async () => {
    const path = await file('abort.ndjson', toNdjson(fixtureRecords()))
    const cause = new Error('connect ECONNREFUSED 127.0.0.1:5432')
    let calls = 0
    // The first batch is written, the second meets a store that has gone.
    const failing: ContentWriter = {
      async write(records) {
        if (++calls === 2) throw cause
        return writer.write(records)
      },
    }
    const run = runIngest({ writer: failing }, [path], captureIo(true).io, { batchSize: 2 })
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(IngestAborted)
    expect((error as IngestAborted).cause).toBe(cause)
    expect((error as Error).message).toBe(
      `the store failed while writing ${path} from line 3 (connect ECONNREFUSED 127.0.0.1:5432); 2 records were written before it. ` +
        'Records are upserts: running the same files again is safe.',
    )
  })

  it('refuses a batch size below 1', async () => {
    await expect(runIngest({ writer }, [], captureIo().io, { batchSize: 0 })).rejects.toThrow(RangeError)
  })
})
