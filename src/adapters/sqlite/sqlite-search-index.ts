/**
 * The search index on SQLite: FTS5 table post_search (migration 006), whose rowid is the activity id,
 * so newest first is FTS5 walking its doclists backwards (ORDER BY rowid DESC) and a window of time
 * is a rowid range it seeks to, never a sort of the match set. Lookups by id are single-row
 * statements: better-sqlite3 runs one in a few microseconds, less than assembling an IN list costs.
 *
 * Relevance is ranked inside SQLite (bm25() under ORDER BY … LIMIT: a top-n sort, no rows cross to
 * JavaScript but the page's): every match in FTS5's forward order, exactly what a plain `ORDER BY
 * rank` does, or the newest `bound` matches walking backwards, as the search service planned from
 * termFrequencies. Walking backwards with bm25() costs somewhat more than the forward walk when every
 * match is read anyway, and saves everything past the bound when not.
 * Document frequencies come from fts5vocab (a lookup counts the term's whole doclist) and the
 * indexed-post count from FTS5's averages record.
 */
import { containsRun, toFts5Match, tokenize } from '../../domain/search/query-tokens.ts'
import type { AuthorRef } from '../../ports/content-store.ts'
import type { IdRange, PostFacts, ScoredId, SearchIndex, TermFrequencies } from '../../ports/search-index.ts'
import type { SqliteDb } from './database.ts'
import { compareIds, isStorableId } from '../../domain/content/ids.ts'
import { estimateMatches, planningTokens } from '../../domain/search/ranking.ts'
import type { QueryNode } from '../../domain/search/query-grammar.ts'

/** Bounds of a 64-bit rowid, for an open side of a range. */
const MAX_ID = '9223372036854775807'
/** Holders asked for up to which titleHolders lists them at once; past it, it counts them first. */
const COUNT_HOLDERS_FIRST = 1_000
const MIN_ID = '0'
/** Terms whose document frequency is remembered (planning only: a stale figure costs time, never results). */
const DF_CACHE_TERMS = 50_000
/** Frequencies from this one up are remembered (shorter doclists are cheap to count again). */
const DF_REMEMBER_FROM = 10_000
/** Document frequencies one planning may look up (a token not remembered and past this is uncounted: Infinity). */
const DF_LOOKUPS_PER_QUERY = 8

/** The first varint of an FTS5 record (SQLite's big-endian varint): the averages record's row count. */
function leadingVarint(b: Buffer): number {
  let v = 0
  for (let i = 0; i < 9 && i < b.length; i++) {
    const c = b[i] as number
    if (i === 8) return v * 256 + c
    v = v * 128 + (c & 0x7f)
    if ((c & 0x80) === 0) return v
  }
  return v
}

/** Posts up to which matchAmong and matchingAmong seek each one rather than walking the matches between them. */
const ONE_BY_ONE = 16
/**
 * Matches of the query a walk may be estimated to pass for each post asked about, for matchingAmong to
 * walk rather than seek each (`sparse`). A seek (a statement of its own) costs about as much as
 * walking a hundred-odd matches; this is a third of that break-even, as the estimate assumes posts
 * spread evenly in time.
 */
const WALK_PER_SEEK = 50
/** Authors up to which authorPosts reads each one's newest posts by a statement of its own. */
const FEW_AUTHORS = 16

/** The ids an index can hold, each once. */
const storable = (ids: readonly string[]): string[] => [...new Set(ids.filter(isStorableId))]

/** The lowest and highest of some ids. */
function span(ids: readonly string[]): [string, string] {
  let low = ids[0] as string
  let high = low
  for (const id of ids) {
    if (compareIds(id, low) < 0) low = id
    if (compareIds(id, high) > 0) high = id
  }
  return [low, high]
}

interface FactsRow {
  authorKind: 'person' | 'company'
  authorId: string
  contentKinds: number
  mentions: string | null
  jobTitle: string | null
}

