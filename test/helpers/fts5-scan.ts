/**
 * Every code point through SQLite's FTS5 tokenizer and through the search model (query-tokens.ts):
 * each one is stored between two ASCII letters and its tokens read back through fts5vocab, so a
 * separator gives ["a", "b"] and a token character ["a<folded>b"]. Used by the test that keeps the
 * post index's tokenizer in step with the model, and by scripts/fts5-tokenizer.ts, which writes the
 * exceptions that keep it there (src/adapters/sqlite/fts5-tokenizer.ts).
 */
import Database from 'better-sqlite3'
import { tokenize } from '../../src/domain/search/query-tokens.ts'

export interface TokenizerScan {
  /** Token characters to SQLite, separators to the model. */
  sqliteOnlyToken: number[]
  /** Separators to SQLite, token characters to the model. */
  modelOnlyToken: number[]
  /** Token characters to both, folded differently (tokenizer options cannot change folding). */
  foldDiffers: number[]
}

export function scanTokenizer(tokenizer: string): TokenizerScan {
  const db = new Database(':memory:')
  try {
    db.exec(`CREATE VIRTUAL TABLE t USING fts5(text, tokenize = "${tokenizer.replaceAll('"', '""')}")`)
    db.exec(`CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')`)
    const insert = db.prepare('INSERT INTO t (rowid, text) VALUES (?, ?)')
    const codePoints: number[] = []
    for (let cp = 0x80; cp <= 0x10ffff; cp++) if (cp < 0xd800 || cp > 0xdfff) codePoints.push(cp)
    db.transaction(() => {
      for (const cp of codePoints) insert.run(cp, `a${String.fromCodePoint(cp)}b`)
    })()
    const sqlite = new Map<number, string[]>()
    for (const { doc, term } of db.prepare('SELECT doc, term FROM v ORDER BY doc, offset').iterate() as Iterable<{ doc: number; term: string }>) {
      const terms = sqlite.get(doc)
      if (terms) terms.push(term)
      else sqlite.set(doc, [term])
    }
    const scan: TokenizerScan = { sqliteOnlyToken: [], modelOnlyToken: [], foldDiffers: [] }
    for (const cp of codePoints) {
      const s = sqlite.get(cp) ?? []
      const m = tokenize(`a${String.fromCodePoint(cp)}b`)
      if (s.length === m.length && s.every((t, i) => t === m[i])) continue
      if (s.length === 1 && m.length === 2) scan.sqliteOnlyToken.push(cp)
      else if (s.length === 2 && m.length === 1) scan.modelOnlyToken.push(cp)
      else scan.foldDiffers.push(cp)
    }
    return scan
  } finally {
    db.close()
  }
}

/** Consecutive code points as [first, last] ranges. */
export function toRanges(codePoints: readonly number[]): [number, number][] {
  const ranges: [number, number][] = []
  for (const cp of codePoints) {
    const last = ranges[ranges.length - 1]
    if (last && last[1] === cp - 1) last[1] = cp
    else ranges.push([cp, cp])
  }
  return ranges
}
