/**
 * The post search `query` language: lexing, silent
 * normalisation, limits and parsing into a tree the index adapters compile (query-tokens.ts has the
 * FTS5 compiler and the reference evaluator). Pure: every refusal is an ApiError INVALID_PARAMETER
 * naming `query` and saying what is wrong; nothing else is thrown for any string.
 *
 * Grammar, loosest first (FTS5's precedence, with implicit AND equal to AND; all left-associative):
 *   or   := and ("OR" and)*
 *   and  := not (("AND")? not)*          two terms side by side mean AND
 *   not  := term ("NOT" term)*           binary, as in FTS5: `a NOT b` is a and not b
 *   term := word | hashtag | phrase | "(" or ")"
 * FTS5 itself lets implicit AND bind tighter than NOT (`a NOT b c` is a NOT (b c) there); here it is
 * (a NOT b) AND c, what a reader of `python NOT java remote` expects. The compiler parenthesises every
 * group, so the index never applies its own precedence.
 *
 * Lexing and silent normalisation (the echo `query` shows the result):
 * - Whitespace and control characters separate lexemes; the echo joins them with single spaces, with
 *   none just inside parentheses. Parentheses always stand alone, even glued to a word: `(a` is `(` `a`,
 *   `f(x)` is `f (x)`.
 * - Every double quote, straight or curly (" “ ” „ ‟ ″ ‶ 〝 〞 〟 ＂), opens or closes a phrase; the
 *   phrase text is kept exactly, inner spaces included, and is echoed between straight quotes. A
 *   quote glued to a word splits it: `foo"bar baz"` is `foo` `"bar baz"`. A phrase never closed is
 *   refused (unbalanced double quote).
 * - Outside phrases, curly single quotes (‘ ’ ‚ ‛ ′ ‵ ＇) become `'`. A single quote opens a phrase
 *   when it does not follow a token character (letter, digit, `#`) and is followed by something
 *   other than space or a quote, and the first later single quote that follows a non-space and is
 *   not followed by a token character closes it, with no double quote or parenthesis in between:
 *   `'machine learning'` is `"machine learning"`, `('AI')` is `("AI")`, `'AI',` is `"AI"` (the `,`
 *   is then dropped, below). Any other single quote is part of its word: a mid-word apostrophe
 *   (`O'Neil`, `don't`) and a lone or unmatched one (`'90s`, `students'`).
 * - A word that is `and`, `or` or `not` in any case is the operator (to search for the word itself,
 *   quote it: `"not"`); so is a bare `&` or `&&` (AND). A word glued to punctuation (`and,`) is a word.
 *   `|` and `||` are refused with a pointer to OR rather than dropped, as dropping would silently turn
 *   an intended OR into AND.
 * - A word or phrase with nothing to search for (no letter or digit: `!!!`, `-`, a lone `#`, an
 *   emoji, `""`) is dropped when it stands beside another term with no operator between them
 *   (`C++ - remote` is `C++ remote`; `"" a` is `a`), and refused otherwise (`a AND !!!`, `!!!`, `(-)`),
 *   as it would leave an operator without a side or an empty query.
 * - A hashtag term is a word whose only token is `#` followed by a letter or digit (`#hiring`,
 *   `#Hiring!`); `C#` is a word (token `c#`), `##x` is a word, and a quoted `"#hiring"` is a phrase.
 *
 * Limits and refusals, checked in this order: a string; at most 500 characters (code points of
 * the raw input, as TypeBox's maxLength counts them); not empty or blank; balanced double quotes;
 * no `|`; balanced parentheses; at most 5 levels of parentheses; at most 5 explicit operators (AND,
 * OR, NOT, including `&` and lower-case ones; implicit AND, parentheses, phrases and terms count 0);
 * at most 20 phrases (either quote style, after dropping); no term without anything to search for;
 * then the structure: every operator needs a term or group on both sides, `()` is refused, and a
 * `NOT` with nothing on its left is refused as a query that only excludes. As NOT is binary and every term has a token,
 * every accepted query needs at least one term present: none matches an empty document.
 */
import { invalidParameter, type ApiError } from '../errors.ts'
import { hasSearchableToken, isTokenChar, tokenize } from './query-tokens.ts'

export const MAX_QUERY_LENGTH = 500
export const MAX_QUERY_OPERATORS = 5
export const MAX_QUERY_PHRASES = 20
export const MAX_QUERY_DEPTH = 5

