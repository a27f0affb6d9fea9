/**
 * The relevance order shared by every adapter and the service: score descending, then newest first
 * (ids are time-ordered decimals, D2), so equal scores never leave the order to an engine's whim and
 * a page boundary falls at the same place on every call.
 */
import { compareIds } from '../content/ids.ts'
import type { RankedPage, ScoredId } from '../../ports/search-index.ts'

export const byRelevance = (a: ScoredId, b: ScoredId): number => b.score - a.score || compareIds(b.id, a.id)

/** The page [skip, skip + take) of `scored` in relevance order (sorts `scored` in place). */
export function rankScored(scored: ScoredId[], skip: number, take: number): RankedPage {
  scored.sort(byRelevance)
  return { ids: scored.slice(skip, skip + take).map((s) => s.id), more: scored.length > skip + take }
}
