/**
 * The PostgreSQL search index against the SQLite FTS5 index on the same posts (default: the medium
 * synthetic network, 200,000 posts), in the same run: per query class, the latency of newestMatches
 * (a first page of 50, newest first) and of scoredMatches (the newest 10,000 matches with their BM25
 * scores, what a relevance search ranks), the ratio PostgreSQL ÷ SQLite, match counts compared, and
 * how far ts_rank would have ranked from FTS5's bm25 (why the adapter computes BM25 itself).
 *
 * Both stores are built once through the content writer (companies, members and posts) and reused:
 * the SQLite file is the one bench/search.bench.ts builds (.bench/search-<size>-seed<seed>.db), the
 * PostgreSQL database is pronet_bench_search_<size>_seed<seed> on BENCH_PG_URL's server. Build rates
 * (records per second through each store) are printed when a store is built.
 *
 *   npm run bench:pg-search
 *   BENCH_SEARCH_SIZE=small BENCH_REPEAT=3 npm run bench:pg-search
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import pg from 'pg'
import { migratePostgres, openPostgres, type PgPool } from '../src/adapters/postgres/database.ts'
import { createPgContentStore } from '../src/adapters/postgres/pg-content-store.ts'
import { createPgSearchIndex } from '../src/adapters/postgres/pg-search-index.ts'
import { toTsquery } from '../src/adapters/postgres/pg-search-text.ts'
import { openSqlite } from '../src/adapters/sqlite/database.ts'
import { createSqliteContentStore } from '../src/adapters/sqlite/sqlite-content-store.ts'
import { createSqliteSearchIndex } from '../src/adapters/sqlite/sqlite-search-index.ts'
import { createManualClock } from '../src/adapters/system-clock.ts'
import { createContentWriter } from '../src/domain/content/content-writer.ts'
import { parseSearchQuery, type QueryNode } from '../src/domain/search/query-grammar.ts'
import { toFts5Match } from '../src/domain/search/query-tokens.ts'
import type { ContentStore } from '../src/ports/content-store.ts'
import type { SearchIndex } from '../src/ports/search-index.ts'
import type { NetworkSize } from '../src/synth/network-plan.ts'
import { generateNetwork } from '../src/synth/synthetic-network.ts'
import { picker, quantile } from './bench-helpers.ts'
import { rankScored } from '../src/domain/search/ranking.ts'

const SIZE = (process.env.BENCH_SEARCH_SIZE ?? 'medium') as NetworkSize
const SEED = Number(process.env.BENCH_SEED ?? 1)
const REPEAT = Number(process.env.BENCH_REPEAT ?? 5)
const PER_CLASS = Number(process.env.BENCH_QUERIES ?? 10)
const PAGE = 50
const CANDIDATES = 10_000
const TOP = 50
const ANCHOR = Date.UTC(2026, 10, 1)
const HOST = 'www.linkedin.com'
const SQLITE_FILE = process.env.BENCH_SEARCH_DB ?? join(process.cwd(), '.bench', `search-${String(SIZE)}-seed${SEED}.db`)
const PG_SERVER = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const PG_NAME = `pronet_bench_search_${String(SIZE)}_seed${SEED}`

/** Writes the network's companies, members and posts through a store; returns records per second. */
async function fill(store: ContentStore, batchSize: number): Promise<{ records: number; seconds: number }> {
  const writer = createContentWriter({ store, clock: createManualClock(ANCHOR), platformHost: HOST })
  const started = performance.now()
  let batch: unknown[] = []
  let records = 0
  const flush = async () => {
    const outcomes = await writer.write(batch)
    const bad = outcomes.find((o) => !o.ok)
    if (bad) throw new Error(`a record was refused: ${JSON.stringify(bad)}`)
    records += batch.length
    batch = []
    if (records % 50_000 < batchSize) process.stderr.write(`  ${records.toLocaleString('en-US')} records, ${((performance.now() - started) / 1000).toFixed(0)} s\n`)
  }
  for (const record of generateNetwork({ seed: SEED, size: SIZE, anchorMs: ANCHOR, platformHost: HOST })) {
    if (record.kind !== 'company' && record.kind !== 'profile' && record.kind !== 'post') continue
    batch.push(record)
    if (batch.length >= batchSize) await flush()
  }
  if (batch.length > 0) await flush()
  return { records, seconds: (performance.now() - started) / 1000 }
}

async function buildSqlite(path: string): Promise<void> {
  mkdirSync(dirname(path), { recursive: true })
  const tmp = `${path}.building`
  for (const f of [tmp, `${tmp}-wal`, `${tmp}-shm`]) rmSync(f, { force: true })
  const db = openSqlite(tmp)
  db.pragma('synchronous = OFF')
  const { records, seconds } = await fill(createSqliteContentStore(db), 5_000)
  console.log(`built SQLite: ${records.toLocaleString('en-US')} records in ${seconds.toFixed(0)} s (${Math.round(records / seconds)} records/s)`)
  db.exec("INSERT INTO post_search (post_search) VALUES ('optimize')")
  db.exec('ANALYZE')
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.close()
  renameSync(tmp, path)
  for (const f of [`${tmp}-wal`, `${tmp}-shm`]) rmSync(f, { force: true })
}

