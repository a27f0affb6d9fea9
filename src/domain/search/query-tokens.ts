/**
 * What the search index sees: a JavaScript model of the SQLite FTS5 tokenizer the
 * post index uses (`unicode61 remove_diacritics 2 tokenchars '#'` with the exceptions below), the
 * PostgreSQL index's tokenizer and the query parser's, the compilation of a parsed query
 * to an FTS5 MATCH expression, and a brute-force evaluator with FTS5's meaning. The evaluator is the
 * reference the index is tested against, so the model must agree with SQLite wherever tests look.
 *
 * The model, checked code point by code point against SQLite 3.53 (each character between two ASCII
 * letters, compared through fts5vocab):
 * - Token characters: letters (L*), numbers (N*), private use (Co), code points unassigned in the
 *   Unicode version of the runtime (Cn: SQLite treats what its own tables do not know as token
 *   characters), `#` (tokenchars), and the 25 combining diacritics SQLite removes (below). Everything
 *   else separates tokens, including every other combining mark (Indic viramas and vowel signs split
 *   words in SQLite too).
 * - Folding, per code point: simple case folding (upper then lower case, when that is one code point:
 *   `ς`→`σ`, `ſ`→`s`, `µ`→`μ`; `ß` stays), then, for Latin letters only, decomposition with every
 *   combining mark dropped (`É`→`e`, `ł` stays, `ø` stays). Greek, Cyrillic and Arabic letters keep
 *   their marks, as in SQLite. A few Latin letters with two diacritics that SQLite does not reduce
 *   (`ǡ ǣ ǯ ǽ ǿ`) and the dotless `ı` are kept.
 * SQLite's Unicode tables are older than the runtime's, so its plain unicode61 differs from this model
 * on about 4,750 code points: characters assigned since Unicode 6.x (₿ ₽, newer emoji such as 🤝 or
 * skin tones, newer marks) are token characters to it, and Tai Lue and Vedic letters separate. The
 * post index's tokenizer lists those as exceptions (src/adapters/sqlite/fts5-tokenizer.ts, generated
 * from SQLite's tokens of every code point), so which characters make tokens agrees exactly, checked by
 * a test over every code point. Case folding of 454 letters SQLite's tables do not fold (newer
 * Cherokee, Latin Extended-D, ...) still differs; query terms made only of characters without a letter
 * or digit are dropped or refused by the grammar.
 */
import type { QueryNode } from './query-grammar.ts'