export function createSqliteSearchIndex(db: SqliteDb): SearchIndex {
  const newest = db
    .prepare(
      `SELECT CAST(rowid AS TEXT) FROM post_search
       WHERE post_search MATCH ? AND rowid < CAST(? AS INTEGER) AND rowid >= CAST(? AS INTEGER)
       ORDER BY rowid DESC LIMIT ?`,
    )
    .pluck()
  // A window of the query's newest matches: how many, and the oldest; and the first of them the authors
  // wrote, checked in the walk (a posts row each by its key, the authors as lists SQLite holds in an
  // index for the statement), several times faster than reading each match's facts.
  const windowEnd = db.prepare(
    `SELECT count(*) AS looked, CAST(min(id) AS TEXT) AS last FROM (
       SELECT rowid AS id FROM post_search
       WHERE post_search MATCH ? AND rowid < CAST(? AS INTEGER) AND rowid >= CAST(? AS INTEGER)
       ORDER BY rowid DESC LIMIT ?)`,
  )
  const newestBy = db
    .prepare(
      `SELECT CAST(m.id AS TEXT) FROM (
         SELECT rowid AS id FROM post_search
         WHERE post_search MATCH ? AND rowid < CAST(? AS INTEGER) AND rowid >= CAST(? AS INTEGER)
         ORDER BY rowid DESC LIMIT ?) m
       JOIN posts p ON p.id = m.id
       WHERE (p.author_kind = 'person' AND p.author_id IN (SELECT value FROM json_each(?)))
          OR (p.author_kind = 'company' AND p.author_id IN (SELECT value FROM json_each(?)))
       ORDER BY m.id DESC LIMIT ?`,
    )
    .pluck()
  const scored = db.prepare(
    `SELECT CAST(rowid AS TEXT) AS id, -bm25(post_search) AS score FROM post_search
     WHERE post_search MATCH ? AND rowid < CAST(? AS INTEGER) AND rowid >= CAST(? AS INTEGER)
     ORDER BY rowid DESC LIMIT ?`,
  )
  // Score ascending is bm25() ascending (FTS5's bm25 is negative, better is lower); ties newest first.
  const rankAll = db
    .prepare(
      `SELECT CAST(rowid AS TEXT) FROM post_search
       WHERE post_search MATCH ? AND rowid < CAST(? AS INTEGER) AND rowid >= CAST(? AS INTEGER)
       ORDER BY bm25(post_search), rowid DESC LIMIT ? OFFSET ?`,
    )
    .pluck()
  const rankNewest = db
    .prepare(
      `SELECT CAST(id AS TEXT) FROM (
         SELECT rowid AS id, bm25(post_search) AS s FROM post_search
         WHERE post_search MATCH ? AND rowid < CAST(? AS INTEGER) AND rowid >= CAST(? AS INTEGER)
         ORDER BY rowid DESC LIMIT ?)
       ORDER BY s, id DESC LIMIT ? OFFSET ?`,
    )
    .pluck()
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.post_search_vocab USING fts5vocab(main, 'post_search', 'row')`)
  const docFrequency = db.prepare('SELECT doc FROM temp.post_search_vocab WHERE term = ?').pluck()
  const averages = db.prepare('SELECT block FROM post_search_data WHERE id = 1').pluck()
  const dfCache = new Map<string, number>()
  // bm25() works out each phrase's inverse document frequency by counting the phrase's matches in the
  // whole index, once per statement (per cursor): scoring posts one statement each would pay that
  // count per matching post, which for a common word is dear.
  // One statement walks the query's matches between the oldest and newest post asked about, and
  // scores only those asked about (`+rowid` keeps the list out of FTS5's plan, so the walk stays one
  // cursor), with the same scores at a small fraction of the cost.
  const scoreOne = db
    .prepare('SELECT -bm25(post_search) FROM post_search WHERE post_search MATCH ? AND rowid = CAST(? AS INTEGER)')
    .pluck()
  const scoreAmong = db.prepare(
    `SELECT CAST(rowid AS TEXT) AS id, -bm25(post_search) AS score FROM post_search
     WHERE post_search MATCH ? AND rowid >= CAST(? AS INTEGER) AND rowid <= CAST(? AS INTEGER)
       AND +rowid IN (SELECT CAST(value AS INTEGER) FROM json_each(?))`,
  )
  const matchesIn = db
    .prepare(
      `SELECT CAST(rowid AS TEXT) FROM post_search
       WHERE post_search MATCH ? AND rowid >= CAST(? AS INTEGER) AND rowid <= CAST(? AS INTEGER)
         AND +rowid IN (SELECT CAST(value AS INTEGER) FROM json_each(?))`,
    )
    .pluck()
  const matchesOne = db.prepare('SELECT 1 FROM post_search WHERE post_search MATCH ? AND rowid = CAST(? AS INTEGER)').pluck()
  /** Which of a few posts match, by a seek each. */
  const seekEach = (match: string, wanted: readonly string[]) => wanted.filter((id) => matchesOne.get(match, id) !== undefined)
  const byAuthor = db
    .prepare(
      `SELECT CAST(id AS TEXT) FROM posts
       WHERE author_kind = ? AND author_id = ? AND id < CAST(? AS INTEGER) AND id >= CAST(? AS INTEGER) AND is_repost = 0
       ORDER BY id DESC LIMIT ?`,
    )
    .pluck()
  const byMention = db
    .prepare(
      `SELECT CAST(post_id AS TEXT) FROM post_mentions
       WHERE company_id = ? AND post_id < CAST(? AS INTEGER) AND post_id >= CAST(? AS INTEGER)
       ORDER BY post_id DESC LIMIT ?`,
    )
    .pluck()
  // Distinct posts, so a post mentioning two of the companies counts once (as PostgreSQL's && does);
  // the LIMIT stops the read once the cap is reached, however often the companies are mentioned.
  const countMentions = db
    .prepare(
      `SELECT count(*) FROM (
         SELECT DISTINCT post_id FROM post_mentions
         WHERE company_id IN (SELECT value FROM json_each(?)) AND post_id < CAST(? AS INTEGER) AND post_id >= CAST(? AS INTEGER)
         LIMIT ?)`,
    )
    .pluck()
  // Many authors (a title's holders) in one statement a kind: a statement per author adds up, and
  // reading and counting their posts in one statement is several times cheaper.
  const byAuthors = db
    .prepare(
      `SELECT CAST(id AS TEXT) FROM posts
       WHERE author_kind = ? AND author_id IN (SELECT value FROM json_each(?)) AND id < CAST(? AS INTEGER) AND id >= CAST(? AS INTEGER)
         AND is_repost = 0
       ORDER BY id DESC LIMIT ?`,
    )
    .pluck()
  const countByAuthors = db
    .prepare(
      `SELECT count(*) FROM (
         SELECT 1 FROM posts
         WHERE author_kind = ? AND author_id IN (SELECT value FROM json_each(?)) AND id < CAST(? AS INTEGER) AND id >= CAST(? AS INTEGER)
           AND is_repost = 0
         LIMIT ?)`,
    )
    .pluck()
  /** The authors' ids by kind, as JSON lists. */
  const idsByKind = (authors: readonly AuthorRef[]): [string, string][] =>
    (['person', 'company'] as const).flatMap((kind) => {
      const ids = authors.filter((a) => a.kind === kind).map((a) => a.id)
      return ids.length === 0 ? [] : [[kind, JSON.stringify(ids)] as [string, string]]
    })
  // Migration 009's index of current titles; the phrase is checked again on each title found, so a
  // holder is exactly what the facts filter would keep.
  const holders = db.prepare(
    `SELECT t.profile_id AS id, t.job_title AS title FROM profile_title_search s JOIN profile_titles t ON t.k = s.rowid
     WHERE profile_title_search MATCH ? LIMIT ?`,
  )
  // The titles holding the phrase, counted in the title index alone: an order of magnitude cheaper than
  // listing as many (joined to their members).
  const countHolders = db.prepare('SELECT count(*) FROM (SELECT 1 FROM profile_title_search WHERE profile_title_search MATCH ? LIMIT ?)').pluck()
  // The author's title from migration 009's profile_titles (a member without a title has no row there),
  // not from profiles, whose job_title lies past the member's document: reading it would go through
  // that document's pages, and the documents are about a hundred times the size of the titles.
  const factsOf = db.prepare(
    `SELECT p.author_kind AS authorKind, p.author_id AS authorId, p.content_kinds AS contentKinds, p.mentions,
            t.job_title AS jobTitle
     FROM posts p LEFT JOIN profile_titles t ON p.author_kind = 'person' AND t.profile_id = p.author_id
     WHERE p.id = CAST(? AS INTEGER)`,
  )
  // Each bound through the primary key alone (min and max in one statement would scan the table).
  const extent = db.prepare('SELECT CAST((SELECT min(id) FROM posts) AS TEXT) AS low, CAST((SELECT max(id) FROM posts) AS TEXT) AS high')
  const itemOf = db.prepare('SELECT CAST(doc_search AS BLOB) FROM post_docs WHERE id = CAST(? AS INTEGER)').pluck()

  const below = (r: IdRange) => r.below ?? MAX_ID
  const from = (r: IdRange) => r.from ?? MIN_ID

  /**
   * A token's document frequency, remembered; Infinity (unknown) once the query's budget of lookups
   * is spent. A lookup reads the token's whole doclist, which for a stop-word is long (bm25() reads the
   * same doclist for its IDF on every query).
   */
  function df(token: string, budget: { left: number }): number {
    let n = dfCache.get(token)
    if (n === undefined) {
      if (budget.left <= 0) return Infinity
      budget.left--
      n = (docFrequency.get(token) as number | undefined) ?? 0
      // Only frequent terms are remembered: their lookups are the dear ones, and a remembered figure
      // that has since grown only plans a query `newest` (bounded). A rare term is read again each
      // time (cheap), so one that becomes common is never ranked whole on an old figure.
      if (n >= DF_REMEMBER_FROM) {
        if (dfCache.size >= DF_CACHE_TERMS) dfCache.clear()
        dfCache.set(token, n)
      }
    }
    return n
  }

  function indexedPosts(): number {
    const block = averages.get() as Buffer | undefined
    return block ? leadingVarint(block) : 0
  }

  /** Planning figures for `tokens`, within one query's budget of lookups. */
  function frequencies(tokens: readonly string[]): TermFrequencies {
    const budget = { left: DF_LOOKUPS_PER_QUERY }
    return { posts: indexedPosts(), df: new Map(tokens.map((t) => [t, df(t, budget)])) }
  }

  /**
   * Whether walking the query's matches between `low` and `high` is estimated to cost less than a seek
   * for each of `count` posts: the query's estimated matches (term frequencies) times the share of the
   * posts' time (ids are time-ordered) that lies between them. Unknown frequencies: no.
   */
  function walkPays(query: QueryNode, low: string, high: string, count: number): boolean {
    const matches = estimateMatches(query, frequencies(planningTokens(query)))
    const all = extent.get() as { low: string | null; high: string | null }
    const whole = all.low === null || all.high === null ? 0 : Number(BigInt(all.high) - BigInt(all.low))
    const share = whole <= 0 ? 1 : Math.min(1, Number(BigInt(high) - BigInt(low)) / whole)
    return matches * share <= WALK_PER_SEEK * count
  }

  return {
    async newestMatches(query, range, limit) {
      return newest.all(toFts5Match(query), below(range), from(range), limit) as string[]
    },

    async newestMatchesBy(query, authors, range, limit, keep) {
      if (limit <= 0 || keep <= 0) return { ids: [], looked: 0, last: undefined }
      const match = toFts5Match(query)
      const lists = new Map(idsByKind(authors))
      // The walk stops at the `keep`th kept: the window then ends there (counted again, cheaply).
      const ids =
        lists.size === 0
          ? []
          : (newestBy.all(match, below(range), from(range), limit, lists.get('person') ?? '[]', lists.get('company') ?? '[]', keep) as string[])
      const end = windowEnd.get(match, below(range), ids.length === keep ? ids.at(-1) : from(range), limit) as { looked: number; last: string | null }
      return { ids, looked: end.looked, last: end.last ?? undefined }
    },

    async scoredMatches(query, range, limit) {
      return scored.all(toFts5Match(query), below(range), from(range), limit) as ScoredId[]
    },

    async rankedMatches(query, range, bound, skip, take, plan) {
      const match = toFts5Match(query)
      // One row past the page tells whether the ranking goes on.
      const ids = (
        plan === 'all'
          ? rankAll.all(match, below(range), from(range), take + 1, skip)
          : rankNewest.all(match, below(range), from(range), bound, take + 1, skip)
      ) as string[]
      const more = ids.length > take
      if (more) ids.pop()
      return { ids, more }
    },

    async termFrequencies(tokens) {
      return frequencies(tokens)
    },

    async matchAmong(query, ids) {
      let wanted = storable(ids)
      if (wanted.length === 0) return []
      const match = toFts5Match(query)
      const scores = new Map<string, number>()
      if (wanted.length <= ONE_BY_ONE) {
        // A few posts (an author's handful): which match, by a seek each, and when one does, its score
        // alone, which counts the query's matches once, as one statement over the span would.
        wanted = seekEach(match, wanted)
        if (wanted.length === 1) scores.set(wanted[0] as string, scoreOne.get(match, wanted[0]) as number)
      }
      if (wanted.length > 1) {
        const [low, high] = span(wanted)
        for (const r of scoreAmong.all(match, low, high, JSON.stringify(wanted)) as ScoredId[]) scores.set(r.id, r.score)
      }
      return ids.flatMap((id) => {
        const score = scores.get(id)
        return score === undefined ? [] : [{ id, score }]
      })
    },

    async matchingAmong(query, ids, sparse = false) {
      const wanted = storable(ids)
      if (wanted.length === 0) return []
      const match = toFts5Match(query)
      let hits: Set<string>
      const [low, high] = span(wanted)
      if (wanted.length <= ONE_BY_ONE || (sparse && !walkPays(query, low, high, wanted.length))) {
        // A few posts, or posts far apart among many matches: a seek each costs less than
        // walking the matches between them (a common word's, between mentions months apart, are a large
        // share of the index).
        hits = new Set(seekEach(match, wanted))
      } else {
        hits = new Set(matchesIn.all(match, low, high, JSON.stringify(wanted)) as string[])
      }
      return ids.filter((id) => hits.has(id))
    },

    async authorPosts(authors, range, limit) {
      const all: string[] = []
      if (authors.length <= FEW_AUTHORS) {
        // Each author's newest `limit` through the posts_author index, merged newest first: a prolific
        // author's older posts are never read.
        for (const a of authors as readonly AuthorRef[]) all.push(...(byAuthor.all(a.kind, a.id, below(range), from(range), limit) as string[]))
      } else {
        // Every post of theirs within range, sorted: many authors' posts are few each.
        for (const [kind, ids] of idsByKind(authors)) all.push(...(byAuthors.all(kind, ids, below(range), from(range), limit) as string[]))
      }
      return [...new Set(all)].sort((x, y) => compareIds(y, x)).slice(0, limit)
    },

    async mentionPosts(companies, range, limit) {
      // Each company's newest `limit` through post_mentions (migration 008), merged newest first.
      const all: string[] = []
      for (const company of new Set(companies)) all.push(...(byMention.all(company, below(range), from(range), limit) as string[]))
      return [...new Set(all)].sort((x, y) => compareIds(y, x)).slice(0, limit)
    },

    async mentionCount(companies, range, cap) {
      if (companies.length === 0 || cap <= 0) return 0
      return countMentions.get(JSON.stringify([...new Set(companies)]), below(range), from(range), cap) as number
    },

    async authorPostCount(authors, range, cap) {
      let n = 0
      for (const [kind, ids] of idsByKind(authors)) if (n < cap) n += countByAuthors.get(kind, ids, below(range), from(range), cap - n) as number
      return n
    },

    async titleHolders(title, limit) {
      if (title.length === 0) return []
      const phrase = toFts5Match({ kind: 'phrase', text: title.join(' '), tokens: title })
      // Too many are told by a count, not by listing them.
      if (limit >= COUNT_HOLDERS_FIRST && (countHolders.get(phrase, limit + 1) as number) > limit) return null
      const found = holders.all(phrase, limit + 1) as { id: string; title: string }[]
      if (found.length > limit) return null
      // Holders share few titles (many members, a few hundred distinct titles): each checked once.
      const holds = new Map<string, boolean>()
      return found
        .filter((h) => {
          let ok = holds.get(h.title)
          if (ok === undefined) holds.set(h.title, (ok = containsRun(tokenize(h.title), title)))
          return ok
        })
        .map((h) => h.id)
    },

    async facts(ids) {
      const out = new Map<string, PostFacts>()
      for (const id of ids) {
        const row = factsOf.get(id) as FactsRow | undefined
        if (!row) continue
        out.set(id, {
          authorKind: row.authorKind,
          authorId: row.authorId,
          contentKinds: row.contentKinds,
          mentions: row.mentions === null ? [] : row.mentions.slice(1, -1).split(','),
          authorJobTitle: row.jobTitle,
        })
      }
      return out
    },

    async items(ids) {
      const out = new Map<string, Buffer>()
      for (const id of ids) {
        const doc = itemOf.get(id) as Buffer | null | undefined
        if (doc) out.set(id, doc)
      }
      return out
    },
  }
}
