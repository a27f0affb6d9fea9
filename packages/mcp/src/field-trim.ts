/**
 * Trims an answer to the fields asked for, so that a profile or a page of posts does not flood an
 * agent's context. A path names a field from the top of the answer, dotted for nested ones; it goes
 * through lists, so `posts.content` is the content of every post. `*` keeps the whole answer.
 */

/** Strings of the default view longer than this are cut; a field asked for by name never is. */
export const DEFAULT_TEXT_LIMIT = 600

type Tree = Map<string, Tree | true>

export interface Trimmed {
  value: unknown
  /** Paths asked for that matched nothing in the answer. */
  unmatched: string[]
  /** Top-level fields of the answer that the view left out. */
  leftOut: string[]
  /** How many strings were cut. */
  cut: number
}

/**
 * The answer trimmed to `paths`; `textLimit` cuts longer strings (the default view's). No paths (or
 * `*` among them) keeps every field.
 */
export function trimAnswer(answer: unknown, paths: readonly string[] | null, textLimit: number | null): Trimmed {
  const whole = paths === null || paths.includes('*')
  const tree = whole ? null : treeOf(paths)
  const matched = new Set<string>()
  const value = tree ? project(answer, tree, '', matched) : answer
  const counter = { cut: 0 }
  const cutValue = textLimit === null ? value : cutStrings(value, textLimit, counter)
  const leftOut = tree && isRecord(answer) && isRecord(value) ? Object.keys(answer).filter((k) => !(k in value)) : []
  return {
    value: cutValue,
    unmatched: whole ? [] : paths.filter((p) => !matched.has(normal(p))),
    leftOut,
    cut: counter.cut,
  }
}

const normal = (path: string) => path.split('.').filter((s) => s !== '').join('.')

function treeOf(paths: readonly string[]): Tree {
  const root: Tree = new Map()
  for (const path of paths) {
    const parts = normal(path).split('.')
    if (parts[0] === '') continue
    let node = root
    parts.forEach((part, i) => {
      const last = i === parts.length - 1
      const here = node.get(part)
      if (here === true) return
      if (last) {
        node.set(part, true)
        return
      }
      const next: Tree = here ?? new Map()
      node.set(part, next)
      node = next
    })
  }
  return root
}

function project(value: unknown, tree: Tree, at: string, matched: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => project(v, tree, at, matched))
  // A scalar or null where a path goes deeper (a null currentPosition) stands for itself.
  if (!isRecord(value)) return value
  const out: Record<string, unknown> = {}
  // The answer's own order, not the order the paths were given in.
  for (const [key, v] of Object.entries(value)) {
    const sub = tree.get(key)
    if (sub === undefined) continue
    const path = at === '' ? key : `${at}.${key}`
    if (sub === true) {
      out[key] = v
      matched.add(path)
    } else {
      out[key] = project(v, sub, path, matched)
      if (!isRecord(v) && !Array.isArray(v)) markBelow(sub, path, matched)
    }
  }
  return out
}

/** Paths below a field that is null (or a scalar) are answered by it: they did match. */
function markBelow(tree: Tree, at: string, matched: Set<string>): void {
  for (const [key, sub] of tree) {
    const path = `${at}.${key}`
    if (sub === true) matched.add(path)
    else markBelow(sub, path, matched)
  }
}

function cutStrings(value: unknown, limit: number, counter: { cut: number }): unknown {
  if (typeof value === 'string') {
    if (value.length <= limit) return value
    counter.cut++
    return `${value.slice(0, limit)}… [${value.length - limit} more characters]`
  }
  if (Array.isArray(value)) return value.map((v) => cutStrings(v, limit, counter))
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutStrings(v, limit, counter)]))
  return value
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
