/**
 * Rewrites the stored documents of a store written by an earlier release into today's shapes
 * (legacy-shapes.ts), inside the migration's transaction: a store is either wholly upgraded or not
 * at all. Only rows that may hold an old shape are read, page by page in key order.
 */
import type pg from 'pg'
import { upgradeStoredDocument, type StoredDocumentKind } from '../../domain/content/legacy-shapes.ts'
import { unboundedQuery } from './database.ts'

const PAGE = 500

interface Table {
  kind: StoredDocumentKind
  table: string
  key: string
  keyType: 'text' | 'bigint'
  /** Document columns rewritten alike. */
  columns: string[]
  /** Narrows the rows read to those that may hold an old shape. */
  candidates: string
}

const TABLES: Table[] = [
  { kind: 'profile', table: 'profiles', key: 'profile_id', keyType: 'text', columns: ['doc'], candidates: 'true' },
  { kind: 'company', table: 'companies', key: 'company_id', keyType: 'text', columns: ['doc'], candidates: "strpos(doc, '10001') > 0" },
  { kind: 'post', table: 'post_docs', key: 'id', keyType: 'bigint', columns: ['doc', 'doc_search'], candidates: "strpos(doc, 'platformVideo') > 0" },
  { kind: 'article', table: 'articles', key: 'article_id', keyType: 'bigint', columns: ['doc'], candidates: "strpos(doc, 'platformArticle') > 0" },
]

export async function upgradeStoredDocuments(client: pg.ClientBase): Promise<void> {
  for (const t of TABLES) {
    let after = t.keyType === 'bigint' ? '-1' : ''
    for (;;) {
      const { rows } = await client.query<Record<string, string>>(
        unboundedQuery(
          `SELECT ${t.key}::text AS k, ${t.columns.join(', ')} FROM ${t.table}
           WHERE ${t.key} > $1::${t.keyType} AND ${t.candidates} ORDER BY ${t.key} LIMIT ${PAGE}`,
          [after],
        ),
      )
      const keys: string[] = []
      const values: string[][] = t.columns.map(() => [])
      for (const row of rows) {
        const docs = t.columns.map((c) => row[c] as string)
        const upgraded = docs.map((d) => upgradeStoredDocument(t.kind, d))
        if (upgraded.every((u) => u === undefined)) continue
        keys.push(row.k as string)
        upgraded.forEach((u, i) => values[i]?.push(u ?? (docs[i] as string)))
      }
      if (keys.length > 0) {
        const sets = t.columns.map((c, i) => `${c} = v.c${i}`).join(', ')
        const cols = t.columns.map((_, i) => `$${i + 2}::text[]`).join(', ')
        const names = t.columns.map((_, i) => `c${i}`).join(', ')
        await client.query(
          unboundedQuery(
            `UPDATE ${t.table} SET ${sets} FROM unnest($1::${t.keyType}[], ${cols}) AS v (k, ${names}) WHERE ${t.table}.${t.key} = v.k`,
            [keys, ...values],
          ),
        )
      }
      if (rows.length < PAGE) break
      after = rows[rows.length - 1]?.k as string
    }
  }
}