// The combining diacritics SQLite's unicode61 treats as part of a token and removes (no other
// combining mark is a token character in SQLite).
const REMOVED_MARKS = '\\u0300-\\u0304\\u0306-\\u030c\\u030f\\u0311\\u031b\\u0323-\\u0328\\u032d\\u032e\\u0330\\u0331'
// U+FFFE and U+FFFF are unassigned but never token characters: SQLite reads either as U+FFFD, a symbol.
const TOKEN_CLASS = `[\\p{L}\\p{N}\\p{Co}\\p{Cn}#${REMOVED_MARKS}]--[\\uFFFE\\uFFFF]`
const TOKEN_RUN_RE = new RegExp(`[${TOKEN_CLASS}]+`, 'gv')
const TOKEN_CHAR_RE = new RegExp(`^[${TOKEN_CLASS}]$`, 'v')
const REMOVED_MARK_RE = new RegExp(`^[${REMOVED_MARKS}]$`, 'u')
const LETTER_OR_NUMBER_RE = /[^#]/u
const LATIN_RE = /^\p{Script=Latin}$/u
const ANY_MARK_RE = /\p{M}/gu
// Latin letters SQLite leaves whole although they decompose (two diacritics, or no case fold).
const KEPT_LATIN = new Set([...'ıǠǡǢǣǮǯǼǽǾǿ'])
// Control characters end an SQLite string early (NUL) and are separators to the tokenizer anyway.
const CONTROL_RE = /\p{Cc}/gu
const ASCII_RE = /^[\x00-\x7f]*$/
const ASCII_TOKEN_RE = /[a-z0-9#]+/g

function foldCodePoint(c: string): string {
  if (REMOVED_MARK_RE.test(c)) return ''
  if (KEPT_LATIN.has(c)) return c.toLowerCase()
  const upper = c.toUpperCase()
  // Simple case folding: a full upper-case mapping (ß → SS) is not a fold.
  const lower = [...upper].length === 1 ? upper.toLowerCase() : c.toLowerCase()
  if (!LATIN_RE.test(c)) return lower
  return lower.normalize('NFD').replace(ANY_MARK_RE, '').normalize('NFC')
}

/** Whether a code point belongs to a token (a letter, number, `#`, ...) rather than separating them. */
export function isTokenChar(c: string): boolean {
  return TOKEN_CHAR_RE.test(c)
}

/** The tokens SQLite FTS5 (`unicode61 remove_diacritics 2 tokenchars '#'`) makes of a text. */
export function tokenize(text: string): string[] {
  // ASCII alone (nearly every query and job title): token characters are letters, digits and `#`,
  // and folding is lower-casing; the per-code-point fold below costs several regex tests each.
  if (ASCII_RE.test(text)) return text.toLowerCase().match(ASCII_TOKEN_RE) ?? []
  const tokens: string[] = []
  for (const run of text.matchAll(TOKEN_RUN_RE)) {
    let token = ''
    for (const c of run[0]) token += foldCodePoint(c)
    // A run of removed diacritics alone folds to nothing, and SQLite emits no token for it.
    if (token !== '') tokens.push(token)
  }
  return tokens
}

/** Whether any token has something to search for beyond `#` (a letter, number, ...). */
export function hasSearchableToken(tokens: readonly string[]): boolean {
  return tokens.some((t) => LETTER_OR_NUMBER_RE.test(t))
}

// Every term becomes an FTS5 string: inside one, only `"` is special (doubled), so user text cannot
// reach FTS5's syntax (column filters, NEAR, `*`, `^`, `:`, `+`); FTS5 tokenizes the string with the
// table's tokenizer, which is what tokenize() models.
const fts5String = (text: string): string => `"${text.replace(CONTROL_RE, ' ').replaceAll('"', '""')}"`

/**
 * The FTS5 MATCH expression of a parsed query. Every group is parenthesised, so FTS5's own precedence
 * (where implicit AND binds tighter than NOT) never matters.
 */
export function toFts5Match(tree: QueryNode): string {
  const nested = (node: QueryNode): string => {
    const text = toFts5Match(node)
    return node.kind === 'and' || node.kind === 'or' || node.kind === 'not' ? `(${text})` : text
  }
  switch (tree.kind) {
    case 'word':
    case 'phrase':
    case 'hashtag':
      return fts5String(tree.text)
    case 'and':
      return tree.children.map(nested).join(' AND ')
    case 'or':
      return tree.children.map(nested).join(' OR ')
    case 'not':
      return `${nested(tree.include)} NOT ${nested(tree.exclude)}`
  }
}

/** Whether `needle` occurs in `haystack` as consecutive tokens (a phrase's meaning). */
export function containsRun(haystack: readonly string[], needle: readonly string[]): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer
    return true
  }
  return false
}

/**
 * Whether a document with these tokens matches the query, with FTS5's meaning: a term matches when
 * its tokens occur contiguously (one token: anywhere), AND/OR are conjunction and disjunction, and
 * `a NOT b` is a and not b.
 */
export function matches(tree: QueryNode, tokens: readonly string[]): boolean {
  switch (tree.kind) {
    case 'word':
    case 'phrase':
    case 'hashtag':
      return tree.tokens.length > 0 && containsRun(tokens, tree.tokens)
    case 'and':
      return tree.children.every((child) => matches(child, tokens))
    case 'or':
      return tree.children.some((child) => matches(child, tokens))
    case 'not':
      return matches(tree.include, tokens) && !matches(tree.exclude, tokens)
  }
}
