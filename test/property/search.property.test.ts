/**
 * Post search against a brute-force model: over a generated network of a few hundred
 * posts written from a small vocabulary, random queries of the grammar (words, phrases in either quote
 * style, hashtags, AND/OR/NOT, `&`, implicit AND, parentheses, within the limits) and random filters;
 * walking every page must yield exactly the posts the reference evaluator selects
 * (`matches(parseSearchQuery(q).tree, tokenize(text))`, reposts excluded): in date order for
 * sortBy 'date', as the same set without duplicates for relevance.
 */
// @one-backend: on SQLite; the PostgreSQL index is held to the same evaluator by test/contract/search-index.contract.ts, and search.routes.test.ts walks it over HTTP
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { IngestRecord, PostRecord } from '../../src/contract/ingest.schemas.ts'
import { ApiError } from '../../src/domain/errors.ts'
import { idFromTime } from '../../src/domain/content/ids.ts'
import { parseSearchQuery, type ParsedQuery } from '../../src/domain/search/query-grammar.ts'
import {
  activityUrn,
  companyPostRecord,
  companyRecord,
  personPostRecord,
  profileIdFor,
  profileRecord,
} from '../helpers/ingest-fixtures.ts'
import { HOST, SearchModel, idOfUrn, newestFirst, postSearch, walkSearch, type ContentType, type ModelSearch } from '../helpers/search-fixtures.ts'
import { makeTestApp, type TestApp } from '../helpers/test-app.ts'

const NOW = Date.UTC(2026, 10, 1, 12, 0, 0)
const DAY = 86_400_000
const POSTS = 320

// ---------- vocabulary and the network ----------

const WORDS = ['python', 'java', 'remote', 'hiring', 'data', 'cloud', 'café', 'Zürich', "O'Neil", 'C#', 'R&D', 'team', 'ai', 'rust']
const HASHTAGS = ['#hiring', '#Remote', '#ai', '#café']
const SEPARATORS = [' ', ' ', ' ', ', ', '. ', '! ', ' - ', '\n', ' (', ') ', ': ']
const COMPANIES = ['1035', '2040', '3055']
const PERSONS = [1, 2, 3, 4, 5, 6].map(profileIdFor)
const TITLES = ['Data Engineer', 'Senior Data Engineer', 'Chief Executive Officer', 'Engineer, Data Platform', 'Head of Data', '']

