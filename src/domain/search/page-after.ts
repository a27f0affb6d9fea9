/**
 * Cutting the next page of a relevance ranking that may have changed since the page before: posts
 * are edited, added and removed while a client pages. A post may show on two pages; none the walk has
 * not shown may be skipped.
 */
import { MARKS, STRAGGLERS } from './search-limits.ts'

/** A page cut from a ranking, and what its cursor keeps. */
export interface PageCut {
  ids: string[]
  /** Whether any post not shown yet follows the page. */
  more: boolean
  /** Where the page after starts. */
  next: number
  /** The ranks just above `next`, up to MARKS less `after` (the cursor's ranks above). */
  mark: string[]
  /** Posts already shown found below `next`, up to STRAGGLERS (the cursor's shown below). */
  after: string[]
}

/**
 * A page of a ranking known as far as it needs, after where the page before ended, so that no post the
 * walk has not shown is skipped, whatever left the ranking since. `last` is the ranking as it was just
 * above that point (the ranks before `offset`, up to MARKS of them; in older cursors, the page before's
 * last three results, or its last one), `also` posts already shown that were below it then (a page
 * that ended among them):
 * - A post not shown yet is now above where `last` began (offset − |last|) only when more posts shown
 *   than `last` holds left the ranking or fell below it (edited to score lower). So the page starts
 *   there and leaves `last` and `also` out wherever they rank now. It shows again a post of an earlier
 *   page that fell into its ranks, or one pushed down into them by a post edited to rank above the walk
 *   (one for each such edit). Starting higher, at a post of `last` found above (an earlier version),
 *   would show again every post between it and the walk whenever that post had been edited to rank
 *   first.
 * - A page that ends among posts already shown goes on past them, and keeps up to STRAGGLERS of those
 *   still below it (the rest, having moved, may show again).
 * Keeping only a few of the page's last results would let a post be skipped when more of them left. A
 * post edited to rank above where the walk stands may be missed: the result set is live, so a post may
 * show on two pages, but none may be left out, and an edited post counts as a new one.
 * On a first page, or without `last`, at `offset`. `next` is where the page after starts; `mark` and
 * `after` are what its cursor keeps.
 */
export function pageAfter(
  ranked: readonly string[],
  offset: number,
  want: number,
  last: readonly string[] | undefined,
  also: readonly string[] = [],
): PageCut {
  let start = offset
  let seen: ReadonlySet<string> | undefined
  if (offset > 0 && ((last !== undefined && last.length > 0) || also.length > 0)) {
    start = Math.max(0, offset - (last?.length ?? 0))
    seen = new Set([...(last ?? []), ...also])
  }
  const ids: string[] = []
  let i = start
  for (; i < ranked.length && ids.length < want; i++) if (!seen?.has(ranked[i] as string)) ids.push(ranked[i] as string)
  while (i < ranked.length && seen?.has(ranked[i] as string)) i++
  let more = false
  for (let j = i; j < ranked.length && !more; j++) more = !seen?.has(ranked[j] as string)
  const after = seen ? ranked.slice(i).filter((id) => seen.has(id)).slice(0, STRAGGLERS) : []
  return { ids, more, next: i, mark: ranked.slice(Math.max(0, i - (MARKS - after.length)), i), after }
}