export type QueryOperator = 'AND' | 'OR' | 'NOT'

/** A term: `tokens` is what the index tokenizer makes of `text` (never empty in a parsed tree). */
export interface TermNode {
  readonly kind: 'word' | 'phrase' | 'hashtag'
  /** As written (after normalisation of quotes); a phrase's text without its quotes. */
  readonly text: string
  readonly tokens: readonly string[]
}
/** Two or more children; nested groups of the same kind are flattened. */
export interface BoolNode {
  readonly kind: 'and' | 'or'
  readonly children: readonly QueryNode[]
}
/** `include NOT exclude`. */
export interface NotNode {
  readonly kind: 'not'
  readonly include: QueryNode
  readonly exclude: QueryNode
}
export type QueryNode = TermNode | BoolNode | NotNode

export interface ParsedQuery {
  /** The interpreted query, echoed to the client and bound into cursors; parses to the same tree. */
  readonly query: string
  readonly tree: QueryNode
  /** Explicit AND, OR and NOT operators. */
  readonly operators: number
  readonly phrases: number
  /** Deepest parenthesis nesting. */
  readonly depth: number
  /** Whether a hashtag term appears (sortBy `date` refuses it). */
  readonly hasHashtag: boolean
}

type Lexeme =
  | { readonly type: 'word'; readonly text: string }
  | { readonly type: 'phrase'; readonly text: string }
  | { readonly type: 'op'; readonly op: QueryOperator }
  | { readonly type: 'open' }
  | { readonly type: 'close' }
  /** A double quote never closed, with the rest of the input. */
  | { readonly type: 'unclosed'; readonly text: string }

const DOUBLE_QUOTES = new Set(['"', '\u201C', '\u201D', '\u201E', '\u201F', '\u2033', '\u2036', '\u301D', '\u301E', '\u301F', '\uFF02'])
const SINGLE_QUOTES = new Set(["'", '\u2018', '\u2019', '\u201A', '\u201B', '\u2032', '\u2035', '\uFF07'])
const SPACE_RE = /^[\s\p{Cc}]$/u
const AND_RE = /^(?:and|&|&&)$/i
const OR_RE = /^or$/i
const NOT_RE = /^not$/i
const PIPES_RE = /^\|+$/
const HASHTAG_TOKEN_RE = /^#[^#]/

const refuse = (why: string): ApiError => invalidParameter('query', why)

/** At most `max` code points of `text` for a message, so an error never echoes a whole query. */
function excerpt(text: string, max = 40): string {
  const chars = Array.from(text)
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : chars.join('')
}

function codePointCount(text: string): number {
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    const afterHigh = i > 0 && (text.charCodeAt(i - 1) & 0xfc00) === 0xd800
    if (!((unit & 0xfc00) === 0xdc00 && afterHigh)) count++
  }
  return count
}

function classify(word: string): Lexeme {
  if (AND_RE.test(word)) return { type: 'op', op: 'AND' }
  if (OR_RE.test(word)) return { type: 'op', op: 'OR' }
  if (NOT_RE.test(word)) return { type: 'op', op: 'NOT' }
  return { type: 'word', text: word }
}

/** Whether the single quote at `i` may open a phrase: at the start of a word, before its text. */
function mayOpen(cs: readonly string[], i: number): boolean {
  const prev = cs[i - 1]
  const next = cs[i + 1]
  return (
    (prev === undefined || !isTokenChar(prev)) &&
    next !== undefined &&
    !SPACE_RE.test(next) &&
    !SINGLE_QUOTES.has(next) &&
    !DOUBLE_QUOTES.has(next)
  )
}

/** The closing quote of the phrase opened at `i`, or where the search for it stopped (as -1 - at). */
function findCloser(cs: readonly string[], i: number): number {
  for (let j = i + 1; j < cs.length; j++) {
    const c = cs[j] as string
    if (DOUBLE_QUOTES.has(c) || c === '(' || c === ')') return -1 - j
    if (!SINGLE_QUOTES.has(c) || j === i + 1 || SPACE_RE.test(cs[j - 1] as string)) continue
    const next = cs[j + 1]
    if (next === undefined || !isTokenChar(next)) return j
  }
  return -1 - cs.length
}

