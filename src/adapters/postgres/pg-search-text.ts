/**
 * The PostgreSQL side of the search model (src/domain/search/query-tokens.ts): a post's tokens as a
 * tsvector literal and a parsed query as a tsquery literal. PostgreSQL's own parsers would split
 * `#hiring`, stem words and drop stop words; building both literals from the FTS5 tokenizer model
 * instead gives the GIN index exactly the tokens the SQLite index holds, and a query exactly FTS5's
 * meaning: a term matches when its tokens occur contiguously (`<->`), AND is `&`, OR is `|`, and
 * `a NOT b` is `a & !b`.
 *
 * PostgreSQL's limits, and what they change (for a post the writer accepts, MAX_POST_CONTENT characters
 * at most, only a word used over 256 times in one post, such as one word repeated to fill a post):
 * - a lexeme holds at most 2047 bytes: a longer token is left out of the vector but keeps its position,
 *   so phrases around it still need their tokens adjacent. No query can name it (a query has at most
 *   500 characters), except through the rare case folding that lengthens text: such a term is false;
 * - positions run to 16383 (later tokens share the last position; a post of MAX_POST_CONTENT
 *   characters has at most 15,000 tokens) and a lexeme keeps its first 256 positions: a phrase
 *   through a later place of such a word may be missed, and bm25 counts it 256 times (README).
 */
import type { QueryNode, TermNode } from '../../domain/search/query-grammar.ts'
import { tokenize } from '../../domain/search/query-tokens.ts'

/** Longest lexeme PostgreSQL accepts, in bytes (MAXSTRLEN). */
export const MAX_LEXEME_BYTES = 2047
/** Highest position a tsvector records (MAXENTRYPOS - 1). */
export const MAX_POSITION = 16383
/** Positions a tsvector keeps per lexeme (MAXNUMPOS). */
export const MAX_POSITIONS_PER_LEXEME = 256

/** A lexeme quoted for tsvector/tsquery input: inside quotes only `'` and `\` are special. */
export const quoteLexeme = (token: string): string => `'${token.replace(/['\\]/g, (c) => c + c)}'`

const fits = (token: string): boolean => token.length * 3 <= MAX_LEXEME_BYTES || Buffer.byteLength(token) <= MAX_LEXEME_BYTES

export interface IndexedText {
  /** tsvector literal with positions (1-based token numbers). */
  vector: string
  /** Tokens in the text: the document length BM25 uses (FTS5 counts the same tokens). */
  length: number
}

/** The index entry of a post's text. */
export function indexText(text: string): IndexedText {
  const tokens = tokenize(text)
  const positions = new Map<string, number[]>()
  tokens.forEach((token, i) => {
    if (!fits(token)) return
    const list = positions.get(token)
    if (list === undefined) positions.set(token, [Math.min(i + 1, MAX_POSITION)])
    else if (list.length < MAX_POSITIONS_PER_LEXEME) list.push(Math.min(i + 1, MAX_POSITION))
  })
  let vector = ''
  for (const [token, list] of positions) vector += `${vector === '' ? '' : ' '}${quoteLexeme(token)}:${list.join(',')}`
  return { vector, length: tokens.length }
}

/** A term's tsquery: its tokens in sequence; null when it can match nothing stored. */
function termQuery(term: TermNode): string | null {
  if (term.tokens.length === 0 || !term.tokens.every(fits)) return null
  return term.tokens.map(quoteLexeme).join(' <-> ')
}

/**
 * The tsquery literal of a parsed query, or null when no post can match it. Every operand that is
 * not a single lexeme is parenthesised, so PostgreSQL's precedence (! before <-> before & before |)
 * never decides anything. A term that can match nothing is false, and is simplified away, since
 * tsquery has no constant for it.
 */
export function toTsquery(tree: QueryNode): string | null {
  const nested = (node: QueryNode): string | null => {
    const text = toTsquery(node)
    if (text === null) return null
    const single = (node.kind === 'word' || node.kind === 'phrase' || node.kind === 'hashtag') && node.tokens.length === 1
    return single ? text : `(${text})`
  }
  switch (tree.kind) {
    case 'word':
    case 'phrase':
    case 'hashtag':
      return termQuery(tree)
    case 'and': {
      const parts = tree.children.map(nested)
      return parts.includes(null) ? null : parts.join(' & ')
    }
    case 'or': {
      const parts = tree.children.map(nested).filter((p): p is string => p !== null)
      return parts.length === 0 ? null : parts.join(' | ')
    }
    case 'not': {
      const include = nested(tree.include)
      if (include === null) return null
      const exclude = nested(tree.exclude)
      return exclude === null ? include : `${include} & !${exclude}`
    }
  }
}

/** The terms of a query in order, each one BM25 "phrase" as FTS5 counts them (repeats included). */
export function queryTerms(tree: QueryNode): TermNode[] {
  switch (tree.kind) {
    case 'word':
    case 'phrase':
    case 'hashtag':
      return [tree]
    case 'and':
    case 'or':
      return tree.children.flatMap(queryTerms)
    case 'not':
      return [...queryTerms(tree.include), ...queryTerms(tree.exclude)]
  }
}