/** A small deterministic generator (mulberry32), so the network is the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function buildNetwork(): IngestRecord[] {
  const rnd = prng(20261101)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T
  const text = (): string => {
    const n = 1 + Math.floor(rnd() * 9)
    let out = ''
    for (let i = 0; i < n; i++) {
      const w = rnd() < 0.12 ? pick(HASHTAGS) : pick(WORDS)
      const cased = rnd() < 0.2 ? w.toUpperCase() : rnd() < 0.2 ? w.charAt(0).toUpperCase() + w.slice(1) : w
      out += cased + pick(SEPARATORS)
    }
    return out.trim()
  }
  const records: IngestRecord[] = COMPANIES.map((id, i) => ({
    kind: 'company',
    data: { ...companyRecord(id), publicIdentifier: `company-${i}`, url: `https://${HOST}/company/company-${i}/` },
  }))
  PERSONS.forEach((_, i) => records.push({ kind: 'profile', data: { ...profileRecord(i + 1), jobTitle: TITLES[i] as string } }))
  const written: string[] = []
  for (let n = 0; n < POSTS; n++) {
    // Spread over the last 60 days, newest last, a few minutes apart at least.
    const at = NOW - 60 * DAY + Math.floor(((n + rnd() * 0.5) / POSTS) * 60 * DAY)
    const id = idFromTime(at, n)
    const kindRoll = rnd()
    const media: Partial<PostRecord> =
      kindRoll < 0.2
        ? { postType: 'image', images: [{ url: `https://media.example/i${n}.png`, width: 800, height: 600 }], imageUrl: `https://media.example/i${n}.png` }
        : kindRoll < 0.35
          ? {
              postType: 'linkedinVideo',
              video: {
                url: `https://media.example/v${n}.mp4`,
                duration: 1000 * n,
                thumbnail: `https://media.example/v${n}.jpg`,
                progressiveStreams: rnd() < 0.8 ? [{ url: `https://media.example/v${n}-720.mp4`, width: 1280, height: 720, bitRate: 1_000_000 }] : [],
              },
              videoUrl: `https://media.example/v${n}.mp4`,
            }
          : kindRoll < 0.45
            ? { postType: 'document', carouselPdfUrl: `https://media.example/d${n}.pdf` }
            : { postType: 'text' }
    const facts: Partial<PostRecord> = {
      ...(rnd() < 0.15 ? { liveVideo: true } : {}),
      ...(rnd() < 0.15 ? { jobPost: true } : {}),
      ...(rnd() < 0.1 ? { isEdited: true } : {}),
      ...(rnd() < 0.3 ? { mentionsCompanies: COMPANIES.filter(() => rnd() < 0.5) } : {}),
    }
    let record: PostRecord
    if (rnd() < 0.25) {
      const base = companyPostRecord(pick(COMPANIES), at, n)
      record = { ...base, content: text(), images: [], imageUrl: null, postType: 'text', ...media, ...facts }
    } else {
      record = personPostRecord(pick(PERSONS), at, n, { content: text(), ...media, ...facts })
    }
    // Some reposts of earlier posts, with text of their own: never returned.
    if (written.length > 0 && rnd() < 0.08 && record.authorType === 'Person') {
      record = { ...record, repostOf: activityUrn(pick(written)) }
    } else if (written.length > 0 && rnd() < 0.05) {
      record = { ...record, resharedPostUrn: activityUrn(pick(written)), permissions: { ...record.permissions, rootShare: false } }
    }
    written.push(id)
    records.push({ kind: 'post', data: record })
  }
  return records
}

// ---------- queries of the grammar ----------

const casing = fc.constantFrom<(w: string) => string>(
  (w) => w,
  (w) => w.toUpperCase(),
  (w) => w.charAt(0).toUpperCase() + w.slice(1),
)
// Bare words: a word with '&' or an apostrophe inside stays one word; `R&D` is fine, so is O'Neil.
const word = fc.tuple(fc.constantFrom(...WORDS, 'missing'), casing).map(([w, c]) => c(w))
const phraseText = fc.array(fc.tuple(fc.constantFrom(...WORDS), casing).map(([w, c]) => c(w)), { minLength: 1, maxLength: 3 }).map((ws) => ws.join(' '))
const phrase = fc.oneof(
  phraseText.map((p) => `"${p}"`),
  phraseText.map((p) => `\u201C${p}\u201D`),
  // A matched pair of single quotes at word boundaries is a phrase; avoid texts holding an apostrophe.
  phraseText.filter((p) => !p.includes("'")).map((p) => `'${p}'`),
)
const hashtag = fc.constantFrom(...HASHTAGS, '#Hiring', '#AI')
const term = fc.oneof({ weight: 5, arbitrary: word }, { weight: 2, arbitrary: phrase }, { weight: 1, arbitrary: hashtag })
const andOp = fc.constantFrom(' AND ', ' and ', ' ', ' & ')
const orOp = fc.constantFrom(' OR ', ' or ')
const notOp = fc.constantFrom(' NOT ', ' not ')

const { query } = fc.letrec<{ query: string; group: string }>((tie) => ({
  query: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    term,
    fc.tuple(tie('group'), andOp, tie('group')).map(([a, op, b]) => a + op + b),
    fc.tuple(tie('group'), orOp, tie('group')).map(([a, op, b]) => a + op + b),
    fc.tuple(tie('group'), notOp, tie('group')).map(([a, op, b]) => a + op + b),
  ),
  group: fc.oneof(term, tie('query').map((q) => `(${q})`), tie('query')),
}))

function tryParse(q: string): ParsedQuery | undefined {
  try {
    return parseSearchQuery(q)
  } catch (e) {
    if (e instanceof ApiError && e.code === 'INVALID_PARAMETER') return undefined
    throw e
  }
}

/** Queries the grammar accepts (the limits: 5 operators, 20 phrases, 5 levels, 500 characters). */
const acceptedQuery = query.filter((q) => tryParse(q) !== undefined)

// ---------- the test ----------

let t: TestApp
let model: SearchModel

beforeAll(async () => {
  const records = buildNetwork()
  model = new SearchModel(records)
  t = await makeTestApp({ records, nowMs: NOW })
}, 60_000)
afterAll(async () => t?.close())

const pageSizes = fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 4 })

async function checkWalks(body: Record<string, unknown>, expected: readonly string[], sizes: number[], hasHashtag: boolean): Promise<void> {
  const label = JSON.stringify(body)
  if (hasHashtag) {
    const refused = await postSearch(t, { ...body, sortBy: 'date' })
    expect(refused.statusCode, label).toBe(400)
    expect(refused.json().details).toEqual({ parameter: 'sortBy' })
  } else {
    const byDate = await walkSearch(t, { ...body, sortBy: 'date' }, sizes)
    expect(byDate.ids, label).toEqual(expected)
  }
  if (body.query !== undefined) {
    const byRelevance = await walkSearch(t, body, sizes)
    expect(new Set(byRelevance.ids).size, label).toBe(byRelevance.ids.length)
    expect([...byRelevance.ids].sort(newestFirst), label).toEqual(expected)
  }
}