function lex(raw: string): Lexeme[] {
  const cs = Array.from(raw)
  const out: Lexeme[] = []
  let word = ''
  const endWord = (): void => {
    if (word !== '') out.push(classify(word))
    word = ''
  }
  // An opener that found no closer before a blocker means no opener before that blocker can find one
  // (they see a subset of the same candidates), so each stretch is searched once: linear time.
  let noCloserBefore = -1
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i] as string
    if (SPACE_RE.test(c)) {
      endWord()
    } else if (c === '(' || c === ')') {
      endWord()
      out.push({ type: c === '(' ? 'open' : 'close' })
    } else if (DOUBLE_QUOTES.has(c)) {
      endWord()
      let j = i + 1
      while (j < cs.length && !DOUBLE_QUOTES.has(cs[j] as string)) j++
      const text = cs.slice(i + 1, j).join('')
      if (j === cs.length) {
        out.push({ type: 'unclosed', text })
        return out
      }
      out.push({ type: 'phrase', text })
      i = j
    } else if (SINGLE_QUOTES.has(c)) {
      const found = i >= noCloserBefore && mayOpen(cs, i) ? findCloser(cs, i) : -1
      if (found >= 0) {
        endWord()
        out.push({ type: 'phrase', text: cs.slice(i + 1, found).join('') })
        i = found
      } else {
        if (found < -1) noCloserBefore = -1 - found
        word += "'"
      }
    } else {
      word += c
    }
  }
  endWord()
  return out
}

const isTermLexeme = (lx: Lexeme): lx is Extract<Lexeme, { type: 'word' | 'phrase' }> =>
  lx.type === 'word' || lx.type === 'phrase'

/** A word or phrase with nothing to search for; `|` is kept for its own refusal. */
const isEmptyTerm = (lx: Lexeme): boolean =>
  isTermLexeme(lx) && !(lx.type === 'word' && PIPES_RE.test(lx.text)) && !hasSearchableToken(tokenize(lx.text))

/**
 * Drops each empty term that has a term directly beside it (no operator between). Neighbours are the
 * nearest lexemes that are not empty terms themselves, so dropping never changes another's fate and
 * a second pass drops nothing more.
 */
function dropEmptyTerms(lexemes: readonly Lexeme[]): Lexeme[] {
  const empty = lexemes.map(isEmptyTerm)
  const endsTerm = (lx: Lexeme | undefined) => lx !== undefined && (isTermLexeme(lx) || lx.type === 'close')
  const startsTerm = (lx: Lexeme | undefined) =>
    lx !== undefined && (isTermLexeme(lx) || lx.type === 'open' || lx.type === 'unclosed')
  const before: (Lexeme | undefined)[] = []
  let last: Lexeme | undefined
  lexemes.forEach((lx, k) => {
    before.push(last)
    if (!empty[k]) last = lx
  })
  const kept: Lexeme[] = []
  let after: Lexeme | undefined
  for (let k = lexemes.length - 1; k >= 0; k--) {
    const lx = lexemes[k] as Lexeme
    if (!empty[k]) {
      after = lx
      kept.push(lx)
    } else if (!(endsTerm(before[k]) || startsTerm(after))) {
      kept.push(lx)
    }
  }
  return kept.reverse()
}

const sameLexemes = (a: readonly Lexeme[], b: readonly Lexeme[]): boolean =>
  a.length === b.length && a.every((lx, k) => JSON.stringify(lx) === JSON.stringify(b[k]))

/**
 * The lexemes with empty terms dropped, unless dropping changes how the rest reads. A dropped phrase
 * can stand between an opening single quote and its would-be closer, which its double quotes had
 * blocked: `'python""students'` is the words `'python` and `students'`, but without the `""` the
 * echo `'python students'` would read as a phrase. Such a query keeps its empty terms, and so is
 * refused for them, rather than echoed as something that searches differently.
 */
function normalisedLexemes(raw: string): Lexeme[] {
  const lexemes = lex(raw)
  const kept = dropEmptyTerms(lexemes)
  return kept.length === lexemes.length || sameLexemes(lex(print(kept)), kept) ? kept : lexemes
}

function print(lexemes: readonly Lexeme[]): string {
  let out = ''
  let prev: Lexeme | undefined
  for (const lx of lexemes) {
    if (prev !== undefined && prev.type !== 'open' && lx.type !== 'close') out += ' '
    switch (lx.type) {
      case 'word':
        out += lx.text
        break
      case 'phrase':
        out += `"${lx.text}"`
        break
      case 'unclosed':
        out += `"${lx.text}`
        break
      case 'op':
        out += lx.op
        break
      case 'open':
        out += '('
        break
      case 'close':
        out += ')'
        break
    }
    prev = lx
  }
  return out
}

