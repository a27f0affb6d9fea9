/**
 * Characters as the API's limits count them: code points, as TypeBox's maxLength counts them (an emoji
 * is one, not the two UTF-16 units `.length` counts).
 */
export function codePointLength(s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}

/** The first `max` code points of `s`: a cut at a UTF-16 index could split an emoji into a lone surrogate. */
export function firstCodePoints(s: string, max: number): string {
  let n = 0
  let end = 0
  for (const c of s) {
    if (n++ === max) return s.slice(0, end)
    end += c.length
  }
  return s
}

/**
 * `value` with every string made well-formed (a lone surrogate becomes U+FFFD), copied only where one
 * changes. A lone surrogate is no character: SQLite would store it as three bytes it reads back as
 * three U+FFFD, PostgreSQL as one, so the same record would read differently on the two stores.
 */
export function wellFormed<T>(value: T): T {
  if (typeof value === 'string') {
    // ES2024 string methods (Node 20 has them; the project's TypeScript lib is older).
    const s = value as unknown as { isWellFormed(): boolean; toWellFormed(): string }
    return (s.isWellFormed() ? value : s.toWellFormed()) as T
  }
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) {
    let out: unknown[] | undefined
    value.forEach((v: unknown, i) => {
      const w = wellFormed(v)
      if (w !== v) (out ??= [...value])[i] = w
    })
    return (out ?? value) as T
  }
  let out: Record<string, unknown> | undefined
  for (const [k, v] of Object.entries(value)) {
    const w = wellFormed(v)
    if (w !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = w
  }
  return (out ?? value) as T
}
