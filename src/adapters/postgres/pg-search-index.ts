/**
 * The search index on PostgreSQL: posts.search, a tsvector the content store builds from the FTS5
 * tokenizer model (pg-search-text.ts), under a GIN index. Matching has FTS5's meaning exactly (the
 * query compiles to a tsquery of the same tokens); newest first is ORDER BY id DESC LIMIT n, which the
 * planner serves from the GIN bitmap with a top-n sort for rare terms, or by walking the primary key
 * backwards and testing each row for common ones, never sorting the whole match set into order.
 *
 * Relevance is FTS5's bm25() itself (k1 = 1.2, b = 0.75, each query term one "phrase"), computed
 * here from the same inputs: the term frequencies of each candidate, read from its tsvector restricted
 * to the query's lexemes (setweight + ts_filter keep a few bytes per row), its token count
 * (posts.search_len), the number of indexed posts and their tokens (kept exactly on the content_epoch
 * row by every write), and each term's document frequency. Document frequencies are counted on the
 * GIN index up to `exactCountLimit` rows; a term in more posts than that takes the planner's
 * statistics instead (pg_stats.most_common_elems, refreshed by ANALYZE), as counting it would visit
 * every one of those posts on every search. ts_rank is not used: it has no inverse document
 * frequency, so a rare term counts no more than a common one, and it ranks unlike the SQLite index.
 */
import type { TermNode, QueryNode } from '../../domain/search/query-grammar.ts'
import type { AuthorRef } from '../../ports/content-store.ts'
import type { IdRange, PostFacts, ScoredId, SearchIndex } from '../../ports/search-index.ts'
import type { PgPool } from './database.ts'
import { isStorableId } from '../../domain/content/ids.ts'
import { containsRun, tokenize } from '../../domain/search/query-tokens.ts'
import { rankScored } from '../../domain/search/ranking.ts'
import { MAX_LEXEME_BYTES, queryTerms, toTsquery } from './pg-search-text.ts'

const MAX_ID = '9223372036854775807'

/** FTS5's bm25() constants. */
const K1 = 1.2
const B = 0.75

export interface PgSearchIndexOptions {
  /** Document frequencies up to this many posts are counted exactly (default 5,000). */
  exactCountLimit?: number
  /** How long the planner's lexeme statistics are reused before they are read again (default 60 s). */
  statsTtlMs?: number
  /** Time source for the statistics' lifetime (default performance.now). */
  now?: () => number
}

/** Titles not yet in the title index (profiles_title_unfilled) titleHolders reads as text at most. */
const UNFILLED_TITLES = 5_000

/** An id bound: digits only; past the bigint range it is the range's end. */
const upper = (id: string | undefined): string => (id === undefined || !/^\d+$/.test(id) || !isStorableId(id) ? MAX_ID : id)
const lower = (id: string | undefined): string | null => {
  if (id === undefined) return '0'
  if (!/^\d+$/.test(id)) return '0'
  return isStorableId(id) ? id : null
}

const QUOTE = 39 // '
const BACKSLASH = 92
const COLON = 58
const COMMA = 44

/**
 * Positions of each lexeme in a tsvector's text form (`'a':1A,5A 'b':2A`): lexemes quoted, `'` and
 * `\` doubled inside, positions with an optional weight letter. Hand-rolled: a relevance search parses
 * thousands of these, and a regular expression costs several times as much.
 */
export function parsePositions(vector: string): Map<string, number[]> {
  const out = new Map<string, number[]>()
  const n = vector.length
  let i = 0
  while (i < n) {
    while (i < n && vector.charCodeAt(i) !== QUOTE) i++
    if (i >= n) break
    i++
    let lexeme = ''
    let start = i
    for (;;) {
      const c = vector.charCodeAt(i)
      if (i >= n) break
      if (c === BACKSLASH || (c === QUOTE && vector.charCodeAt(i + 1) === QUOTE)) {
        lexeme += vector.slice(start, i) + vector[i + 1]
        i += 2
        start = i
      } else if (c === QUOTE) {
        break
      } else {
        i++
      }
    }
    lexeme += vector.slice(start, i)
    i++
    const positions: number[] = []
    if (vector.charCodeAt(i) === COLON) {
      i++
      let value = 0
      for (; i < n; i++) {
        const c = vector.charCodeAt(i)
        if (c >= 48 && c <= 57) value = value * 10 + (c - 48)
        else if (c === COMMA) {
          positions.push(value)
          value = 0
        } else if (c === 32) break
      }
      positions.push(value)
    }
    out.set(lexeme, positions)
  }
  return out
}