/** Opens the bench database, building it first when it is missing or was left half built. */
async function openBenchPostgres(): Promise<PgPool> {
  const admin = new pg.Client({ connectionString: PG_SERVER })
  await admin.connect()
  const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [PG_NAME])).rowCount === 1
  const url = new URL(PG_SERVER)
  url.pathname = `/${PG_NAME}`
  let built = false
  if (exists) {
    const probe = openPostgres(url.toString(), { max: 1 })
    built = (await probe.query("SELECT to_regclass('bench_built') IS NOT NULL AS built")).rows[0].built as boolean
    await probe.end()
    if (!built) await admin.query(`DROP DATABASE ${PG_NAME} WITH (FORCE)`)
  }
  if (!built) await admin.query(`CREATE DATABASE ${PG_NAME}`)
  await admin.end()
  const pool = openPostgres(url.toString(), { max: 6, statementTimeoutMs: 600_000 })
  if (!built) {
    process.stderr.write(`building the ${String(SIZE)} network's posts into PostgreSQL ${PG_NAME} (once; reused by later runs)…\n`)
    await migratePostgres(pool)
    const store = createPgContentStore(pool)
    const { records, seconds } = await fill(store, 1_000)
    await store.close()
    console.log(`built PostgreSQL: ${records.toLocaleString('en-US')} records in ${seconds.toFixed(0)} s (${Math.round(records / seconds)} records/s)`)
    await pool.query('VACUUM ANALYZE')
    await pool.query('CREATE TABLE bench_built ()')
  }
  return pool
}

/** The ids of the best `n` by score (ties newest first), as both services rank them. */
const best = (scored: { id: string; score: number }[], n: number): string[] => rankScored([...scored], 0, n).ids
const overlap = (a: string[], b: string[]): number => (a.length === 0 ? 1 : a.filter((x) => b.includes(x)).length / a.length)

async function timed<T>(f: () => Promise<T>, into: number[]): Promise<T> {
  const t0 = performance.now()
  const out = await f()
  into.push(performance.now() - t0)
  return out
}