/**
 * The query as the service interprets it, for any string (no limit or validity check): quotes,
 * operators and spacing normalised, empty terms beside other terms dropped. Idempotent.
 */
export function normaliseSearchQuery(raw: string): string {
  return print(normalisedLexemes(raw))
}

function termNode(lx: Extract<Lexeme, { type: 'word' | 'phrase' }>): TermNode {
  const tokens = tokenize(lx.text)
  const hashtag = lx.type === 'word' && tokens.length === 1 && HASHTAG_TOKEN_RE.test(tokens[0] as string)
  return { kind: lx.type === 'phrase' ? 'phrase' : hashtag ? 'hashtag' : 'word', text: lx.text, tokens }
}

function combine(kind: 'and' | 'or', parts: readonly QueryNode[]): QueryNode {
  if (parts.length === 1) return parts[0] as QueryNode
  return { kind, children: parts.flatMap((p) => (p.kind === kind ? p.children : [p])) }
}

/** Recursive descent over checked lexemes: quotes and parentheses balanced, depth at most 5. */
function parseLexemes(lexemes: readonly Lexeme[]): QueryNode {
  let at = 0
  const peek = (): Lexeme | undefined => lexemes[at]
  const isOp = (op: QueryOperator): boolean => {
    const lx = peek()
    return lx !== undefined && lx.type === 'op' && lx.op === op
  }

  // `after` is the operator whose right side this is, for the message when it is missing.
  function primary(after: QueryOperator | undefined): QueryNode {
    const lx = peek()
    if (lx !== undefined && isTermLexeme(lx)) {
      at++
      return termNode(lx)
    }
    if (lx?.type === 'open') {
      at++
      if (peek()?.type === 'close') throw refuse("empty parentheses '()'")
      const inner = or()
      if (peek()?.type !== 'close') throw refuse("unbalanced parenthesis: a '(' is never closed")
      at++
      return inner
    }
    const notTerm = lx?.type === 'op' && lx.op === 'NOT'
    if (after !== undefined) {
      throw refuse(
        notTerm
          ? `'${after}' needs a term on both sides; 'NOT' is not a term, it excludes from the term on its left, as in 'python NOT java'`
          : `'${after}' needs a term on both sides`,
      )
    }
    if (notTerm) throw refuse("a query cannot only exclude: 'NOT' needs a term on its left, as in 'python NOT java'")
    if (lx?.type === 'op') throw refuse(`'${lx.op}' needs a term on both sides`)
    // Only `)` or the end can remain here, and balance was checked before parsing.
    throw refuse("unbalanced parenthesis: a ')' has no matching '('")
  }

  function not(after: QueryOperator | undefined): QueryNode {
    let node = primary(after)
    while (isOp('NOT')) {
      at++
      node = { kind: 'not', include: node, exclude: primary('NOT') }
    }
    return node
  }

  function and(after: QueryOperator | undefined): QueryNode {
    const parts = [not(after)]
    for (;;) {
      if (isOp('AND')) {
        at++
        parts.push(not('AND'))
        continue
      }
      const lx = peek()
      if (lx === undefined || !(isTermLexeme(lx) || lx.type === 'open')) break
      parts.push(not(undefined))
    }
    return combine('and', parts)
  }

  function or(): QueryNode {
    const parts = [and(undefined)]
    while (isOp('OR')) {
      at++
      parts.push(and('OR'))
    }
    return combine('or', parts)
  }

  const tree = or()
  if (at < lexemes.length) throw refuse("unbalanced parenthesis: a ')' has no matching '('")
  return tree
}

const hasHashtagTerm = (node: QueryNode): boolean => {
  switch (node.kind) {
    case 'hashtag':
      return true
    case 'word':
    case 'phrase':
      return false
    case 'and':
    case 'or':
      return node.children.some(hasHashtagTerm)
    case 'not':
      return hasHashtagTerm(node.include) || hasHashtagTerm(node.exclude)
  }
}

/**
 * Parses a search `query`: normalises it, applies the limits and returns the tree with its
 * echo. Throws invalidParameter('query', why) for every refusal.
 */