/** Occurrences of a term in a row: positions where all its tokens follow one another. */
function occurrences(term: TermNode, positions: Map<string, number[]>): number {
  const first = positions.get(term.tokens[0] as string)
  if (first === undefined) return 0
  if (term.tokens.length === 1) return first.length
  const rest = term.tokens.slice(1).map((t) => new Set(positions.get(t) ?? []))
  let n = 0
  for (const p of first) if (rest.every((set, i) => set.has(p + i + 1))) n++
  return n
}

/**
 * Term frequencies of one matching row as FTS5 reports them to bm25(): a term's instances count only
 * where its part of the query matches the row (a failed AND, or the excluded side of a NOT, counts
 * nothing). Fills `freq` (indexed like queryTerms) and returns whether `node` matches.
 */
function frequencies(node: QueryNode, positions: Map<string, number[]>, freq: number[], next: { i: number }): boolean {
  switch (node.kind) {
    case 'word':
    case 'phrase':
    case 'hashtag': {
      const n = occurrences(node, positions)
      freq[next.i++] = n
      return n > 0
    }
    case 'and':
    case 'or': {
      const start = next.i
      let all = true
      let any = false
      for (const child of node.children) {
        const hit = frequencies(child, positions, freq, next)
        all &&= hit
        any ||= hit
      }
      if (node.kind === 'and' && !all) freq.fill(0, start, next.i)
      return node.kind === 'and' ? all : any
    }
    case 'not': {
      const start = next.i
      const include = frequencies(node.include, positions, freq, next)
      const middle = next.i
      const exclude = frequencies(node.exclude, positions, freq, next)
      freq.fill(0, include && !exclude ? middle : start, next.i)
      return include && !exclude
    }
  }
}

interface Candidate {
  id: string
  len: number
  hits: string
}

interface FactsRow {
  id: string
  authorKind: 'person' | 'company'
  authorId: string
  contentKinds: number
  mentions: string[]
  jobTitle: string | null
}

