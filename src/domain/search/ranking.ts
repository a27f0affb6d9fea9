/**
 * The relevance order shared by every adapter and the service: score descending, then newest first
 * (ids are time-ordered decimals), so equal scores never leave the order to an engine's whim and
 * a page boundary falls at the same place on every call.
 */
import { compareIds } from '../content/ids.ts'
import type { RankedPage, RankingPlan, ScoredId, TermFrequencies } from '../../ports/search-index.ts'
import type { QueryNode } from './query-grammar.ts'

export const byRelevance = (a: ScoredId, b: ScoredId): number => b.score - a.score || compareIds(b.id, a.id)

/** The page [skip, skip + take) of `scored` in relevance order (sorts `scored` in place). */
export function rankScored(scored: ScoredId[], skip: number, take: number): RankedPage {
  scored.sort(byRelevance)
  return { ids: scored.slice(skip, skip + take).map((s) => s.id), more: scored.length > skip + take }
}

/**
 * Terms of an AND are estimated as independent, times this margin: words that go together (a phrase
 * split in two) co-occur far more often than chance, and an estimate that errs low ranks all the
 * matches of a broad query.
 */
const AND_MARGIN = 4

/** The tokens whose frequencies planning reads, each once. */
export function planningTokens(tree: QueryNode): string[] {
  const out = new Set<string>()
  const walk = (n: QueryNode): void => {
    switch (n.kind) {
      case 'word':
      case 'phrase':
      case 'hashtag':
        for (const t of n.tokens) out.add(t)
        return
      case 'not':
        return walk(n.include)
      case 'and':
      case 'or':
        return n.children.forEach(walk)
    }
  }
  walk(tree)
  return [...out]
}

/** Roughly how many posts match: a term's rarest token, AND as independent terms, OR as a sum, NOT as what it keeps. */
export function estimateMatches(tree: QueryNode, f: TermFrequencies): number {
  const total = f.posts
  const df = (t: string) => f.df.get(t) ?? Infinity
  const est = (n: QueryNode): number => {
    switch (n.kind) {
      case 'word':
      case 'phrase':
      case 'hashtag':
        return Math.min(...n.tokens.map(df))
      case 'and': {
        const parts = n.children.map(est)
        const independent = parts.reduce((p, x) => (p * x) / Math.max(1, total), total)
        // 0 × Infinity (a term in no post beside an uncounted one) is NaN: the parts alone decide then.
        return Math.min(...parts, Number.isNaN(independent) ? Infinity : independent * AND_MARGIN)
      }
      case 'or':
        return Math.min(total, n.children.reduce((sum, c) => sum + est(c), 0))
      case 'not':
        return est(n.include)
    }
  }
  return est(tree)
}

/**
 * How a relevance walk ranks: every match when few match (a plain `ORDER BY rank` costs no more
 * then), else only the newest `bound` matches, so no search scans millions of rows. Made once, on the first page, and kept by the cursor.
 */
export function planRanking(tree: QueryNode, f: TermFrequencies, bound: number): RankingPlan {
  return estimateMatches(tree, f) <= bound ? 'all' : 'newest'
}
