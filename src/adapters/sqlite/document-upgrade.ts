/**
 * Rewrites the stored documents of a store written by an earlier release into today's shapes
 * (legacy-shapes.ts), inside the migration's transaction: a store is either wholly upgraded or not
 * at all. Only rows that may hold an old shape are read, page by page in key order.
 */
import { upgradeStoredDocument, type StoredDocumentKind } from '../../domain/content/legacy-shapes.ts'
import type { SqliteDb } from './database.ts'

const PAGE = 500

interface Table {
  kind: StoredDocumentKind
  table: string
  key: string
  /** Document columns rewritten alike. */
  columns: string[]
  /** Narrows the rows read to those that may hold an old shape. */
  candidates: string
}

const TABLES: Table[] = [
  { kind: 'profile', table: 'profiles', key: 'profile_id', columns: ['doc'], candidates: '1' },
  { kind: 'company', table: 'companies', key: 'company_id', columns: ['doc'], candidates: "instr(doc, '10001') > 0" },
  { kind: 'post', table: 'post_docs', key: 'id', columns: ['doc', 'doc_search'], candidates: "instr(doc, 'platformVideo') > 0" },
  { kind: 'article', table: 'articles', key: 'article_id', columns: ['doc'], candidates: "instr(doc, 'platformArticle') > 0" },
]

export function upgradeStoredDocuments(db: SqliteDb): void {
  for (const t of TABLES) {
    const read = db.prepare(
      `SELECT ${t.key} AS k, ${t.columns.join(', ')} FROM ${t.table} WHERE ${t.key} > ? AND ${t.candidates} ORDER BY ${t.key} LIMIT ${PAGE}`,
    )
    read.safeIntegers(true)
    const write = db.prepare(`UPDATE ${t.table} SET ${t.columns.map((c) => `${c} = ?`).join(', ')} WHERE ${t.key} = ?`)
    let after: unknown = t.key === 'id' || t.key === 'article_id' ? -1n : ''
    for (;;) {
      const rows = read.all(after) as Record<string, string | bigint>[]
      for (const row of rows) {
        const docs = t.columns.map((c) => row[c] as string)
        const upgraded = docs.map((d) => upgradeStoredDocument(t.kind, d))
        if (upgraded.some((u) => u !== undefined)) write.run(...upgraded.map((u, i) => u ?? docs[i]), row.k)
      }
      if (rows.length < PAGE) break
      after = rows[rows.length - 1]?.k
    }
  }
}
