/**
 * A real SQLite FTS5 table with the post index's tokenizer, for checking the search model
 * (src/domain/search/query-tokens.ts) against the engine it models.
 */
import Database from 'better-sqlite3'
import { POST_SEARCH_TOKENIZER } from '../../src/adapters/sqlite/fts5-tokenizer.ts'

export const FTS5_TOKENIZER = POST_SEARCH_TOKENIZER

export interface Fts5Index {
  /** Stores documents under rowids 1..n in one transaction. */
  insertAll(docs: readonly string[]): void
  /** Rowids matching an FTS5 MATCH expression, ascending; throws what SQLite throws. */
  match(expression: string): number[]
  /** The tokens of every stored document, by rowid (documents without tokens are absent). */
  tokensByRow(): Map<number, string[]>
  /** The tokens SQLite makes of a text, in order (stored under a scratch rowid, then removed). */
  tokensOf(text: string): string[]
  close(): void
}

const SCRATCH_ROWID = -1

export function createFts5Index(): Fts5Index {
  const db = new Database(':memory:')
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(text, tokenize = "${FTS5_TOKENIZER}")`)
  db.exec(`CREATE VIRTUAL TABLE t_vocab USING fts5vocab(t, 'instance')`)
  const insert = db.prepare('INSERT INTO t(rowid, text) VALUES (?, ?)')
  const remove = db.prepare('DELETE FROM t WHERE rowid = ?')
  const search = db.prepare('SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid').pluck()
  const everyTerm = db.prepare('SELECT doc, term FROM t_vocab ORDER BY doc, offset')
  const terms = db.prepare('SELECT term FROM t_vocab WHERE doc = ? ORDER BY offset').pluck()
  return {
    insertAll: db.transaction((docs: readonly string[]) => {
      docs.forEach((doc, i) => insert.run(i + 1, doc))
    }),
    match: (expression) => search.all(expression) as number[],
    tokensByRow: () => {
      const byRow = new Map<number, string[]>()
      for (const { doc, term } of everyTerm.iterate() as Iterable<{ doc: number; term: string }>) {
        const tokens = byRow.get(doc)
        if (tokens) tokens.push(term)
        else byRow.set(doc, [term])
      }
      return byRow
    },
    tokensOf: (text) => {
      insert.run(SCRATCH_ROWID, text)
      try {
        return terms.all(SCRATCH_ROWID) as string[]
      } finally {
        remove.run(SCRATCH_ROWID)
      }
    },
    close: () => db.close(),
  }
}