describe('search walks equal the brute-force model', () => {
  it('the network has what the properties need', () => {
    expect(model.posts.length).toBeGreaterThan(250)
    expect(model.reposts.size).toBeGreaterThan(5)
    for (const k of ['image', 'video', 'document', 'liveVideo', 'jobPost'] as const) {
      expect(model.posts.filter((p) => p.kinds.has(k)).length, k).toBeGreaterThan(10)
    }
    // Reposts carry words of the vocabulary, so a query would find them if they were indexed.
    const repostTexts = buildNetwork()
      .filter((r): r is Extract<IngestRecord, { kind: 'post' }> => r.kind === 'post' && r.data.repostOf !== undefined)
      .map((r) => r.data.content)
    expect(repostTexts.length).toBe(model.reposts.size)
    expect(repostTexts.every((text) => text.trim() !== '')).toBe(true)
  })

  it('property: random queries, date walk in order and relevance walk as a set', async () => {
    let nonEmpty = 0
    await fc.assert(
      fc.asyncProperty(acceptedQuery, pageSizes, async (q, sizes) => {
        const parsed = parseSearchQuery(q)
        const expected = model.select({ query: q }, NOW)
        if (expected.length > 0) nonEmpty++
        await checkWalks({ query: q }, expected, [50], parsed.hasHashtag)
        if (sizes.length > 1 || sizes[0] !== 50) await checkWalks({ query: q }, expected, sizes, parsed.hasHashtag)
      }),
      { numRuns: 200 },
    )
    expect(nonEmpty).toBeGreaterThan(60)
  })

  it('property: random queries with random filters (lists OR inside, filters AND together)', async () => {
    // Each filter present about a third of the time, so combinations stay mostly non-empty.
    const sometimes = <T>(a: fc.Arbitrary<T>) => fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: a })
    const filters = fc.record({
      profiles: sometimes(fc.subarray(PERSONS, { minLength: 1, maxLength: 4 })),
      companies: sometimes(fc.subarray(COMPANIES, { minLength: 1, maxLength: 2 })),
      mentions: sometimes(fc.subarray(COMPANIES, { minLength: 1, maxLength: 2 })),
      contentType: sometimes(fc.subarray<ContentType>(['image', 'video', 'liveVideo', 'jobPost', 'document'], { minLength: 1, maxLength: 3 })),
      jobTitle: sometimes(fc.constantFrom('data engineer', 'Engineer', 'chief executive', 'data')),
      within: sometimes(fc.constantFrom('24h', 'week', 'month')),
      afterDays: sometimes(fc.integer({ min: 0, max: 70 })),
    })
    let nonEmpty = 0
    await fc.assert(
      fc.asyncProperty(fc.option(acceptedQuery, { nil: undefined }), filters, pageSizes, async (q, f, sizes) => {
        fc.pre(q !== undefined || f.profiles !== undefined || f.companies !== undefined)
        const body: Record<string, unknown> = {}
        const m: ModelSearch = {}
        if (q !== undefined) body.query = m.query = q
        if (f.profiles) {
          // Any of the accepted spellings names the same member.
          body.authorProfiles = f.profiles.map((id, i) => (i % 2 === 0 ? id : `https://${HOST}/in/${id}/`))
          m.profiles = f.profiles
        }
        if (f.companies) {
          body.authorCompanies = f.companies.map((id, i) => (i % 2 === 0 ? id : `urn:li:fsd_company:${id}`))
          m.companies = f.companies
        }
        if (f.mentions) body.mentionsCompanies = m.mentions = f.mentions
        if (f.contentType) body.contentType = m.contentType = f.contentType
        if (f.jobTitle) body.authorJobTitle = m.jobTitle = f.jobTitle
        if (f.within) {
          body.postedWithin = f.within
          // 24h and week are fixed lengths; the spec does not say how long a month is, so month is
          // checked by its bounds below (30 days here is only a placeholder).
          m.withinMs = f.within === '24h' ? DAY : f.within === 'week' ? 7 * DAY : 30 * DAY
        }
        // postedAfter is at most 365 days back; 61 to 70 days reaches past the oldest post.
        if (f.afterDays !== undefined) body.postedAfter = m.after = NOW - f.afterDays * DAY
        const expected = model.select(m, NOW)
        if (f.within === 'month') {
          // Only the bounds of "month" are asserted: everything from the last 28 days, nothing older than 31.
          const inner = model.select({ ...m, withinMs: 28 * DAY }, NOW)
          const outer = new Set(model.select({ ...m, withinMs: 31 * DAY }, NOW))
          const w = q !== undefined && parseSearchQuery(q).hasHashtag ? await walkSearch(t, body, sizes) : await walkSearch(t, { ...body, sortBy: 'date' }, sizes)
          const ids = [...w.ids].sort(newestFirst)
          expect(ids.filter((id) => !outer.has(id))).toEqual([])
          expect(inner.filter((id) => !ids.includes(id))).toEqual([])
          return
        }
        if (expected.length > 0) nonEmpty++
        await checkWalks(body, expected, sizes, q !== undefined && parseSearchQuery(q).hasHashtag)
      }),
      { numRuns: 250 },
    )
    expect(nonEmpty).toBeGreaterThan(60)
  })

  it('no result is ever a repost, and every result is the post it claims to be', async () => {
    const w = await walkSearch(t, { authorProfiles: PERSONS, sortBy: 'date' })
    expect(w.ids).toEqual(model.select({ profiles: PERSONS }, NOW))
    expect(w.ids.filter((id) => model.reposts.has(id))).toEqual([])
    for (const p of w.pages.flatMap((pg) => pg.results)) {
      const m = model.post(idOfUrn(p.id))
      expect(p.content).toBe(m.record.content)
      expect(p.date).toBe(m.record.date)
    }
  })
})