export function createPgSearchIndex(pool: PgPool, opts: PgSearchIndexOptions = {}): SearchIndex {
  const exactLimit = opts.exactCountLimit ?? 5_000
  const statsTtl = opts.statsTtlMs ?? 60_000
  const now = opts.now ?? (() => performance.now())

  // ---------- document frequencies ----------

  /** Share of indexed posts containing each common lexeme, and how many were indexed, at the last ANALYZE. */
  let common: { at: number; freq: Map<string, number>; docs: number } | undefined
  async function commonLexemes(): Promise<{ freq: Map<string, number>; docs: number }> {
    if (common !== undefined && now() - common.at < statsTtl) return common
    const { rows } = await pool.query<{ elems: string[] | null; freqs: number[] | null; docs: number | null }>(
      `SELECT s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs AS freqs,
              c.reltuples * (1 - s.null_frac) AS docs
       FROM pg_stats s JOIN pg_class c ON c.oid = to_regclass('posts')
       WHERE s.schemaname = current_schema() AND s.tablename = 'posts' AND s.attname = 'search'`,
    )
    const freq = new Map<string, number>()
    const { elems, freqs, docs } = rows[0] ?? { elems: null, freqs: null, docs: null }
    // The frequencies are shares of the non-null vectors, i.e. of indexed posts.
    if (elems && freqs) elems.forEach((e, i) => freq.set(e, freqs[i] as number))
    common = { at: now(), freq, docs: Math.max(0, docs ?? 0) }
    return common
  }

  /**
   * N (indexed posts), their total tokens, and the document frequency of every term: counted on the
   * index up to exactLimit posts, else the statistics' share of N (a phrase: that of its rarest token).
   * One round trip, plus the statistics once per statsTtl.
   */
  async function corpus(terms: readonly TermNode[]): Promise<{ docs: number; tokens: number; df: number[] }> {
    const stats = await commonLexemes()
    const share = (term: TermNode): number | undefined => {
      const shares = term.tokens.map((t) => stats.freq.get(t))
      return shares.some((s) => s === undefined) ? undefined : Math.min(...(shares as number[]))
    }
    const keys = terms.map((t) => t.tokens.join(' '))
    const unique = [...new Map(terms.map((t, i) => [keys[i] as string, t])).entries()]
    const counted: { key: string; query: string }[] = []
    const estimated = new Map<string, number>()
    for (const [key, term] of unique) {
      const query = toTsquery(term)
      const s = share(term)
      if (query === null) estimated.set(key, 0)
      else if (s !== undefined && s * stats.docs >= exactLimit) estimated.set(key, s)
      else counted.push({ key, query })
    }
    const counts = counted.map((_, i) => `(SELECT count(*) FROM (SELECT 1 FROM posts WHERE search @@ $${i + 2}::tsquery LIMIT $1) s)`)
    const { rows } = await pool.query<{ docs: string; tokens: string; n: string[] }>(
      `SELECT search_docs AS docs, search_tokens AS tokens, ARRAY[${counts.join(', ')}]::text[] AS n FROM content_epoch WHERE id = 1`,
      counted.length === 0 ? [] : [exactLimit, ...counted.map((c) => c.query)],
    )
    const docs = Number(rows[0]?.docs ?? 0)
    const df = new Map<string, number>()
    for (const [key, s] of estimated) df.set(key, s === 0 ? 0 : Math.round(s * docs))
    counted.forEach((c, i) => {
      const n = Number(rows[0]?.n[i] ?? 0)
      // At the limit the count stopped early: the term is common, whatever the statistics said.
      const s = share(unique.find(([k]) => k === c.key)![1])
      df.set(c.key, n < exactLimit ? n : Math.max(n, Math.round((s ?? 0) * docs)))
    })
    return { docs, tokens: Number(rows[0]?.tokens ?? 0), df: keys.map((k) => df.get(k) as number) }
  }

  /**
   * Scores candidate rows with FTS5's bm25(), higher is better. The corpus figures are read beside the
   * candidates (another pooled connection), so a scored search costs one round trip of latency more
   * than an unscored one only when the statistics are due.
   */
  async function score(query: QueryNode, read: Promise<{ rows: Candidate[] }>): Promise<ScoredId[]> {
    const terms = queryTerms(query)
    const [{ rows }, { docs, tokens, df }] = await Promise.all([read, corpus(terms)])
    if (rows.length === 0) return []
    const idf = df.map((n) => {
      const v = Math.log((docs - n + 0.5) / (n + 0.5))
      return v > 0 ? v : 1e-6
    })
    const avgdl = docs > 0 ? tokens / docs : 1
    const freq = new Array<number>(terms.length)
    return rows.map((r) => {
      frequencies(query, parsePositions(r.hits), freq, { i: 0 })
      const norm = K1 * (1 - B + (B * r.len) / avgdl)
      let s = 0
      for (let i = 0; i < terms.length; i++) {
        const f = freq[i] as number
        s += (idf[i] as number) * ((f * (K1 + 1)) / (f + norm))
      }
      return { id: r.id, score: s }
    })
  }

  /** The query's lexemes that a tsvector can hold: what setweight marks to keep in `hits`. */
  const lexemesOf = (query: QueryNode): string[] => [
    ...new Set(queryTerms(query).flatMap((t) => t.tokens.filter((x) => Buffer.byteLength(x) <= MAX_LEXEME_BYTES))),
  ]
  const CANDIDATE_COLUMNS = `id, search_len AS len, ts_filter(setweight(search, 'A', $1::text[]), '{a}')::text AS hits`

  const index: SearchIndex = {
    async newestMatches(query, range, limit) {
      const tsquery = toTsquery(query)
      const from = lower(range.from)
      if (tsquery === null || from === null || limit <= 0) return []
      const { rows } = await pool.query<{ id: string }>(
        `SELECT id FROM posts WHERE search @@ $1::tsquery AND id < $2::bigint AND id >= $3::bigint ORDER BY id DESC LIMIT $4`,
        [tsquery, upper(range.below), from, limit],
      )
      return rows.map((r) => r.id)
    },

    async newestMatchesBy(query, authors, range, limit, keep) {
      const tsquery = toTsquery(query)
      const from = lower(range.from)
      if (tsquery === null || from === null || limit <= 0 || keep <= 0) return { ids: [], looked: 0, last: undefined }
      // The window's matches once, numbered; the first `keep` of them the authors wrote; the window ends
      // at the last of those when there are `keep`. One round trip.
      const { rows } = await pool.query<{ looked: string | null; last: string | null; ids: string[] }>(
        `WITH m AS MATERIALIZED (
           SELECT id, author_kind, author_id, row_number() OVER (ORDER BY id DESC) AS n FROM posts
           WHERE search @@ $1::tsquery AND id < $2::bigint AND id >= $3::bigint ORDER BY id DESC LIMIT $4),
         k AS MATERIALIZED (
           SELECT id, n FROM m WHERE (author_kind, author_id) IN (SELECT * FROM unnest($5::text[], $6::text[]))
           ORDER BY id DESC LIMIT $7)
         SELECT ARRAY(SELECT id::text FROM k ORDER BY id DESC) AS ids,
                CASE WHEN (SELECT count(*) FROM k) = $7 THEN (SELECT max(n) FROM k) ELSE (SELECT count(*) FROM m) END AS looked,
                CASE WHEN (SELECT count(*) FROM k) = $7 THEN (SELECT min(id)::text FROM k) ELSE (SELECT min(id)::text FROM m) END AS last`,
        [tsquery, upper(range.below), from, limit, authors.map((a: AuthorRef) => a.kind), authors.map((a: AuthorRef) => a.id), keep],
      )
      const row = rows[0]
      return { ids: row?.ids ?? [], looked: Number(row?.looked ?? 0), last: row?.last ?? undefined }
    },

    async scoredMatches(query, range, limit) {
      const tsquery = toTsquery(query)
      const from = lower(range.from)
      if (tsquery === null || from === null || limit <= 0) return []
      const read = pool.query<Candidate>(
        `SELECT ${CANDIDATE_COLUMNS} FROM posts
         WHERE search @@ $2::tsquery AND id < $3::bigint AND id >= $4::bigint ORDER BY id DESC LIMIT $5`,
        [lexemesOf(query), tsquery, upper(range.below), from, limit],
      )
      return score(query, read)
    },

    async rankedMatches(query, range, bound, skip, take, plan) {
      // Scores are computed here, not in SQL.
      return rankScored(await index.scoredMatches(query, range, plan === 'all' ? Number.MAX_SAFE_INTEGER : bound), skip, take)
    },

    async termFrequencies(tokens) {
      // The same figures bm25() reads: counted on the index up to exactCountLimit, else the statistics.
      const { docs, df } = await corpus(tokens.map((t): TermNode => ({ kind: 'word', text: t, tokens: [t] })))
      return { posts: docs, df: new Map(tokens.map((t, i) => [t, df[i] as number])) }
    },

    async matchAmong(query, ids) {
      const tsquery = toTsquery(query)
      const wanted = [...new Set(ids.filter(isStorableId))]
      if (tsquery === null || wanted.length === 0) return []
      const read = pool.query<Candidate>(
        `SELECT ${CANDIDATE_COLUMNS} FROM posts WHERE id = ANY($2::bigint[]) AND search @@ $3::tsquery`,
        [lexemesOf(query), wanted, tsquery],
      )
      const scores = new Map((await score(query, read)).map((s) => [s.id, s.score]))
      return ids.flatMap((id) => {
        const s = scores.get(id)
        return s === undefined ? [] : [{ id, score: s }]
      })
    },

    async matchingAmong(query, ids) {
      const tsquery = toTsquery(query)
      const wanted = [...new Set(ids.filter(isStorableId))]
      if (tsquery === null || wanted.length === 0) return []
      const { rows } = await pool.query<{ id: string }>(`SELECT id::text AS id FROM posts WHERE id = ANY($1::bigint[]) AND search @@ $2::tsquery`, [wanted, tsquery])
      const hits = new Set(rows.map((r) => r.id))
      return ids.filter((id) => hits.has(id))
    },

    async authorPosts(authors, range, limit) {
      const from = lower(range.from)
      if (authors.length === 0 || from === null || limit <= 0) return []
      // Each author's newest `limit` through the posts_author index, merged newest first, in one read.
      const { rows } = await pool.query<{ id: string }>(
        `SELECT p.id FROM (SELECT DISTINCT * FROM unnest($1::text[], $2::text[]) AS a (kind, id)) a
         CROSS JOIN LATERAL (
           SELECT id FROM posts WHERE author_kind = a.kind AND author_id = a.id
             AND id < $3::bigint AND id >= $4::bigint AND NOT is_repost
           ORDER BY id DESC LIMIT $5) p
         ORDER BY p.id DESC LIMIT $5`,
        [authors.map((a: AuthorRef) => a.kind), authors.map((a: AuthorRef) => a.id), upper(range.below), from, limit],
      )
      return rows.map((r) => r.id)
    },

    async mentionPosts(companies, range, limit) {
      const from = lower(range.from)
      if (companies.length === 0 || from === null || limit <= 0) return []
      // Through the GIN index on posts.mentions (migration 006): a company's mentions are few, sorted here.
      const { rows } = await pool.query<{ id: string }>(
        `SELECT id::text AS id FROM posts
         WHERE mentions && $1::text[] AND id < $2::bigint AND id >= $3::bigint AND NOT is_repost
         ORDER BY id DESC LIMIT $4`,
        [[...new Set(companies)], upper(range.below), from, limit],
      )
      return rows.map((r) => r.id)
    },

    async mentionCount(companies, range, cap) {
      const from = lower(range.from)
      if (companies.length === 0 || from === null || cap <= 0) return 0
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM (
           SELECT 1 FROM posts WHERE mentions && $1::text[] AND id < $2::bigint AND id >= $3::bigint AND NOT is_repost LIMIT $4) m`,
        [[...new Set(companies)], upper(range.below), from, cap],
      )
      return rows[0]?.n ?? 0
    },

    async authorPostCount(authors, range, cap) {
      const from = lower(range.from)
      if (authors.length === 0 || from === null || cap <= 0) return 0
      // Each author's posts through the posts_author index, each counted only as far as the cap.
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM (
           SELECT 1 FROM (SELECT DISTINCT * FROM unnest($1::text[], $2::text[]) AS a (kind, id)) a
           CROSS JOIN LATERAL (
             SELECT 1 FROM posts WHERE author_kind = a.kind AND author_id = a.id
               AND id < $3::bigint AND id >= $4::bigint AND NOT is_repost
             LIMIT $5) p
           LIMIT $5) c`,
        [authors.map((a: AuthorRef) => a.kind), authors.map((a: AuthorRef) => a.id), upper(range.below), from, cap],
      )
      return rows[0]?.n ?? 0
    },

    async titleHolders(title, limit) {
      const phrase = toTsquery({ kind: 'phrase', text: title.join(' '), tokens: title })
      if (phrase === null) return []
      // Through the GIN index on profiles.title_vector (migration 007), and the titles not filled yet
      // (written by an older node during a rolling upgrade: profiles_title_unfilled, otherwise empty),
      // read as text, up to UNFILLED_TITLES of them. The phrase is checked again on each title found, so
      // a holder is exactly what the facts filter would keep.
      const { rows } = await pool.query<{ id: string; title: string; indexed: boolean }>(
        `(SELECT profile_id AS id, job_title AS title, true AS indexed FROM profiles WHERE title_vector @@ $1::tsquery LIMIT $2)
         UNION ALL
         (SELECT profile_id, job_title, false FROM profiles WHERE job_title IS NOT NULL AND title_vector IS NULL LIMIT $3)`,
        [phrase, limit + 1, UNFILLED_TITLES + 1],
      )
      const indexed = rows.filter((h) => h.indexed).length
      if (indexed > limit || rows.length - indexed > UNFILLED_TITLES) return null
      const ids = rows.filter((h) => containsRun(tokenize(h.title), title)).map((h) => h.id)
      return ids.length > limit ? null : ids
    },

    async facts(ids) {
      const out = new Map<string, PostFacts>()
      const wanted = [...new Set(ids.filter(isStorableId))]
      if (wanted.length === 0) return out
      const { rows } = await pool.query<FactsRow>(
        `SELECT p.id, p.author_kind AS "authorKind", p.author_id AS "authorId", p.content_kinds AS "contentKinds", p.mentions,
                pr.job_title AS "jobTitle"
         FROM posts p LEFT JOIN profiles pr ON p.author_kind = 'person' AND pr.profile_id = p.author_id
         WHERE p.id = ANY($1::bigint[])`,
        [wanted],
      )
      for (const r of rows) {
        out.set(r.id, {
          authorKind: r.authorKind,
          authorId: r.authorId,
          contentKinds: r.contentKinds,
          mentions: r.mentions,
          authorJobTitle: r.jobTitle,
        })
      }
      return out
    },

    async items(ids) {
      const out = new Map<string, Buffer>()
      const wanted = [...new Set(ids.filter(isStorableId))]
      if (wanted.length === 0) return out
      const { rows } = await pool.query<{ id: string; doc: string }>('SELECT id, doc_search AS doc FROM post_docs WHERE id = ANY($1::bigint[])', [
        wanted,
      ])
      for (const r of rows) out.set(r.id, Buffer.from(r.doc, 'utf8'))
      return out
    },
  }
  return index
}