async function main(): Promise<void> {
  if (!existsSync(SQLITE_FILE)) {
    process.stderr.write(`building the ${String(SIZE)} network's posts into ${SQLITE_FILE} (once; reused by later runs)…\n`)
    await buildSqlite(SQLITE_FILE)
  }
  const pool = await openBenchPostgres()
  const sdb = openSqlite(SQLITE_FILE)
  const sqlite: SearchIndex = createSqliteSearchIndex(sdb)
  const postgres: SearchIndex = createPgSearchIndex(pool)

  const total = sdb.prepare('SELECT count(*) FROM post_docs d JOIN posts p ON p.id = d.id WHERE p.is_repost = 0').pluck().get() as number
  sdb.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, 'post_search', 'row')")
  const terms = sdb.prepare('SELECT term, doc FROM temp.vocab').all() as { term: string; doc: number }[]
  const words = terms.filter((t) => /^[a-z]{3,}$/.test(t.term))
  const share = (lo: number, hi: number) => words.filter((t) => t.doc >= lo * total && t.doc <= hi * total).map((t) => t.term)
  const common = share(0.04, 0.11)
  const medium = share(0.005, 0.02)
  const rare = share(0.00002, 0.0002)
  const hashtags = terms.filter((t) => t.term.startsWith('#') && t.doc >= 0.001 * total).map((t) => t.term)
  const pick = picker(SEED)
  const sampleText = sdb.prepare('SELECT text FROM post_docs WHERE id >= (SELECT id FROM post_docs ORDER BY id LIMIT 1 OFFSET ?) LIMIT 1').pluck()
  const phrases: string[] = []
  for (let i = 0; phrases.length < PER_CLASS && i < 500; i++) {
    const ws = ((sampleText.get((i * 7919) % Math.max(1, total)) as string | undefined) ?? '').toLowerCase().match(/[a-z]{4,}/g) ?? []
    if (ws.length >= 3) phrases.push(`"${ws[1]} ${ws[2]}"`)
  }
  const classes: Record<string, string[]> = { common: [], medium: [], rare: [], phrase: [], boolean: [], hashtag: [] }
  for (let i = 0; i < PER_CLASS; i++) {
    classes.common!.push(pick(common))
    classes.medium!.push(pick(medium))
    classes.rare!.push(pick(rare))
    classes.phrase!.push(phrases[i % phrases.length] as string)
    classes.boolean!.push(`${pick(common)} AND (${pick(medium)} OR ${pick(medium)}) NOT ${pick(rare)}`)
    classes.hashtag!.push(pick(hashtags))
  }

  const fts5Count = sdb.prepare('SELECT count(*) FROM post_search WHERE post_search MATCH ?').pluck()
  const tsRank = (tree: QueryNode) =>
    pool
      .query<{ id: string; score: number }>(
        `SELECT id, ts_rank(search, $1::tsquery, 1) AS score FROM posts WHERE search @@ $1::tsquery ORDER BY id DESC LIMIT $2`,
        [toTsquery(tree), CANDIDATES],
      )
      .then((r) => r.rows)

  console.log(`pronet PostgreSQL search benchmark: ${total.toLocaleString('en-US')} indexed posts (${String(SIZE)} network, seed ${SEED}), ${PER_CLASS} queries per class × ${REPEAT} runs`)
  console.log(`newest = newestMatches(query, {}, ${PAGE}); scored = scoredMatches(query, {}, ${CANDIDATES}) (BM25 of the newest ${CANDIDATES} matches)`)
  console.log('')
  console.log('  class     matches (avg)  counts equal   newest p50 sqlite / pg (÷)      scored p50 sqlite / pg (÷)        scored p99 pg   top-50 vs FTS5: bm25 / ts_rank')
  for (const [cls, queries] of Object.entries(classes)) {
    const t = { sn: [] as number[], pn: [] as number[], ss: [] as number[], ps: [] as number[] }
    let equalCounts = 0
    let matches = 0
    let agreeBm25 = 0
    let agreeTsRank = 0
    for (const raw of queries) {
      const tree = parseSearchQuery(raw).tree
      const sCount = fts5Count.get(toFts5Match(tree)) as number
      const pCount = Number((await pool.query('SELECT count(*) AS n FROM posts WHERE search @@ $1::tsquery', [toTsquery(tree)])).rows[0].n)
      if (sCount === pCount) equalCounts++
      matches += sCount
      // Warm both once, then alternate which goes first.
      await sqlite.scoredMatches(tree, {}, CANDIDATES)
      await postgres.scoredMatches(tree, {}, CANDIDATES)
      let sScored: { id: string; score: number }[] = []
      let pScored: { id: string; score: number }[] = []
      for (let r = 0; r < REPEAT; r++) {
        const runs = [
          async () => {
            await timed(() => sqlite.newestMatches(tree, {}, PAGE), t.sn)
            sScored = await timed(() => sqlite.scoredMatches(tree, {}, CANDIDATES), t.ss)
          },
          async () => {
            await timed(() => postgres.newestMatches(tree, {}, PAGE), t.pn)
            pScored = await timed(() => postgres.scoredMatches(tree, {}, CANDIDATES), t.ps)
          },
        ]
        if (r % 2 === 1) runs.reverse()
        for (const run of runs) await run()
      }
      const reference = best(sScored, TOP)
      agreeBm25 += overlap(reference, best(pScored, TOP))
      agreeTsRank += overlap(reference, best(await tsRank(tree), TOP))
    }
    const p50 = (xs: number[]) => quantile(xs, 0.5)
    const cell = (s: number[], p: number[]) =>
      `${p50(s).toFixed(2).padStart(7)} / ${p50(p).toFixed(2).padStart(7)} ms (${(p50(p) / p50(s)).toFixed(2)})`
    console.log(
      `  ${cls.padEnd(9)} ${Math.round(matches / queries.length).toLocaleString('en-US').padStart(12)}  ${`${equalCounts}/${queries.length}`.padStart(9)}   ${cell(t.sn, t.pn).padEnd(30)}  ${cell(t.ss, t.ps).padEnd(32)}  ${quantile(t.ps, 0.99).toFixed(1).padStart(8)} ms   ${(
        (100 * agreeBm25) /
        queries.length
      ).toFixed(0)}% / ${((100 * agreeTsRank) / queries.length).toFixed(0)}%`,
    )
  }

  console.log('')
  for (const [label, raw] of [
    ['common word, newest 50', classes.common![0]!],
    ['rare word, newest 50', classes.rare![0]!],
  ] as const) {
    const { rows } = await pool.query(
      'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) SELECT id FROM posts WHERE search @@ $1::tsquery ORDER BY id DESC LIMIT 50',
      [toTsquery(parseSearchQuery(raw).tree)],
    )
    console.log(`plan, ${label} (${raw}):`)
    for (const r of rows as { 'QUERY PLAN': string }[]) console.log(`  ${r['QUERY PLAN']}`)
  }
  const size = await pool.query(
    `SELECT pg_size_pretty(pg_relation_size('posts_search')) AS gin, pg_size_pretty(pg_total_relation_size('posts')) AS posts`,
  )
  console.log(`sizes: GIN index ${size.rows[0].gin}, posts with its indexes and TOAST ${size.rows[0].posts}`)
  sdb.close()
  await pool.end()
}

await main()