export function parseSearchQuery(raw: string): ParsedQuery {
  // The body schema sends strings only; a caller that skipped it still gets a 400, not a crash.
  if (typeof raw !== 'string') throw refuse('must be a string')
  const length = codePointCount(raw)
  if (length > MAX_QUERY_LENGTH) {
    throw refuse(`at most ${MAX_QUERY_LENGTH} characters; this query has ${length}`)
  }
  const lexemes = normalisedLexemes(raw)
  if (lexemes.length === 0) throw refuse('the query is empty')

  const unclosed = lexemes.find((lx) => lx.type === 'unclosed')
  if (unclosed !== undefined) {
    throw refuse(`unbalanced double quote: the phrase starting "${excerpt(unclosed.text.trimEnd())}" is never closed`)
  }
  const pipes = lexemes.find((lx) => lx.type === 'word' && PIPES_RE.test(lx.text))
  if (pipes !== undefined && pipes.type === 'word') {
    throw refuse(`'${excerpt(pipes.text)}' is not an operator; write OR`)
  }

  let level = 0
  let depth = 0
  for (const lx of lexemes) {
    if (lx.type === 'open') depth = Math.max(depth, ++level)
    if (lx.type === 'close' && --level < 0) throw refuse("unbalanced parenthesis: a ')' has no matching '('")
  }
  if (level > 0) throw refuse("unbalanced parenthesis: a '(' is never closed")
  if (depth > MAX_QUERY_DEPTH) {
    throw refuse(`at most ${MAX_QUERY_DEPTH} levels of parentheses; this query has ${depth}`)
  }

  const operators = lexemes.filter((lx) => lx.type === 'op').length
  if (operators > MAX_QUERY_OPERATORS) {
    throw refuse(`at most ${MAX_QUERY_OPERATORS} boolean operators (AND, OR, NOT); this query has ${operators}`)
  }
  const phrases = lexemes.filter((lx) => lx.type === 'phrase').length
  if (phrases > MAX_QUERY_PHRASES) {
    throw refuse(`at most ${MAX_QUERY_PHRASES} quoted phrases; this query has ${phrases}`)
  }

  const empty = lexemes.find(isEmptyTerm)
  if (empty !== undefined && isTermLexeme(empty)) {
    const shown = empty.type === 'phrase' ? `the phrase "${excerpt(empty.text)}"` : `'${excerpt(empty.text)}'`
    throw refuse(`${shown} has no letters or digits to search for`)
  }

  const tree = parseLexemes(lexemes)
  return { query: print(lexemes), tree, operators, phrases, depth, hasHashtag: hasHashtagTerm(tree) }
}

/**
 * The same query with each AND's and each OR's repeated operands kept once (`a a b` is `a b`), where
 * "repeated" means matching the same token sequence (`the`, `The` and `"the"` are one term): what the
 * index is asked. The matches are the same (AND and OR are idempotent); a repeat no longer weighs its
 * term more in BM25. Without this, one word repeated within the 500 characters (implicit AND is no
 * operator, so the operator limit does not stop it) would have bm25() score it once per repeat for
 * every post holding it, and a free-plan key could hold the server's one thread from every other
 * caller. A group left with one operand is that operand.
 */
export function withoutRepeats(node: QueryNode): QueryNode {
  if (node.kind === 'not') {
    const include = withoutRepeats(node.include)
    const exclude = withoutRepeats(node.exclude)
    return include === node.include && exclude === node.exclude ? node : { kind: 'not', include, exclude }
  }
  if (node.kind !== 'and' && node.kind !== 'or') return node
  const seen = new Set<string>()
  const kept: QueryNode[] = []
  for (const child of node.children) {
    const operand = withoutRepeats(child)
    const key = operandKey(operand)
    if (seen.has(key)) continue
    seen.add(key)
    kept.push(operand)
  }
  if (kept.length === 1) return kept[0] as QueryNode
  return kept.length === node.children.length && kept.every((k, i) => k === node.children[i]) ? node : { kind: node.kind, children: kept }
}

/** What an operand matches, as text: terms by their tokens, groups by their operands in order. */
function operandKey(node: QueryNode): string {
  switch (node.kind) {
    case 'word':
    case 'phrase':
    case 'hashtag':
      return JSON.stringify(node.tokens)
    case 'and':
    case 'or':
      return `${node.kind}(${node.children.map(operandKey).join(',')})`
    case 'not':
      return `not(${operandKey(node.include)},${operandKey(node.exclude)})`
  }
}
