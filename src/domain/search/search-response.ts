/**
 * A search page's body: the echoed query and sort, the result items (ready documents, read once per
 * post), the cursor, and `partial` when some cards could not be read.
 */
import type { SearchIndex } from '../../ports/search-index.ts'
import type { Delivered } from '../content/content.service.ts'
import type { ResponseCache } from '../content/response-cache.ts'

/** Result items' key space in the response cache. */
const ITEM_KEY = 'search-item|'
const COMMA = Buffer.from(',')

/**
 * `ids` without repeats, first occurrence kept. A page holds at most 50 ids, where comparing each with
 * those kept is cheaper than a Set, and a page that has no repeat (nearly all) is returned as is.
 */
export function distinct(ids: string[]): string[] {
  let out: string[] | undefined
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i] as string
    let seen = false
    for (let j = 0; j < i && !seen; j++) seen = ids[j] === id
    if (seen) out ??= ids.slice(0, i)
    else out?.push(id)
  }
  return out ?? ids
}

/** The items of `ids` in their order (undefined where a card cannot be read), through the cache when there is one. */
export function readItems(source: { index: SearchIndex; cache?: ResponseCache }, ids: readonly string[]): Promise<(Buffer | undefined)[]> {
  const { index, cache } = source
  return cache ? cache.many(ITEM_KEY, ids, (missing) => index.items(missing)) : index.items(ids).then((found) => ids.map((id) => found.get(id)))
}

/** The response body, sent as parts (one gathered write): joining a page of items would copy them all once more. */
export function renderPage(page: {
  query: string | null
  sort: string | null
  items: readonly (Buffer | undefined)[]
  cursor: string | null
}): Delivered {
  const parts: Buffer[] = [Buffer.from(`{"query":${JSON.stringify(page.query)},"sort":${JSON.stringify(page.sort)},"results":[`)]
  let dropped = 0
  for (const item of page.items) {
    if (item === undefined) {
      dropped++
      continue
    }
    if (parts.length > 1) parts.push(COMMA)
    parts.push(item)
  }
  const tail =
    `],"cursor":${JSON.stringify(page.cursor)}` +
    (dropped > 0 ? `,"partial":${JSON.stringify({ droppedResults: dropped, reasons: { unreadableCard: dropped } })}` : '') +
    '}'
  parts.push(Buffer.from(tail))
  return { body: parts }
}
